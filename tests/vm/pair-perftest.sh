#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-pair: --timeout 900
#
# wookie against rdma_rxe on another host (two guests, scripts/vm-pair):
# rxe0 on host 1's wan0, wk0 on host 2's, each side once as server and
# once as client.  ibv_rc_pingpong -c (data checked), ib_send_lat,
# ib_write_lat, ib_read_lat, and ib_send_bw, ib_write_bw, ib_read_bw at
# 64 KiB, ib_atomic_bw; every run must exit 0 on both sides.  The clients'
# figures go to pair-perftest/results.txt and the end of the log.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"
. "$(dirname "$0")/_ulp.sh"

SLOW=$RDMA_SLOW
PORT=18700

# xrun NAME SERVER_HOST SERVER_CMD CLIENT_CMD: the server on host
# SERVER_HOST, the client on the other with the server's address last;
# DEV in a command is this host's device.  Each side checks its own exit.
xrun() {
	local name=$1 shost=$2 cmd log rc=0 port=$PORT pid

	PORT=$((PORT + 1))
	if [ "$WOOKIE_VM_HOST" = "$shost" ]; then
		read -ra cmd <<<"${3//DEV/$MY_DEV} -p $port"
		log=$RDMA_OUT/$name.server.log
		timeout -k 5 $((120 * SLOW)) "${cmd[@]}" >"$log" 2>&1 &
		pid=$!
		wait_until $((20 * SLOW)) listening_on "$port" || true
		peer_signal "$name-up"
		# A client that is gone leaves the server waiting: stop it.
		while kill -0 "$pid" 2>/dev/null; do
			if peer_gone; then
				kill "$pid" 2>/dev/null || true
				echo "     (host $((3 - WOOKIE_VM_HOST)) gave up)" >>"$log"
				break
			fi
			sleep 0.5
		done
		wait "$pid" || rc=$?
		peer_wait $((150 * SLOW)) "$name-done" || true
	else
		read -ra cmd <<<"${4//DEV/$MY_DEV} -p $port"
		log=$RDMA_OUT/$name.client.log
		if peer_wait $((60 * SLOW)) "$name-up"; then
			timeout -k 5 $((120 * SLOW)) "${cmd[@]}" "$ULP_PEER" \
				>"$log" 2>&1 || rc=$?
		else
			rc=1
		fi
		peer_signal "$name-done"
		# The figures: perftest's last table row.
		[ "$rc" -ne 0 ] || awk -v n="$name" 'NF >= 5 && $1 ~ /^[0-9]+$/ { row = $0 }
			END { if (row != "") printf "%-32s %s\n", n, row }' \
			"$log" >>"$ULP_RESULTS"
	fi
	verdict "$rc" "$name" "$log"
}

listening_on() {
	ss -Hltn "sport = :$1" | grep -q .
}

peer_gone() {
	compgen -G "$WOOKIE_VM_SHARE/abort*" >/dev/null
}

# The runs, with SERVER_HOST 1 (rxe serves) and 2 (wookie serves).
runs() {
	local s=$1 tag

	tag=$([ "$s" = 1 ] && echo rxe-serves || echo wookie-serves)
	xrun "$tag-rc_pingpong" "$s" "ibv_rc_pingpong -d DEV -g 1 -c -n 200 -s 4096" \
		"ibv_rc_pingpong -d DEV -g 1 -c -n 200 -s 4096"
	local t
	for t in send_lat write_lat read_lat; do
		xrun "$tag-$t" "$s" "ib_$t -d DEV -x 1 -F -n 500" \
			"ib_$t -d DEV -x 1 -F -n 500"
	done
	for t in send_bw write_bw read_bw; do
		xrun "$tag-$t-64k" "$s" "ib_$t -d DEV -x 1 -F -s 65536 -n 500" \
			"ib_$t -d DEV -x 1 -F -s 65536 -n 500"
	done
	xrun "$tag-atomic_bw" "$s" "ib_atomic_bw -d DEV -x 1 -F -n 500" \
		"ib_atomic_bw -d DEV -x 1 -F -n 500"
}

trap ulp_on_exit EXIT
: >"$ULP_RESULTS"
case "${WOOKIE_VM_HOST:-}" in
1)
	MY_DEV=rxe0
	ulp_rxe_up
	;;
2)
	MY_DEV=$ULP_DEV
	ulp_wookie_up
	;;
*) echo "FAIL not in a pair (run through scripts/vm-pair)"; exit 1 ;;
esac
runs 1
runs 2
if [ "$MY_DEV" = rxe0 ]; then
	ok "delete rxe0" rdma link delete rxe0
else
	ulp_end
fi
[ ! -s "$ULP_RESULTS" ] || sed 's/^/result: /' "$ULP_RESULTS"
vm_done
