# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Shared settings for wookie's scripts; sourced, not run.

WOOKIE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Large downloads and builds live outside the clone so fresh clones reuse them.
WOOKIE_CACHE=${WOOKIE_CACHE:-/var/cache/wookie}
# Per-clone build products (git-ignored).
WOOKIE_BUILD=${WOOKIE_BUILD:-$WOOKIE_TOP/build}
# The two kernel lines wookie supports, both Debian 12's own packages: its
# stock 6.1 and the 6.12 line of its security suite (one release pinned).
WOOKIE_KVER_61=6.1.0-56-amd64
WOOKIE_KVER_612=6.12.117+deb12-amd64
WOOKIE_KSRC_612_VERSION=6.12.117-1~deb12u1
# The kernel the module targets and the VM boots: 6.1 unless told.
WOOKIE_KVER=${WOOKIE_KVER:-$WOOKIE_KVER_61}

# wookie_kernel_line LINE: point WOOKIE_LINUX_SRC (Debian's linux-source of
# line LINE, unpacked) and the sanitizer kernel built from it at LINE.  6.1
# unless told: lint's checkpatch and KUnit use 6.1's.
wookie_kernel_line() {
	case "$1" in
	6.1) WOOKIE_DEBUG_DIR=$WOOKIE_CACHE/debug-kernel ;;
	6.12) WOOKIE_DEBUG_DIR=$WOOKIE_CACHE/debug-kernel-6.12 ;;
	*) wookie_die "unknown kernel line $1 (6.1 or 6.12)" ;;
	esac
	WOOKIE_LINE=$1
	WOOKIE_LINUX_SRC=$WOOKIE_CACHE/linux-source-$1
	WOOKIE_DEBUG_KBUILD=$WOOKIE_DEBUG_DIR/build
	WOOKIE_DEBUG_MODROOT=$WOOKIE_DEBUG_DIR/root
}

wookie_die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# wookie_kver_of LINE: the pinned release of kernel line LINE (6.1, 6.12).
wookie_kver_of() {
	case "$1" in
	6.1) echo "$WOOKIE_KVER_61" ;;
	6.12) echo "$WOOKIE_KVER_612" ;;
	*) wookie_die "unknown kernel line $1 (6.1 or 6.12)" ;;
	esac
}
wookie_kernel_line 6.1

# wookie_line_of RELEASE: the line (6.1, 6.12) of a pinned release.
wookie_line_of() {
	case "$1" in
	"$WOOKIE_KVER_612") echo 6.12 ;;
	*) echo 6.1 ;;
	esac
}

# Unpack Debian's linux-source of the current line once into the cache.
wookie_linux_source() {
	local tarball=/usr/src/linux-source-$WOOKIE_LINE.tar.xz

	[ -f "$WOOKIE_LINUX_SRC/Makefile" ] && return 0
	[ -f "$tarball" ] || wookie_die "$tarball missing; run scripts/setup"
	mkdir -p "$WOOKIE_CACHE"
	rm -rf "$WOOKIE_LINUX_SRC.tmp"
	mkdir -p "$WOOKIE_LINUX_SRC.tmp"
	tar -C "$WOOKIE_LINUX_SRC.tmp" --strip-components=1 -xJf "$tarball"
	mv "$WOOKIE_LINUX_SRC.tmp" "$WOOKIE_LINUX_SRC"
}

# --- VM harness (scripts/vm-run) ------------------------------------------

# Kernel log patterns that fail a VM run: oopses, WARN()s, sanitizer and
# lockdep reports, stalls, list/refcount/slab corruption, kmemleak leaks
# ("unreferenced object": kmemleak's own "N new suspected memory leaks"
# log line is not used, as it cannot tell boot-time objects from ours).
WOOKIE_SPLAT_RE='BUG:|BUG [^ ]+ \(|kernel BUG at|Oops|: [0-9a-f]{4} \[#[0-9]+\]|WARNING:|\[ cut here \]|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|lock held when returning|DEBUG_LOCKS_WARN_ON|bad unlock balance|held lock freed|lock held at task exit|soft lockup|hung task|blocked for more than|self-detected stall|detected stall|rcu: INFO|refcount_t:|list_add corruption|list_del corruption|unreferenced object|general protection fault|Kernel panic|Slab corruption|Poison overwritten|scheduling while atomic|sleeping function called from invalid context|ODEBUG:|stack-protector|kernel stack overflow|double fault'

