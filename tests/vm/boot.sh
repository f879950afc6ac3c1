#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Smoke test of the test VM itself (runs inside the guest): the RDMA core
# and wookie.ko are loaded, the places tools write to are writable, the
# --net init topology is up, and a RoCE device on vethA gets the GID table
# layout tests rely on (0 = fe80 link-local, 1 = IPv4-mapped).
# vm-run: --net init
# vm-group: short
set -euo pipefail

fail() {
	echo "boot.sh: FAIL: $*" >&2
	exit 1
}

echo "kernel $(uname -r) on $(hostname)"
[ "${WOOKIE_VM:-}" = 1 ] || fail "not in a vm-run guest"

for m in ib_core ib_uverbs rdma_ucm; do
	[ -d "/sys/module/$m" ] || fail "$m not loaded"
done
if [ -n "${WOOKIE_MODULE:-}" ]; then
	[ -d /sys/module/wookie ] || fail "wookie not loaded"
else
	echo "note: run with --no-module; wookie.ko not checked"
fi

writable=(/tmp /var/tmp /run /root /var/log /etc/libibverbs.d "$WOOKIE_VM_OUT")
# /etc and /var/lib are overlays where the kernel has overlayfs.
if grep -q '^overlay /etc ' /proc/mounts; then
	writable+=(/etc /var/lib)
else
	echo "note: no overlayfs in $(uname -r); /etc and /var/lib are read-only"
fi
for d in "${writable[@]}"; do
	f=$(mktemp -p "$d") || fail "$d not writable"
	rm -f "$f"
done
[ -e /dev/fd/0 ] || fail "no /dev/fd"
cat <(echo process substitution works) >/dev/null
mountpoint -q /sys/kernel/config || fail "no configfs"
mountpoint -q /sys/kernel/debug || fail "no debugfs"

rdma link show >/dev/null || fail "rdma link show failed"

# --net init: vethA in this namespace, vethB in hostB.
ip -4 addr show dev vethA | grep -q 'inet 10.0.0.1/24' || fail "vethA has no 10.0.0.1"
ip -n hostB -6 addr show dev vethB | grep -q 'inet6 fd00::2/64' || fail "vethB has no fd00::2"
# The host has no iputils; busybox-static is a harness dependency anyway.
busybox ping -c 1 -W 5 10.0.0.2 >/dev/null || fail "cannot ping 10.0.0.2"
busybox ping -6 -c 1 -W 5 fd00::2 >/dev/null || fail "cannot ping fd00::2"

# The GID table order the harness promises, seen through rdma_rxe.
rdma link add rxe_boot type rxe netdev vethA
gids=/sys/class/infiniband/rxe_boot/ports/1/gids
gid0=$(cat $gids/0)
gid1=$(cat $gids/1)
rdma link delete rxe_boot
echo "rxe GIDs: 0 $gid0, 1 $gid1"
[[ "$gid0" == fe80:* ]] || fail "GID 0 is not link-local: $gid0"
[ "$gid1" = 0000:0000:0000:0000:0000:ffff:0a00:0001 ] ||
	fail "GID 1 is not the IPv4-mapped 10.0.0.1: $gid1"
modprobe -r rdma_rxe

echo "boot.sh: ok"
