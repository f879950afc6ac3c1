#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make bench (scripts/bench): the same perftest matrix on rdma_rxe, on siw
# (when the booted kernel has it) and on wookie, in one boot (vm-run --net
# init), so that the ratios compare like with like.  Not a pass/fail test
# of speed: it fails only when a run fails or the kernel splats.
#
# Topologies: "1dev", client and server on one device (vethA, GID 1);
# "2dev", two devices: wookie zz0 on vethA (initial namespace) and zz1 on
# vethB (namespace hostB), over the veth; rxe and siw work only in the
# initial namespace in 6.1, so theirs are two devices on a second veth pair
# whose ends are both there (vethC 10.0.3.1, vethD 10.0.3.2), with policy
# routes that send the traffic between the two addresses over the veth,
# not over lo.  Load: "quiet", and "busy" with a CPU-bound process running
# beside the two perftest processes (2 vCPUs: three runnable tasks).
#
# Figures: latency t_typical and 99th percentile (us) at 2 bytes;
# bandwidth (MB/s) at 64 B, 4 KiB and 64 KiB; message rate (Mpps) at 64 B
# with 1 and 4 QPs.  Then system calls per posted WR under a streaming
# ib_write_bw (perf stat of the syscall tracepoint), and the CPU time
# the device's threads use in 10 idle seconds after traffic.
#
# BENCH_MODE=smoke: quiet, a few figures, few iterations (the make check
# lane).  BENCH_PROFILE=1: the runs whose name matches the regex
# BENCH_PROFILE_MATCH (default: 64 KiB write bandwidth, send latency,
# 64-byte write message rate) run once more for a time, with perf record
# -a over BENCH_PROFILE_SECS (default 8) of their traffic (perf_run);
# reports in the output dir.
# BENCH_LAT_TESTS, BENCH_BW_TESTS, BENCH_BW_SIZES, BENCH_MR_QPS narrow
# the figures (empty: none of that kind).
# BENCH_TYPES: the device types to run (default "rxe siw wookie
# wookie_poll"; wookie_poll is wookie with sq_poll_idle_us=BENCH_POLL_US,
# default 100).
. "$(dirname "$0")/../vm/lib.sh"
. "$(dirname "$0")/../vm/_rdma.sh"

MODE=${BENCH_MODE:-full}
TYPES=${BENCH_TYPES:-rxe siw wookie wookie_poll}
# wookie_poll: wookie with its SQ poller (module parameter sq_poll_idle_us).
POLL_US=${BENCH_POLL_US:-100}
PROFILE=${BENCH_PROFILE:-}
out=$RDMA_OUT
results=$out/results.txt
: >"$results"

if [ "$MODE" = smoke ]; then
	TOPOS="1dev 2dev" LOADS="quiet"
	LAT_N=200 BW_N=200
	LAT_TESTS="send" BW_TESTS="write" BW_SIZES="65536" MR_QPS="1"
	SYSCALL_N=5000
else
	TOPOS=${BENCH_TOPOS:-1dev 2dev} LOADS=${BENCH_LOADS:-quiet busy}
	LAT_N=2000 BW_N=1000
	LAT_TESTS=${BENCH_LAT_TESTS-send write read}
	BW_TESTS=${BENCH_BW_TESTS-write read send}
	BW_SIZES=${BENCH_BW_SIZES:-64 4096 65536} MR_QPS=${BENCH_MR_QPS-1 4}
	SYSCALL_N=20000
fi

# --- devices ----------------------------------------------------------

# The second veth pair for rxe's and siw's two-device runs (see above).
vethcd_setup() {
	ip link add vethC type veth peer name vethD
	ip addr add 10.0.3.1/24 dev vethC
	ip addr add 10.0.3.2/24 dev vethD
	ip link set vethC up
	ip link set vethD up
	for d in all vethC vethD; do
		sysctl -qw net.ipv4.conf.$d.accept_local=1
		sysctl -qw net.ipv4.conf.$d.rp_filter=0
	done
	ip route add 10.0.3.2/32 dev vethC table 100
	ip route add 10.0.3.1/32 dev vethD table 101
	ip rule add pref 10 iif lo from 10.0.3.1 to 10.0.3.2 lookup 100
	ip rule add pref 11 iif lo from 10.0.3.2 to 10.0.3.1 lookup 101
	ip rule add pref 100 lookup local
	ip rule del pref 0 lookup local
	rps_setup
}

