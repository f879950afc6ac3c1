#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 2400
#
# rdma-core 56.1's own test suite (run_tests.py's tests, from
# `scripts/rdma-core --full`) with --gid 1 on the device under test and on
# rdma_rxe (see below), in the same boot, one device at a time on vethA.
# wookie runs a second time with its local path off (local_path=0: the
# traffic goes over UDP through the loopback device).
# Writes rdma-core-suite/table.txt in the run's output directory: per test
# module, the ok/skip/fail/error counts of both runs, the tests that fail
# or err on the device but pass on rxe, and the device's skip reasons
# outside vendor-only modules; per-test results are in rxe.json and
# <type>.json.  Fails if a test fails or errs on the device and passes on
# rxe, and on wookie if any test fails or errs, or skips outside
# vendor-only modules for no reason tests/vm/pyverbs/suite_skips.txt
# gives.  WOOKIE_RDMA_TYPE=rxe compares rxe with itself (to try the
# harness).  pyverbs' dma-buf allocator is wookie's, for vgem
# (tests/vm/rdma-core/dmabuf_vgem.c): the dma-buf tests run on vgem.
# rxe runs last and only the tests that failed or erred on the device
# (all a comparison can use; its counts are then not a full table; if
# none failed, rxe does not run), unless WOOKIE_TEST_SUITE_RXE=1 asks
# for its whole suite first: on wookie any failure fails the lane by
# itself, and rxe's results on one kernel cannot change (its full run
# was a quarter of the lane).  The sanitizer kernel also has siw (Debian's
# have none): the whole suite runs on it too (GID 0, its only one), in
# table-siw.txt, and a test that fails on wookie and passes on siw fails
# the lane as for rxe.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

tests=$WOOKIE_TOP/build/rdma-core-56.1/tests
suite=$WOOKIE_TOP/tests/vm/pyverbs/rdma_core_suite.py
if ! pyverbs_built || [ ! -f "$tests/run_tests.py" ]; then
	echo "FAIL rdma-core 56.1 with pyverbs is not built in $RDMA_CORE_BUILD (run scripts/rdma-core --full)"
	exit 1
fi

# A few 2 MiB huge pages, as a host tuned for RDMA has: the suite's
# huge-page tests (a parent domain's allocator placing memory in one) run
# instead of skipping.
echo 8 >/proc/sys/vm/nr_hugepages || true
# The exporter of the dma-buf tests' buffers: pyverbs' allocator here is
# wookie's, for vgem (tests/vm/rdma-core/dmabuf_vgem.c).
ok "vgem loaded (the exporter of the dma-buf tests)" modprobe vgem

