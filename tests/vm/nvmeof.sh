#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-pair: --timeout 1500
#
# NVMe over Fabrics on wookie between two hosts (two guests, scripts/
# vm-pair): host 1 is the target (nvmet + nvmet-rdma over a 384 MiB
# ramdisk), host 2 the initiator (nvme-rdma), each on a wookie device on
# its wan0.  In order, with fio's verification of the data each time:
#
#   1. nvme discover, nvme connect (three I/O queues: default, write and
#      poll, so the poll queue's CQ runs in the direct poll context), fio
#      random writes of 4 KiB to 1 MiB blocks, iodepth 32, 256 MiB, then
#      read back and verified;
#   2. disconnect and connect again: the data is still there (verified);
#   3. 2% loss on the link both ways (netem on both hosts) during fio with
#      verification;
#   4. the target's port removed while connected: the host's controller
#      reconnects once the port is back, and the data verifies;
#   5. `rdma link delete` of the host's device while connected: the
#      controller goes away, with no splat and nothing left;
#   6. on host 1, the same target through its own device (one device:
#      target and host on QPs of one wookie device), fio with verification;
#   7. the two hosts again on rdma_rxe (rxe0 on each wan0), fio as in 1,
#      for rxe's throughput in the same boot (WOOKIE_TEST_ULP_RXE=1, as
#      make check-ulp runs it; not in make check).
#
# Afterwards neither host's wookie device lists an object, and both
# modules unload (vm-run checks rmmod).  Throughputs go to
# nvmeof/results.txt and the end of the output.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"
. "$(dirname "$0")/_ulp.sh"

NQN=nqn.2026-11.org.wookie:nvme-test
DEV=$ULP_DEV
TARGET=$ULP_TARGET
CFG=/sys/kernel/config/nvmet
SLOW=$RDMA_SLOW

# ---- host 1: the target ----
NS=$CFG/subsystems/$NQN/namespaces/1
PORT=$CFG/ports/1

# The port on TARGET:4420, with the subsystem: on whichever RDMA device
# has TARGET.
port_up() {
	mkdir "$PORT" &&
		echo rdma >"$PORT/addr_trtype" &&
		echo ipv4 >"$PORT/addr_adrfam" &&
		echo "$TARGET" >"$PORT/addr_traddr" &&
		echo 4420 >"$PORT/addr_trsvcid" &&
		ln -s "$CFG/subsystems/$NQN" "$PORT/subsystems/$NQN"
}

port_down() {
	rm -f "$PORT/subsystems/$NQN"
	rmdir "$PORT"
}

target() {
	ok "load nvmet-rdma" modprobe nvmet-rdma
	ulp_ramdisk 384
	ulp_configfs
	ulp_wookie_up
	ulp_count_start ib_cq_pool_get ib_drain_qp wookie_post_send \
		wookie_post_srq_recv
	mkdir "$CFG/subsystems/$NQN" &&
		echo 1 >"$CFG/subsystems/$NQN/attr_allow_any_host" &&
		mkdir "$NS" &&
		echo -n /dev/ram0 >"$NS/device_path" &&
		echo 1 >"$NS/enable" &&
		port_up || fatal "configure the NVMe-oF target"
	echo "ok   target $NQN on rdma $TARGET:4420 (/dev/ram0)"
	peer_signal target-up

	peer_wait $((900 * SLOW)) loss-on || fatal "host 2 never asked for loss"
	netem_loss 2%
	peer_signal loss-on
	peer_wait $((600 * SLOW)) loss-off || fatal "host 2 never ended the loss"
	netem_off
	echo "ok   2% loss on the target's side while host 2 ran fio"

	peer_wait $((300 * SLOW)) remove-port || fatal "host 2 never asked to remove the port"
	ok "remove the port from the subsystem" rm "$PORT/subsystems/$NQN"
	sleep $((5 * SLOW))
	ok "put the port back" ln -s "$CFG/subsystems/$NQN" "$PORT/subsystems/$NQN"
	peer_signal port-back

	peer_wait $((600 * SLOW)) host-done || fatal "host 2 did not finish"
	# Host 2's device went away under its controller: the target's
	# queues end by keep-alive timeout or retries.
	ok "host 2's queues gone from $DEV" wait_until $((60 * SLOW)) \
		no_rc_qps_but_listen
	ulp_count_report "nvmet-rdma on wookie" ib_cq_pool_get ib_drain_qp \
		wookie_post_send wookie_post_srq_recv?
	ulp_count_stop

	# One device: this host connects to its own target.
	ok "load nvme-rdma" nvme_host_load
	ok "connect to the target through $DEV itself" \
		nvme connect -t rdma -a "$TARGET" -s 4420 -n "$NQN" -k "$KATO"
	local blk
	if wait_until $((30 * SLOW)) nvme_blk; then
		blk=$(nvme_blk)
		fio_verify one-device "$blk" 64m
	else
		echo "FAIL no namespace block device on one device"
		vm_failures=$((vm_failures + 1))
	fi
	ok "disconnect" nvme disconnect -n "$NQN"
	ok "unload nvme-rdma" modprobe -r nvme-rdma
	ok "remove the port" port_down
	ulp_end

	# The same target on rdma_rxe, for its throughput in this boot.
	if [ "$ULP_RXE_RUNS" = 1 ]; then
		ulp_rxe_up
		port_up || fatal "the port on rxe0"
		peer_signal rxe-target-up
		peer_wait $((600 * SLOW)) rxe-done || fatal "host 2 did not finish on rxe"
		ok "remove the port" port_down
	fi
	ok "remove the subsystem" eval \
		'echo 0 >"$NS/enable" && rmdir "$NS" "$CFG/subsystems/$NQN"'
	ok "unload nvmet-rdma" modprobe -r nvmet-rdma nvmet
	[ "$ULP_RXE_RUNS" != 1 ] || ok "delete rxe0" rdma link delete rxe0
}

