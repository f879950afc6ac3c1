#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 2700
#
# A soak: mixed traffic for WOOKIE_TEST_SOAK_SECONDS (default 90; make
# soak SOAK_MINUTES=30 for the long one) with 2% loss on the link, and
# processes killed along the way; then every device is empty and the
# counters agree with what the link carried.  Jobs run at once, each in a
# loop until the time is up:
#   wire   RC between zz0 (vethA) and yy0 (vethB, namespace hostB), under
#          loss: rc_verify (WRITE, READ, data compared; with pinned and
#          with on-demand paging buffers) and perftest's WRITE, READ, SEND
#          and atomics; each run must pass.
#   local  on zz0 alone, lossless: rc_verify (pinned and ODP), and UC and UD (pingpongs with
#          their data checked, perftest SEND/WRITE over UC, SEND over UD).
#   kill   a perftest pair (RC on the wire, UC locally) with one side
#          killed (SIGKILL) a few seconds in; the other side must end.
# At the end: nothing left on either device; what yy0 counted as sent
# equals what the netem qdisc of vethB passed and dropped, and what it
# received (and dropped, by reason) equals what vethA's qdisc passed;
# loss was recovered from (retransmits counted); no malformed packet.
# A kernel splat or a leak (kmemleak on the sanitizer kernel) fails the
# run through the harness.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

[ "$RDMA_TYPE" = wookie ] || { echo "ok   skipped: the soak is wookie's"; exit 0; }
secs=${WOOKIE_TEST_SOAK_SECONDS:-90}
seed=${WOOKIE_TEST_SOAK_SEED:-$((RANDOM * 32768 + RANDOM))}
echo "soak: $secs s, seed $seed (WOOKIE_TEST_SOAK_SEED=$seed repeats the choices)"
RANDOM=$seed
rc_verify=$WOOKIE_TOP/build/vm-progs/rc_verify

rdma_setup
ok "yy0 on vethB in hostB" wire_add hostB yy0 vethB
# Bursts of several jobs must not overflow the receive backlog: the
# counters below are compared with the qdiscs' exactly.
if [ -w /proc/sys/net/core/netdev_max_backlog ]; then
	echo 20000 >/proc/sys/net/core/netdev_max_backlog
fi
ok "2% loss on vethA" rocev2_netem "" vethA loss 2%
ok "2% loss on vethB" rocev2_netem hostB vethB loss 2%

deadline=$((SECONDS + secs))
jobs_dir=$RDMA_OUT/jobs
mkdir -p "$jobs_dir"

# pair_state LOG: what a pair about to hit its time limit is doing: every
# QP's engine state on both devices, and its two programs' kernel stacks
# (found by their pid files, as victims() finds its: no pgrep).
pair_state() {
	local f p

	{
		echo "--- $(date +%T) uptime $(cut -d' ' -f1 /proc/uptime)"
		rdma -dd resource show qp link zz0/1
		ns_run hostB rdma -dd resource show qp link yy0/1
		for f in "$1.spid" "$1.cpid"; do
			p=$(cat "$f" 2>/dev/null) || continue
			echo "pid $p $(cat "/proc/$p/comm" 2>/dev/null): $(cat "/proc/$p/wchan" 2>/dev/null)"
			sed 's/^/    /' "/proc/$p/stack" 2>/dev/null
		done
	} >>"$1.state" 2>&1
}

# pid_to FILE COMMAND...: COMMAND, its pid written to FILE first (inside
# the timeout around the program), for a kill to find the program.
pid_to=(bash -c 'echo $$ >"$1" && shift && exec "$@"' pid_to)