# wookie_vm_kernel_lines CONSOLE_LOG MARKER_PREFIX [FILE...]
# Print the kernel's lines of a VM console log.  The console mixes kernel
# messages with the command's output, so only these count: text from a
# printk timestamp "[   12.345678] " on (the kernel writes a message in
# one go, but may cut into a line of user output), and whole lines
# between the guest init's dmesg-begin/end markers.  FILEs (the dmesg
# dump) are kernel text throughout.  The kmemleak report between
# kmemleak-begin/end gives one line per leaked object, header and comm
# line joined, for objects younger than the window= on the begin marker
# (older ones predate wookie.ko).
wookie_vm_kernel_lines() {
	local log=$1 prefix=$2 f

	shift 2
	# shellcheck disable=SC2016
	local prog='
		function out(s) {
			if (s !~ /new suspected memory leaks \(see/)
				print s
		}
		!console { out($0); next }
		index($0, p "dmesg-begin") { dump = 1; next }
		index($0, p "dmesg-end") { dump = 0; next }
		index($0, p "kmemleak-begin") {
			leak = 1
			window = 1e9
			if (match($0, /window=[0-9]+/))
				window = substr($0, RSTART + 7, RLENGTH - 7) + 0
			next
		}
		index($0, p "kmemleak-end") { leak = 0; next }
		leak && /^unreferenced object/ { hdr = $0; next }
		leak && hdr != "" && /^ *comm / {
			age = 0
			if (match($0, /\(age [0-9.]+s\)/))
				age = substr($0, RSTART + 5, RLENGTH - 7) + 0
			sub(/^ +/, "")
			if (age <= window)
				print hdr " " $0
			hdr = ""
			next
		}
		leak { next }
		dump { out($0); next }
		match($0, /\[ *[0-9]+\.[0-9]+\] /) { out(substr($0, RSTART)) }
	'
	awk -v p="$prefix" -v console=1 "$prog" "$log"
	for f in "$@"; do
		[ ! -f "$f" ] || awk -v console=0 "$prog" "$f"
	done
}

# Lockdep reports and WARNINGs about upstream code alone, tolerated by
# name.  Each line: a name, then words that one whole report (a lockdep
# report from its header to the end of its trace, a WARNING from its "cut
# here" line to its "end trace") must all hold; a report that names a
# wookie function or the wookie module is never tolerated.  Lockdep
# checks nothing more in that boot once it has reported (KASAN and
# kmemleak do).
#   nvmet-rdma-connect-vs-port-removal: a connect command that arrived
#   before rdma_cm's ESTABLISHED event is run from nvmet-rdma's CM
#   handler, under rdma_cm's handler_mutex, and takes nvmet_config_sem;
#   removing a port takes them the other way round (nvmet_rdma_disable_port
#   -> rdma_destroy_id under nvmet_config_sem).  In Linux 6.1 and
#   upstream, with any RDMA device; tests/vm/nvmeof.sh removes a port and
#   reconnects.
#   rxe-completer-error-with-success: 6.12's rdma_rxe reaches its
#   completer's error state with a WQE whose status is still success and
#   WARNs (rxe_comp.c, WARN_ON_ONCE in COMPST_ERROR); seen in iser's rxe
#   comparison run, with no wookie device present.
WOOKIE_KNOWN_REPORTS='nvmet-rdma-connect-vs-port-removal nvmet_config_sem handler_mutex nvmet_rdma_cm_handler nvmet_rdma_disable_port
rxe-completer-error-with-success drivers/infiniband/sw/rxe/rxe_comp.c: rxe_completer+ [rdma_rxe] rxe_sender+'

# wookie_vm_known_reports: kernel lines in, the same out, with each whole
# report that WOOKIE_KNOWN_REPORTS tolerates replaced by one line "known
# upstream report: NAME".
wookie_vm_known_reports() {
	awk -v known="$WOOKIE_KNOWN_REPORTS" '
		function flush(   k, w, n, words, ok) {
			for (k = 1; k <= nk; k++) {
				ok = text !~ /\[wookie\]|[^a-z]wookie_[a-z]/
				n = split(sig[k], words, " ")
				for (w = 2; ok && w <= n; w++)
					ok = index(text, words[w]) > 0
				if (ok) {
					print "known upstream report: " words[1]
					nb = 0
					return
				}
			}
			for (k = 1; k <= nb; k++)
				print buf[k]
			nb = 0
		}
		BEGIN { nk = split(known, sig, "\n") }
		rep {
			buf[++nb] = $0
			text = text "\n" $0
			if ((rep == 1 && /<\/TASK>/) || (rep == 2 && /---\[ end trace/) ||
			    nb >= 500) {
				rep = 0
				flush()
			}
			next
		}
		/possible circular locking dependency detected|\[ cut here \]/ {
			rep = /cut here/ ? 2 : 1
			nb = 1
			buf[1] = $0
			text = $0
			next
		}
		{ print }
		END { if (rep) flush() }'
}

# wookie_vm_reportable_lines CONSOLE_LOG MARKER_PREFIX [FILE...]: the
# kernel lines a splat is looked for in.  A user process's crash ("traps:
# python3[160] general protection fault ip:... in libc.so.6") is the
# kernel reporting a signal, not a splat: the test that ran the process
# sees it fail.  Known upstream reports are not splats either
# (wookie_vm_known_reports; vm-run names them).
wookie_vm_reportable_lines() {
	wookie_vm_kernel_lines "$@" | wookie_vm_known_reports |
		awk '!/\] traps: [^ ]+\[[0-9]+\] |^known upstream report: /'
}

# wookie_vm_splats CONSOLE_LOG MARKER_PREFIX [FILE...]: the splat lines,
# each once; status 1 when there are none.
wookie_vm_splats() {
	wookie_vm_reportable_lines "$@" | grep -aE "$WOOKIE_SPLAT_RE" |
		awk '!seen[$0]++' | grep .
}

# wookie_vm_first_report CONSOLE_LOG MARKER_PREFIX [FILE...]: the kernel
# lines of the first splat, from its first line on (its backtrace), at
# most 45 lines.  It reads to the end: an early exit would fail the
# caller's pipeline (SIGPIPE, pipefail).
wookie_vm_first_report() {
	wookie_vm_reportable_lines "$@" |
		re=$WOOKIE_SPLAT_RE awk '
			!n && $0 ~ ENVIRON["re"] { n = 1 }
			/Modules linked in:|\] Code: / { next }
			n && n++ <= 45 { print }'
}

# wookie_vm_initramfs KVER MODROOT: print the path of the busybox
# initramfs for kernel KVER (modules under MODROOT/lib/modules), built
# once and rebuilt when busybox, the init script or the modules change.
wookie_vm_initramfs() {
	local kver=$1 modroot=$2 bb init dir img key tmp ko line m a
	local mods=()

	bb=$(command -v busybox) || wookie_die "busybox missing; run scripts/setup"
	bb=$(readlink -f "$bb")
	init=$WOOKIE_TOP/scripts/vm-initramfs-init
	dir=$WOOKIE_BUILD/vm/initramfs
	img=$dir/$kver.cpio
	mkdir -p "$dir"

	# 9p over virtio-pci, configfs and overlayfs, with what they depend
	# on, in load order.  Built-in ones give "builtin" lines; a kernel
	# without one (say overlayfs) just gets none.
	for m in virtio_pci 9pnet_virtio 9p configfs overlay; do
		while read -r line; do
			case "$line" in
			insmod\ *)
				ko=${line#insmod }
				ko=${ko%% *}
				[[ " ${mods[*]} " == *" $ko "* ]] || mods+=("$ko")
				;;
			esac
		done < <(modprobe --show-depends -d "${modroot:-/}" -S "$kver" \
			"$m" 2>/dev/null || true)
	done

	key=$( {
		echo "$kver $(id -u)"
		sha256sum "$bb" "$init"
		declare -f wookie_vm_initramfs
		[ ${#mods[@]} -eq 0 ] || sha256sum "${mods[@]}"
	} | sha256sum | cut -d' ' -f1)
	if [ -f "$img" ] && [ "$(cat "$img.key" 2>/dev/null)" = "$key" ]; then
		echo "$img"
		return 0
	fi

	echo "vm-run: building initramfs $img" >&2
	tmp=$(mktemp -d "$dir/tmp.XXXXXX")
	mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,lib/modules}
	cp "$bb" "$tmp/bin/busybox"
	for a in sh mount insmod mkdir cat cp touch chmod ln switch_root poweroff sleep hostname ip echo; do
		ln -s busybox "$tmp/bin/$a"
	done
	cp "$init" "$tmp/init"
	chmod 755 "$tmp/init"
	: >"$tmp/modules.list"
	for ko in "${mods[@]}"; do
		cp "$ko" "$tmp/lib/modules/"
		echo "${ko##*/}" >>"$tmp/modules.list"
	done
	# Without a console node the kernel starts /init with no stdio; the
	# init script copes, but only root can create the node.
	[ "$(id -u)" != 0 ] || mknod "$tmp/dev/console" c 5 1
	(cd "$tmp" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$tmp.cpio"
	rm -rf "$tmp"
	mv -f "$tmp.cpio" "$img"
	echo "$key" >"$img.key"
	echo "$img"
}

# wookie_vm_tsc_khz: print the host's TSC frequency in kHz, measured
# against CLOCK_MONOTONIC (nothing if that fails).  Under TCG the guest's
# TSC is the host's, but the guest calibrates it against an emulated PIT
# or HPET, and on a busy host that goes wrong by up to 10x ("PIT
# calibration deviates from HPET"): guest time then runs 10x fast and every
# timeout in a test fires early.  vm-run passes the value as tsc_early_khz.
wookie_vm_tsc_khz() {
	local dir=$WOOKIE_BUILD/vm bin=$WOOKIE_BUILD/vm/tsc-khz
	local src='
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
int main(void)
{
	/* The median of three 50 ms windows: a preemption skews one. */
	double r[3], t;
	for (int i = 0; i < 3; i++) {
		struct timespec d = { 0, 50000000 };
		double t0 = now();
		unsigned long long c0 = __rdtsc();
		nanosleep(&d, NULL);
		r[i] = (__rdtsc() - c0) / (now() - t0) / 1000;
	}
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (r[j] < r[i])
				t = r[i], r[i] = r[j], r[j] = t;
	printf("%.0f\n", r[1]);
	return 0;
}'
	case "$(uname -m)" in x86_64) ;; *) return 0 ;; esac
	if [ ! -x "$bin" ] || [ "$(cat "$bin.src" 2>/dev/null)" != "$src" ]; then
		mkdir -p "$dir"
		printf '%s\n' "$src" | cc -O2 -x c -o "$bin.tmp" - 2>/dev/null || return 0
		mv -f "$bin.tmp" "$bin"
		printf '%s' "$src" >"$bin.src"
	fi
	"$bin" 2>/dev/null || true
}

# Does ELF file $1 have a PVH entry point (Xen note 18), so QEMU can
# start it directly?
wookie_vm_has_pvh() {
	readelf -n "$1" 2>/dev/null | grep -q 'Xen.*0x00000012'
}

# wookie_vm_boot_image BZIMAGE [VMLINUX]: print the kernel file QEMU should
# boot.  An uncompressed vmlinux with a PVH entry note starts seconds
# sooner under TCG than a bzImage, which first runs the real-mode setup and
# decompresses itself in emulation.  VMLINUX is used when given and
# bootable; otherwise the bzImage is unpacked once into build/vm/kernel/.
# Anything unexpected falls back to the bzImage.
wookie_vm_boot_image() {
	local bz=$1 vml=${2:-} dir out key off magic re tmp
	local unpack=()

	if [ -n "$vml" ] && wookie_vm_has_pvh "$vml"; then
		echo "$vml"
		return 0
	fi
	dir=$WOOKIE_BUILD/vm/kernel
	out=$dir/$(basename "$bz").vmlinux
	key=$(stat -L -c '%s %Y' "$bz")
	if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
		echo "$out"
		return 0
	fi
	# Kernels without CONFIG_PVH: remembered, not unpacked on every run.
	if [ "$(cat "$out.none" 2>/dev/null)" = "$key" ]; then
		echo "$bz"
		return 0
	fi
	mkdir -p "$dir"
	# The payload starts at the first compressor magic that unpacks to an
	# ELF file (a magic can also occur by chance earlier).
	# Two vm-runs of a pair may unpack at once: a file of our own.
	tmp=$out.tmp.$$
	for magic in xz gzip zstd; do
		case $magic in
		xz) re='\xfd7zXZ\x00' unpack=(xz -dc) ;;
		gzip) re='\x1f\x8b\x08' unpack=(gzip -dc) ;;
		zstd) re='\x28\xb5\x2f\xfd' unpack=(zstd -dcq) ;;
		esac
		command -v "${unpack[0]}" >/dev/null || continue
		for off in $(LC_ALL=C grep -aboP "$re" "$bz" | cut -d: -f1 | head -n 5); do
			# Trailing data after the stream makes the tools complain.
			tail -c +$((off + 1)) "$bz" | "${unpack[@]}" >"$tmp" 2>/dev/null || true
			if wookie_vm_has_pvh "$tmp"; then
				mv -f "$tmp" "$out"
				echo "$key" >"$out.key"
				echo "$out"
				return 0
			fi
		done
	done
	rm -f "$tmp"
	echo "$key" >"$out.none"
	echo "$bz"
}

# For host tests run by scripts/vm-test: set vm_args (the vm-run options in
# WOOKIE_VM_ARGS), kdir and kver (Kbuild tree and release of the kernel
# those runs boot) and debug (1 on the sanitizer kernel).
wookie_host_test_kernel() {
	local i

	read -ra vm_args <<<"${WOOKIE_VM_ARGS:-}"
	kver=$WOOKIE_KVER
	debug=
	for ((i = 0; i < ${#vm_args[@]}; i++)); do
		case "${vm_args[i]}" in
		--debug-kernel) debug=1 ;;
		--kernel) kver=$(wookie_kver_of "${vm_args[i + 1]}") ;;
		esac
	done
	kdir=/lib/modules/$kver/build
	if [ -n "$debug" ]; then
		kdir=$("$WOOKIE_TOP/scripts/build-debug-kernel" \
			--kernel "$(wookie_line_of "$kver")" | tail -1)
		kver=$(cat "$kdir/include/config/kernel.release")
	fi
}
