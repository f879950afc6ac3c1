#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 300
# vm-group: short
#
# A kernel consumer whose handlers destroy or reset their own QP: a CQ
# completion handler, a QP event handler and an SRQ limit event handler,
# each destroying its QP or moving it to RESET
# (tests/vm/handler-module/wookie_handler_test.c, which
# reports one PASS or FAIL line per scenario in the kernel log).  The
# engine must not be waiting for itself when the handler runs, nor touch
# the QP after ib_core freed it.  Every wait of the module is bounded; a
# stuck handler leaves the module loaded and fails here.  The module is
# built for the running kernel if build/handler-module/<kver>/ has no
# up-to-date one (on the host: make -C /lib/modules/<kver>/build
# M=<copy of tests/vm/handler-module> modules).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

rdma_setup
kver=$(uname -r)
src=$WOOKIE_TOP/tests/vm/handler-module
ko=$WOOKIE_TOP/build/handler-module/$kver/wookie_handler_test.ko
if [ ! -f "$ko" ] || [ "$src/wookie_handler_test.c" -nt "$ko" ]; then
	build=$WOOKIE_VM_OUT/handler-module
	rm -rf "$build"
	mkdir -p "$build"
	cp "$src/Kbuild" "$src/wookie_handler_test.c" "$build/"
	echo "building the test module for $kver"
	if ! make -s -C "/lib/modules/$kver/build" M="$build" modules >"$build/make.log" 2>&1; then
		echo "FAIL cannot build the test module:"
		sed 's/^/     | /' "$build/make.log"
		exit 1
	fi
	ko=$build/wookie_handler_test.ko
fi

start=$SECONDS
rc=0
timeout -k 5 $((150 * RDMA_SLOW)) insmod "$ko" device="$RDMA_DEV" \
	timeout_ms=$((15000 * RDMA_SLOW)) >/tmp/insmod.log 2>&1 || rc=$?
dmesg | grep 'wookie_handler_test: ' | sed 's/^\[[^]]*\] //' >/tmp/handler.log || true
sed 's/^/     | /' /tmp/handler.log
equals "insmod exit status ($((SECONDS - start)) s)" 0 "$rc"
for s in cq-destroy cq-reset event-destroy event-reset srq-destroy; do
	if grep -q "PASS $s\$" /tmp/handler.log; then
		echo "ok   $s"
	else
		echo "FAIL $s: $(grep -m1 "FAIL $s" /tmp/handler.log || echo 'not run')"
		vm_failures=$((vm_failures + 1))
	fi
done
if grep -q 'stuck: the module stays loaded' /tmp/handler.log; then
	echo "FAIL a handler is stuck: wookie_handler_test stays loaded"
	vm_failures=$((vm_failures + 1))
elif lsmod | grep -q '^wookie_handler_test '; then
	ok "rmmod wookie_handler_test" rmmod wookie_handler_test
fi
vm_done
