#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init
#
# `rdma link add/delete` of wookie devices: names without "wookie", GIDs and
# sysfs, bad input refused with nothing created, removal with the netdev.
. "$(dirname "$0")/lib.sh"

ok "add zz0 on vethA" rdma link add zz0 type wookie netdev vethA
ok "rdma link show lists zz0" sh -c 'rdma link show zz0/1 | grep -q "netdev vethA"'
ok "rdma dev show lists zz0" sh -c 'rdma dev show zz0 | grep -q "node_type ca"'
equals "sysfs parent" vethA "$(cat /sys/class/infiniband/zz0/parent)"
equals "sysfs ABI version" "$(sed -n "s/^#define WOOKIE_ABI_VERSION \([0-9]*\)$/\1/p" "$WOOKIE_TOP/include/uapi/rdma/wookie-abi.h")" "$(cat /sys/class/infiniband/zz0/wookie_abi_version)"
equals "node type" "1: CA" "$(cat /sys/class/infiniband/zz0/node_type)"
equals "link layer" Ethernet "$(cat /sys/class/infiniband/zz0/ports/1/link_layer)"
ok "port ACTIVE" wait_until 5 port_is zz0 "4: ACTIVE"

# Node GUID is the modified EUI-64 of the MAC.
mac=$(cat /sys/class/net/vethA/address)
IFS=: read -r m0 m1 m2 m3 m4 m5 <<<"$mac"
guid=$(printf '%02x%s:%sff:fe%s:%s%s' $((0x$m0 ^ 2)) "$m1" "$m2" "$m3" "$m4" "$m5")
equals "node GUID from MAC" "$guid" "$(cat /sys/class/infiniband/zz0/node_guid)"

# GIDs: index 0 the link-local address, index 1 the IPv4-mapped one (as
# rxe), then the IPv6 address; all RoCE v2.
gids=/sys/class/infiniband/zz0/ports/1/gids
types=/sys/class/infiniband/zz0/ports/1/gid_attrs/types
ok "GID 1 appears" wait_until 5 grep -q ffff:0a00:0001 $gids/1
equals "GID 0 link-local" fe80 "$(cut -c1-4 $gids/0)"
equals "GID 1 IPv4-mapped" 0000:0000:0000:0000:0000:ffff:0a00:0001 "$(cat $gids/1)"
equals "GID 1 type" "RoCE v2" "$(cat $types/1)"
ok "GID for fd00::1" wait_until 5 grep -qx fd00:0000:0000:0000:0000:0000:0000:0001 $gids/2
equals "GID 2 type" "RoCE v2" "$(cat $types/2)"
ok "ibv_devices lists zz0" sh -c 'ibv_devices | grep -qw zz0'

# A device in another namespace's netdev.
ok "add zz1 on vethB in hostB" ip netns exec hostB rdma link add zz1 type wookie netdev vethB
equals "zz1 GID 1" 0000:0000:0000:0000:0000:ffff:0a00:0002 \
	"$(wait_until 5 grep -q ffff /sys/class/infiniband/zz1/ports/1/gids/1; cat /sys/class/infiniband/zz1/ports/1/gids/1)"

# Bad input: a clear errno and nothing created.
before=$(wookie_device_count)
refused "second device on vethA" "File exists" rdma link add zz2 type wookie netdev vethA
ip link add dummyx type veth peer name dummyy
refused "taken device name" "File exists" rdma link add zz0 type wookie netdev dummyx
refused "loopback netdev" "Operation not supported" rdma link add zz3 type wookie netdev lo
refused "no such netdev" "No such device" rdma link add zz4 type wookie netdev nosuchdev
ip link set dummyx mtu 300
refused "MTU too small for RoCE" "Invalid argument" rdma link add zz5 type wookie netdev dummyx
ip link set dummyx mtu 1500
equals "nothing created" "$before" "$(wookie_device_count)"
for name in zz2 zz3 zz4 zz5; do
	ok "$name absent" rdma_dev_gone $name
done

# Delete by name; the netdev stays.
ok "delete zz0" rdma link delete zz0
ok "zz0 gone" rdma_dev_gone zz0
ok "vethA still there" ip link show vethA
ok "re-add on vethA" rdma link add zz0 type wookie netdev vethA
ok "delete again" rdma link delete zz0

# Removing the netdev removes the device.
ok "add on dummyx" rdma link add zz6 type wookie netdev dummyx
ip link del dummyx
ok "zz6 gone with its netdev" wait_until 10 rdma_dev_gone zz6
ok "zz1 still there" rdma_dev_exists zz1
ip netns exec hostB ip link del vethB
ok "zz1 gone with vethB's pair" wait_until 10 rdma_dev_gone zz1
equals "no wookie devices left" 0 "$(wookie_device_count)"

# Add and remove in a loop, racing netdev removal.
for i in 1 2 3 4 5; do
	ip link add rx$i type veth peer name ry$i
	ip link set rx$i up
	ip link set ry$i up
	rdma link add race$i type wookie netdev rx$i &
	ip link del rx$i
	wait || true
done
ok "racing adds leave nothing" wait_until 10 sh -c '[ "$(ls /sys/class/infiniband | grep -c ^race)" = 0 ]'

vm_done
