#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 1200
#
# Teardown under fire: wookie's devices go away while user processes and
# a kernel consumer use them, in a loop (WOOKIE_TEST_TEARDOWN_ITERATIONS,
# default 50).  Two devices: za on vethA (10.0.0.1, the initial
# namespace), zb on vethB (10.0.0.2, namespace hostB).  Every process runs
# in the initial namespace (devices are shared between namespaces; the
# RoCE traffic between za and zb crosses the veth), so nothing pins hostB.
#
# Iteration i does action i % 4, so all four happen equally often:
#   0 link-delete    `rdma link delete` of za or zb
#   1 netdev-delete  `ip link del` of vethA or vethB (both ends go)
#   2 netns-delete   `ip netns del hostB` (vethB goes, and vethA with it)
#   3 rmmod          `rmmod wookie`, then insmod again
# while this runs, each part started after its own random delay:
# tests/vm/progs/teardown_load (RC traffic of every opcode between za and
# zb both ways and on each device alone, UD from za to zb, and objects
# created and destroyed in a loop on both; polling or on CQ events), a
# pair of programs (ib_write_bw, ib_send_bw, ibv_rc_pingpong or
# ibv_ud_pingpong) between za and zb or on one of them, a process holding
# objects (uverbs_probe DEV hold), and every 5th iteration NVMe-oF on za
# (nvmet-rdma's port on 10.0.0.1, nvme-rdma connected to it through the
# same device: kernel consumers work in the initial namespace only) with
# dd reading and writing.  The action comes at a random moment: in a
# quarter of the iterations while the programs start (open, create,
# connect), otherwise a random time after teardown_load's traffic runs
# (or, in 1/8, after the pair connected: that takes seconds under TCG),
# with the NVMe I/O moving.  In a quarter of the iterations a second
# teardown races the action (rmmod while a device, its netdev or its
# namespace is being deleted; `rdma link delete zb` during rmmod), in
# another quarter every program is killed at the moment of the action
# (their files closed while the devices go).
#
# After it: the device(s) are gone, every process ends once killed (none
# stuck; a crash fails), the NVMe controller is gone, `rdma resource
# show` lists nothing of a deleted device and only ib_core's own objects
# on a surviving one, and wookie's module reference count is what it
# was; then what went is built again.  One line per iteration; a hang
# (an action or a process that does not end) stops the loop.  Then eight
# rounds of `rdma link delete za` raced by rmmod or by the deletion of
# vethA, at once or the moment za leaves sysfs (race_round).  At the end
# za and zb must still carry a pingpong.  The seed (printed) comes from
# WOOKIE_TEST_TEARDOWN_SEED if set; iteration i draws from the seed and
# i alone (the timing is the guest's).  The programs' logs:
# teardown/logs/ITERATION.*; the time each step took (ms):
# teardown/timeline.txt.

# --pair LOGPREFIX PORT DELAY SERVER... -- CLIENT...: the job of a pair
# (tests/vm/teardown.sh runs itself so, in a session of its own): the
# server, then DELAY s after it listens the client (127.0.0.1), both
# line-buffered (the client's "remote address" line says it connected).
# First in this file, before anything is sourced: a process start is
# dear on the guest's busy vCPUs.
if [ "${1:-}" = --pair ]; then
	logp=$2 port=$3 delay=$4 srv=()
	shift 4
	while [ "$1" != -- ]; do
		srv+=("$1")
		shift
	done
	shift
	stdbuf -oL -eL "${srv[@]}" -p "$port" >"${logp}pair.server.log" 2>&1 &
	spid=$!
	printf -v hex ':%04X' "$port"
	for ((n = 0; n < 300; n++)); do
		for f in /proc/net/tcp /proc/net/tcp6; do
			while read -r _ laddr _ st _; do
				[[ $laddr != *"$hex" || $st != 0A ]] || break 3
			done <"$f"
		done
		kill -0 "$spid" 2>/dev/null || exit 0
		sleep 0.1
	done
	sleep "$delay"
	exec stdbuf -oL -eL "$@" -p "$port" 127.0.0.1 >"${logp}pair.client.log" 2>&1
fi

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

