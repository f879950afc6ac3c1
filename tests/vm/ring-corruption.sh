#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 600
# vm-group: short
#
# User space corrupts its own rings (indices out of range, garbage WQEs,
# a nonsense CQ consumer, random bytes everywhere) and rings the doorbells:
# only its own QPs may fail, another context's pair keeps moving data, and
# everything is destroyed cleanly (tests/vm/progs/ring_corruption.cc).  A
# kernel splat fails the run through the harness.  wookie only: the rings
# are wookie's ABI.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

[ "$RDMA_TYPE" = wookie ] || { echo "ok   skipped: rings are wookie's"; exit 0; }
rdma_setup
prog=$WOOKIE_TOP/build/vm-progs/ring_corruption

if timeout 300 "$prog" "$RDMA_DEV" >/tmp/ring.log 2>&1; then
	echo "ok   ring_corruption ($(grep -c '^ok' /tmp/ring.log) checks)"
else
	echo "FAIL ring_corruption:"
	sed 's/^/     | /' /tmp/ring.log
	vm_failures=$((vm_failures + 1))
fi
ok "nothing left on $RDMA_DEV" wait_until 10 rdma_no_objects "$RDMA_DEV"
vm_done
