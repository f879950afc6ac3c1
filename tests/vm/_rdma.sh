# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for the traffic tests (pingpong, perftest, pyverbs,
# rdma-core-suite, cleanup; devinfo uses a few); sourced after lib.sh, not
# run.
#
# The device type is a parameter: WOOKIE_RDMA_TYPE=wookie (the default) or
# rxe, so the same test runs on the kernel's rdma_rxe for comparison
# (scripts/vm-test --rdma-type rxe).  A wookie device is zz0, an rxe device
# rxe0 (the distro's rxe provider matches by name), both on vethA in the
# initial namespace (vm-run --net init), where rdma_rxe works.

RDMA_TYPE=${WOOKIE_RDMA_TYPE:-wookie}
case "$RDMA_TYPE" in
wookie) RDMA_DEV=zz0 ;;
rxe) RDMA_DEV=rxe0 ;;
*) echo "WOOKIE_RDMA_TYPE must be wookie or rxe, not '$RDMA_TYPE'" >&2; exit 2 ;;
esac
# GID index 1: the IPv4-mapped RoCEv2 GID (vm-run assigns IPv4 first).
RDMA_GID=1
# The sanitizer kernel (vm-run --debug-kernel) runs several times slower
# under TCG: time limits are multiplied by this.
case "$(uname -r)" in
*debug*) RDMA_SLOW=4 ;;
*) RDMA_SLOW=1 ;;
esac
# Per-test results (client and server logs, tables) shared with the host.
RDMA_OUT=${WOOKIE_VM_OUT:-/tmp}/${0##*/}
RDMA_OUT=${RDMA_OUT%.sh}
mkdir -p "$RDMA_OUT"

# pyverbs 56.1 and rdma-core's suite from `scripts/rdma-core --full`.
RDMA_CORE_BUILD=$WOOKIE_TOP/build/rdma-core-56.1/build
# The wookie provider for libibverbs 56.1 (RDMAV_DRIVERS takes a path
# without the -rdmav34.so suffix).
WOOKIE_PROVIDER=$WOOKIE_TOP/build/provider/libwookie

# The environment of a pyverbs 56.1 program: its libibverbs reads the
# providers of the rdma-core build, which has rxe's but not wookie's.
# PYTHONFAULTHANDLER: a crash prints the Python stack.
PYVERBS_ENV=(PYTHONPATH="$RDMA_CORE_BUILD/python" PYTHONFAULTHANDLER=1)
[ "$RDMA_TYPE" != wookie ] || PYVERBS_ENV+=(RDMAV_DRIVERS="$WOOKIE_PROVIDER")

pyverbs_built() {
	compgen -G "$RDMA_CORE_BUILD/python/pyverbs/device*.so" >/dev/null
}

rdma_gid1_ready() {
	grep -q '0000:0000:0000:0000:0000:ffff:0a00:0001' \
		"/sys/class/infiniband/$1/ports/1/gids/1"
}

# rdma_add TYPE NAME: a device of TYPE on vethA, ACTIVE, with GID 1 (siw:
# iWARP, its one GID is the MAC address).
rdma_add() {
	local type=$1 name=$2

	if [ "$type" = rxe ]; then
		# The baseline is rxe alone, as on a host without wookie: the
		# distro's libibverbs does not load the wookie provider.
		rm -f /etc/libibverbs.d/wookie.driver
	fi
	rdma link add "$name" type "$type" netdev vethA &&
		wait_until 10 port_is "$name" "4: ACTIVE" &&
		{ [ "$type" = siw ] || wait_until 10 rdma_gid1_ready "$name"; }
}

# rdma_del NAME: delete the device; rdma_rxe is unloaded with its last
# device, so its UDP port is free for the next user.
rdma_del() {
	rdma link delete "$1" || return 1
	if ! compgen -G '/sys/class/infiniband/rxe*' >/dev/null; then
		modprobe -r rdma_rxe 2>/dev/null || true
	fi
}

# The device of this run, or exit: without it no test can run.
rdma_setup() {
	echo "device type $RDMA_TYPE: $RDMA_DEV on vethA, GID index $RDMA_GID"
	if ! rdma_add "$RDMA_TYPE" "$RDMA_DEV"; then
		echo "FAIL cannot create $RDMA_DEV (type $RDMA_TYPE) on vethA"
		dmesg | tail -n 20
		exit 1
	fi
}

# The user objects (contexts, PDs, MRs, CQs, QPs, SRQs, CM IDs) of device
# $1 that `rdma resource show` lists, one per line; those of processes
# carry a pid, the kernel's own (ib_core's GSI QP on rxe) do not.
rdma_user_objects() {
	local kind

	for kind in ctx pd mr cq qp srq cm_id; do
		rdma resource show "$kind" 2>/dev/null |
			grep -E "(dev|link) $1[ /]" | grep -E ' pid [0-9]+ ' |
			sed "s/^/$kind: /" || true
	done
}

rdma_no_objects() {
	[ -z "$(rdma_user_objects "$1")" ]
}

# The TCP ports servers listen on: one per pair, never reused in a test
# (tests that share a boot, vm-group, start again at the first one; the
# pingpongs' servers set SO_REUSEADDR).
rdma_port=18600

listening() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# pair_run NAME SECONDS: "${PAIR_SERVER[@]} -p PORT" as the server in
# namespace PAIR_SNS ("" = this one), then "${PAIR_CLIENT[@]} -p PORT
# PAIR_SIP" as the client in PAIR_CNS; both must exit 0 within SECONDS
# (times RDMA_SLOW), or the check fails (counted in vm_failures; the
# script goes on).  Their output goes to $RDMA_OUT/NAME.{server,client}.log;
# the client's last two lines are shown, or the first and last that match
# the regex PAIR_ROWS.  PAIR_LOGS names the two logs afterwards.
PAIR_SNS= PAIR_CNS= PAIR_SIP=127.0.0.1
PAIR_SERVER=() PAIR_CLIENT=()
pair_run() {
	local name=$1 secs=$(($2 * RDMA_SLOW)) port=$rdma_port spid src crc start
	local slog=$RDMA_OUT/$1.server.log clog=$RDMA_OUT/$1.client.log
	rdma_port=$((rdma_port + 1))

	start=$SECONDS
	ns_run "$PAIR_SNS" timeout -k 5 "$secs" "${PAIR_SERVER[@]}" \
		-p "$port" >"$slog" 2>&1 &
	spid=$!
	# The clients do not retry: connect once the server listens (or
	# has died: then the client fails at once).
	for _ in $(seq 150); do
		if ns_run "$PAIR_SNS" ss -Hltn "sport = :$port" 2>/dev/null |
			grep -q . || ! kill -0 "$spid" 2>/dev/null; then
			break
		fi
		sleep 0.2
	done
	crc=0
	ns_run "$PAIR_CNS" timeout -k 5 "$secs" "${PAIR_CLIENT[@]}" \
		-p "$port" "$PAIR_SIP" >"$clog" 2>&1 || crc=$?
	# A failed client leaves the server waiting for traffic: give it a
	# few seconds to notice, not the whole timeout.
	if [ "$crc" -ne 0 ]; then
		for _ in $(seq 20); do
			kill -0 "$spid" 2>/dev/null || break
			sleep 0.25
		done
		kill "$spid" 2>/dev/null || true
	fi
	src=0
	wait "$spid" || src=$?
	PAIR_LOGS="$slog $clog"
	if [ "$src" -eq 0 ] && [ "$crc" -eq 0 ]; then
		echo "ok   $name ($((SECONDS - start)) s)"
		if [ -n "${PAIR_ROWS:-}" ]; then
			# No row is no reason to end the test (set -e).
			{ grep -E "$PAIR_ROWS" "$clog" || true; } |
				sed -n '1p;$p' | uniq
		else
			tail -n 2 "$clog"
		fi | sed 's/^/     | /'
		return 0
	fi
	echo "FAIL $name: server exit $src, client exit $crc ($((SECONDS - start)) s; 124 = timeout after $secs s)"
	echo "     server: ${PAIR_SERVER[*]}"
	echo "     client: ${PAIR_CLIENT[*]} $PAIR_SIP"
	tail -n 15 "$slog" | sed 's/^/     s| /'
	tail -n 15 "$clog" | sed 's/^/     c| /'
	vm_failures=$((vm_failures + 1))
}

# ns_run NS COMMAND...: COMMAND in namespace NS ("" = the current one).
ns_run() {
	local ns=$1

	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

# pair NAME SECONDS COMMAND [ARG...]: COMMAND as server and client on this
# host (the client connects to 127.0.0.1, the ibv_*_pingpong and perftest
# convention), with the same arguments.
pair() {
	local name=$1 secs=$2

	shift 2
	PAIR_SNS= PAIR_CNS= PAIR_SIP=127.0.0.1
	PAIR_SERVER=("$@") PAIR_CLIENT=("$@")
	pair_run "$name" "$secs"
}

# --- Two hosts: namespaces joined by the veth (vm-run --net ns or init) ---

# wire_add NS NAME NETDEV: a wookie device on NETDEV of namespace NS,
# ACTIVE.
wire_add() {
	ns_run "$1" rdma link add "$2" type wookie netdev "$3" &&
		wait_until 10 port_is "$2" "4: ACTIVE"
}

# wire_del_all DEV...: each device must hold no object any more; then it
# is deleted.
wire_del_all() {
	local dev

	for dev in "$@"; do
		ok "nothing left on $dev" wait_until $((10 * RDMA_SLOW)) rdma_no_objects "$dev"
	done
	for dev in "$@"; do
		ok "delete $dev" rdma link delete "$dev"
	done
}

# The GID index of address $2 (as sysfs prints it) on device $1, or fail.
gid_index() {
	local f

	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		if [ "$(cat "$f" 2>/dev/null)" = "$2" ]; then
			echo "${f##*/}"
			return 0
		fi
	done
	return 1
}

# The two hosts of xpair, set by the test: namespace ("" = this one),
# device and GID index of the server (XS_*) and of the client (XC_*), and
# the server's IP address.
XS_NS= XS_DEV= XS_GID= XS_IP=
XC_NS= XC_DEV= XC_GID=

# The options that select device and GID: perftest's, or the pingpongs'.
xpair_opts() {
	case "$1" in
	ib_*) echo "-d $2 -x $3 -F" ;;
	*) echo "-d $2 -g $3" ;;
	esac
}

