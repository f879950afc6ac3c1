#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init
# vm-group: short
#
# The port follows its netdev: state with the link and carrier, active MTU
# with the netdev MTU; consumers hear PORT_ACTIVE/PORT_ERR.
. "$(dirname "$0")/lib.sh"

active_mtu() {
	ibv_devinfo -d zz0 | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'
}

ok "add zz0" rdma link add zz0 type wookie netdev vethA
ok "ACTIVE" wait_until 5 port_is zz0 "4: ACTIVE"
equals "phys state" "5: LinkUp" "$(cat /sys/class/infiniband/zz0/ports/1/phys_state)"
equals "MTU 1500 -> 1024" 1024 "$(active_mtu)"

# ibv_asyncwatch opens the device through the provider and prints events.
stdbuf -oL ibv_asyncwatch -d zz0 >/tmp/events.log 2>&1 &
watcher=$!
sleep 1

ip netns exec hostB ip link set vethB down
ok "peer down: DOWN" wait_until 5 port_is zz0 "1: DOWN"
equals "phys state disabled" "3: Disabled" "$(cat /sys/class/infiniband/zz0/ports/1/phys_state)"
ip netns exec hostB ip link set vethB up
ok "peer up: ACTIVE" wait_until 5 port_is zz0 "4: ACTIVE"
ip link set vethA down
ok "link down: DOWN" wait_until 5 port_is zz0 "1: DOWN"
ip link set vethA up
ok "link up: ACTIVE" wait_until 5 port_is zz0 "4: ACTIVE"
ok "PORT_ERR event" wait_until 5 grep -q IBV_EVENT_PORT_ERR /tmp/events.log
ok "PORT_ACTIVE event" wait_until 5 grep -q IBV_EVENT_PORT_ACTIVE /tmp/events.log
kill $watcher
wait $watcher 2>/dev/null || true

for pair in 9000:4096 4188:4096 4187:2048 2140:2048 2139:1024 1116:1024 \
	    1115:512 604:512 603:256 348:256 1500:1024; do
	ip link set vethA mtu "${pair%%:*}"
	equals "MTU ${pair%%:*} -> ${pair##*:}" "${pair##*:}" "$(active_mtu)"
done
ip link set vethA mtu 347
ok "MTU 347: port DOWN" wait_until 5 port_is zz0 "1: DOWN"
ip link set vethA mtu 1500
ok "MTU 1500: ACTIVE again" wait_until 5 port_is zz0 "4: ACTIVE"

vm_done
