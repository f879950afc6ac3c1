#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 900
#
# Allocation failures injected into the verbs and the traffic path (the
# sanitizer kernel's fault injection; Debian's kernels have none, and the
# lane says so and stops):
#   1. verbs: fail_function makes wookie's allocation points fail 30% of
#      the time (wookie_ring_alloc, wookie_kvzalloc_uobj,
#      wookie_mmap_headroom) under the pingpongs and perftest: each run
#      works or ends with an error; none may hang, and nothing is left
#      after it.
#   2. traffic: fail_function makes wookie_pkt_new() (a packet to send,
#      local or wire) and wookie_pkt_wrap() (a packet received) fail 3% of
#      the time for everyone; RC traffic recovers and its data verifies.
#   3. on-demand paging: wookie_odp_fault() fails (EFAULT) 30% of the
#      time under rc_verify with ODP buffers on the wire (explicit and
#      implicit MRs), then wookie_kvzalloc_uobj() (an implicit MR's child
#      tables among others) under implicit ones: each run verifies its
#      data or ends with an error, none hangs, nothing is left; with no
#      failure the same runs verify, on the wire and on one device.
# kmemleak, KASAN and lockdep findings fail the run through the harness.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

DBG=/sys/kernel/debug
mountpoint -q $DBG || mount -t debugfs none $DBG
if [ ! -d $DBG/fail_function ]; then
	echo "ok   no fault injection in $(uname -r): run on the sanitizer kernel (make check-debug)"
	vm_done
	exit 0
fi

rdma_setup
rc_verify=$WOOKIE_TOP/build/vm-progs/rc_verify
ok "yy0 on vethB in hostB" wire_add hostB yy0 vethB

FF=$DBG/fail_function
FAULT_TIMES=100000000

# fn_fail FN RETVAL PERCENT: FN returns RETVAL instead of running, in
# PERCENT% of its calls, in every process, quietly.
fn_fail() {
	echo "$1" >$FF/inject
	# The file takes an unsigned number: -12 as 0xfffffffffffffff4.
	printf '%#x\n' "$2" >"$FF/$1/retval"
	echo "$3" >$FF/probability
	echo 1 >$FF/interval
	# A count that each failure takes one from (fault_hits).
	echo $FAULT_TIMES >$FF/times
	echo 0 >$FF/space
	echo 0 >$FF/verbose
	echo N >$FF/task-filter
}

# The probe must be ftrace's (scripts/kconfig/debug.config): an int3
# trap runs it as an NMI, where should_fail() takes a lock lockdep then
# reports (and lockdep is off for the rest of the boot).
fn_fail wookie_ring_alloc -12 0
ok "fail_function's probe goes through ftrace" sh -c \
	"grep wookie_ring_alloc $DBG/kprobes/list | grep -q FTRACE"
sed 's/^/     | /' $DBG/kprobes/list
echo >$FF/inject

# fault_hits: how many failures fn_fail injected since it was set.
fault_hits() {
	echo $((FAULT_TIMES - $(cat $FF/times)))
}

fault_off() {
	echo 0 >$FF/probability
	echo >$FF/inject
}

# faulty_pair NAME SECONDS PROG [ARG...]: PROG as server (device zz0) and
# client (yy0 in hostB) while allocations fail.  Either may fail with an
# error (or crash: perftest does not check every verb); a hang (124 or
# 137, the time limit) is a failure, and so is anything left on either
# device afterwards.
runs=0 run_errors=0
faulty_pair() {
	local name=$1 secs=$(($2 * RDMA_SLOW)) prog=$3 port=$rdma_port
	local sopts copts spid src=0 crc=0
	rdma_port=$((rdma_port + 1))

	shift 3
	read -ra sopts <<<"$(xpair_opts "$prog" zz0 1)"
	read -ra copts <<<"$(xpair_opts "$prog" yy0 1)"
	timeout -k 5 "$secs" "$prog" "${sopts[@]}" "$@" -p "$port" \
		>"$RDMA_OUT/$name.server.log" 2>&1 &
	spid=$!
	wait_until 10 listening "$port" || true
	ip netns exec hostB timeout -k 5 "$secs" \
		"$prog" "${copts[@]}" "$@" -p "$port" 10.0.0.1 \
		>"$RDMA_OUT/$name.client.log" 2>&1 || crc=$?
	if [ "$crc" -ne 0 ]; then
		# The client failed: the server may wait for it forever.
		sleep 2
		kill "$spid" 2>/dev/null || true
	fi
	wait "$spid" || src=$?
	runs=$((runs + 1))
	[ "$src" -eq 0 ] && [ "$crc" -eq 0 ] || run_errors=$((run_errors + 1))
	if [ "$crc" -eq 124 ] || [ "$crc" -eq 137 ]; then
		echo "FAIL $name: the client hung (exit $crc after $secs s)"
		tail -n 5 "$RDMA_OUT/$name.client.log" | sed 's/^/     c| /'
		vm_failures=$((vm_failures + 1))
	fi
	if ! wait_until $((10 * RDMA_SLOW)) rdma_no_objects zz0 ||
		! wait_until $((10 * RDMA_SLOW)) rdma_no_objects yy0; then
		echo "FAIL $name: objects left"
		rdma_user_objects zz0 | sed 's/^/     | /'
		rdma_user_objects yy0 | sed 's/^/     | /'
		vm_failures=$((vm_failures + 1))
	fi
}

