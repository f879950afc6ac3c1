#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 1500 --mem 3072
#
# wookie at scale (tests/vm/progs/verbs_scale.cc), three steps:
#
#   qps: WOOKIE_TEST_SCALE_QPS (default 2000) RC QP pairs between zz0 on
#     vethA and zz1 on vethB in hostB, connected through modify_qp with
#     the devices' IPv4 GIDs; every QP at once does RDMA WRITEs and SENDs
#     with a pattern of its own, checked per QP.  Creation, connection and
#     teardown per batch of N/16 grow linearly (the last quarter's median
#     batch within 3x the first quarter's, or 0.25 s).  The full run is the
#     default; WOOKIE_TEST_SCALE_QPS=200 is a quick one.
#   objects: the limits ibv_query_device reports are the ones enforced:
#     a queue depth or SGE count at the maximum is created, one more is
#     refused with EINVAL; max_qp, max_cq, max_srq, max_mr and max_pd
#     objects exist at once, one more is refused; then 10 000 MRs, 1000
#     CQs, 1000 SRQs, 500 contexts from 50 processes.
#   memcg: the lane makes a cgroup v2 with memory.max=64M; for each kind
#     of object a child process moved into it creates objects until a
#     verb fails: ENOMEM, not the OOM killer (an OOM report's call trace
#     is shown); meanwhile a process outside the cgroup makes as many
#     (as far as the device's shared count limits leave room); then
#     memory.current drops back.  Prints what fits and what each object
#     costs.
#
# After each step no object may be left on either device; at the end a
# few QP pairs must still carry traffic.  Splats and hung tasks fail the
# run through the harness.  WOOKIE_TEST_SCALE_STEPS (default "qps objects
# memcg") picks steps.  wookie only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

[ "$RDMA_TYPE" = wookie ] || { echo "ok   skipped: wookie's limits and memory"; exit 0; }

prog=$WOOKIE_TOP/build/vm-progs/verbs_scale
qps=${WOOKIE_TEST_SCALE_QPS:-2000}
steps=${WOOKIE_TEST_SCALE_STEPS:-qps objects memcg}

rdma_setup
ok "add zz1 on vethB in hostB" wire_add hostB zz1 vethB
# GID index 1 on both: the IPv4-mapped GID (vm-run assigns IPv4 first).
zz1_gid1() {
	grep -q '0000:0000:0000:0000:0000:ffff:0a00:0002' \
		/sys/class/infiniband/zz1/ports/1/gids/1
}
ok "zz1 has its IPv4 GID at index 1" wait_until 10 zz1_gid1

# scale_run NAME SECONDS COMMAND...: COMMAND within SECONDS (times
# RDMA_SLOW), its output kept in $RDMA_OUT/NAME.log and shown.
scale_run() {
	local name=$1 secs=$(($2 * RDMA_SLOW)) rc=0 start=$SECONDS
	local log=$RDMA_OUT/$1.log

	shift 2
	timeout -k 10 "$secs" "$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "ok   $name ($((SECONDS - start)) s)"
	else
		echo "FAIL $name: exit $rc ($((SECONDS - start)) s; 124 = timeout after $secs s)"
		vm_failures=$((vm_failures + 1))
	fi
	sed 's/^/     | /' "$log"
}

nothing_left() {
	local dev

	for dev in zz0 zz1; do
		ok "nothing left on $dev after $1" \
			wait_until $((10 * RDMA_SLOW)) rdma_no_objects "$dev"
	done
}

# The cgroup of the memcg step: cgroup2 at /sys/fs/cgroup, the memory
# controller enabled for its children, 64M and no swap.
cg_root=/sys/fs/cgroup
cg=$cg_root/wookie-scale
memcg_setup() {
	mountpoint -q $cg_root || mount -t cgroup2 cgroup2 $cg_root || return 1
	grep -qw memory $cg_root/cgroup.controllers || return 1
	echo +memory >$cg_root/cgroup.subtree_control || return 1
	mkdir -p $cg || return 1
	echo 64M >$cg/memory.max || return 1
	[ ! -e $cg/memory.swap.max ] || echo 0 >$cg/memory.swap.max
}

# The call traces of the kernel's OOM reports (the functions only).
oom_traces() {
	awk '/invoked oom-killer/ { p = 1; n = 0; sub(/^\[[^]]*\] */, "");
			print "     OOM: " $0; next }
		p && /<\/TASK>/ { p = 0 }
		p && /^\[[^]]*\]  [a-z_][A-Za-z0-9_.]*\+0x/ &&
		    !/dump_stack|dump_header|oom_kill_process|out_of_memory/ {
			sub(/^\[[^]]*\]  */, ""); sub(/\/0x.*/, "")
			line = line " " $0
			if (++n % 6 == 0) { print "       " line; line = "" } }
		!p && line != "" { print "       " line; line = "" }
		END { if (line != "") print "       " line }'
}

for step in $steps; do
	case "$step" in
	qps)
		# ib_core resolves the peer's MAC at each move to RTR: a
		# neighbour entry already there spares the first pairs the
		# wait for ARP.
		ping -c 2 -W 2 10.0.0.2 >/dev/null 2>&1 || true
		scale_run "qps-$qps" $((300 + qps / 4)) \
			"$prog" qps zz0 zz1 "$qps"
		nothing_left "$qps QP pairs"
		;;
	objects)
		scale_run objects 900 "$prog" objects zz0 --count-limits
		nothing_left "the objects"
		;;
	memcg)
		if ! memcg_setup >/tmp/memcg.log 2>&1; then
			echo "FAIL memory cgroup $cg:"
			sed 's/^/     | /' /tmp/memcg.log
			vm_failures=$((vm_failures + 1))
			continue
		fi
		# Each kind's creation loop gets RDMA_SLOW times as long.
		scale_run memcg 900 "$prog" memcg zz0 $cg \
			--seconds $((60 * RDMA_SLOW))
		# Where an OOM kill came from: the allocation that woke it.
		dmesg | oom_traces
		nothing_left "the memcg step"
		echo "     $cg after: memory.current $(cat $cg/memory.current)," \
			"$(grep -E '^(kernel|slab|vmalloc|percpu) ' $cg/memory.stat | tr '\n' ' ')"
		echo "     memory.events: $(tr '\n' ' ' <$cg/memory.events)"
		equals "no OOM kill in $cg" 0 "$(awk '$1 == "oom_kill" { print $2 }' $cg/memory.events)"
		ok "remove $cg" rmdir $cg
		;;
	*)
		echo "FAIL unknown step '$step' in WOOKIE_TEST_SCALE_STEPS"
		vm_failures=$((vm_failures + 1))
		;;
	esac
done

# The devices still work.
scale_run "qps-4-after" 120 "$prog" qps zz0 zz1 4
nothing_left "the last pairs"
ok "delete zz1" ip netns exec hostB rdma link delete zz1
ok "delete zz0" rdma link delete zz0
vm_done
