#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Reproducer, not a test: ibv_rc_pingpong -c between two wookie hosts
# under netem loss (5% both ways unless LOSS= says otherwise), up to RUNS
# (60) times, with the engine's debug messages on (wookie_comp.c,
# wookie_resp.c).  It stops at the first run still going after 30 s and
# prints both QPs as rdma sees them (with the engine's state), the kernel
# log and the pingpong output; with STOP_ON_FAIL=1 also at the first run
# that fails, with its kernel log.  Run it with
#   scripts/vm-run --net ns --timeout 1500 -- bash tests/vm/tools/pingpong-loss.sh
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../_rdma.sh"
set +e
modprobe -a sch_netem
wire_add hostA zza vethA
wire_add hostB zzb vethB
sleep 3
for h in "hostA vethA" "hostB vethB"; do
	read -r ns dev <<<"$h"
	tc -n "$ns" qdisc replace dev "$dev" root netem limit 10000 loss "${LOSS:-5%}"
done
for f in wookie_comp.c wookie_resp.c; do
	echo "file $f +p" >/sys/kernel/debug/dynamic_debug/control
done
for i in $(seq 1 "${RUNS:-60}"); do
	dmesg -C
	ip netns exec hostB ibv_rc_pingpong -d zzb -g 1 -c -s 4096 -n 200 \
		>/tmp/s.log 2>&1 &
	s=$!
	sleep 1
	ip netns exec hostA ibv_rc_pingpong -d zza -g 1 -c -s 4096 -n 200 \
		10.0.0.2 >/tmp/c.log 2>&1 &
	c=$!
	for _ in $(seq 30); do
		kill -0 "$c" 2>/dev/null || kill -0 "$s" 2>/dev/null || break
		sleep 1
	done
	if kill -0 "$c" 2>/dev/null || kill -0 "$s" 2>/dev/null; then
		echo "run $i: still going after 30 s"
		for h in "hostA zza" "hostB zzb"; do
			read -r ns dev <<<"$h"
			ip netns exec "$ns" rdma -dd resource show qp link "$dev/1"
			ip netns exec "$ns" rdma statistic show link "$dev/1"
		done
		dmesg | tail -80
		kill "$c" "$s" 2>/dev/null
		wait
		cat /tmp/s.log /tmp/c.log
		break
	fi
	wait "$c"; cr=$?
	wait "$s"; sr=$?
	echo "run $i: client $cr server $sr"
	if [ "$cr" -ne 0 ] || [ "$sr" -ne 0 ]; then
		grep -h Failed /tmp/s.log /tmp/c.log
		# STOP_ON_FAIL=1: the kernel log of the first failed run.
		if [ "${STOP_ON_FAIL:-0}" = 1 ]; then
			dmesg | tail -"${DMESG_LINES:-200}"
			break
		fi
	fi
done
exit 0
