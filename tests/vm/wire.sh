#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net ns --timeout 2400
#
# Two hosts on the wire: a wookie device on vethA in namespace hostA and
# one on vethB in hostB, RoCEv2 over the veth between them, first with
# IPv4-mapped GIDs, then with IPv6 GIDs.  The distro's ibv_*_pingpong
# (data checked, -c) and perftest (send, RDMA write, RDMA read and
# atomics, latency and bandwidth, all sizes), the server in hostB and the
# client in hostA.  The veth's counters show the traffic crossed it.
# The IPv6 pass runs perftest at its default sizes only: the family
# changes the headers and the route, not the size-dependent paths the
# IPv4 pass has just run (at all sizes it adds about 90 s to the lane on
# Debian's 6.1, 25 minutes on the sanitizer kernel).
# Pass = both processes of each pair exit 0 in time.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

[ "$RDMA_TYPE" = wookie ] || { echo "ok   skipped: two wookie hosts"; exit 0; }

ok "add zza on vethA in hostA" wire_add hostA zza vethA
ok "add zzb on vethB in hostB" wire_add hostB zzb vethB

v4gid() { printf '0000:0000:0000:0000:0000:ffff:0a00:%04x' "$1"; }
v6gid() { printf 'fd00:0000:0000:0000:0000:0000:0000:%04x' "$1"; }
ok "zza has its GIDs" wait_until 10 gid_index zza "$(v6gid 1)"
ok "zzb has its GIDs" wait_until 10 gid_index zzb "$(v6gid 2)"

tx_packets() {
	ip -n hostA -s -j link show vethA |
		sed -n 's/.*"tx":{"bytes":[0-9]*,"packets":\([0-9]*\).*/\1/p'
}
tx_before=$(tx_packets)

PAIR_ROWS='^ *[0-9]+ +[0-9]+ +[0-9.]+'
t=300
for family in ipv4 ipv6; do
	if [ "$family" = ipv4 ]; then
		XS_IP=10.0.0.2
		XS_GID=$(gid_index zzb "$(v4gid 2)") || XS_GID=none
		XC_GID=$(gid_index zza "$(v4gid 1)") || XC_GID=none
	else
		# The pingpongs and perftest listen on IPv4 only.
		XS_IP=10.0.0.2
		XS_GID=$(gid_index zzb "$(v6gid 2)") || XS_GID=none
		XC_GID=$(gid_index zza "$(v6gid 1)") || XC_GID=none
	fi
	XS_NS=hostB XS_DEV=zzb XC_NS=hostA XC_DEV=zza
	echo "--- $family: server zzb GID $XS_GID, client zza GID $XC_GID"

	PAIR_ROWS=
	xpair "$family-rc-1" $t ibv_rc_pingpong -c -s 1 -n 100
	xpair "$family-rc-65536" $t ibv_rc_pingpong -c -s 65536 -n 20
	xpair "$family-rc-1M" $t ibv_rc_pingpong -c -s 1048576 -n 3 -r 10
	xpair "$family-uc-4096" $t ibv_uc_pingpong -c -s 4096 -n 100
	xpair "$family-ud-1024" $t ibv_ud_pingpong -c -s 1024 -n 100
	xpair "$family-srq-4096" $t ibv_srq_pingpong -c -s 4096 -n 20 -q 4
	xpair "$family-xsrq-4096" $t ibv_xsrq_pingpong -s 4096 -n 20

	PAIR_ROWS='^ *[0-9]+ +[0-9]+ +[0-9.]+'
	sizes=(-a)
	[ "$family" = ipv4 ] || sizes=()
	for test in send write read; do
		xpair "$family-ib_${test}_lat" $t "ib_${test}_lat" "${sizes[@]}" -n 5
		xpair "$family-ib_${test}_bw" $t "ib_${test}_bw" "${sizes[@]}" -n 5
	done
	xpair "$family-ib_atomic_lat" $t ib_atomic_lat -n 100
	xpair "$family-ib_atomic_bw" $t ib_atomic_bw -A FETCH_AND_ADD -n 100
	xpair "$family-ib_send_bw-UD" $t ib_send_bw -c UD "${sizes[@]}" -n 20
done

tx_after=$(tx_packets)
echo "     vethA sent $((tx_after - tx_before)) packets"
ok "the traffic crossed the veth" test "$((tx_after - tx_before))" -gt 100000

# Clean runs: nothing malformed, nothing unroutable.  (Packets for QPs
# already destroyed, rx_drop_no_qp, are normal at each program's end.)
for dev in zza zzb; do
	stats=$(rdma statistic show link "$dev/1")
	echo "     $stats"
	for c in rx_icrc_err rx_drop_bad_hdr tx_drop_no_route; do
		equals "$dev $c" 0 "$(sed -n "s/.* $c \([0-9]*\).*/\1/p" <<<"$stats")"
	done
done

wire_del_all zza zzb
vm_done
