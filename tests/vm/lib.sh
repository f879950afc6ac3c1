# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for guest-side VM tests (tests/vm/*.sh); sourced, not run.

set -euo pipefail

vm_failures=0

# ok DESCRIPTION COMMAND...: the command must succeed.
ok() {
	local what=$1
	shift
	if "$@" >/tmp/vm-step.log 2>&1; then
		echo "ok   $what"
	else
		echo "FAIL $what: '$*' exited $?"
		sed 's/^/     | /' /tmp/vm-step.log
		vm_failures=$((vm_failures + 1))
	fi
}

# refused DESCRIPTION PATTERN COMMAND...: the command must fail and print
# PATTERN (an extended regex, e.g. the errno text).
refused() {
	local what=$1 pattern=$2
	shift 2
	if "$@" >/tmp/vm-step.log 2>&1; then
		echo "FAIL $what: '$*' succeeded"
		vm_failures=$((vm_failures + 1))
	elif ! grep -Eq "$pattern" /tmp/vm-step.log; then
		echo "FAIL $what: no /$pattern/ in:"
		sed 's/^/     | /' /tmp/vm-step.log
		vm_failures=$((vm_failures + 1))
	else
		echo "ok   $what ($(head -1 /tmp/vm-step.log))"
	fi
}

# verdict STATUS DESCRIPTION LOG: ok when STATUS is 0, else FAIL with the
# end of LOG.
verdict() {
	if [ "$1" -eq 0 ]; then
		echo "ok   $2"
	else
		echo "FAIL $2 (exit $1)"
		tail -n 12 "$3" | sed 's/^/     | /'
		vm_failures=$((vm_failures + 1))
	fi
}

# equals DESCRIPTION EXPECTED ACTUAL
equals() {
	if [ "$2" = "$3" ]; then
		echo "ok   $1"
	else
		echo "FAIL $1: expected '$2', got '$3'"
		vm_failures=$((vm_failures + 1))
	fi
}

# wait_until SECONDS COMMAND...: poll until the command succeeds.
wait_until() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.2
	done
}

rdma_dev_exists() {
	[ -e "/sys/class/infiniband/$1" ]
}

rdma_dev_gone() {
	! rdma_dev_exists "$1"
}

# The port state as sysfs prints it, e.g. "4: ACTIVE".
port_state() {
	cat "/sys/class/infiniband/$1/ports/1/state"
}

port_is() {
	[ "$(port_state "$1")" = "$2" ]
}

wookie_device_count() {
	local n=0 d
	for d in /sys/class/infiniband/*; do
		[ -e "$d/wookie_abi_version" ] && n=$((n + 1))
	done
	echo $n
}

vm_done() {
	if [ "$vm_failures" -ne 0 ]; then
		echo "$vm_failures check(s) failed"
		exit 1
	fi
	echo "all checks passed"
}

# --- two guests (scripts/vm-pair) ---------------------------------------
# The guests meet in WOOKIE_VM_SHARE: a step done is a file NAME.HOST.

# peer_signal NAME: tell the other guest NAME is done here.
peer_signal() {
	: >"$WOOKIE_VM_SHARE/$1.$WOOKIE_VM_HOST"
}

# peer_wait SECONDS NAME: wait for the other guest's NAME.  Fails at the
# deadline, or at once when the other guest gave up (peer_abort) or its
# run ended in failure (vm-pair's abort).
peer_wait() {
	local deadline=$((SECONDS + $1)) other=$((3 - WOOKIE_VM_HOST))

	until [ -e "$WOOKIE_VM_SHARE/$2.$other" ]; do
		if [ -e "$WOOKIE_VM_SHARE/abort" ] ||
			[ -e "$WOOKIE_VM_SHARE/abort.$other" ]; then
			echo "peer_wait $2: host $other gave up"
			return 1
		fi
		if [ $SECONDS -ge $deadline ]; then
			echo "peer_wait $2: not within $1 s"
			return 1
		fi
		sleep 0.5
	done
}

# peer_abort: this guest cannot go on; the other's waits end.
peer_abort() {
	: >"$WOOKIE_VM_SHARE/abort.$WOOKIE_VM_HOST"
}
