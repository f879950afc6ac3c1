# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Shared settings for wookie's scripts; sourced, not run.

WOOKIE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Large downloads and builds live outside the clone so fresh clones reuse them.
WOOKIE_CACHE=${WOOKIE_CACHE:-/var/cache/wookie}
# Per-clone build products (git-ignored).
WOOKIE_BUILD=${WOOKIE_BUILD:-$WOOKIE_TOP/build}
# The stock Debian 12 kernel the module targets and the VM boots.
WOOKIE_KVER=${WOOKIE_KVER:-6.1.0-56-amd64}
WOOKIE_LINUX_SRC=$WOOKIE_CACHE/linux-source-6.1
WOOKIE_DEBUG_KBUILD=$WOOKIE_CACHE/debug-kernel/build
WOOKIE_DEBUG_MODROOT=$WOOKIE_CACHE/debug-kernel/root

wookie_die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# Unpack Debian's linux-source-6.1 once into the cache.
wookie_linux_source() {
	local tarball=/usr/src/linux-source-6.1.tar.xz

	[ -f "$WOOKIE_LINUX_SRC/Makefile" ] && return 0
	[ -f "$tarball" ] || wookie_die "$tarball missing; run scripts/setup"
	mkdir -p "$WOOKIE_CACHE"
	rm -rf "$WOOKIE_LINUX_SRC.tmp"
	mkdir -p "$WOOKIE_LINUX_SRC.tmp"
	tar -C "$WOOKIE_LINUX_SRC.tmp" --strip-components=1 -xJf "$tarball"
	mv "$WOOKIE_LINUX_SRC.tmp" "$WOOKIE_LINUX_SRC"
}