# xpair NAME SECONDS PROGRAM [ARG...]: PROGRAM as the server on host XS
# and as the client on host XC, connecting to XS_IP, each with its own
# device and GID index; as pair() otherwise.  XPAIR_LB=1: the programs'
# output line-buffered (stdbuf), so that a program killed at the time
# limit still leaves what it printed.
xpair() {
	local name=$1 secs=$2 prog=$3 sopts copts wrap=()

	shift 3
	[ -z "${XPAIR_LB:-}" ] || wrap=(stdbuf -oL -eL)
	read -ra sopts <<<"$(xpair_opts "$prog" "$XS_DEV" "$XS_GID")"
	read -ra copts <<<"$(xpair_opts "$prog" "$XC_DEV" "$XC_GID")"
	PAIR_SNS=$XS_NS PAIR_CNS=$XC_NS PAIR_SIP=$XS_IP
	PAIR_SERVER=("${wrap[@]}" "$prog" "${sopts[@]}" "$@")
	PAIR_CLIENT=("${wrap[@]}" "$prog" "${copts[@]}" "$@")
	pair_run "$name" "$secs"
}

# rocev2_netem NS DEV ARGS...: netem with ARGS for the RoCEv2 packets (UDP
# 4791, IPv4 and IPv6) leaving DEV in namespace NS (empty: the initial
# one): a prio root qdisc sends them to band 3, which has netem; other
# traffic (the TCP connection setup of the pairs) is not touched.
rocev2_netem() {
	local ns=$1 dev=$2

	shift 2
	ns_run "$ns" tc qdisc replace dev "$dev" root handle 1: prio &&
		ns_run "$ns" tc qdisc add dev "$dev" parent 1:3 handle 30: \
			netem limit 10000 "$@" &&
		ns_run "$ns" tc filter add dev "$dev" parent 1: protocol ip \
			prio 1 u32 match ip protocol 17 0xff \
			match ip dport 4791 0xffff flowid 1:3 &&
		ns_run "$ns" tc filter add dev "$dev" parent 1: protocol ipv6 \
			prio 2 u32 match ip6 protocol 17 0xff \
			match ip6 dport 4791 0xffff flowid 1:3
}