# run_suite TYPE NAME LABEL [RESULTS...]: the suite on a new device (only
# the tests that failed in RESULTS, if given); results in
# $RDMA_OUT/LABEL.json, console output in LABEL.log.
run_suite() {
	local type=$1 name=$2 label=$3 start=$SECONDS rc=0 only=() gid=$RDMA_GID
	local env=(PYTHONPATH="$RDMA_CORE_BUILD/python" PYTHONFAULTHANDLER=1)

	shift 3
	[ $# -eq 0 ] || only=(--only "$@")

	[ "$type" != wookie ] || env+=(RDMAV_DRIVERS="$WOOKIE_PROVIDER")
	[ "$type" != siw ] || gid=0
	if ! rdma_add "$type" "$name"; then
		echo "FAIL cannot create $name (type $type) on vethA"
		vm_failures=$((vm_failures + 1))
		return
	fi
	# The suite's tests are in /tmp's tmpfs like a user's would be.
	(cd /tmp && exec timeout -k 10 $((1000 * RDMA_SLOW)) env "${env[@]}" /usr/bin/python3 "$suite" run \
		--tests "$tests" --dev "$name" --gid "$gid" \
		--json "$RDMA_OUT/$label.json" "${only[@]}") >"$RDMA_OUT/$label.log" 2>&1 || rc=$?
	tail -n 4 "$RDMA_OUT/$label.log" | sed 's/^/     | /'
	if [ "$rc" -eq 0 ]; then
		echo "ok   suite on $name ($type): $((SECONDS - start)) s"
	else
		echo "FAIL suite on $name ($type) exited $rc after $((SECONDS - start)) s; log $label.log:"
		tail -n 30 "$RDMA_OUT/$label.log" | sed 's/^/     | /'
		vm_failures=$((vm_failures + 1))
	fi
	ok "nothing left on $name" wait_until $((10 * RDMA_SLOW)) rdma_no_objects "$name"
	ok "delete $name" rdma_del "$name"
}

# compare LABEL TABLE [BASE]: fail if a test fails or errs on LABEL and
# passes on BASE (rxe); on wookie, if any test fails or errs (the tests
# rxe and siw skip, device memory's, must pass too), or skips outside
# vendor-only modules without a reason in pyverbs/suite_skips.txt.
compare() {
	local label=$1 table=$2 base=${3:-rxe} rc=0 strict=()

	[[ "$label" != wookie* ]] || strict=(--strict --kernel "$(uname -r)" \
		--allowed-skips "$WOOKIE_TOP/tests/vm/pyverbs/suite_skips.txt")
	/usr/bin/python3 "$suite" compare "$RDMA_OUT/$base.json" "$RDMA_OUT/$label.json" \
		--base-name "$base" --subject-name "$label" --table "$RDMA_OUT/$table" \
		"${strict[@]}" || rc=$?
	local what="no test fails on $label that passes on $base"
	[ ${#strict[@]} -eq 0 ] ||
		what="no test fails or errs on $label, none skips that suite_skips.txt does not allow"
	if [ "$rc" -eq 0 ]; then
		echo "ok   $what"
	else
		echo "FAIL $what: see the table above"
		vm_failures=$((vm_failures + 1))
	fi
}

lo_packets() { cat /sys/class/net/lo/statistics/tx_packets; }

# failures RESULTS...: how many tests fail or err in those results.
failures() {
	/usr/bin/python3 -c 'import json, sys
print(sum(r["outcome"] in ("fail", "error")
          for p in sys.argv[1:] for r in json.load(open(p)).values()))' "$@"
}

# rxe's whole suite first with WOOKIE_TEST_SUITE_RXE=1 (and when the lane
# runs on rxe itself): the table then compares the two in one boot.
# Otherwise rxe runs last, only the tests that failed or erred on wookie,
# to tell whether rxe fails them too: on wookie any failure fails the
# lane by itself, and rxe's results on a given kernel cannot change.
rxe_last=
[ "${WOOKIE_TEST_SUITE_RXE:-0}" = 1 ] || [ "$RDMA_TYPE" != wookie ] || rxe_last=1
[ -n "$rxe_last" ] || run_suite rxe rxe0 rxe
[ "$RDMA_TYPE" = rxe ] && label=rxe-again || label=$RDMA_TYPE
lo_before=$(lo_packets)
run_suite "$RDMA_TYPE" "$RDMA_DEV" "$label"
lo_local=$(($(lo_packets) - lo_before))
[ -n "$rxe_last" ] || compare "$label" table.txt

# The suite pairs QPs of one device only.  Once more with wookie's local
# path off: every packet between them goes out through the UDP socket and
# back in through the loopback device, so the whole suite also runs over
# the wire's encapsulation, ICRC and receive path.  rdma_rxe has no such
# switch; its run above is the reference for both.
param=/sys/module/wookie/parameters/local_path
if [ "$RDMA_TYPE" = wookie ]; then
	echo 0 >"$param"
	lo_before=$(lo_packets)
	run_suite wookie "$RDMA_DEV" wookie-wire
	lo_wire=$(($(lo_packets) - lo_before))
	echo 1 >"$param"
	# About 7700 packets cross lo with the local path off, next to none
	# with it on.
	over_lo() { [ "$lo_local" -lt 1000 ] && [ "$lo_wire" -gt 5000 ]; }
	ok "the suite's packets went through the loopback device ($lo_local packets with the local path, $lo_wire without)" \
		over_lo
	if [ -n "$rxe_last" ]; then
		if [ "$(failures "$RDMA_OUT/$label.json" "$RDMA_OUT/wookie-wire.json")" != 0 ]; then
			run_suite rxe rxe0 rxe "$RDMA_OUT/$label.json" \
				"$RDMA_OUT/wookie-wire.json"
		else
			echo "ok   rxe not run: no test failed or erred on wookie (WOOKIE_TEST_SUITE_RXE=1 runs its whole suite first)"
			echo '{}' >"$RDMA_OUT/rxe.json"
		fi
		compare "$label" table.txt
	fi
	compare wookie-wire table-wire.txt
	if modinfo siw >/dev/null 2>&1; then
		run_suite siw siw0 siw
		compare "$label" table-siw.txt siw
	fi
fi
vm_done