# --- 1. verbs: each of wookie's allocation points fails ----------------
# failslab and fail_page_alloc, even filtered to the test's processes, also
# fail the guest's 9p root file system under them (a program's pages and
# exec come from it), which then refuses every exec of the guest; so here
# fail_function fails wookie's own allocation points, for every process.
programs=(
	"ibv_rc_pingpong -n 20"
	"ibv_ud_pingpong -n 20 -s 512"
	"ibv_srq_pingpong -n 20"
	"ib_write_bw -n 50 -s 65536"
	"ib_atomic_bw -n 50"
)
points=(
	"wookie_ring_alloc -12"
	"wookie_kvzalloc_uobj 0"
	"wookie_mmap_headroom -12"
)
for point in "${points[@]}"; do
	read -r fn retval <<<"$point"
	fn_fail "$fn" "$retval" 30
	runs=0 run_errors=0
	for p in "${programs[@]}"; do
		read -ra words <<<"$p"
		faulty_pair "$fn-${words[0]}" 60 "${words[@]}"
	done
	hits=$(fault_hits)
	fault_off
	if [ "$run_errors" -gt 0 ] && [ "$hits" -gt 0 ]; then
		echo "ok   $fn failing 30%: $runs runs, $run_errors ended with an error, $hits failures injected"
	else
		echo "FAIL $fn failing 30%: $run_errors of $runs runs failed, $hits failures injected"
		vm_failures=$((vm_failures + 1))
	fi
done

# With nothing failing any more, the same devices work.
pair "rc pingpong after the failures" 60 ibv_rc_pingpong -d zz0 -g 1 -n 20

# --- 2. traffic: packets not allocated, sent or received -----------------
for fn in wookie_pkt_new wookie_pkt_wrap; do
	before=$(link_counter "" zz0 send_err)
	fn_fail "$fn" 0 3
	XS_NS= XS_DEV=zz0 XS_GID=1 XS_IP=10.0.0.1
	XC_NS=hostB XC_DEV=yy0 XC_GID=1
	XPAIR_LB=
	xpair "rc_verify 8 MiB, $fn failing 3%" 300 "$rc_verify" --size 8M
	# One device: both ends on the local path (wookie_pkt_new only).
	[ "$fn" != wookie_pkt_new ] ||
		pair "rc_verify on one device, $fn failing 3%" 300 \
			"$rc_verify" -d zz0 -g 1 --size 8M
	hits=$(fault_hits)
	fault_off
	after=$(link_counter "" zz0 send_err)
	echo "     | $fn failed $hits times; send_err on zz0 $before -> $after"
	ok "$fn failed at least once" test "$hits" -gt 0
done
ok "rcvd and sent packets counted on yy0" test "$(link_counter hostB yy0 rcvd_pkts)" -gt 0

# --- 3. on-demand paging: faults fail --------------------------------------
fn_fail wookie_odp_fault -14 30
runs=0 run_errors=0
for i in 1 2 3; do
	faulty_pair "odp-wire-$i" 120 "$rc_verify" --size 4M --odp --wait 60
done
faulty_pair "odp-implicit-wire" 120 "$rc_verify" --size 4M --odp-implicit --wait 60
hits=$(fault_hits)
fault_off
if [ "$run_errors" -gt 0 ] && [ "$hits" -gt 0 ]; then
	echo "ok   wookie_odp_fault failing 30%: $runs runs, $run_errors ended with an error, $hits failures injected"
else
	echo "FAIL wookie_odp_fault failing 30%: $run_errors of $runs runs failed, $hits failures injected"
	vm_failures=$((vm_failures + 1))
fi
# An implicit MR's children: their tables' allocation fails (and with it
# the objects' of the runs' setup).
fn_fail wookie_kvzalloc_uobj 0 30
runs=0 run_errors=0
for i in 1 2; do
	faulty_pair "odp-children-$i" 120 "$rc_verify" --size 8M --odp-implicit --wait 60
done
hits=$(fault_hits)
fault_off
ok "wookie_kvzalloc_uobj failing 30% under implicit ODP: $runs runs, $run_errors with an error, failed $hits times" \
	test "$hits" -gt 0
XS_NS= XS_DEV=zz0 XS_GID=1 XS_IP=10.0.0.1
XC_NS=hostB XC_DEV=yy0 XC_GID=1
XPAIR_LB=
xpair "rc_verify 4 MiB with ODP buffers, no failure" 300 "$rc_verify" --size 4M --odp
xpair "rc_verify 4 MiB in implicit ODP MRs, no failure" 300 "$rc_verify" --size 4M --odp-implicit
pair "rc_verify 4 MiB with ODP buffers on one device" 300 \
	"$rc_verify" -d zz0 -g 1 --size 4M --odp

wire_del_all yy0
ok "nothing left on zz0" wait_until $((10 * RDMA_SLOW)) rdma_no_objects zz0
vm_done
