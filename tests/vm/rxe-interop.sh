#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 1800
#
# wookie and the kernel's rdma_rxe as peers on the wire: rxe0 on vethA in
# the initial namespace (where 6.1's rxe works), zzb (wookie) on vethB in
# namespace hostB.  ibv_rc_pingpong -c both ways and perftest send, write,
# read and atomics (bandwidth) and send latency, each side once as server
# and once as client; where rxe has it (6.2 on), ATOMIC WRITE both ways
# (tests/vm/pyverbs/ibta15_peer.py).  The traffic of the first pingpong is captured on
# vethB: tshark must decode it as InfiniBand over UDP 4791, and every
# packet's ICRC (both senders') must check (tests/vm/tools/icrc_check.py,
# an implementation independent of the module's).  rxe's counters must show
# no sequence error.  Then, with every RoCEv2 packet wookie sends dropped
# (tc netem), a WRITE must end in IBV_WC_RETRY_EXC_ERR in the time its
# timeout and retry_cnt imply.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

[ "$RDMA_TYPE" = wookie ] || { echo "ok   skipped: wookie against rxe"; exit 0; }

ok "add rxe0 on vethA" rdma link add rxe0 type rxe netdev vethA
ok "add zzb on vethB in hostB" ip netns exec hostB rdma link add zzb type wookie netdev vethB
ok "rxe0 ACTIVE with GID 1" wait_until 10 rdma_gid1_ready rxe0
ok "zzb ACTIVE" wait_until 10 port_is zzb "4: ACTIVE"
ok "zzb has its GID" wait_until 10 gid_index zzb \
	0000:0000:0000:0000:0000:ffff:0a00:0002
zzb_gid=$(gid_index zzb 0000:0000:0000:0000:0000:ffff:0a00:0002) || zzb_gid=1

# roles SERVER CLIENT: who serves (rxe or wookie) in the next xpairs.
roles() {
	if [ "$1" = rxe ]; then
		XS_NS= XS_DEV=rxe0 XS_GID=1 XS_IP=10.0.0.1
		XC_NS=hostB XC_DEV=zzb XC_GID=$zzb_gid
	else
		XS_NS=hostB XS_DEV=zzb XS_GID=$zzb_gid XS_IP=10.0.0.2
		XC_NS= XC_DEV=rxe0 XC_GID=1
	fi
}

cap=$RDMA_OUT/rc-pingpong.pcapng
ip netns exec hostB dumpcap -q -i vethB -f "udp port 4791" -w "$cap" \
	>"$RDMA_OUT/dumpcap.log" 2>&1 &
cap_pid=$!
sleep 2
t=300
roles rxe wookie
xpair rxe-serves-rc-pingpong $t ibv_rc_pingpong -c -s 4096 -n 100
roles wookie rxe
xpair wookie-serves-rc-pingpong $t ibv_rc_pingpong -c -s 65536 -n 20
kill -INT "$cap_pid" 2>/dev/null || true
wait "$cap_pid" || true

# Every packet decoded as BTH over UDP 4791, both directions.
tshark -r "$cap" -T fields -e frame.protocols -e ip.src \
	-e infiniband.bth.opcode >"$RDMA_OUT/decoded.txt" \
	2>"$RDMA_OUT/tshark.log" || true
total=$(wc -l <"$RDMA_OUT/decoded.txt")
ib=$(grep -c ':udp:infiniband' "$RDMA_OUT/decoded.txt" || true)
echo "     tshark: $ib of $total packets decoded as InfiniBand"
ok "tshark decodes every packet as InfiniBand over UDP" \
	test "$total" -gt 100 -a "$ib" -eq "$total"
ok "packets from both sides" test \
	"$(cut -f2 "$RDMA_OUT/decoded.txt" | sort -u | wc -l)" -eq 2
tshark -r "$cap" -F pcap -w "$RDMA_OUT/capture.pcap" 2>/dev/null || true
ok "every ICRC checks" /usr/bin/python3 \
	"$WOOKIE_TOP/tests/vm/tools/icrc_check.py" "$RDMA_OUT/capture.pcap"
sed 's/^/     | /' /tmp/vm-step.log

PAIR_ROWS='^ *[0-9]+ +[0-9]+ +[0-9.]+'
for server in rxe wookie; do
	client=wookie
	[ "$server" = wookie ] && client=rxe
	roles "$server" "$client"
	xpair "$server-serves-ib_send_bw" $t ib_send_bw -s 65536 -n 200
	xpair "$server-serves-ib_write_bw" $t ib_write_bw -s 65536 -n 200
	xpair "$server-serves-ib_read_bw" $t ib_read_bw -s 65536 -n 200
	xpair "$server-serves-ib_atomic_bw" $t ib_atomic_bw -n 200
	xpair "$server-serves-ib_send_lat" $t ib_send_lat -s 64 -n 200
done