# nvme-rdma, with the host's I/O timeout (nvme_core's io_timeout, 30 s)
# scaled like the test's other waits: it is wall-clock time, and on the
# sanitizer kernel, where a byte costs several times more, fio's 32 I/Os
# of up to 1 MiB in flight move at about 1 MiB/s (an I/O that timed out
# there is how 6.1's nvme-rdma freed a poll queue's CQ under fio's
# polling: a use-after-free in __ib_process_cq).
# The keep-alive timeout (nvme-cli's -k, 5 s by default), 60 s on the
# sanitizer kernel: there, one vCPU a guest, a keep-alive waited 2 to 20 s
# behind fio's I/O on 6.12 (longer while fio polls: io_uring's hipri spins
# in the kernel); each timeout started an error recovery, and one recovery
# freed the poll queue's CQ under fio's polling as above.
KATO=5
[ "$SLOW" -eq 1 ] || KATO=60

nvme_host_load() {
	modprobe nvme_core &&
		echo $((30 * SLOW)) >/sys/module/nvme_core/parameters/io_timeout &&
		modprobe nvme-rdma
}

# RC QPs on DEV: none but what the target listens with (no QP).
no_rc_qps_but_listen() {
	! rdma resource show qp 2>/dev/null | grep -E "link $DEV/" |
		grep -q ' type RC '
}

# The block device of the NVMe-oF namespace, once there.
nvme_blk() {
	local d

	# nvmeXnY; not the multipath paths nvmeXcZnY, which sysfs lists too.
	for d in /sys/block/nvme*n1; do
		[ -e "$d" ] || continue
		case "${d##*/}" in *c*) continue ;; esac
		echo "/dev/${d##*/}"
		return 0
	done
	return 1
}

nvme_ctrl_state() {
	local s

	for s in /sys/class/nvme/nvme*/state; do
		[ -e "$s" ] && cat "$s"
	done
}

ctrl_live() {
	[ "$(nvme_ctrl_state)" = live ]
}

no_ctrl() {
	[ -z "$(nvme_ctrl_state)" ]
}