# Receive packet steering off on all four veth ends (vm-run turns it on
# for vethA and vethB), or BENCH_RPS, a hex CPU mask for all four.  With
# RPS a packet is received on the CPU its flow hashes to, often the other
# vCPU, woken by an interrupt (under TCG, a host thread's wakeup): the
# figures of a run then depend on how its QPs' UDP ports hash, not on the
# device.  Without it a packet is received on the CPU that sent it, for
# every device type alike.
rps_setup() {
	local mask=${BENCH_RPS:-0} d

	for d in vethA vethC vethD; do
		echo "$mask" >/sys/class/net/$d/queues/rx-0/rps_cpus
	done
	ip netns exec hostB sh -c \
		"echo $mask >/sys/class/net/vethB/queues/rx-0/rps_cpus"
	echo "bench: RPS CPU mask $mask on vethA, vethB, vethC, vethD"
}

# The GID index of an IPv4 address on a device (IPv4-mapped GID).
gid_of() {
	local hex

	hex=$(printf '%02x%02x:%02x%02x' ${2//./ })
	wait_until 10 gid_index "$1" "0000:0000:0000:0000:0000:ffff:$hex" &&
		gid_index "$1" "0000:0000:0000:0000:0000:ffff:$hex"
}

# topo_up TYPE TOPO: create the devices and set the xpair roles
# (XS_* server, XC_* client); CM=1 for iWARP (perftest -R, no GID).
topo_up() {
	local type=$1 topo=$2 a b ns=

	CM=
	[ "$type" = siw ] && CM=1
	[ "$type" = wookie_poll ] && type=wookie
	case "$topo" in
	1dev)
		a=$type-a
		[ "$type" = wookie ] && a=zz0
		rdma link add "$a" type "$type" netdev vethA || return 1
		wait_until 10 port_is "$a" "4: ACTIVE" || return 1
		XS_NS='' XS_DEV=$a XS_IP=10.0.0.1
		XC_NS='' XC_DEV=$a
		[ -n "$CM" ] || XS_GID=$(gid_of "$a" 10.0.0.1) || return 1
		XC_GID=$XS_GID
		;;
	2dev)
		if [ "$type" = wookie ]; then
			a=zz0 b=zz1 ns=hostB
			rdma link add $a type wookie netdev vethA || return 1
			ip netns exec hostB rdma link add $b type wookie \
				netdev vethB || return 1
			XS_IP=10.0.0.2 XC_IP=10.0.0.1
		else
			a=$type-c b=$type-d
			rdma link add "$a" type "$type" netdev vethC || return 1
			rdma link add "$b" type "$type" netdev vethD || return 1
			XS_IP=10.0.3.2 XC_IP=10.0.3.1
		fi
		wait_until 10 port_is "$a" "4: ACTIVE" || return 1
		wait_until 10 port_is "$b" "4: ACTIVE" || return 1
		XS_NS=$ns XS_DEV=$b XC_NS='' XC_DEV=$a
		if [ -z "$CM" ]; then
			XS_GID=$(gid_of "$b" "$XS_IP") || return 1
			XC_GID=$(gid_of "$a" "$XC_IP") || return 1
		fi
		;;
	esac
}

topo_down() {
	local d

	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] || continue
		d=${d##*/}
		wait_until 10 rdma_no_objects "$d" || true
		rdma link delete "$d" 2>/dev/null ||
			ip netns exec hostB rdma link delete "$d" 2>/dev/null || true
	done
}

type_load() {
	case "$1" in
	rxe) modprobe rdma_rxe ;;
	siw) modprobe siw ;;
	wookie) [ -n "${WOOKIE_MODULE:-}" ] ;;
	wookie_poll)
		[ -n "${WOOKIE_MODULE:-}" ] &&
			echo "$POLL_US" >/sys/module/wookie/parameters/sq_poll_idle_us
		;;
	esac
}

type_unload() {
	case "$1" in
	rxe) modprobe -r rdma_rxe ;;
	siw) modprobe -r siw ;;
	wookie_poll) echo 0 >/sys/module/wookie/parameters/sq_poll_idle_us ;;
	esac
	return 0
}

# --- runs ---------------------------------------------------------------

