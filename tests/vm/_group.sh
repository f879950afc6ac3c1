#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Runs guest tests of one "# vm-group:" in one boot, for scripts/vm-test:
#   _group.sh TOKEN SECONDS:TEST.sh...
# each test in turn, killed after its own SECONDS, between console lines
#   wookie-group-TOKEN: begin NAME
#   wookie-group-TOKEN: end NAME status=N secs=S
# from which vm-test gives each test its verdict and log.  Exits 1 if a
# test failed.  The tests are the short ones whose boot cost as much as
# the test itself; each starts where the one before ended, but for the
# RDMA devices it left, deleted here (its own boot would have dropped
# them at its end).
set -uo pipefail

token=$1
shift
failed=0
for arg in "$@"; do
	secs=${arg%%:*}
	test=${arg#*:}
	name=${test##*/}
	name=${name%.sh}
	echo "wookie-group-$token: begin $name"
	start=$SECONDS
	timeout -k 10 "$secs" bash "$test"
	rc=$?
	echo "wookie-group-$token: end $name status=$rc secs=$((SECONDS - start))"
	[ "$rc" -eq 0 ] || failed=1
	# The RDMA devices a test leaves for its boot's end to drop: the
	# next test starts without them.
	left=$(rdma link show 2>/dev/null | awk '{ sub("/.*", "", $2); print $2 }' | sort -u)
	for dev in $left; do
		echo "     ($name left $dev: deleted)"
		rdma link delete "$dev" || failed=1
	done
done
exit "$failed"
