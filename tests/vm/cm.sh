#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 1200
#
# rdma_cm over wookie: rdma-core's rping (with -V, which checks the data
# of every ping), ucmatose (RC), udaddy (UD), rdma_server/rdma_client,
# mckey (multicast: the receiver is the "server", the sender joins after
# it) and perftest with -R.  First on one device (zz0 on vethA), then
# between two devices in two namespaces (server on zz1 in hostB), then
# between zz1 and the kernel's rdma_rxe (rxe0 on vethA in the initial
# namespace, the only one where 6.1's rxe works), each side once as
# server.  Address and route resolution, the CM's MADs on QP1 over the
# wire and the QPs' traffic all run through the device.  Multicast through
# the verbs alone (mcast_check: attach/detach and their errors, delivery
# to each QP attached, loopback, limits) runs on zz0 over IPv4 and IPv6
# (rdma_cm joins no IPv6 group on RoCE: ENOTSUPP).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

[ "$RDMA_TYPE" = wookie ] || { echo "ok   skipped: rdma_cm on wookie"; exit 0; }

cm_port=20100

# cm_pair NAME SERVER_NS CLIENT_NS SERVER_CMD CLIENT_CMD: the server in the
# background, then the client; both must exit 0.  %p in a command is a
# port of its own (udaddy has none: its -p is the port space), %m a
# multicast group of its own.  rdma_cm servers listen on no TCP port: no
# wait for one, as pair_run does.
cm_pair() {
	local name=$1 sns=$2 cns=$3 port=$cm_port spid src=0 crc=0
	local slog=$RDMA_OUT/$1.server.log clog=$RDMA_OUT/$1.client.log
	local scmd cmd

	local group=239.1.1.$((port % 250 + 1))

	scmd=${4//%p/$port}
	cmd=${5//%p/$port}
	read -ra scmd <<<"${scmd//%m/$group}"
	read -ra cmd <<<"${cmd//%m/$group}"
	cm_port=$((cm_port + 1))
	ns_run "$sns" timeout -k 5 $((120 * RDMA_SLOW)) "${scmd[@]}" >"$slog" 2>&1 &
	spid=$!
	# Time to listen: rdma_cm servers have no port to wait for.
	sleep $((2 * RDMA_SLOW))
	ns_run "$cns" timeout -k 5 $((120 * RDMA_SLOW)) "${cmd[@]}" >"$clog" 2>&1 || crc=$?
	if [ "$crc" -ne 0 ]; then
		sleep 3
		kill "$spid" 2>/dev/null || true
	fi
	wait "$spid" || src=$?
	if [ "$src" -eq 0 ] && [ "$crc" -eq 0 ]; then
		echo "ok   $name"
		return 0
	fi
	echo "FAIL $name: server exit $src, client exit $crc"
	tail -n 8 "$slog" | sed 's/^/     s| /'
	tail -n 8 "$clog" | sed 's/^/     c| /'
	vm_failures=$((vm_failures + 1))
}

# cm_suite TAG SERVER_NS SERVER_IP SERVER_DEV CLIENT_NS CLIENT_DEV CLIENT_IP
cm_suite() {
	local t=$1 sns=$2 sip=$3 sdev=$4 cns=$5 cdev=$6 cip=$7

	cm_pair "$t-rping" "$sns" "$cns" \
		"rping -s -V -C 20 -S 1024 -a $sip -p %p" \
		"rping -c -V -C 20 -S 1024 -a $sip -p %p"
	cm_pair "$t-ucmatose" "$sns" "$cns" "ucmatose -c 2 -C 20 -S 4096 -p %p" \
		"ucmatose -c 2 -C 20 -S 4096 -s $sip -p %p"
	cm_pair "$t-udaddy" "$sns" "$cns" "udaddy -c 2 -C 20" \
		"udaddy -c 2 -C 20 -s $sip"
	cm_pair "$t-rdma_server" "$sns" "$cns" "rdma_server -p %p" \
		"rdma_client -s $sip -p %p"
	cm_pair "$t-mckey" "$sns" "$cns" "mckey -m %m -b $sip -C 20" \
		"mckey -m %m -b $cip -s -C 20"
	cm_pair "$t-ib_write_bw-R" "$sns" "$cns" \
		"ib_write_bw -d $sdev -R -F -s 65536 -n 200 -p %p" \
		"ib_write_bw -d $cdev -R -F -s 65536 -n 200 -p %p $sip"
}

ok "add zz0 on vethA" rdma link add zz0 type wookie netdev vethA
ok "add zz1 on vethB in hostB" \
	ip netns exec hostB rdma link add zz1 type wookie netdev vethB
ok "zz0 ACTIVE" wait_until 10 port_is zz0 "4: ACTIVE"
ok "zz1 ACTIVE" wait_until 10 port_is zz1 "4: ACTIVE"
ok "zz0 has its IPv4 GID" wait_until 10 gid_index zz0 \
	0000:0000:0000:0000:0000:ffff:0a00:0001
ok "zz1 has its IPv4 GID" wait_until 10 gid_index zz1 \
	0000:0000:0000:0000:0000:ffff:0a00:0002

cm_suite 1dev "" 10.0.0.1 zz0 "" zz0 10.0.0.1
cm_suite 2dev hostB 10.0.0.2 zz1 "" zz0 10.0.0.1

# Multicast through the verbs, on both address families.
gid4=$(gid_index zz0 0000:0000:0000:0000:0000:ffff:0a00:0001)
gid6=$(gid_index zz0 fd00:0000:0000:0000:0000:0000:0000:0001)
for g in "$gid4" "$gid6"; do
	if [ -z "$g" ]; then
		echo "FAIL mcast_check: a GID of zz0 is missing"
		vm_failures=$((vm_failures + 1))
		continue
	fi
	if timeout -k 5 $((120 * RDMA_SLOW)) "$WOOKIE_TOP/build/vm-progs/mcast_check" -d zz0 \
		-g "$g" >"$RDMA_OUT/mcast_check-$g.log" 2>&1; then
		echo "ok   mcast_check on zz0, GID index $g"
	else
		echo "FAIL mcast_check on zz0, GID index $g"
		grep -v '^ok' "$RDMA_OUT/mcast_check-$g.log" | tail -n 12 |
			sed 's/^/     | /'
		vm_failures=$((vm_failures + 1))
	fi
done
ok "no objects left on zz0" wait_until 10 rdma_no_objects zz0
ok "no objects left on zz1" wait_until 10 rdma_no_objects zz1
ok "delete zz0" rdma link delete zz0

# wookie against rdma_rxe: rxe0 takes vethA (and UDP 4791 there).
ok "add rxe0 on vethA" rdma link add rxe0 type rxe netdev vethA
ok "rxe0 has its IPv4 GID" wait_until 10 gid_index rxe0 \
	0000:0000:0000:0000:0000:ffff:0a00:0001
cm_pair rxe-serves-rping "" hostB \
	"rping -s -V -C 20 -S 1024 -a 10.0.0.1 -p %p" \
	"rping -c -V -C 20 -S 1024 -a 10.0.0.1 -p %p"
cm_pair wookie-serves-rping hostB "" \
	"rping -s -V -C 20 -S 1024 -a 10.0.0.2 -p %p" \
	"rping -c -V -C 20 -S 1024 -a 10.0.0.2 -p %p"
cm_pair rxe-serves-ucmatose "" hostB "ucmatose -c 2 -C 20 -p %p" \
	"ucmatose -c 2 -C 20 -s 10.0.0.1 -p %p"
cm_pair wookie-serves-udaddy hostB "" "udaddy -c 2 -C 20" \
	"udaddy -c 2 -C 20 -s 10.0.0.2"
cm_pair rxe-receives-mckey "" hostB "mckey -m %m -b 10.0.0.1 -C 20" \
	"mckey -m %m -b 10.0.0.2 -s -C 20"
# rxe sends 40 for the 20 wookie must receive: 6.12's rxe runs a user
# post_send from a work item and looks a UD WQE's AH up by number when it
# sends it, so mckey's sender, which destroys its AH right after its last
# post, loses some of its own datagrams there (wookie itself pins the AH,
# see wookie_req_pin_av()).
cm_pair wookie-receives-mckey hostB "" "mckey -m %m -b 10.0.0.2 -C 20" \
	"mckey -m %m -b 10.0.0.1 -s -C 40"
ok "no objects left on zz1" wait_until 10 rdma_no_objects zz1
ok "delete rxe0" rdma link delete rxe0
ok "delete zz1" ip netns exec hostB rdma link delete zz1
vm_done