busy_pid=
load_on() {
	[ "$1" = busy ] || return 0
	bash -c 'while :; do :; done' &
	busy_pid=$!
}

load_off() {
	[ -z "$busy_pid" ] || kill "$busy_pid" 2>/dev/null || true
	[ -z "$busy_pid" ] || wait "$busy_pid" 2>/dev/null || true
	busy_pid=
}

# pair_any NAME PROGRAM ARGS...: one server/client pair on the current
# topology; the client's log is $RDMA_OUT/NAME.client.log.
pair_any() {
	local name=$1 prog=$2

	shift 2
	if [ -n "$CM" ]; then
		PAIR_SNS=$XS_NS PAIR_CNS=$XC_NS PAIR_SIP=$XS_IP
		PAIR_SERVER=("$prog" -d "$XS_DEV" -F "$@")
		PAIR_CLIENT=("$prog" -d "$XC_DEV" -F "$@")
		pair_run "$name" 300
	else
		xpair "$name" 300 "$prog" "$@"
	fi
}

# perf_run NAME PROGRAM ARGS...: pair_any, then with BENCH_PROFILE a
# second run of the same for a time (-D instead of -n, whose output
# has other columns), with perf record -a from after its connection is up
# to before it ends: traffic only, no setup.  NAME.perf.txt is the report.
perf_run() {
	local name=$1 prog=$2 psecs=${BENCH_PROFILE_SECS:-8} perf_pid pdata a skip=
	local args=()

	shift 2
	if [ -n "$CM" ]; then
		XS_GID='' XC_GID=''
		set -- -R "$@"
	fi
	pair_any "$name" "$prog" "$@"
	[ -n "$PROFILE" ] || return 0
	[[ "$name" =~ ${BENCH_PROFILE_MATCH:-(write_bw-65536-q1|send_lat|write_rate-64-q1)} ]] ||
		return 0
	for a in "$@"; do
		if [ -n "$skip" ]; then skip=; continue; fi
		if [ "$a" = -n ]; then skip=1; continue; fi
		args+=("$a")
	done
	# perf takes seconds to start under emulation, and its data goes to
	# the guest's tmpfs, not to the 9p output directory (whose writes
	# would be in the profile): a window well inside the run.
	pdata=$(mktemp /tmp/bench-perf.XXXXXX)
	(sleep 8; exec perf record -a -g -q -o "$pdata" -- sleep "$psecs") \
		>/dev/null 2>&1 &
	perf_pid=$!
	pair_any "$name-profile" "$prog" "${args[@]}" -D $((psecs + 30))
	wait "$perf_pid" || true
	perf report -i "$pdata" --stdio --no-children --sort sym \
		--percent-limit 0.7 2>/dev/null |
		grep -v '^$' | head -n 80 >"$out/$name.perf.txt" || true
	# Self time by symbol, no call chains: the table for the notes.
	perf report -i "$pdata" --stdio --no-children --sort sym -g none \
		--percent-limit 0.5 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n 40 >"$out/$name.perf-top.txt" || true
	rm -f "$pdata"
}

# record KEY VALUE: one figure of the current type.
record() {
	echo "$1 $cur_type ${2:-n/a}" >>"$results"
}

# Columns of the client's first result row for size $2 in log $1.
row_field() {
	awk -v s="$2" -v f="$3" '$1 == s && NF >= f && $2 ~ /^[0-9]+$/ {
		print $f; exit }' "$1"
}

run_matrix() {
	local topo=$1 load=$2 t s q name clog

	for t in $LAT_TESTS; do
		name=$cur_type-$topo-$load-${t}_lat
		perf_run "$name" "ib_${t}_lat" -s 2 -n "$LAT_N"
		clog=$RDMA_OUT/$name.client.log
		record "$topo $load ${t}_lat t_typical_us 2" "$(row_field "$clog" 2 5)"
		record "$topo $load ${t}_lat p99_us 2" "$(row_field "$clog" 2 8)"
	done
	for t in $BW_TESTS; do
		for s in $BW_SIZES; do
			name=$cur_type-$topo-$load-${t}_bw-$s-q1
			perf_run "$name" "ib_${t}_bw" -s "$s" -n "$BW_N"
			clog=$RDMA_OUT/$name.client.log
			record "$topo $load ${t}_bw MB/s $s" "$(row_field "$clog" "$s" 4)"
		done
	done
	for q in $MR_QPS; do
		name=$cur_type-$topo-$load-write_rate-64-q$q
		perf_run "$name" ib_write_bw -s 64 -q "$q" -n "$BW_N"
		clog=$RDMA_OUT/$name.client.log
		record "$topo $load write_bw-q$q Mpps 64" "$(row_field "$clog" 64 5)"
	done
}