# IBTA 1.5's ATOMIC WRITE (tests/vm/pyverbs/ibta15_peer.py: the 8 bytes
# and a WRITE read back and checked on both ends), each side once as the
# requester, where the kernel's rxe has it: 6.2 on (6.1's rxe drops the
# opcode).  Not FLUSH: 6.12's rxe computes a FLUSH's ICRC over its
# headers twice (its opcode table gives FLUSH no payload offset), so it
# drops every standard FLUSH and sends none a standard peer takes (wookie
# counts them in rx_icrc_err; rxe then sends them again for ever).
ibta15_run() {
	local side=$1 ns=$2 dev=$3 gid=$4 dir=$5 env=("${PYVERBS_ENV[@]}")

	[ "$side" = wookie ] || env=(PYTHONPATH="$RDMA_CORE_BUILD/python")
	ns_run "$ns" timeout -k 5 $((60 * RDMA_SLOW)) env "${env[@]}" \
		/usr/bin/python3 "$WOOKIE_TOP/tests/vm/pyverbs/ibta15_peer.py" \
		"$6" --dev "$dev" --gid "$gid" --dir "$dir" --no-flush \
		--wait $((20 * RDMA_SLOW))
}
kver=$(uname -r)
if [ "${kver%%.*}" -gt 6 ] || { [ "${kver%%.*}" -eq 6 ] &&
	[ "$(echo "$kver" | cut -d. -f2)" -ge 2 ]; }; then
	for server in rxe wookie; do
		client=wookie
		[ "$server" = wookie ] && client=rxe
		roles "$server" "$client"
		dir=$RDMA_OUT/ibta15-$server-serves
		mkdir -p "$dir"
		ibta15_run "$server" "$XS_NS" "$XS_DEV" "$XS_GID" "$dir" serve \
			>"$dir/server.log" 2>&1 &
		spid=$!
		rc_c=0 rc_s=0
		ibta15_run "$client" "$XC_NS" "$XC_DEV" "$XC_GID" "$dir" client \
			>"$dir/client.log" 2>&1 || rc_c=$?
		wait "$spid" || rc_s=$?
		sed 's/^/     c| /' "$dir/client.log"
		sed 's/^/     s| /' "$dir/server.log"
		ok "$server serves ATOMIC WRITE to $client" \
			test "$rc_c" -eq 0 -a "$rc_s" -eq 0
	done
else
	echo "ok   skipped ATOMIC WRITE: $kver's rdma_rxe has none"
fi

rdma statistic show link rxe0/1 >"$RDMA_OUT/rxe-counters.txt" 2>&1 || true
sed 's/^/     | /' "$RDMA_OUT/rxe-counters.txt"
rxe_count() {
	grep -o "$1 [0-9]*" "$RDMA_OUT/rxe-counters.txt" | awk '{print $2}'
}
# Packets the veth itself dropped (its peer's backlog full, on a busy
# host) make sequence errors that are nobody's fault: only a run with no
# such drop is clean.
rx_dropped() {
	ns_run "$1" ip -s -j link show "$2" |
		sed -n 's/.*"rx":{[^}]*"dropped":\([0-9]*\).*/\1/p'
}
drops=$(($(rx_dropped "" vethA) + $(rx_dropped hostB vethB)))
if [ "$drops" -eq 0 ]; then
	equals "rxe saw no sequence error" 0 "$(rxe_count rcvd_seq_err)"
	equals "rxe saw no out-of-sequence request" 0 \
		"$(rxe_count out_of_seq_request)"
else
	echo "ok   the veth dropped $drops packets: rxe's sequence counters not judged ($(rxe_count rcvd_seq_err) sequence errors, $(rxe_count out_of_seq_request) out of sequence)"
fi

# 100% loss of what wookie sends to rxe: one single-packet WRITE must end
# in IBV_WC_RETRY_EXC_ERR in the time timeout 12 and retry_cnt 3 imply
# (rc_verify checks it, within 50%), after exactly 1 + 3 tries.
failed=$vm_failures
ok "load sch_netem, sch_prio, cls_u32" modprobe -a sch_netem sch_prio cls_u32
ok "netem drops every RoCEv2 packet zzb sends" \
	rocev2_netem hostB vethB loss 100%
if [ "$vm_failures" -eq "$failed" ]; then
	before=$(link_counter hostB zzb retry_exceeded_err)
	roles rxe wookie
	PAIR_ROWS=
	xpair rxe-serves-loss-100% $t "$WOOKIE_TOP/build/vm-progs/rc_verify" \
		--expect-retry-exc --timeout 12 --retry-cnt 3 --wait 60
	equals "every try of the WRITE dropped (1 + retry_cnt)" 4 \
		"$(netem_dropped_on hostB vethB)"
	equals "zzb retry_exceeded_err +1" $((before + 1)) \
		"$(link_counter hostB zzb retry_exceeded_err)"
	ok "remove netem" ip netns exec hostB tc qdisc del dev vethB root
fi

ok "nothing left on zzb" wait_until 10 rdma_no_objects zzb
ok "delete zzb" rdma link delete zzb
ok "delete rxe0" rdma_del rxe0
vm_done
