#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Runs guest tests of one "# vm-group:" in one boot, for scripts/vm-test:
#   _group.sh TOKEN SECONDS:TEST.sh...
# each test in turn, killed after its own SECONDS, between console lines
#   wookie-group-TOKEN: begin NAME limit=SECONDS
#   wookie-group-TOKEN: end NAME status=N secs=S
# and with "N S" in $WOOKIE_VM_OUT/group-status/NAME, from which vm-test
# gives each test its verdict and log.  Exits 1 if a test failed.
#
# The tests are the short ones whose boot cost as much as the test
# itself.  Each starts where the one before ended, but for what its own
# boot's end used to drop: the processes the test left are killed, and
# the RDMA devices it left deleted (a device that will not go fails the
# test), rdma_rxe unloaded and the provider's driver file put back.
set -uo pipefail

token=$1
shift
failed=0
status_dir=$WOOKIE_VM_OUT/group-status
mkdir -p "$status_dir"
driver=/etc/libibverbs.d/wookie.driver
saved_driver=
if [ -f "$driver" ]; then
	saved_driver=$(mktemp)
	cp "$driver" "$saved_driver"
fi

# reset NAME: what NAME's own boot's end would have dropped; fails if an
# RDMA device NAME left does not go.
reset() {
	local dev rc=0

	for dev in $(rdma link show 2>/dev/null |
		awk '{ sub("/.*", "", $2); print $2 }' | sort -u); do
		echo "     ($1 left $dev: deleting it)"
		if ! timeout -k 5 60 rdma link delete "$dev"; then
			echo "FAIL $1 left $dev, which 'rdma link delete' could not delete"
			rc=1
		fi
	done
	modprobe -r rdma_rxe 2>/dev/null
	if [ -n "$saved_driver" ] && ! cmp -s "$saved_driver" "$driver"; then
		cp "$saved_driver" "$driver"
	fi
	return "$rc"
}

for arg in "$@"; do
	secs=${arg%%:*}
	test=${arg#*:}
	name=${test##*/}
	name=${name%.sh}
	echo "wookie-group-$token: begin $name limit=$secs"
	start=$SECONDS
	# timeout leads a process group of its own: what the test leaves
	# running is killed with it.
	timeout -k 10 "$secs" bash "$test" &
	pid=$!
	wait "$pid"
	rc=$?
	kill -KILL -- "-$pid" 2>/dev/null
	reset "$name" || { [ "$rc" -ne 0 ] || rc=1; }
	echo "$rc $((SECONDS - start))" >"$status_dir/$name"
	echo "wookie-group-$token: end $name status=$rc secs=$((SECONDS - start))"
	[ "$rc" -eq 0 ] || failed=1
done
[ -z "$saved_driver" ] || rm -f "$saved_driver"
exit "$failed"