SELF=$(cd "$(dirname "$0")" && pwd)/${0##*/}
PROBE=$WOOKIE_TOP/build/vm-progs/uverbs_probe
LOADER=$WOOKIE_TOP/build/vm-progs/teardown_load

# ---- settings ----
ITERATIONS=${WOOKIE_TEST_TEARDOWN_ITERATIONS:-50}
SEED=${WOOKIE_TEST_TEARDOWN_SEED:-$(($(od -An -N4 -tu4 /dev/urandom) % 1000000))}
MODULE=${WOOKIE_MODULE:-$WOOKIE_TOP/build/module/$(uname -r)/wookie.ko}
SLOW=$RDMA_SLOW
ACTIONS=(link-delete netdev-delete netns-delete rmmod)
KINDS=(write send rc ud)
NQN=nqn.2026-11.org.wookie:teardown
CFG=/sys/kernel/config/nvmet
PORT=$CFG/ports/1
STEP=$RDMA_OUT/step.log

# ---- helpers ----

# nap SECONDS: sleep without a fork (a read that times out).
mkfifo /tmp/teardown-nap
exec {nap_fd}<>/tmp/teardown-nap
rm -f /tmp/teardown-nap
nap() {
	read -rt "$1" -u "$nap_fd" _ || true
}


# poll SECONDS COMMAND...: until COMMAND succeeds (every 50 ms), or fail.
poll() {
	local t=${EPOCHREALTIME/./} deadline

	deadline=$((t + $1 * 1000000))
	shift
	until "$@" >/dev/null 2>&1; do
		t=${EPOCHREALTIME/./}
		[ "$t" -lt "$deadline" ] || return 1
		nap 0.05
	done
}

# fmt_s MS: S="1.234" (seconds; no fork)
fmt_s() {
	printf -v S '%d.%03d' $(($1 / 1000)) $(($1 % 1000))
}

# wait_pid SECS PID: wait for child PID at most SECS seconds: its status,
# or 124 with it left running (BOUNDED_PID).  A zombie has finished (bash
# may leave it unreaped for a while): the wait below reaps it.
wait_pid() {
	local deadline=$((SECONDS + $1)) rc=0 line

	while kill -0 "$2" 2>/dev/null; do
		if read -r line 2>/dev/null <"/proc/$2/stat"; then
			line=${line##*) }
			[ "${line:0:1}" != Z ] || break
		fi
		if [ $SECONDS -ge $deadline ]; then
			BOUNDED_PID=$2
			return 124
		fi
		nap 0.02
	done
	wait "$2" || rc=$?
	return $rc
}

# bounded SECS COMMAND...: COMMAND (output to the step log), waited for
# at most SECS seconds: its status, or 124 with it left running
# (BOUNDED_PID).
bounded() {
	local secs=$1

	shift
	"$@" >>"$STEP" 2>&1 &
	wait_pid "$secs" $!
}

# alive PID: the process exists and is not a zombie.
alive() {
	local line

	read -r line 2>/dev/null <"/proc/$1/stat" || return 1
	line=${line##*) }
	[ "${line:0:1}" != Z ]
}

# session_procs SID...: "pid state comm wchan" of every live (not zombie)
# process of these sessions.
session_procs() {
	local f line fs s pid comm wchan

	for f in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$f" || continue
		read -ra fs <<<"${line##*) }"
		[ "${fs[0]}" != Z ] || continue
		for s in "$@"; do
			if [ "${fs[3]}" = "$s" ]; then
				pid=${f#/proc/}
				pid=${pid%/stat}
				comm='' wchan=''
				read -r comm 2>/dev/null <"/proc/$pid/comm" || true
				read -r wchan 2>/dev/null <"/proc/$pid/wchan" || true
				echo "$pid ${fs[0]} $comm $wchan"
			fi
		done
	done
}

no_session_procs() {
	[ -z "$(session_procs "$@")" ]
}

# The stacks of the processes session_procs listed (in $1).
show_stacks() {
	local pid rest stat

	while read -r pid rest; do
		[ -n "$pid" ] || continue
		# A running task has no stack here: sysrq-l shows it.
		stat=$(cat "/proc/$pid/stat" 2>/dev/null) || stat=
		stat=${stat##*) }
		echo "     process $pid $rest: state ${stat%% *}, wchan $(cat "/proc/$pid/wchan" 2>/dev/null)"
		sed 's/^/     | /' "/proc/$pid/stack" 2>/dev/null | head -n 25 || true
	done <<<"$1"
}

# The summary `rdma resource show` prints for DEV, without its index.
res_summary() {
	rdma resource show 2>/dev/null | sed -n "s/^[0-9]*: $1: //p"
}

# What `rdma resource show` (one call) lists wrongly: a deleted device,
# or on one that is there more than ib_core's own objects.
res_problems() {
	local line d sum=() seen=() out=

	while IFS= read -r line; do
		line=${line#*: }
		case $line in
		"za: "*) seen[0]=1 sum[0]=${line#za: } ;;
		"zb: "*) seen[1]=1 sum[1]=${line#zb: } ;;
		esac
	done < <(rdma resource show 2>/dev/null)
	if rdma_dev_exists za; then
		[ "${sum[0]:-}" = "$BASE" ] || out+=" za: ${sum[0]:-not listed};"
	else
		[ -z "${seen[0]:-}" ] || out+=" deleted za listed;"
	fi
	if rdma_dev_exists zb; then
		[ "${sum[1]:-}" = "$BASE" ] || out+=" zb: ${sum[1]:-not listed};"
	else
		[ -z "${seen[1]:-}" ] || out+=" deleted zb listed;"
	fi
	echo "$out"
}

res_clean() {
	[ -z "$(res_problems)" ]
}

# The objects on DEV that are not ib_core's own (its GSI QP, CQ, PD).
res_objects() {
	local kind

	for kind in ctx pd mr cq qp srq cm_id; do
		rdma resource show "$kind" 2>/dev/null |
			grep -E "(dev|link) $1[ /]" | grep -vE 'comm \[ib_core\]' |
			sed "s/^/$kind: /" || true
	done
}

module_refcnt() {
	cat /sys/module/wookie/refcnt 2>/dev/null || echo none
}

gid1_is() {
	grep -q "ffff:0a00:000$2" "/sys/class/infiniband/$1/ports/1/gids/1" 2>/dev/null
}

# file_has FILE STRING: a line of FILE contains STRING (without a fork:
# the guest's vCPUs are busy).
file_has() {
	local l

	[ -e "$1" ] || return 1
	while IFS= read -r l || [ -n "$l" ]; do
		[[ $l != *"$2"* ]] || return 0
	done <"$1"
	return 1
}

# The pair's client connected (it printed the peer's address).
connected() {
	file_has "${LOGP}$1.client.log" 'remote address'
}

# The client of pair $1 connected, or it (or its server) is gone: there
# is no point waiting longer.
connected_or_over() {
	connected "$1" || ! alive "$2"
}

running() {
	file_has "${LOGP}load.log" running
}

running_or_over() {
	running || ! alive "$1"
}

# I/Os completed (reads + writes) on the NVMe disks: the multipath head
# nvmeXnY and its paths nvmeXcZnY (the head may not count them).
# NVME_IOS=N (no fork).
nvme_ios() {
	local f s

	NVME_IOS=0
	for f in /sys/block/nvme*/stat; do
		read -ra s 2>/dev/null <"$f" || continue
		NVME_IOS=$((NVME_IOS + s[0] + s[4]))
	done
}

io_moving() {
	nvme_ios
	[ "$NVME_IOS" -gt "$1" ] || ! alive "$2"
}

# ---- building what an action took away (only that) ----

net_up() {
	if [ ! -e /run/netns/hostB ]; then
		ip netns add hostB && ip -n hostB link set lo up || return 1
	fi
	[ ! -e /sys/class/net/vethA ] || return 0
	ip link add vethA type veth peer name vethB netns hostB &&
		ip -b - <<-EOF &&
		addr add 10.0.0.1/24 dev vethA
		link set vethA up
		EOF
		ip -n hostB -b - <<-EOF || return 1
		addr add 10.0.0.2/24 dev vethB
		link set vethB up
		EOF
	# No RPS here, unlike vm-run's setup: packets of a flow may arrive
	# out of order (wookie recovers), the data is not what this checks.
}

# dev_add NAME NS NETDEV: `rdma link add` in namespace NS ("" = this
# one; nsenter: cheaper than `ip netns exec`); a name just freed may be
# taken for a moment longer: retried.
dev_add() {
	local i ns=()

	rdma_dev_exists "$1" && return 0
	[ -z "$2" ] || ns=(nsenter "--net=/run/netns/$2")
	for ((i = 0; ; i++)); do
		"${ns[@]}" rdma link add "$1" type wookie netdev "$3" >>"$STEP" 2>&1 && return 0
		[ $i -lt 25 ] || return 1
		nap 0.2
	done
}

setup() {
	if [ ! -d /sys/module/wookie ]; then
		insmod "$MODULE" >>"$STEP" 2>&1 || { echo "insmod $MODULE"; return 1; }
	fi
	net_up || { echo "the veth pair and hostB"; return 1; }
	dev_add za "" vethA || { echo "rdma link add za"; return 1; }
	dev_add zb hostB vethB || { echo "rdma link add zb"; return 1; }
	poll $((10 * SLOW)) port_is za "4: ACTIVE" || { echo "za not ACTIVE"; return 1; }
	poll $((10 * SLOW)) port_is zb "4: ACTIVE" || { echo "zb not ACTIVE"; return 1; }
	poll $((10 * SLOW)) gid1_is za 1 || { echo "za: no GID 1"; return 1; }
	poll $((10 * SLOW)) gid1_is zb 2 || { echo "zb: no GID 1"; return 1; }
}

# ---- NVMe-oF: nvmet-rdma's port on za and nvme-rdma through za ----
nvme_ready=

nvme_prepare() {
	modprobe nvmet-rdma && modprobe nvme-rdma &&
		modprobe brd rd_nr=1 rd_size=65536 || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mkdir "$CFG/subsystems/$NQN" &&
		echo 1 >"$CFG/subsystems/$NQN/attr_allow_any_host" &&
		mkdir "$CFG/subsystems/$NQN/namespaces/1" &&
		echo -n /dev/ram0 >"$CFG/subsystems/$NQN/namespaces/1/device_path" &&
		echo 1 >"$CFG/subsystems/$NQN/namespaces/1/enable"
}

port_up() {
	mkdir "$PORT" &&
		echo rdma >"$PORT/addr_trtype" &&
		echo ipv4 >"$PORT/addr_adrfam" &&
		echo 10.0.0.1 >"$PORT/addr_traddr" &&
		echo 4420 >"$PORT/addr_trsvcid" &&
		ln -s "$CFG/subsystems/$NQN" "$PORT/subsystems/$NQN"
}

port_down() {
	[ -d "$PORT" ] || return 0
	rm -f "$PORT/subsystems/$NQN" && rmdir "$PORT"
}

nvme_blk() {
	local d

	for d in /sys/block/nvme*n1; do
		[ -e "$d" ] || continue
		case "${d##*/}" in *c*) continue ;; esac
		[ -b "/dev/${d##*/}" ] || continue
		echo "/dev/${d##*/}"
		return 0
	done
	return 1
}

nvme_ctrls() {
	local s

	for s in /sys/class/nvme/nvme*/state; do
		[ -e "$s" ] && echo "${s%/state}: $(cat "$s" 2>/dev/null)"
	done
	true
}

no_ctrl() {
	[ -z "$(nvme_ctrls)" ]
}

# ---- the loop ----
sids=()
iter_fail=
iter_details=

fail() {
	iter_fail+="${iter_fail:+; }$1"
	[ $# -lt 2 ] || iter_details+="$2"$'\n'
}

summary() {
	local a line=

	for a in 0 1 2 3; do
		line+=" ${ACTIONS[a]} ${count[a]},"
	done
	echo "$1 teardown: $done_iters/$ITERATIONS iterations in $((SECONDS - t_start)) s, seed $SEED:${line%,}; during startup $startup_iters, teardown_load's traffic $traffic_iters, a pair's traffic $pair_iters, NVMe-oF with I/O moving $nvme_iters; raced by a second teardown $races, programs killed at the action $kills; $fail_iters failed"
}

# A hang: what is stuck, the blocked tasks into the kernel log, and stop.
hang() {
	local procs=${3:-}

	echo "FAIL iteration $i seed $SEED: ${ACTIONS[action]}${target:+ $target}: $1"
	[ -z "${2:-}" ] || sed 's/^/     /' <<<"$2"
	# A bounded command's process and its children, if not given.
	if [ -z "$procs" ] && [ -n "${BOUNDED_PID:-}" ]; then
		procs=$(printf '%s\n' "$BOUNDED_PID" \
			$(pgrep -P "$BOUNDED_PID" 2>/dev/null))
	fi
	[ -z "$procs" ] || show_stacks "$procs"
	# Blocked tasks, and what every CPU runs, to the kernel log.
	echo w >/proc/sysrq-trigger 2>/dev/null || true
	echo l >/proc/sysrq-trigger 2>/dev/null || true
	tail -n 15 "$STEP" | sed 's/^/     step| /'
	vm_failures=$((vm_failures + 1))
	fail_iters=$((fail_iters + 1))
	summary FAIL
	exit 1
}

on_exit() {
	local s

	for s in "${sids[@]}"; do
		kill -9 -- "-$s" 2>/dev/null || true
	done
	[ -n "$nvme_ready" ] || return 0
	timeout 30 nvme disconnect-all >/dev/null 2>&1 || true
	port_down 2>/dev/null || true
	echo 0 >"$CFG/subsystems/$NQN/namespaces/1/enable" 2>/dev/null || true
	rmdir "$CFG/subsystems/$NQN/namespaces/1" "$CFG/subsystems/$NQN" 2>/dev/null || true
	modprobe -r nvme-rdma nvmet-rdma 2>/dev/null || true
	rmmod brd 2>/dev/null || true
}
trap on_exit EXIT

# pair_args KIND SDEV CDEV EVENTS: PAIR_JOB, the job's arguments for a
# pair of KIND (write, send, rc, ud) with the server on SDEV and the
# client on CDEV, on CQ events if EVENTS is 1 (not ib_write_bw: no -e);
# PAIR_NAME, its short name.
pair_args() {
	local kind=$1 sdev=$2 cdev=$3 ev=$4 cmd=() extra=()

	case "$kind" in
	write) cmd=(ib_write_bw -x 1 -F -n 100000 -s 65536) ;;
	send) cmd=(ib_send_bw -x 1 -F -n 100000 -s 16384) ;;
	rc) cmd=(ibv_rc_pingpong -g 1 -s 4096 -n 10000000) ;;
	ud) cmd=(ibv_ud_pingpong -g 1 -s 512 -n 10000000) ;;
	esac
	[ "$ev" = 0 ] || [ "$kind" = write ] || extra=(-e)
	PAIR_JOB=("${cmd[@]}" "${extra[@]}" -d "$sdev" -- "${cmd[@]}" "${extra[@]}" -d "$cdev")
	PAIR_NAME=${cmd[0]#ib_}
	PAIR_NAME=${PAIR_NAME#ibv_}${extra[0]:+ -e}
}

# start_job KIND: one part of the load, in a session of its own (setsid
# execs it: no fork, the session's id is $!), so that one kill of its
# process group ends it with all it started.
start_job() {
	case $1 in
	load)
		setsid "$LOADER" "${largs[@]}" za zb </dev/null >"${LOGP}load.log" 2>&1 &
		load_sid=$!
		;;
	pair)
		setsid bash "$SELF" --pair "$LOGP" $((20000 + i)) "$pair_delay" \
			"${PAIR_JOB[@]}" </dev/null >/dev/null 2>&1 &
		pair_sid=$!
		;;
	hold)
		setsid "$PROBE" "$hdev" hold </dev/null >"${LOGP}hold-$hdev.log" 2>&1 &
		;;
	io)
		# Two writers and two readers, direct I/O of 64 KiB, each over
		# 16 MiB again and again until it fails; never a file of that
		# name if the device went already (nocreat).
		setsid sh -c 'for k in 0 1; do
			(while dd if=/dev/zero of="$1" bs=64k seek=$((k * 256)) count=256 \
				oflag=direct conv=notrunc,nocreat status=none; do :; done) &
			(while dd if="$1" of=/dev/null bs=64k skip=$((k * 256 + 128)) \
				count=256 iflag=direct status=none; do :; done) &
		done; wait' sh "$blk" </dev/null >"${LOGP}io.log" 2>&1 &
		io_sid=$!
		;;
	esac
	sids+=($!)
}