# link_counter NS DEV NAME: counter NAME of DEV's port ("" NS: this one).
link_counter() {
	ns_run "$1" rdma statistic show link "$2/1" |
		grep -o " $3 [0-9]*" | awk '{print $2}'
}

# netem_dropped_on NS DEV: the packets the netem qdisc of DEV dropped.
netem_dropped_on() {
	local n

	n=$(ns_run "$1" tc -s qdisc show dev "$2" |
		awk '/qdisc netem/ { q = 1 } q && /Sent/ {
			for (i = 1; i <= NF; i++) if ($i == "(dropped") print $(i + 1) + 0; q = 0 }')
	echo "${n:-0}"
}

# --- wookie's tracepoints (kernel/wookie_trace.h) ------------------------
WK_TRACEFS=/sys/kernel/tracing

# wk_trace_on EVENT...: an empty trace buffer, and only these wookie:
# events recorded from now on (a 4 MiB buffer per CPU: no event lost).
wk_trace_on() {
	local e

	mountpoint -q $WK_TRACEFS || mount -t tracefs nodev $WK_TRACEFS || return 1
	echo 0 >$WK_TRACEFS/events/wookie/enable &&
		echo 4096 >$WK_TRACEFS/buffer_size_kb &&
		: >$WK_TRACEFS/trace || return 1
	for e in "$@"; do
		echo 1 >"$WK_TRACEFS/events/wookie/$e/enable" || return 1
	done
}

wk_trace_off() {
	echo 0 >$WK_TRACEFS/events/wookie/enable
}

# wk_trace_count EVENT PATTERN: events EVENT recorded whose text (after
# "EVENT: ") matches the extended regex PATTERN; fails if the buffer
# overflowed (a count would be short).
wk_trace_count() {
	if grep -q 'overrun: [1-9]' $WK_TRACEFS/per_cpu/cpu*/stats; then
		echo "trace buffer overrun"
		return 1
	fi
	grep -cE " $1: $2" $WK_TRACEFS/trace || true
}