# ---- host 2: the initiator ----
initiator() {
	local blk

	ok "load nvme-rdma" nvme_host_load
	ulp_wookie_up
	ulp_count_start wookie_map_mr_sg wookie_fast_reg_mr \
		wookie_remote_invalidate wookie_local_invalidate ib_drain_qp \
		ib_cq_pool_get __ib_alloc_cq
	peer_wait $((300 * SLOW)) target-up || fatal "the target never came up"

	if ! nvme discover -t rdma -a "$TARGET" -s 4420 \
		>"$RDMA_OUT/discover.log" 2>&1; then
		cat "$RDMA_OUT/discover.log"
		fatal "nvme discover"
	fi
	if grep -q "subnqn: *$NQN" "$RDMA_OUT/discover.log"; then
		echo "ok   nvme discover lists $NQN"
	else
		sed 's/^/     | /' "$RDMA_OUT/discover.log"
		fatal "nvme discover does not list $NQN"
	fi
	# One default queue per CPU (one here), one for writes, one polled.
	nvme connect -t rdma -a "$TARGET" -s 4420 -n "$NQN" -k "$KATO" \
		--nr-write-queues=1 --nr-poll-queues=1 \
		--reconnect-delay=2 --ctrl-loss-tmo=$((120 * SLOW)) ||
		fatal "nvme connect"
	wait_until $((30 * SLOW)) nvme_blk || fatal "no namespace block device"
	blk=$(nvme_blk)
	echo "ok   connected: $blk ($(cat /sys/class/nvme/nvme*/queue_count 2>/dev/null || echo '?') queues with the admin queue)"
	grep -h . /sys/class/nvme/nvme*/transport /sys/class/nvme/nvme*/address 2>/dev/null |
		sed 's/^/     /'

	fio_verify two-hosts "$blk" "$ULP_FIO_SIZE"
	# Polled I/O: the poll queue, whose CQ the block layer polls.
	fio_verify two-hosts-polled "$blk" 32m --offset=$ULP_FIO_SIZE --ioengine=io_uring --hipri=1

	ok "disconnect" nvme disconnect -n "$NQN"
	ok "controller gone" wait_until $((20 * SLOW)) no_ctrl
	nvme connect -t rdma -a "$TARGET" -s 4420 -n "$NQN" -k "$KATO" \
		--reconnect-delay=2 --ctrl-loss-tmo=$((120 * SLOW)) ||
		fatal "nvme connect again"
	wait_until $((30 * SLOW)) nvme_blk || fatal "no block device after reconnect"
	blk=$(nvme_blk)
	fio_reverify two-hosts "$blk" "$ULP_FIO_SIZE"

	# 2% loss both ways during fio.  Smaller blocks and less data: a
	# loss at the tail of a burst waits for the QP's ACK timeout (about
	# 2 s with rdma_cm's defaults), and I/O that waits 30 s makes the
	# host reset the controller.
	peer_signal loss-on
	peer_wait $((60 * SLOW)) loss-on || fatal "the target did not add loss"
	netem_loss 2%
	local t0=$SECONDS
	fio_verify loss-2pct "$blk" 8m --offset=288m --bsrange=4k-64k
	echo "     ($((SECONDS - t0)) s under loss)"
	netem_off
	peer_signal loss-off
	ok "controller live after the loss" ctrl_live

	# The target's port goes away under the controller, then comes back.
	peer_signal remove-port
	peer_wait $((60 * SLOW)) port-back || fatal "the target did not put the port back"
	if wait_until $((90 * SLOW)) ctrl_live; then
		echo "ok   the controller reconnected after the port came back"
		fio_reverify two-hosts "$blk" "$ULP_FIO_SIZE"
	else
		echo "FAIL controller state '$(nvme_ctrl_state)' after the port came back"
		vm_failures=$((vm_failures + 1))
	fi

	# The device goes away under a live controller.
	ok "delete $DEV while connected" rdma link delete $DEV
	ok "the controller went with it" wait_until $((60 * SLOW)) no_ctrl
	ulp_count_report "nvme-rdma on wookie" wookie_map_mr_sg \
		wookie_fast_reg_mr wookie_remote_invalidate \
		wookie_local_invalidate? ib_drain_qp ib_cq_pool_get \
		__ib_alloc_cq?
	ulp_count_stop
	ok "unload nvme-rdma" modprobe -r nvme-rdma nvme-fabrics
	peer_signal host-done

	# The same on rdma_rxe, for its throughput in this boot.
	[ "$ULP_RXE_RUNS" = 1 ] || return 0
	peer_wait $((600 * SLOW)) rxe-target-up || fatal "no target on rxe"
	ulp_rxe_up
	ok "load nvme-rdma" nvme_host_load
	if nvme connect -t rdma -a "$TARGET" -s 4420 -n "$NQN" -k "$KATO" &&
		wait_until $((30 * SLOW)) nvme_blk; then
		fio_verify rxe-two-hosts "$(nvme_blk)" "$ULP_FIO_SIZE"
		ok "disconnect from rxe" nvme disconnect -n "$NQN"
	else
		echo "FAIL connect over rxe"
		vm_failures=$((vm_failures + 1))
	fi
	ok "unload nvme-rdma" modprobe -r nvme-rdma nvme-fabrics
	ok "delete rxe0" rdma link delete rxe0
	peer_signal rxe-done
}

ulp_main target initiator
