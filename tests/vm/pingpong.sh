#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 900
# vm-group: short
#
# The distro's ibv_{rc,uc,ud,srq,xsrq}_pingpong (rdma-core 44, through the
# provider) between two processes on one device: server and client on the
# same device and GID 1 (IPv4-mapped RoCEv2), each checking the data it
# receives (-c).  Several sizes, including multi-packet messages (the
# path MTU is 1024) and, for UD, a full MTU; completion events (-e), the
# ibv_qp_ex send API (-N) and, on wookie, device memory (-j).  Pass = both processes exit 0 in time.
# WOOKIE_RDMA_TYPE=rxe runs the same on rdma_rxe.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

rdma_setup
pp=(-d "$RDMA_DEV" -g "$RDMA_GID" -c)
t=120

# RC: one byte, one packet, multi-packet (64 packets), MTU 4096 request
# clamped to the port's, events, the new send API, one big message.
pair rc-1 $t ibv_rc_pingpong "${pp[@]}" -s 1 -n 200
pair rc-4096 $t ibv_rc_pingpong "${pp[@]}" -s 4096 -n 200
pair rc-65536 $t ibv_rc_pingpong "${pp[@]}" -s 65536 -n 50
pair rc-mtu-4096 $t ibv_rc_pingpong "${pp[@]}" -s 8192 -n 50 -m 4096
pair rc-events $t ibv_rc_pingpong "${pp[@]}" -s 4096 -n 100 -e
pair rc-new-send $t ibv_rc_pingpong "${pp[@]}" -s 4096 -n 100 -N
# -j: the buffer in device memory (ibv_alloc_dm, an MR on it; rxe has none).
[ "$RDMA_TYPE" != wookie ] ||
	pair rc-dm $t ibv_rc_pingpong "${pp[@]}" -s 4096 -n 100 -j
pair rc-1M $t ibv_rc_pingpong "${pp[@]}" -s 1048576 -n 5 -r 10

# UC: as RC, without acknowledgements.
pair uc-1 $t ibv_uc_pingpong "${pp[@]}" -s 1 -n 200
pair uc-4096 $t ibv_uc_pingpong "${pp[@]}" -s 4096 -n 200
pair uc-65536 $t ibv_uc_pingpong "${pp[@]}" -s 65536 -n 50
pair uc-events $t ibv_uc_pingpong "${pp[@]}" -s 4096 -n 100 -e

# UD: messages up to the active MTU (1024 on a 1500-byte veth).
pair ud-1 $t ibv_ud_pingpong "${pp[@]}" -s 1 -n 200
pair ud-512 $t ibv_ud_pingpong "${pp[@]}" -s 512 -n 200
pair ud-1024 $t ibv_ud_pingpong "${pp[@]}" -s 1024 -n 200
pair ud-events $t ibv_ud_pingpong "${pp[@]}" -s 1024 -n 100 -e

# SRQ: 16 RC QPs (the default) sharing one receive queue.
pair srq-1 $t ibv_srq_pingpong "${pp[@]}" -s 1 -n 50
pair srq-4096 $t ibv_srq_pingpong "${pp[@]}" -s 4096 -n 50
pair srq-65536 $t ibv_srq_pingpong "${pp[@]}" -s 65536 -n 10
pair srq-4qp-events $t ibv_srq_pingpong "${pp[@]}" -s 4096 -n 50 -q 4 -e

# XRC: an XRC domain, an XRC SRQ and XRC send/receive QPs on each side
# (ibv_xsrq_pingpong has no data check; it checks every completion).
xs=(-d "$RDMA_DEV" -g "$RDMA_GID")
pair xsrq-1 $t ibv_xsrq_pingpong "${xs[@]}" -s 1 -n 100
pair xsrq-65536 $t ibv_xsrq_pingpong "${xs[@]}" -s 65536 -n 20
pair xsrq-events $t ibv_xsrq_pingpong "${xs[@]}" -s 4096 -n 50 -e

ok "nothing left on $RDMA_DEV" wait_until $((10 * RDMA_SLOW)) rdma_no_objects "$RDMA_DEV"
ok "delete $RDMA_DEV" rdma_del "$RDMA_DEV"
vm_done
