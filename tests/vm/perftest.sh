#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 1200
#
# perftest (the distro's, through the provider): every RC test, send,
# RDMA write, RDMA read and atomics, latency and bandwidth, at all sizes
# (-a: 2 bytes to 8 MiB; atomics are 8 bytes), and send over UD (sizes up to
# the MTU), server and client on one device and GID 1.  Iterations are
# few: this proves the verbs perftest needs work end to end, it does not
# measure (bench does).  Pass = both processes exit 0 in time.  The result
# tables are in the run's output directory, perftest/*.client.log.
# WOOKIE_RDMA_TYPE=rxe runs the same on rdma_rxe.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

rdma_setup
pt=(-d "$RDMA_DEV" -x "$RDMA_GID" -F)
t=300
# The first and last rows of each result table (read by pair).
# shellcheck disable=SC2034
PAIR_ROWS='^ *[0-9]+ +[0-9]+ +[0-9.]+'

# -a: 23 sizes, 2 bytes to 8 MiB; 5 iterations each (perftest's minimum).
for test in send write read; do
	pair "ib_${test}_lat" $t "ib_${test}_lat" "${pt[@]}" -a -n 5
	pair "ib_${test}_bw" $t "ib_${test}_bw" "${pt[@]}" -a -n 5
done
# Atomics are 8 bytes (perftest refuses -a for them): compare-and-swap
# (the default) and fetch-and-add.
pair ib_atomic_lat $t ib_atomic_lat "${pt[@]}" -n 200
pair ib_atomic_bw $t ib_atomic_bw "${pt[@]}" -n 200
pair ib_atomic_lat-fetch_add $t ib_atomic_lat "${pt[@]}" -A FETCH_AND_ADD -n 200
pair ib_atomic_bw-fetch_add $t ib_atomic_bw "${pt[@]}" -A FETCH_AND_ADD -n 200
# UD: -a stops at the MTU.
pair ib_send_bw-UD $t ib_send_bw "${pt[@]}" -c UD -a -n 20
pair ib_send_lat-UD $t ib_send_lat "${pt[@]}" -c UD -a -n 20
# A few more: UC writes, bidirectional RC send, an SRQ, events, inline.
pair ib_write_bw-UC $t ib_write_bw "${pt[@]}" -c UC -a -n 5
pair ib_send_bw-bidir $t ib_send_bw "${pt[@]}" -b -s 65536 -n 100
pair ib_send_bw-srq $t ib_send_bw "${pt[@]}" --use-srq -s 4096 -n 100
pair ib_send_lat-events $t ib_send_lat "${pt[@]}" -e -s 64 -n 200
pair ib_write_lat-inline $t ib_write_lat "${pt[@]}" -I 64 -s 64 -n 200

ok "nothing left on $RDMA_DEV" wait_until $((10 * RDMA_SLOW)) rdma_no_objects "$RDMA_DEV"
ok "delete $RDMA_DEV" rdma_del "$RDMA_DEV"
vm_done