# start_jobs KIND:DELAY_MS...: each job DELAY_MS after the first call,
# in the order of their delays.
start_jobs() {
	local t0=${EPOCHREALTIME/./} left=("$@") next j t

	while [ ${#left[@]} -gt 0 ]; do
		next=0
		for j in "${!left[@]}"; do
			[ "${left[j]#*:}" -ge "${left[next]#*:}" ] || next=$j
		done
		t=${EPOCHREALTIME/./}
		t=$((${left[next]#*:} - (t - t0) / 1000))
		if [ $t -gt 0 ]; then
			fmt_s $t
			nap "$S"
		fi
		start_job "${left[next]%:*}"
		unset "left[next]"
		left=("${left[@]}")
	done
}

echo "seed $SEED, $ITERATIONS iterations (WOOKIE_TEST_TEARDOWN_SEED, WOOKIE_TEST_TEARDOWN_ITERATIONS)"
: >"$STEP"
mkdir -p "$RDMA_OUT/logs"
: >"$RDMA_OUT/timeline.txt"
count=(0 0 0 0)
nvme_iters=0 startup_iters=0 traffic_iters=0 pair_iters=0 fail_iters=0
done_iters=0 races=0 kills=0
t_start=$SECONDS
if ! why=$(setup); then
	echo "FAIL the first setup: $why"
	tail -n 20 "$STEP" | sed 's/^/     | /'
	exit 1
fi
BASE=$(res_summary za)
[ "$(res_summary zb)" = "$BASE" ] ||
	echo "note za and zb differ when idle: '$BASE', '$(res_summary zb)'"
BASE_REFCNT=$(module_refcnt)
echo "an idle device: $BASE; wookie's refcnt $BASE_REFCNT"

for ((i = 0; i < ITERATIONS; i++)); do
	T0US=${EPOCHREALTIME/./}
	t0=$((T0US / 1000))
	timeline=
	LOGP=$RDMA_OUT/logs/$i.
	RANDOM=$(((SEED * 7919 + i) % 2147483647))
	action=$((i % 4))
	nvme=0
	[ $((i % 5)) -ne 2 ] || nvme=1
	iter_fail='' iter_details='' target=''
	: >"$STEP"

	if ! why=$(setup); then
		# What failed before may have left things half built.
		fail "setup: $why" "$(tail -n 5 "$STEP")"
	fi
	timeline+=" setup $((${EPOCHREALTIME/./} / 1000 - t0))"

	# The target of link-delete and netdev-delete: alternating between
	# the two; NVMe-oF runs on za, so its iterations take za.
	side=$(((i / 4) % 2))
	[ $nvme -eq 0 ] || side=0
	sides=(za zb vethA vethB)
	case $action in
	0) target=${sides[side]} ;;
	1) target=${sides[side + 2]} ;;
	2) target=hostB ;;
	3) target='' ;;
	esac

	blk=
	if [ -z "$iter_fail" ] && [ $nvme -eq 1 ]; then
		if [ -z "$nvme_ready" ]; then
			if nvme_prepare >>"$STEP" 2>&1; then
				nvme_ready=1
			else
				fail "NVMe-oF target setup" "$(tail -n 5 "$STEP")"
			fi
		fi
		if [ -n "$nvme_ready" ]; then
			if ! bounded 30 port_up; then
				fail "nvmet port on 10.0.0.1" "$(tail -n 5 "$STEP")"
			elif ! bounded $((60 * SLOW)) nvme connect -t rdma -a 10.0.0.1 \
				-s 4420 -n "$NQN" --ctrl-loss-tmo=2 --reconnect-delay=1; then
				fail "nvme connect" "$(tail -n 5 "$STEP")"
			elif ! poll $((30 * SLOW)) nvme_blk; then
				fail "no NVMe namespace block device"
			else
				blk=$(nvme_blk)
			fi
		fi
		timeline+=" nvme $((${EPOCHREALTIME/./} / 1000 - t0))"
	fi

	# The load, each part after its own delay: teardown_load, a pair of
	# programs between za and zb or on one of them, a holder, fio.
	sids=()
	largs=()
	[ $((RANDOM % 2)) -eq 0 ] || largs=(-e)
	load="teardown_load${largs[*]:+ -e}"
	jobs=("load:$((RANDOM % 400))")
	case $((RANDOM % 3)) in
	0) sdev=za cdev=za ;;
	1) sdev=zb cdev=zb ;;
	*) sdev=za cdev=zb ;;
	esac
	# Mostly on events: polling programs take a vCPU each.
	pair_args "${KINDS[RANDOM % 4]}" $sdev $cdev $((RANDOM % 4 != 0))
	fmt_s $((RANDOM % 200))
	pair_delay=$S
	jobs+=("pair:$((RANDOM % 400))")
	load+=", $PAIR_NAME $sdev"
	[ $sdev = $cdev ] || load+="-$cdev"
	hdevs=(za zb)
	hdev=${hdevs[RANDOM % 2]}
	jobs+=("hold:$((RANDOM % 600))")
	load+=", holder on $hdev"
	if [ -n "$blk" ]; then
		nvme_ios
		ios0=$NVME_IOS
		jobs+=("io:$((RANDOM % 300))")
		load+=", dd on $blk"
	fi
	load_sid='' pair_sid='' io_sid=''
	start_jobs "${jobs[@]}"
	timeline+=" launched $((${EPOCHREALTIME/./} / 1000 - t0))"

	# The moment: while the programs start (a quarter of the
	# iterations), once teardown_load's traffic runs (5/8), or once the
	# pair connected (1/8: that takes seconds); and the NVMe I/O moves.
	# Each plus a random delay.
	stage=$((RANDOM % 8))
	delay=$((RANDOM % 800))
	fmt_s $delay
	delay_s=$S
	moment=
	if [ $stage -le 1 ]; then
		moment="startup + $delay_s s"
		startup_iters=$((startup_iters + 1))
	else
		if [ $stage -eq 7 ]; then
			poll $((30 * SLOW)) connected_or_over pair "$pair_sid" || true
			if connected pair; then
				moment="pair connected + $delay_s s"
				pair_iters=$((pair_iters + 1))
			else
				moment="pair never connected (logs/$i.pair.*) + $delay_s s"
			fi
		else
			poll $((30 * SLOW)) running_or_over "$load_sid" || true
			if running; then
				moment="traffic + $delay_s s"
				traffic_iters=$((traffic_iters + 1))
			else
				moment="teardown_load not running (logs/$i.load.log) + $delay_s s"
			fi
		fi
		if [ -n "$blk" ]; then
			poll $((30 * SLOW)) io_moving "$ios0" "$io_sid" || true
			nvme_ios
			if [ "$NVME_IOS" -gt "$ios0" ]; then
				nvme_iters=$((nvme_iters + 1))
				moment+=", I/O moving"
			else
				moment+=", no I/O yet"
			fi
		fi
	fi
	nap "$delay_s"
	timeline+=" moment $((${EPOCHREALTIME/./} / 1000 - t0))"

	# The action; in a quarter of the iterations a second teardown
	# races it (rmmod with the others, `rdma link delete zb` with
	# rmmod), in another quarter the programs are killed at once.
	case $action in
	0) act=(rdma link delete "$target") ;;
	1)
		act=(ip link del vethA)
		[ "$target" = vethA ] || act=(ip -n hostB link del vethB)
		;;
	2) act=(ip netns del hostB) ;;
	3) act=(rmmod wookie) ;;
	esac
	race=$((RANDOM % 4))
	race_act=()
	if [ $race -eq 0 ]; then
		race_act=(rmmod wookie)
		[ $action -ne 3 ] || race_act=(rdma link delete zb)
		races=$((races + 1))
	fi
	ta=$((${EPOCHREALTIME/./} / 1000))
	"${act[@]}" >>"$STEP" 2>&1 &
	act_pid=$!
	race_pid=
	if [ ${#race_act[@]} -gt 0 ]; then
		"${race_act[@]}" >>"$STEP" 2>&1 &
		race_pid=$!
	elif [ $race -eq 1 ]; then
		for s in "${sids[@]}"; do
			kill -9 -- "-$s" 2>/dev/null || true
		done
		kills=$((kills + 1))
	fi
	rc=0
	wait_pid $((60 * SLOW)) $act_pid || rc=$?
	[ $rc -ne 124 ] || hang "'${act[*]}' still running after $((60 * SLOW)) s" \
		"" "$BOUNDED_PID $(cat /proc/"$BOUNDED_PID"/comm 2>/dev/null)"
	rrc=0
	[ -z "$race_pid" ] || wait_pid $((60 * SLOW)) "$race_pid" || rrc=$?
	[ $rrc -ne 124 ] || hang "'${race_act[*]}' (racing '${act[*]}') still running after $((60 * SLOW)) s" \
		"" "$BOUNDED_PID $(cat /proc/"$BOUNDED_PID"/comm 2>/dev/null)"
	# Racing, one of the two may find its device gone already: only
	# the rmmod must succeed.
	if [ -z "$race_pid" ]; then
		[ $rc -eq 0 ] || fail "'${act[*]}' exited $rc" "$(tail -n 5 "$STEP")"
	elif [ "${race_act[0]}" = rmmod ]; then
		[ $rrc -eq 0 ] || fail "'${race_act[*]}' racing '${act[*]}' exited $rrc" "$(tail -n 5 "$STEP")"
	else
		[ $rc -eq 0 ] || fail "'${act[*]}' raced by '${race_act[*]}' exited $rc" "$(tail -n 5 "$STEP")"
	fi
	timeline+=" action $((${EPOCHREALTIME/./} / 1000 - t0))"

	# The device(s) gone.
	gone="za zb"
	[ $action -ne 0 ] || [ -n "$race_pid" ] || gone=$target
	rmmoded=
	[ $action -ne 3 ] && [ "${race_act[0]:-}" != rmmod ] || rmmoded=1
	for d in $gone; do
		poll $((30 * SLOW)) rdma_dev_gone "$d" ||
			fail "$d still there after $(((${EPOCHREALTIME/./} / 1000 - ta) / 1000)) s"
	done
	if [ -n "$rmmoded" ] && [ -d /sys/module/wookie ]; then
		fail "module still loaded after rmmod"
	fi
	# The veth end in the initial namespace goes with its peer.
	if [ $action -eq 1 ] || [ $action -eq 2 ]; then
		poll $((30 * SLOW)) test ! -e /sys/class/net/vethA ||
			fail "vethA still there after $(((${EPOCHREALTIME/./} / 1000 - ta) / 1000)) s"
	fi
	tgone=$((${EPOCHREALTIME/./} / 1000 - ta))
	timeline+=" gone $((${EPOCHREALTIME/./} / 1000 - t0))"

	# Every process ends once killed.
	alive_n=0
	for s in "${sids[@]}"; do
		! alive "$s" || alive_n=$((alive_n + 1))
	done
	for s in "${sids[@]}"; do
		kill -9 -- "-$s" 2>/dev/null || true
	done
	timeline+=" kill $((${EPOCHREALTIME/./} / 1000 - t0))"
	if ! poll $((15 * SLOW)) no_session_procs "${sids[@]}"; then
		stuck=$(session_procs "${sids[@]}")
		hang "processes not ended 15 s after kill -9" "$stuck" "$stuck"
	fi
	# How each job's last program ended: killed (137) or exited by
	# itself; a crash is a failure.
	ends=
	for s in "${sids[@]}"; do
		st=0
		wait "$s" 2>/dev/null || st=$?
		case $st in
		137) ;;
		13[2-6] | 139) fail "a program died of signal $((st - 128))" "logs: $LOGP*" ;;
		*) ends+=" $st" ;;
		esac
	done
	sids=()
	timeline+=" killed $((${EPOCHREALTIME/./} / 1000 - t0))"

	# The kernel consumer: its controller gone with the device.
	if [ -n "$nvme_ready" ] && [ $nvme -eq 1 ]; then
		if ! poll $((30 * SLOW)) no_ctrl; then
			fail "NVMe controller still there" "$(nvme_ctrls)"
			rc=0
			bounded $((30 * SLOW)) nvme disconnect-all || rc=$?
			[ $rc -ne 124 ] || hang "nvme disconnect-all hangs"
		fi
		rc=0
		bounded $((30 * SLOW)) port_down || rc=$?
		[ $rc -ne 124 ] || hang "removing the nvmet port hangs"
		[ $rc -eq 0 ] || fail "removing the nvmet port exited $rc"
		timeline+=" nvme-gone $((${EPOCHREALTIME/./} / 1000 - t0))"
	fi

	# Nothing left: a deleted device not listed at all, a surviving one
	# with ib_core's objects only.
	if ! poll $((10 * SLOW)) res_clean; then
		problems=$(res_problems)
		for d in za zb; do
			! rdma_dev_exists "$d" || iter_details+=$(res_objects "$d")$'\n'
		done
		fail "rdma resource show: $problems"
	fi

	if [ -n "$rmmoded" ]; then
		insmod "$MODULE" >>"$STEP" 2>&1 || fail "insmod again" "$(tail -n 5 "$STEP")"
	fi
	refcnt=$(module_refcnt)
	[ "$refcnt" = "$BASE_REFCNT" ] || fail "wookie refcnt $refcnt, was $BASE_REFCNT"
	timeline+=" checked $((${EPOCHREALTIME/./} / 1000 - t0))"
	echo "$i$timeline" >>"$RDMA_OUT/timeline.txt"

	count[action]=$((count[action] + 1))
	done_iters=$((done_iters + 1))
	fmt_s $tgone
	line="$((i + 1))/$ITERATIONS ${ACTIONS[action]}${target:+ $target}${race_act[*]:+ + ${race_act[*]}}"
	[ $race -ne 1 ] || line+=" + kill -9"
	line+=" at $moment: $load; gone in $S s, $alive_n of ${#jobs[@]} jobs killed${ends:+, exits$ends}"
	fmt_s $((${EPOCHREALTIME/./} / 1000 - t0))
	line+=" ($S s)"
	if [ -z "$iter_fail" ]; then
		echo "ok   $line"
	else
		echo "FAIL iteration $i seed $SEED: $iter_fail [$line]"
		[ -z "$iter_details" ] || printf '%s' "$iter_details" | head -n 20 | sed 's/^/     | /'
		vm_failures=$((vm_failures + 1))
		fail_iters=$((fail_iters + 1))
	fi
