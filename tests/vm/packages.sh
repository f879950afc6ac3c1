#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net ns --writable-usr --no-module --timeout 3600
#
# The Debian packages of `make deb` as a test host uses them, on the
# booted kernel (6.1 or 6.12): dpkg -i of wookie-dkms and wookie-provider
# (their postinst has DKMS build and install the module for every kernel
# with headers: the booted one's, the other line's hidden at first);
# `dkms status` says installed; `rdma link add` loads the module itself
# (its alias rdma-link-wookie, found through depmod); the packaged
# provider serves ibv_devinfo and ibv_rc_pingpong between a device in
# hostA and one in hostB, data checked; `man wookie` and `man libwookie`
# work.  Then a kernel installed later as DKMS sees it: its own kernel
# hook (/etc/kernel/postinst.d/dkms) builds the module for the other
# line once its headers appear (WOOKIE_TEST_PACKAGES_UPGRADE=1, make
# check-kernels), or installs the booted kernel's build again after
# `dkms uninstall` (make check).  Last, dpkg --purge of both: no module,
# DKMS entry, source, man page or provider file left.  /usr is an overlay
# over the host's (vm-run --writable-usr); the tree's build of the module
# is not loaded.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

[ "$RDMA_TYPE" = wookie ] || { echo "ok   skipped: wookie's packages"; exit 0; }

read -r kver </proc/sys/kernel/osrelease
# The sanitizer kernel's modules are the project's own build, bound read
# only over /lib/modules: nothing installs there.  The packages are for
# Debian's kernels (make check: 6.1, make check-kernels: 6.1 and 6.12).
case "$kver" in
*-wookie-debug) echo "ok   skipped: packages on the sanitizer kernel"; exit 0 ;;
esac
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$WOOKIE_TOP/dkms.conf")
dkms_deb=$WOOKIE_TOP/build/deb/wookie-dkms_${ver}-1_all.deb
provider_deb=$(ls "$WOOKIE_TOP"/build/deb/wookie-provider_"${ver}"-1_*.deb 2>/dev/null | head -1)
if [ ! -f "$dkms_deb" ] || [ ! -f "$provider_deb" ]; then
	echo "FAIL the packages are not built (make deb)"
	exit 1
fi
# has_module KVER: DKMS's wookie.ko for KVER, compressed as that kernel's
# modules are (6.12's with xz).
has_module() {
	ls "/lib/modules/$1/updates/dkms/"wookie.ko* >/dev/null 2>&1
}
has_no_module() { ! has_module "$1"; }

# Every kernel the host has headers for.  The other line's headers are
# hidden at first: the packages go onto a host with the booted kernel's
# only, and the others arrive as "a kernel installed later", for which
# DKMS's hook must build.  That second build of the module under
# emulation takes minutes: make check-kernels runs it (on each line,
# WOOKIE_TEST_PACKAGES_UPGRADE=1), make check has the hook reinstall the
# booted kernel's build instead.
kernels=()
others=()
for d in /lib/modules/*; do
	[ -e "$d/build/include" ] || continue
	kernels+=("${d##*/}")
	[ "${d##*/}" = "$kver" ] || others+=("${d##*/}")
done
upgrade=${WOOKIE_TEST_PACKAGES_UPGRADE:-0}
echo "     kernels with headers: ${kernels[*]}; booted: $kver; upgrade to the others: $upgrade"
ok "the booted kernel has headers" test -e "/lib/modules/$kver/build/include"
# /lib/modules is under the --writable-usr overlay: nothing outlives the VM.
for k in "${others[@]}"; do
	ok "hide the headers of $k" mv "/lib/modules/$k/build" "/lib/modules/$k/build.hidden"
done

# The guest init pointed libibverbs at the tree's provider: the package's
# takes its place.
rm -f /etc/libibverbs.d/wookie.driver
ok "no wookie module loaded" sh -c '! grep -q "^wookie " /proc/modules'

export DEBIAN_FRONTEND=noninteractive
start=$SECONDS
ok "dpkg -i wookie-dkms wookie-provider" \
	dpkg -i "$dkms_deb" "$provider_deb"
echo "     install and DKMS builds took $((SECONDS - start)) s"
dkms status -m wookie | sed 's/^/     | /'
ok "dkms: installed for $kver" sh -c \
	"dkms status -m wookie -v $ver -k $kver | grep -q ': installed'"
