#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 900
# vm-group: short
#
# A verbs user killed with kill -9 leaves nothing behind: `rdma resource
# show` lists none of its objects within a few seconds, and the device
# still carries traffic.  Killed: ib_write_bw (both ends, mid-run), one
# end of ib_read_bw while the other keeps going, ibv_rc_pingpong mid-run,
# and tests/vm/pyverbs/hold.py, which holds every object kind with work
# in flight.  WOOKIE_RDMA_TYPE=rxe runs the same on rdma_rxe.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

rdma_setup
pt=(-d "$RDMA_DEV" -x "$RDMA_GID" -F)

# connected: the device has at least two user QPs in RTR or RTS (a
# perftest server that only answers stays in RTR).
connected() {
	[ "$(rdma_user_objects "$RDMA_DEV" | grep -cE '^qp: .* state (RTR|RTS) ')" -ge 2 ]
}

# wait_gone WHAT: the device's user objects all go within 10 s.
wait_gone() {
	if wait_until $((10 * RDMA_SLOW)) rdma_no_objects "$RDMA_DEV"; then
		echo "ok   $1: no objects left"
	else
		echo "FAIL $1: objects left 10 s after kill -9:"
		rdma_user_objects "$RDMA_DEV" | sed 's/^/     | /'
		vm_failures=$((vm_failures + 1))
	fi
}

# The device still works: a short pingpong.
still_works() {
	pair "traffic after $1" 60 ibv_rc_pingpong -d "$RDMA_DEV" -g "$RDMA_GID" \
		-c -s 4096 -n 20
}

user_qps() {
	rdma_user_objects "$RDMA_DEV" | grep -c '^qp: ' || true
}

at_most() {
	[ "$("$2" "${@:3}")" -le "$1" ]
}

log=$RDMA_OUT

# 1. ib_write_bw, both ends killed while data flows.
ib_write_bw "${pt[@]}" -D 60 -s 65536 -p 18515 >"$log/write_bw.server.log" 2>&1 &
srv=$!
ok "ib_write_bw server listens" wait_until 30 listening 18515
ib_write_bw "${pt[@]}" -D 60 -s 65536 -p 18515 127.0.0.1 >"$log/write_bw.client.log" 2>&1 &
cli=$!
ok "ib_write_bw: connected" wait_until 60 connected
# Let the transfer run.
sleep 2
ok "ib_write_bw still running" kill -0 $cli
kill -9 $cli $srv 2>/dev/null || true
wait $cli $srv 2>/dev/null || true
wait_gone "ib_write_bw killed mid-run"
still_works ib_write_bw

# 2. Only the client of ib_read_bw dies; then the server, whose peer is
# gone, is killed too.
ib_read_bw "${pt[@]}" -D 60 -s 65536 -p 18516 >"$log/read_bw.server.log" 2>&1 &
srv=$!
ok "ib_read_bw server listens" wait_until 30 listening 18516
ib_read_bw "${pt[@]}" -D 60 -s 65536 -p 18516 127.0.0.1 >"$log/read_bw.client.log" 2>&1 &
cli=$!
ok "ib_read_bw: connected" wait_until 60 connected
sleep 2
ok "ib_read_bw still running" kill -0 $cli
kill -9 $cli 2>/dev/null || true
wait $cli 2>/dev/null || true
ok "ib_read_bw client's QP gone" wait_until 10 at_most 1 user_qps
kill -9 $srv 2>/dev/null || true
wait $srv 2>/dev/null || true
wait_gone "ib_read_bw killed one end at a time"

# 3. ibv_rc_pingpong mid-run, 1 MiB messages.
ibv_rc_pingpong -d "$RDMA_DEV" -g "$RDMA_GID" -s 1048576 -n 100000 -p 18517 \
	>"$log/pingpong.server.log" 2>&1 &
srv=$!
ok "ibv_rc_pingpong server listens" wait_until 30 listening 18517
ibv_rc_pingpong -d "$RDMA_DEV" -g "$RDMA_GID" -s 1048576 -n 100000 -p 18517 \
	127.0.0.1 >"$log/pingpong.client.log" 2>&1 &
cli=$!
ok "ibv_rc_pingpong: connected" wait_until 60 connected
sleep 2
ok "ibv_rc_pingpong still running" kill -0 $cli
kill -9 $srv $cli 2>/dev/null || true
wait $srv $cli 2>/dev/null || true
wait_gone "ibv_rc_pingpong killed mid-run"

# 4. A pyverbs process holding every object kind, with work in flight.
if pyverbs_built; then
	env "${PYVERBS_ENV[@]}" /usr/bin/python3 "$WOOKIE_TOP/tests/vm/pyverbs/hold.py" \
		"$RDMA_DEV" "$RDMA_GID" >"$log/hold.log" 2>&1 &
	holder=$!
	if wait_until $((120 * RDMA_SLOW)) grep -q holding "$log/hold.log"; then
		echo "ok   hold.py holds its objects"
		rdma_user_objects "$RDMA_DEV" >"$log/held.txt"
		for kind in ctx pd mr cq qp srq; do
			equals "hold.py has a $kind" yes \
				"$(grep -q "^$kind: " "$log/held.txt" && echo yes || echo no)"
		done
		kill -9 $holder 2>/dev/null || true
		wait $holder 2>/dev/null || true
		wait_gone "hold.py killed"
	else
		echo "FAIL hold.py did not get ready:"
		sed 's/^/     | /' "$log/hold.log"
		vm_failures=$((vm_failures + 1))
		kill -9 $holder 2>/dev/null || true
	fi
	still_works hold.py
else
	echo "FAIL pyverbs 56.1 is not built in $RDMA_CORE_BUILD (run scripts/rdma-core --full)"
	vm_failures=$((vm_failures + 1))
fi

ok "delete $RDMA_DEV" rdma_del "$RDMA_DEV"
vm_done