done

# Two teardowns of one device: `rdma link delete za`, then rmmod or `ip
# link del vethA` DELAY s later, or ("sysfs") the moment za leaves sysfs
# (a process spinning on it already: perl's delete_module(2), or a line
# into `ip -batch`); while teardown_load's traffic runs on za and zb.
# Once ib_core has dropped za's refcount to zero, until dealloc_driver
# (device_del() is in between), the second one's netdev event asked for
# za's unregistration too, and ib_unregister_device_queued() warned (the
# main loop hit that in 1 of 3 runs).
race_round() {
	local second=$1 delay=$2 lpid pid1 pid2 rc1=0 rc2=0 why t1
	local fifo=/tmp/teardown-race

	why=$(setup) || { echo "setup: $why"; return 1; }
	LOGP=$RDMA_OUT/logs/race.
	"$LOADER" za zb </dev/null >"${LOGP}load.log" 2>&1 &
	lpid=$!
	poll $((60 * SLOW)) running_or_over $lpid
	if ! running; then
		why=exited
		! alive $lpid || why=alive
		kill -9 $lpid 2>/dev/null
		echo "teardown_load did not run within $((60 * SLOW)) s ($why: $(tail -n 3 "${LOGP}load.log" | tr '\n' ' '))"
		return 1
	fi
	if [ "$delay" = sysfs ]; then
		if [ "$second" = rmmod ]; then
			# 176: delete_module on x86_64; 2048: O_NONBLOCK, as rmmod.
			perl -e '1 while -e $ARGV[0]; my $m = "wookie";
				syscall(176, $m, 2048) == 0 or die "delete_module: $!\n"' \
				/sys/class/infiniband/za >>"$STEP" 2>&1 &
			pid2=$!
		else
			rm -f $fifo
			mkfifo $fifo
			ip -batch $fifo >>"$STEP" 2>&1 &
			pid2=$!
			perl -e '1 while -e $ARGV[0]; open(my $f, ">", $ARGV[1]) or die;
				print $f "link del vethA\n"' \
				/sys/class/infiniband/za $fifo >>"$STEP" 2>&1 &
		fi
	fi
	t1=${EPOCHREALTIME/./}
	rdma link delete za >>"$STEP" 2>&1 &
	pid1=$!
	if [ "$delay" = sysfs ]; then
		wait_pid $((60 * SLOW)) $pid2 || rc2=$?
	else
		nap "$delay"
		case $second in
		rmmod) bounded $((60 * SLOW)) rmmod wookie || rc2=$? ;;
		netdev) bounded $((60 * SLOW)) ip link del vethA || rc2=$? ;;
		esac
	fi
	wait_pid $((60 * SLOW)) $pid1 || rc1=$?
	echo -n " $(((${EPOCHREALTIME/./} - t1) / 1000))"
	kill -9 $lpid 2>/dev/null
	wait $lpid 2>/dev/null
	[ $rc1 -ne 124 ] && [ $rc2 -ne 124 ] || { echo "hangs"; return 1; }
	[ $rc2 -eq 0 ] || { echo "the second teardown exited $rc2"; return 1; }
	poll $((30 * SLOW)) rdma_dev_gone za || { echo "za still there"; return 1; }
	if [ "$second" = rmmod ]; then
		[ ! -d /sys/module/wookie ] || { echo "module still loaded"; return 1; }
		insmod "$MODULE" >>"$STEP" 2>&1 || { echo "insmod again"; return 1; }
	else
		poll $((30 * SLOW)) rdma_dev_gone zb || { echo "zb still there"; return 1; }
	fi
}
races_ok=0
races_failed=
races_ms=
for second in rmmod netdev; do
	for delay in 0 sysfs sysfs sysfs; do
		if why=$(race_round $second $delay); then
			races_ok=$((races_ok + 1))
			races_ms+=$why
		else
			races_failed+=" $second@$delay: $why;"
		fi
	done