ok "wookie.ko in /lib/modules/$kver/updates/dkms" has_module "$kver"
for k in "${others[@]}"; do
	ok "no module for $k (no headers)" has_no_module "$k"
done
ok "modinfo names the DKMS module" sh -c \
	"modinfo -F filename wookie | grep -q /updates/dkms/wookie.ko"
ok "modinfo: alias rdma-link-wookie" sh -c \
	"modinfo -F alias wookie | grep -qx rdma-link-wookie"

# rdma link add loads it: ib_core asks for the alias.
ok "add zza on vethA in hostA (loads the module)" wire_add hostA zza vethA
ok "the module came from DKMS" sh -c \
	"grep -q '^wookie ' /proc/modules && modinfo -n wookie | grep -q updates/dkms"
ok "add zzb on vethB in hostB" wire_add hostB zzb vethB
ok "ibv_devinfo through the packaged provider" sh -c \
	'ibv_devinfo -d zza | grep -q "transport:.*InfiniBand"'
v4gid() { printf '0000:0000:0000:0000:0000:ffff:0a00:%04x' "$1"; }
ok "zza has its IPv4 GID" wait_until 10 gid_index zza "$(v4gid 1)"
ok "zzb has its IPv4 GID" wait_until 10 gid_index zzb "$(v4gid 2)"
XS_NS=hostB XS_DEV=zzb XS_IP=10.0.0.2 XS_GID=$(gid_index zzb "$(v4gid 2)")
XC_NS=hostA XC_DEV=zza XC_GID=$(gid_index zza "$(v4gid 1)")
xpair rc_pingpong 120 ibv_rc_pingpong -c -s 4096 -n 100
ok "man wookie" sh -c 'MANPAGER=cat man 7 wookie | grep -q "rdma link add"'
ok "man libwookie" sh -c 'MANPAGER=cat man 7 libwookie | grep -q libwookie-rdmav34'
wire_del_all zza zzb
ok "rmmod wookie" rmmod wookie

# A kernel installed later: DKMS's hook builds the module for it.
if [ "$upgrade" = 1 ]; then
	for k in "${others[@]}"; do
		ok "headers of $k installed" mv "/lib/modules/$k/build.hidden" "/lib/modules/$k/build"
		start=$SECONDS
		ok "DKMS's kernel hook for $k" /etc/kernel/postinst.d/dkms "$k"
		echo "     its build took $((SECONDS - start)) s"
		ok "the hook built and installed it for $k" sh -c \
			"dkms status -m wookie -v $ver -k $k | grep -q ': installed'"
		ok "wookie.ko in /lib/modules/$k/updates/dkms" has_module "$k"
	done
else
	ok "dkms uninstall for $kver" dkms uninstall -m wookie -v "$ver" -k "$kver"
	ok "no module for $kver now" has_no_module "$kver"
	ok "DKMS's kernel hook for $kver" /etc/kernel/postinst.d/dkms "$kver"
	ok "the hook installed it again for $kver" sh -c \
		"dkms status -m wookie -v $ver -k $kver | grep -q ': installed'"
	ok "wookie.ko in /lib/modules/$kver/updates/dkms" has_module "$kver"
fi

ok "dpkg --purge wookie-provider wookie-dkms" \
	dpkg --purge wookie-provider wookie-dkms
ok "DKMS knows no wookie" sh -c '[ -z "$(dkms status -m wookie)" ]'
ok "no /var/lib/dkms/wookie" test ! -e /var/lib/dkms/wookie
ok "no /usr/src/wookie-$ver" test ! -e "/usr/src/wookie-$ver"
for k in "${kernels[@]}"; do
	ok "no module for $k" has_no_module "$k"
done
ok "modprobe finds no wookie" sh -c '! modinfo wookie >/dev/null 2>&1'
ok "no provider, driver file or man page" sh -c \
	'! ls /usr/lib/*/libibverbs/libwookie* /etc/libibverbs.d/wookie.driver \
		/usr/share/man/man7/wookie.7.gz /usr/share/man/man7/libwookie.7.gz 2>/dev/null'
ok "dpkg knows neither package" sh -c \
	'! dpkg -s wookie-dkms >/dev/null 2>&1 && ! dpkg -s wookie-provider >/dev/null 2>&1'
vm_done
