#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 1500
#
# wookie's own verbs tests, tests/vm/pyverbs/ (Python unittest on pyverbs
# 56.1 from `scripts/rdma-core --full`), on one device: every verb's
# success and error paths, traffic between QPs of the device, error
# completions, events.  Fails on any failure or error; a skip must state
# its reason (listed at the end).  Per-test results: pyverbs/results.json
# in the run's output directory.  WOOKIE_RDMA_TYPE=rxe runs them on
# rdma_rxe; extra arguments select tests (run.py TEST...).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

if ! pyverbs_built; then
	echo "FAIL pyverbs 56.1 is not built in $RDMA_CORE_BUILD (run scripts/rdma-core --full)"
	exit 1
fi
rdma_setup

start=$SECONDS
rc=0
env "${PYVERBS_ENV[@]}" /usr/bin/python3 "$WOOKIE_TOP/tests/vm/pyverbs/run.py" \
	--dev "$RDMA_DEV" --gid "$RDMA_GID" --timeout $((20 * RDMA_SLOW)) \
	--json "$RDMA_OUT/results.json" \
	"$@" 2>&1 || rc=$?
if [ "$rc" -eq 0 ]; then
	echo "ok   pyverbs tests ($((SECONDS - start)) s)"
else
	echo "FAIL pyverbs tests: run.py exited $rc ($((SECONDS - start)) s)"
	vm_failures=$((vm_failures + 1))
fi

ok "nothing left on $RDMA_DEV" wait_until $((10 * RDMA_SLOW)) rdma_no_objects "$RDMA_DEV"
ok "delete $RDMA_DEV" rdma_del "$RDMA_DEV"
vm_done
