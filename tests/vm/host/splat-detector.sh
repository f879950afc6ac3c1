#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Host-side test of scripts/vm-run's verdicts, each check able to fail
# both ways: a module that WARN()s on load must fail the run and be named,
# the same module loaded quietly must pass, splat-like text printed by the
# command must not count, the command's exit status must come back, and
# a guest that never finishes or a missing wookie.ko must fail the run;
# a known upstream report (lockdep, or an rxe WARN) is tolerated, and only that;
# a soft lockup panics the guest at once, its backtrace in vm-run's output.
# vm-test passes extra vm-run options (--debug-kernel) in WOOKIE_VM_ARGS.
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/scripts/lib.sh"

wookie_host_test_kernel
# The debug kernel boots in about a minute under TCG; its kmemleak scans
# take another, so checks that do not need them skip them.
quick=()
[ -z "$debug" ] || quick=(--no-kmemleak)

# Build a copy so no objects land in the source tree.
src=$top/tests/vm/splat-module
mod=$WOOKIE_BUILD/splat-module/$kver
rm -rf "$mod"
mkdir -p "$mod"
cp "$src/Kbuild" "$src/wookie_splat_test.c" "$mod/"
make -s -C "$kdir" M="$mod" modules
ko=$mod/wookie_splat_test.ko
[ -f "$ko" ] || wookie_die "$ko not built"

logs=${WOOKIE_VM_LOGDIR:-$WOOKIE_BUILD/vm/logs/splat-detector}
mkdir -p "$logs"
failed=0

# check NAME WANT_RC PATTERN_WANTED PATTERN_UNWANTED VM-RUN-ARGS...
# Runs vm-run; WANT_RC "nonzero" accepts any failure status.
check() {
	local name=$1 want=$2 yes=$3 no=$4 rc=0 log=$logs/$1.log why=

	shift 4
	"$top/scripts/vm-run" "${vm_args[@]}" "$@" >"$log" 2>&1 || rc=$?
	if [ "$want" = nonzero ]; then
		[ "$rc" -ne 0 ] || why="vm-run passed; it must fail"
	else
		[ "$rc" -eq "$want" ] || why="vm-run exited $rc, want $want"
	fi
	if [ -z "$why" ] && [ -n "$yes" ] && ! grep -qE "$yes" "$log"; then
		why="no line matches /$yes/"
	fi
	if [ -z "$why" ] && [ -n "$no" ] && grep -qE "$no" "$log"; then
		why="a line matches /$no/: $(grep -m1 -E "$no" "$log")"
	fi
	if [ -n "$why" ]; then
		echo "not ok $name: $why (log $log)"
		tail -n 30 "$log" | sed 's/^/#   /'
		failed=1
	else
		echo "ok $name (vm-run exit $rc)"
	fi
}

detected='^vm-run: kernel splat detected:'

# Known upstream lockdep reports (WOOKIE_KNOWN_REPORTS), on text alone:
# nvmet-rdma's, as the sanitizer kernel printed it, is tolerated whole;
# the same report with a wookie frame in it, or without one of its
# signature's functions, is a splat, and so is a WARNING after it.
report=$top/tests/vm/host/lockdep-nvmet-rdma.txt
text_check() {
	local name=$1 want=$2 got=yes

	shift 2
	"$@" >"$logs/$name.txt"
	wookie_vm_splats "$logs/$name.txt" "no-marker: " >/dev/null || got=no
	if [ "$got" = "$want" ]; then
		echo "ok $name (splat: $got)"
	else
		echo "not ok $name: splat $got, want $want"
		failed=1
	fi
}
text_check known-report-tolerated no cat "$report"
if wookie_vm_kernel_lines "$report" "no-marker: " | wookie_vm_known_reports |
	grep -qx 'known upstream report: nvmet-rdma-connect-vs-port-removal'; then
	echo "ok known-report-named"
else
	echo "not ok known-report-named"
	failed=1
fi
text_check known-report-with-wookie-frame yes \
	sed 's/nvmet_rdma_cm_handler+0x80a/wookie_poll_cq+0x80a/' "$report"
text_check known-report-with-wookie-module yes \
	sed 's/\(nvmet_rdma_handle_command+0x69e\/0xb20\) \[nvmet_rdma\]/\1 [wookie]/' "$report"
text_check other-report yes \
	sed 's/nvmet_rdma_disable_port/nvmet_rdma_other_port/g' "$report"
# 6.12 rxe's WARN in its completer, as its iser comparison run printed
# it: tolerated whole, and not once a wookie frame is in it.
warn_rxe=$WOOKIE_TOP/tests/vm/host/warn-rxe-completer.txt
text_check known-warn-tolerated no cat "$warn_rxe"
text_check known-warn-with-wookie-frame yes \
	sed 's/rxe_sender+0x1d/wookie_poll_cq+0x1d/' "$warn_rxe"
text_check warn-after-known-report yes \
	sh -c 'cat "$1"; echo "[  600.000000] WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2"' sh "$report"

# The WARN must fail the run, and the report must name the culprit.
check warn-fails nonzero \
	'^vm-run:   .*WARNING: .*wookie_splat_test' '' \
	--no-module "${quick[@]}" -- insmod "$ko"
grep -qE "$detected" "$logs/warn-fails.log" || {
	echo "not ok warn-fails-message: no '$detected' line"
	failed=1
}
# ... with the report's backtrace, as the kernel printed it.
grep -qE '^vm-run:   \| .*Call Trace:' "$logs/warn-fails.log" &&
	grep -qE '^vm-run:   \| .*wookie_splat_test_init' "$logs/warn-fails.log" || {
	echo "not ok warn-fails-backtrace: no 'Call Trace:' and wookie_splat_test_init in the first report"
	failed=1
}

# A soft lockup panics the guest at once (not at the timeout), and its
# report shows the spinning function.
check lockup-panics nonzero \
	'^vm-run:   \| .*wookie_splat_test_lockup' '^vm-run: timed out' \
	--no-module "${quick[@]}" --timeout "$([ -n "$debug" ] && echo 900 || echo 240)" -- \
	insmod "$ko" mode=lockup
grep -qE '^vm-run:   .*Kernel panic - not syncing: softlockup' "$logs/lockup-panics.log" || {
	echo "not ok lockup-panics-message: no 'Kernel panic - not syncing: softlockup' line"
	failed=1
}

# The same module without the WARN must pass (with kmemleak's scans on
# the debug kernel: nothing it finds after boot may fail a clean run).
check quiet-passes 0 '' "$detected" \
	--no-module -- insmod "$ko" mode=none

# A leak must fail the run where kmemleak exists.
if [ -n "$debug" ]; then
	check leak-fails nonzero '^vm-run:   unreferenced object .*comm "insmod"' '' \
		--no-module -- insmod "$ko" mode=leak
else
	echo "ok leak-fails # skip: the stock kernel has no kmemleak"
fi

# Splat words in the command's own output are not kernel messages, and
# the command's status is vm-run's.
check exit-status 3 '' "$detected" \
	--no-module "${quick[@]}" -- \
	bash -c 'echo "WARNING: CPU: 0 PID: 1 at fake"; echo "BUG: not a kernel line"; exit 3'

# A missing wookie.ko fails the run with a clear message.
check missing-module nonzero 'module-load: .*does not exist' '' \
	"${quick[@]}" --module /nonexistent/wookie.ko -- true

# A guest that does not finish is killed and fails.
check timeout 124 '^vm-run: timed out' '' \
	--no-module --timeout "$([ -n "$debug" ] && echo 150 || echo 30)" -- sleep 1000

exit "$failed"