# run_pair LOG SECONDS PORT SNS SDEV CNS CDEV SIP PROG [ARG...]: PROG as
# server on SDEV in namespace SNS and as client on CDEV in CNS, connecting
# to SIP.  Exit 0 when both do; 124 when either hit the time limit (the
# pair's state, taken 15 s before, is in LOG.state).
run_pair() {
	local log=$1 lim=$(($2 * RDMA_SLOW)) port=$3 sns=$4 sdev=$5 cns=$6
	local cdev=$7 sip=$8 prog=$9 sopts copts spid src=0 crc=0 wpid

	shift 9
	(sleep $((lim - 15)) && pair_state "$log") &
	wpid=$!
	read -ra sopts <<<"$(xpair_opts "$prog" "$sdev" 1)"
	read -ra copts <<<"$(xpair_opts "$prog" "$cdev" 1)"
	ns_run "$sns" timeout -k 5 "$lim" "${pid_to[@]}" "$log.spid" \
		"$prog" "${sopts[@]}" "$@" -p "$port" >"$log.server" 2>&1 &
	spid=$!
	for _ in $(seq 100); do
		ns_run "$sns" ss -Hltn "sport = :$port" 2>/dev/null | grep -q . &&
			break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	ns_run "$cns" timeout -k 5 "$lim" "${pid_to[@]}" "$log.cpid" \
		"$prog" "${copts[@]}" "$@" -p "$port" "$sip" >"$log.client" 2>&1 ||
		crc=$?
	if [ "$crc" -ne 0 ]; then
		sleep 3
		kill "$spid" 2>/dev/null || true
	fi
	wait "$spid" || src=$?
	kill "$wpid" 2>/dev/null || true
	wait "$wpid" 2>/dev/null || true
	echo "server exit $src, client exit $crc" >"$log.exit"
	if [ "$src" -eq 124 ] || [ "$crc" -eq 124 ]; then
		return 124
	fi
	[ "$src" -eq 0 ] && [ "$crc" -eq 0 ]
}

# job NAME BASE_PORT: run the job's steps (job_NAME STEP PORT) until the
# deadline; a failed step is logged with its output.  Each job has its own
# TCP ports: BASE_PORT on.
# job_why LOG: why a step failed, in a few words, from its logs.
job_why() {
	local why

	why=$(cat "$1.exit" 2>/dev/null)
	[ -e "$1.novictim" ] && why="$why; no victim found"
	grep -q 'status 12\|retry counter exceeded' "$1".client "$1".server 2>/dev/null &&
		why="$why; transport retry counter exceeded"
	[ -e "$1.state" ] && why="$why; state in ${1##*/}.state"
	echo "${why#; }"
}

job() {
	local name=$1 port=$2 step=0 runs=0 fails=0 log rc

	while [ $SECONDS -lt $deadline ]; do
		log=$jobs_dir/$name-$step
		rc=0
		"job_$name" "$step" "$port" "$log" || rc=$?
		if [ "$rc" -ne 0 ]; then
			fails=$((fails + 1))
			echo "$name step $step (port $port) failed, exit $rc: $(job_why "$log")" >>"$jobs_dir/$name.failures"
		elif [ ! -e "$log.novictim" ]; then
			# Passed (a kill run that found no victim keeps its logs).
			rm -f "$log".*
		fi
		runs=$((runs + 1)) step=$((step + 1)) port=$((port + 1))
	done
	echo "$runs $fails" >"$jobs_dir/$name.result"
}

