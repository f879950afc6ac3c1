#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A provider and a kernel module of different ABI versions refuse each
# other with a message that names both versions, in both directions: a
# provider built for ABI 99 against today's module, and today's provider
# against a module built for ABI 99.  The matching pair still works in the
# same boot, so the refusal is the version's doing.
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/scripts/lib.sh"

wookie_host_test_kernel

want=$(sed -n 's/^#define WOOKIE_ABI_VERSION \([0-9]*\)$/\1/p' \
	"$top/include/uapi/rdma/wookie-abi.h")
[ -n "$want" ] || wookie_die "no WOOKIE_ABI_VERSION in wookie-abi.h"
other=99

# A copy of the sources whose ABI header says $other.
work=$WOOKIE_BUILD/abi-mismatch
mkdir -p "$work/src"
rsync -a --delete "$top/Kbuild" "$top/kernel" "$top/include" \
	"$top/userspace-provider" "$work/src/"
sed -i "s/^#define WOOKIE_ABI_VERSION $want\$/#define WOOKIE_ABI_VERSION $other/" \
	"$work/src/include/uapi/rdma/wookie-abi.h"
grep -q "^#define WOOKIE_ABI_VERSION $other\$" "$work/src/include/uapi/rdma/wookie-abi.h"
make -s --no-print-directory -C "$work/src/userspace-provider" \
	O="$work/provider" RDMA_CORE_BUILD="$WOOKIE_BUILD/rdma-core-56.1/build"
make -s -C "$kdir" M="$work/src" modules

logs=$WOOKIE_BUILD/vm/logs/abi-mismatch
mkdir -p "$logs"
failed=0 passed=0

# expect NAME LOG PATTERN: the guest printed PATTERN.
expect() {
	if grep -qE "$3" "$2"; then
		echo "ok   $1"
		passed=$((passed + 1))
	else
		echo "FAIL $1: no /$3/ in $2"
		tail -n 30 "$2" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}

# Today's module, a provider for ABI $other in a private /etc/libibverbs.d.
log=$logs/old-kernel.log
rc=0
"$top/scripts/vm-run" "${vm_args[@]}" --net init -- bash -c "
	rdma link add zz0 type wookie netdev vethA
	if unshare -m sh -c 'mount -t tmpfs none /etc/libibverbs.d &&
		echo \"driver $work/provider/libwookie\" >/etc/libibverbs.d/wookie.driver &&
		ibv_devinfo -d zz0'; then
		echo RESULT-mismatched-provider-opened
	else
		echo RESULT-mismatched-provider-refused
	fi
	ibv_devinfo -d zz0 >/dev/null && echo RESULT-matching-provider-opened
" >"$log" 2>&1 || rc=$?
expect "vm-run passes (rc $rc)" "$log" "command status 0, vm-run status 0"
expect "provider for ABI $other refuses a kernel of ABI $want" "$log" \
	"RESULT-mismatched-provider-refused"
expect "... and says why" "$log" \
	"wookie: device zz0 speaks ABI $want, this provider ABI $other"
expect "the matching provider opens it" "$log" "RESULT-matching-provider-opened"

# A module for ABI $other, today's provider.
log=$logs/new-kernel.log
rc=0
WOOKIE_MODULE=$work/src/wookie.ko "$top/scripts/vm-run" "${vm_args[@]}" \
	--net init -- bash -c "
	rdma link add zz0 type wookie netdev vethA
	cat /sys/class/infiniband/zz0/wookie_abi_version
	if ibv_devinfo -d zz0; then
		echo RESULT-provider-opened-newer-kernel
	else
		echo RESULT-provider-refused-newer-kernel
	fi
" >"$log" 2>&1 || rc=$?
expect "vm-run passes (rc $rc)" "$log" "command status 0, vm-run status 0"
expect "provider for ABI $want refuses a kernel of ABI $other" "$log" \
	"RESULT-provider-refused-newer-kernel"
expect "... and says why" "$log" \
	"wookie: device zz0 speaks ABI $other, this provider ABI $want"

echo "abi-mismatch: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