# System calls per WR of a streaming ib_write_bw client (64 B, one QP):
# every write() and ioctl() it makes, setup included, over the WRs,
# counted by the kernel's syscall tracepoint (perf stat), which unlike
# strace does not slow the calls down: a slow call would change the very
# pattern it counts (an SQ poller lets an SQ go after a slow pause).
# raw_syscalls with a filter on the x86-64 numbers (write 1, ioctl 16):
# kernels without CONFIG_FTRACE_SYSCALLS (the sanitizer kernel) have no
# per-call syscalls:sys_enter_* events.
run_syscalls() {
	local topo=$1 name=$cur_type-$topo-syscalls slog calls

	slog=$RDMA_OUT/$name.perfstat
	PAIR_SNS=$XS_NS PAIR_CNS=$XC_NS PAIR_SIP=$XS_IP
	local sopts=(-d "$XS_DEV" -F -s 64 -n "$SYSCALL_N")
	local copts=(-d "$XC_DEV" -F -s 64 -n "$SYSCALL_N")
	if [ -n "$CM" ]; then
		sopts+=(-R) copts+=(-R)
	else
		sopts+=(-x "$XS_GID") copts+=(-x "$XC_GID")
	fi
	PAIR_SERVER=(ib_write_bw "${sopts[@]}")
	PAIR_CLIENT=(perf stat -x , -o "$slog" -e raw_syscalls:sys_enter
		--filter 'id == 1 || id == 16' ib_write_bw "${copts[@]}")
	pair_run "$name" 300
	calls=$(awk -F , '$3 ~ /raw_syscalls:sys_enter$/ { n += $1 }
		END { print n + 0 }' "$slog" 2>/dev/null)
	record "$topo quiet syscalls_per_wr ratio 64" \
		"$(awk -v c="${calls:-0}" -v n="$SYSCALL_N" 'BEGIN { printf "%.4f", c / n }')"
}

# CPU ticks (USER_HZ) of the device's kernel threads in 10 idle seconds
# after traffic (and after the poller's idle time).
thread_ticks() {
	local pat=$1 p n=0

	for p in /proc/[0-9]*; do
		[ -r "$p/comm" ] || continue
		case "$(cat "$p/comm" 2>/dev/null)" in
		$pat) n=$((n + $(awk '{ print $14 + $15 }' "$p/stat" 2>/dev/null || echo 0))) ;;
		esac
	done
	echo $n
}

run_idle() {
	local pat t0 t1

	case "$cur_type" in
	wookie*) pat='wookie*' ;;
	rxe) pat='rxe*' ;;
	siw) pat='siw*' ;;
	esac
	sleep 2
	t0=$(thread_ticks "$pat")
	sleep 10
	t1=$(thread_ticks "$pat")
	record "1dev quiet idle_thread_cpu ms/10s -" $(((t1 - t0) * 10))
}

# --- main ---------------------------------------------------------------

echo "bench: mode $MODE, types $TYPES, kernel $(uname -r)"
[ -z "${WOOKIE_MODULE:-}" ] || for p in /sys/module/wookie/parameters/*; do
	[ -e "$p" ] && echo "bench: wookie.${p##*/}=$(cat "$p")"
done
vethcd_setup
# perf stat counts the syscall tracepoints through tracefs.
mountpoint -q /sys/kernel/tracing ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true

ran=
for cur_type in $TYPES; do
	if ! type_load "$cur_type"; then
		echo "skip $cur_type: this kernel has no $cur_type"
		continue
	fi
	# wookie and rxe share UDP 4791 in the initial namespace.
	if [[ "$cur_type" == wookie* ]]; then
		modprobe -r rdma_rxe 2>/dev/null || true
	fi
	ran="$ran $cur_type"
	for topo in $TOPOS; do
		if ! topo_up "$cur_type" "$topo"; then
			echo "FAIL $cur_type $topo: cannot create the devices"
			vm_failures=$((vm_failures + 1))
			topo_down
			continue
		fi
		for load in $LOADS; do
			load_on "$load"
			run_matrix "$topo" "$load"
			load_off
		done
		run_syscalls "$topo"
		[ "$topo" != 1dev ] || run_idle
		topo_down
	done
	type_unload "$cur_type"