# The RC ACK timeout of the wire runs: perftest's and rc_verify's 14 (67
# ms) on Debian's kernel.  On the sanitizer kernel, with the three jobs at
# once on two emulated CPUs, a peer often answered later than 8 such
# timeouts in a row (IBV_WC_RETRY_EXC_ERR in a third of the runs, READs
# and atomics before their first completion), and each timeout's
# retransmission added to its load: 18 (1.1 s) there.
qp_timeout=14
[ "$RDMA_SLOW" -eq 1 ] || qp_timeout=18
wire_progs=(
	"rc_verify --size 2M --timeout $qp_timeout"
	"rc_verify --size 2M --odp --timeout $qp_timeout"
	"rc_verify --size 2M --odp-implicit --timeout $qp_timeout"
	"ib_write_bw -n 200 -s 16384 -u $qp_timeout"
	"ib_read_bw -n 200 -s 16384 -u $qp_timeout"
	"ib_send_bw -n 200 -s 4096 -u $qp_timeout"
	"ib_atomic_bw -n 200 -u $qp_timeout"
	"ib_atomic_bw -n 200 -A CMP_AND_SWAP -u $qp_timeout"
)
job_wire() {
	local p=${wire_progs[$(($1 % ${#wire_progs[@]}))]} words

	read -ra words <<<"$p"
	[ "${words[0]}" != rc_verify ] || words[0]=$rc_verify
	run_pair "$3" 120 "$2" "" zz0 hostB yy0 10.0.0.1 "${words[@]}"
}

local_progs=(
	"rc_verify --size 4M"
	"rc_verify --size 4M --odp"
	"rc_verify --size 4M --odp-implicit"
	"ibv_uc_pingpong -n 200 -c"
	"ibv_ud_pingpong -n 200 -c -s 512"
	"ib_send_bw -c UC -n 500 -s 4096"
	"ib_write_bw -c UC -n 500 -s 16384"
	"ib_send_bw -c UD -n 500 -s 512"
	"ibv_rc_pingpong -n 200 -c -e"
)
job_local() {
	local p=${local_progs[$(($1 % ${#local_progs[@]}))]} words

	read -ra words <<<"$p"
	[ "${words[0]}" != rc_verify ] || words[0]=$rc_verify
	run_pair "$3" 120 "$2" "" zz0 "" zz0 127.0.0.1 "${words[@]}"
}

# victims PIDFILE: the perftest program whose pid is in PIDFILE, while it
# runs.  Only its own /proc/PID/comm is read: pgrep reads every process's
# command line, which waits for that process's mmap lock, and on the
# sanitizer kernel (ODP MRs torn down, processes exiting) it waited until
# the victim's 20 s were over.
victims() {
	local p

	p=$(cat "$1" 2>/dev/null) || return 0
	case "$(cat "/proc/$p/comm" 2>/dev/null)" in
	ib_*) echo "$p" ;;
	esac
}
has_victim() { [ -n "$(victims "$1")" ]; }

# The victim: the client or the server, 2 to 7 s in (the job's own
# sequence of choices, from the seed).
job_kill() {
	local step=$1 port=$2 log=$3 pid side pidfile p rc=0

	if [ $((step % 2)) -eq 0 ]; then
		run_pair "$log" 60 "$port" "" zz0 hostB yy0 10.0.0.1 \
			ib_write_bw -D 20 -s 65536 -u "$qp_timeout" &
	else
		run_pair "$log" 60 "$port" "" zz0 "" zz0 127.0.0.1 \
			ib_send_bw -c UC -D 20 -s 4096 &
	fi
	pid=$!
	side=$(((seed + step) % 2))
	if [ "$side" -eq 0 ]; then
		pidfile=$log.spid
	else
		pidfile=$log.cpid
	fi
	# Once the victim runs (on the sanitizer kernel starting it took
	# longer than the 2 to 7 s), then 2 to 7 s more.
	wait_until $((20 * RDMA_SLOW)) has_victim "$pidfile" || true
	sleep $((2 + (seed + step * 7) % 6))
	for p in $(victims "$pidfile"); do
		kill -9 "$p" 2>/dev/null && echo "$p" >>"$log.killed"
	done
	# What there was to kill when nothing was (kept: see job()).
	if [ ! -s "$log.killed" ]; then
		{
			echo "$(date +%T) victim side $side, $pidfile: $(cat "$pidfile" 2>&1)"
			ps -eo pid,ppid,pgid,stat,etimes,comm,args
		} >"$log.novictim" 2>&1
	fi
	wait "$pid" || rc=$?
	# A pair that passed with nothing killed is counted, and fails the
	# soak at the end (victims() used to miss them: see there).
	if [ ! -s "$log.killed" ]; then
		[ "$rc" -eq 0 ] && echo "$step" >>"$jobs_dir/unkilled"
		return "$rc"
	fi
	# A victim was killed, and the survivor ended, one way or the other,
	# before its time limit.
	[ "$rc" -ne 124 ] && cat "$log.killed" >>"$jobs_dir/kills"
}

job wire 20000 &
job local 30000 &
job kill 40000 &
wait

for name in wire local kill; do
	read -r runs fails <"$jobs_dir/$name.result"
	if [ "$runs" -gt 0 ] && [ "$fails" -eq 0 ]; then
		echo "ok   $name: $runs runs"
	else
		echo "FAIL $name: $fails of $runs runs failed"
		sed 's/^/     | /' "$jobs_dir/$name.failures" 2>/dev/null | head -n 12
		for f in "$jobs_dir/$name"-*.client; do
			[ -e "$f" ] || continue
			echo "     $f:"
			tail -n 5 "$f" | sed 's/^/     c| /'
			tail -n 5 "${f%.client}.server" | sed 's/^/     s| /'
			break
		done
		vm_failures=$((vm_failures + 1))
	fi
done

# lines FILE: FILE's line count, 0 if no step wrote it (set -e and
# pipefail end the script on a missing file's error otherwise).
lines() {
	if [ -e "$1" ]; then wc -l <"$1"; else echo 0; fi
}
killed=$(lines "$jobs_dir/kills")
unkilled=$(lines "$jobs_dir/unkilled")
echo "     | $killed processes killed; $unkilled kill runs found no victim"
ok "every kill run killed its victim" test "$killed" -gt 0 -a "$unkilled" -eq 0
# Every counter that moved, for a failed run's reader.
echo "     | zz0: $(rdma statistic show link zz0/1 | tr -s ' ' '\n' |
	paste - - | awk '$2 != 0 && $2 ~ /^[0-9]+$/' | tr '\t\n' '= ')"
echo "     | yy0: $(ns_run hostB rdma statistic show link yy0/1 | tr -s ' ' '\n' |
	paste - - | awk '$2 != 0 && $2 ~ /^[0-9]+$/' | tr '\t\n' '= ')"
ok "nothing left on zz0" wait_until $((20 * RDMA_SLOW)) rdma_no_objects zz0
ok "nothing left on yy0" wait_until $((20 * RDMA_SLOW)) rdma_no_objects yy0
sleep 2

# qdisc_pkts NS DEV: "SENT DROPPED" packets of DEV's netem qdisc.
qdisc_pkts() {
	ns_run "$1" tc -s qdisc show dev "$2" |
		awk '/qdisc netem/ { q = 1 } q && /Sent/ {
			for (i = 1; i <= NF; i++) {
				if ($i == "pkt") s = $(i - 1)
				if ($i == "(dropped") d = $(i + 1) + 0
			}
			print s, d; q = 0 }'
}
read -r a_sent a_dropped <<<"$(qdisc_pkts "" vethA)"
read -r b_sent b_dropped <<<"$(qdisc_pkts hostB vethB)"
y_sent=$(link_counter hostB yy0 sent_pkts)
y_rcvd=$(link_counter hostB yy0 rcvd_pkts)
y_drops=0
for c in rx_icrc_err rx_drop_bad_hdr rx_drop_no_qp rx_drop_bad_psn \
	rx_drop_bad_rkey rx_drop_bad_qkey rx_drop_bad_pkey rx_drop_too_long \
	rx_drop_qp_busy; do
	y_drops=$((y_drops + $(link_counter hostB yy0 "$c")))
done
echo "     | vethA netem: $a_sent passed, $a_dropped dropped; vethB netem: $b_sent passed, $b_dropped dropped"
echo "     | yy0: sent_pkts $y_sent, rcvd_pkts $y_rcvd, dropped on receive $y_drops"
equals "yy0 sent what vethB's qdisc passed and dropped" "$((b_sent + b_dropped))" "$y_sent"
equals "yy0 received (or dropped by reason) what vethA's qdisc passed" "$a_sent" "$((y_rcvd + y_drops))"
ok "the link lost packets (netem)" test "$((a_dropped + b_dropped))" -gt 0
retries=0
for dev in zz0 yy0; do
	ns=
	[ "$dev" = zz0 ] || ns=hostB
	for c in duplicate_request out_of_seq_request tail_loss_probes; do
		retries=$((retries + $(link_counter "$ns" "$dev" "$c")))
	done
done
ok "loss was recovered from ($retries duplicates, out-of-sequence requests and probes)" test "$retries" -gt 0
for dev in zz0 yy0; do
	ns=
	[ "$dev" = zz0 ] || ns=hostB
	for c in rx_icrc_err rx_drop_bad_hdr rx_drop_too_long tx_drop_no_route link_downed; do
		equals "$dev $c" 0 "$(link_counter "$ns" "$dev" "$c")"
	done
done

ok "no loss on vethA" ns_run "" tc qdisc del dev vethA root
ok "no loss on vethB" ns_run hostB tc qdisc del dev vethB root
wire_del_all yy0
vm_done