done
if [ -z "$races_failed" ]; then
	echo "ok   link-delete raced by rmmod and by netdev deletion: $races_ok rounds (both done in ms:$races_ms)"
else
	echo "FAIL link-delete raced by rmmod and by netdev deletion:$races_failed"
	vm_failures=$((vm_failures + 1))
fi

# After all that, the module still carries traffic: a pingpong between
# the two devices, the data checked.
if why=$(setup); then
	i=$ITERATIONS
	PAIR_SNS='' PAIR_CNS='' PAIR_SIP=127.0.0.1
	PAIR_SERVER=(ibv_rc_pingpong -d za -g 1 -c -s 4096 -n 100)
	PAIR_CLIENT=(ibv_rc_pingpong -d zb -g 1 -c -s 4096 -n 100)
	rdma_port=$((20000 + ITERATIONS))
	pair_run "za and zb still carry traffic" 60
else
	echo "FAIL the devices after the loop: $why"
	vm_failures=$((vm_failures + 1))
fi

# A program that crashed: the kernel logs SIGSEGV and traps (a job's
# first program is checked by its exit status above, this also covers
# a pair's server).
crashes=$(dmesg | grep -E 'segfault at|traps: ' || true)
if [ -n "$crashes" ]; then
	echo "FAIL programs crashed:"
	sed 's/^/     | /' <<<"$crashes" | head -n 20
	vm_failures=$((vm_failures + 1))
fi

if [ $fail_iters -eq 0 ]; then
	summary "ok  "
else
	summary FAIL
fi
vm_done
