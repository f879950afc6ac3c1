#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net ns
#
# rmmod with devices present, one of them in use, removes them all; the
# module loads again afterwards.  Both veth ends live in namespaces here.
. "$(dirname "$0")/lib.sh"

probe=$WOOKIE_TOP/build/vm-progs/uverbs_probe
module=$(modinfo -n wookie 2>/dev/null || true)
[ -n "$module" ] || module=${WOOKIE_MODULE:-$WOOKIE_TOP/build/module/$(uname -r)/wookie.ko}

ok "add aa0 in hostA" ip netns exec hostA rdma link add aa0 type wookie netdev vethA
ok "add bb0 in hostB" ip netns exec hostB rdma link add bb0 type wookie netdev vethB
ok "aa0 ACTIVE" wait_until 5 port_is aa0 "4: ACTIVE"
ok "aa0 GID 1 is 10.0.0.1" wait_until 5 grep -q ffff:0a00:0001 /sys/class/infiniband/aa0/ports/1/gids/1
ok "bb0 GID 1 is 10.0.0.2" wait_until 5 grep -q ffff:0a00:0002 /sys/class/infiniband/bb0/ports/1/gids/1
ip netns exec hostA "$probe" aa0 hold >/tmp/hold.log 2>&1 &
holder=$!
ok "a user holds aa0" wait_until 10 grep -q holding /tmp/hold.log

ok "rmmod with devices and a user" timeout 60 rmmod wookie
ok "aa0 gone" rdma_dev_gone aa0
ok "bb0 gone" rdma_dev_gone bb0
kill -9 $holder
wait $holder 2>/dev/null || true

ok "insmod again" insmod "$module"
ok "add aa0 again" ip netns exec hostA rdma link add aa0 type wookie netdev vethA
ok "aa0 ACTIVE again" wait_until 5 port_is aa0 "4: ACTIVE"
# The harness unloads the module at the end with aa0 still present.

vm_done