done

# The table: one row per figure, a column per type, and wookie/rxe.
echo
echo "bench results (ratios to rxe: lower is better for latency, system calls and CPU)"
awk -v types="$ran" '
	{ key = $1 " " $2 " " $3 " " $4 " " $5; v[key, $6] = $7
	  if (!(key in seen)) { seen[key] = 1; order[n++] = key } }
	END {
		nt = split(types, t, " ")
		printf "%-5s %-5s %-16s %-15s %6s", "topo", "load", "test", "figure", "size"
		for (i = 1; i <= nt; i++) printf " %9s", t[i]
		printf " %12s %12s\n", "wookie/rxe", "w_poll/rxe"
		for (j = 0; j < n; j++) {
			split(order[j], k, " ")
			printf "%-5s %-5s %-16s %-15s %6s", k[1], k[2], k[3], k[4], k[5]
			for (i = 1; i <= nt; i++) {
				x = ((order[j], t[i]) in v) ? v[order[j], t[i]] : "-"
				printf " %9s", x
			}
			r = v[order[j], "rxe"]
			for (i = 0; i < 2; i++) {
				w = v[order[j], i ? "wookie_poll" : "wookie"]
				if (r + 0 > 0 && w != "" && w != "n/a")
					printf " %11.2fx", w / r
				else
					printf " %12s", "-"
			}
			printf "\n"
		}
	}' "$results" | tee "$out/table.txt"

echo
ok "every device deleted" test -z "$(ls /sys/class/infiniband)"

# figure TOPO TEST TYPE: a figure of the results (fields: topo load
# test unit size type value).
figure() {
	awk -v o="$1" -v t="$2" -v d="$3" \
		'$1 == o && $3 == t && $6 == d { print $7; exit }' "$results"
}

# What the smoke run checks: streaming posts make (almost) no system call
# on wookie with its SQ poller (setup calls count too), and the poller
# sleeps once idle.  Without the poller every post rings, as on rxe.
# Over the veth the poller shares two vCPUs with both perftest processes:
# descheduled for longer than it waits for completions, it lets the SQ go
# and the next post rings, a few percent of them in a short run; still
# far from one per WR.  On the sanitizer kernel a completion takes
# milliseconds, often longer than the poller waits, so both topologies
# are only held to "most posts make no call" there (seen: 0.03 to 0.07 on
# one device, 0.26 to 0.30 over the veth).  The count's own check and the
# idle CPU are the same on both kernels.
if [ "$MODE" = smoke ]; then
	limits="1dev wookie_poll 0.05;2dev wookie_poll 0.25"
	[[ "$(uname -r)" != *debug* ]] ||
		limits="1dev wookie_poll 0.5;2dev wookie_poll 0.5"
	IFS=';' read -ra checks <<<"$limits"
	for c in "${checks[@]}"; do
		set -- $c
		[[ " $ran " == *" $2 "* ]] || continue
		v=$(figure "$1" syscalls_per_wr "$2")
		ok "$2 $1: under $3 system calls per WR (${v:-none})" \
			awk -v v="${v:-x}" -v max="$3" \
			'BEGIN { exit !(v ~ /^[0-9.]+$/ && v < max) }'
	done
	# Without the poller each post rings: proof that the count counts.
	if [[ " $ran " == *" wookie "* ]]; then
		v=$(figure 1dev syscalls_per_wr wookie)
		ok "wookie 1dev: a system call per WR without the poller (${v:-none})" \
			awk -v v="${v:-x}" 'BEGIN { exit !(v ~ /^[0-9.]+$/ && v >= 0.5) }'
	fi
	if [[ " $ran " == *" wookie_poll "* ]]; then
		v=$(figure 1dev idle_thread_cpu wookie_poll)
		ok "wookie_poll: no poller CPU when idle (${v:-none} ms in 10 s)" \
			test "${v:-x}" = 0
	fi
fi
vm_done
