#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net ns --timeout 2400
#
# RC loss recovery on the wire, under tc netem: a wookie device on vethA in
# namespace hostA (zza, the clients) and one on vethB in hostB (zzb, the
# servers), as in wire.sh.  For each impairment, applied as the root qdisc
# of both veth ends so that both directions suffer (1% loss, 5% loss, 1%
# duplication, reordering, 10 ms delay): ibv_rc_pingpong -c, ib_write_bw,
# ib_read_bw and rc_verify (tests/vm/progs/rc_verify.cc: 64 MiB RDMA
# WRITE, 16 MiB on the sanitizer kernel, READ back, compared byte for
# byte on both sides) must all
# succeed.  Then 100% loss of the RoCEv2 packets (UDP 4791; the TCP
# connection setup goes through): one single-packet WRITE must complete
# with IBV_WC_RETRY_EXC_ERR after 4.096 us * 2^timeout * (retry_cnt + 1),
# within 50%, with the QP in ERR, for two (timeout, retry_cnt) pairs; netem
# must have dropped exactly 1 + retry_cnt tries of it, and retry_exceeded_err
# must count it.  The rdma counters of both ports are printed after each
# case (and what changed), as are netem's.  Every netem queue holds 10000
# packets, so that a delay never overflows it (no loss but the one asked
# for).  wookie's tracepoints are checked on the way: under loss, one
# wookie:wookie_retransmit event per completer_retry_err on each port (and
# some); under 100% loss, the WRITE's 1 + retry_cnt wookie_tx events and
# ACK timeouts, retry_cnt retransmissions for a timeout, and its QP's one
# RTS -> ERR.  Pass = every pair exits 0 in time and every check holds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

[ "$RDMA_TYPE" = wookie ] || { echo "ok   skipped: two wookie hosts"; exit 0; }

ok "load sch_netem, sch_prio, cls_u32" modprobe -a sch_netem sch_prio cls_u32

ok "add zza on vethA in hostA" wire_add hostA zza vethA
ok "add zzb on vethB in hostB" wire_add hostB zzb vethB

v4gid() { printf '0000:0000:0000:0000:0000:ffff:0a00:%04x' "$1"; }
ok "zza has its IPv4 GID" wait_until 10 gid_index zza "$(v4gid 1)"
ok "zzb has its IPv4 GID" wait_until 10 gid_index zzb "$(v4gid 2)"
XS_NS=hostB XS_DEV=zzb XS_IP=10.0.0.2
XC_NS=hostA XC_DEV=zza
XS_GID=$(gid_index zzb "$(v4gid 2)") || XS_GID=1
XC_GID=$(gid_index zza "$(v4gid 1)") || XC_GID=1

rc_verify=$WOOKIE_TOP/build/vm-progs/rc_verify
# Time limits of each pair (pair_run kills both at this).  Clean, the
# pingpong and perftest runs take under 10 s and rc_verify under 20 s; a
# hang must not eat the VM's time.  rc_verify's own deadline (--wait) comes
# first, so that it says what it was waiting for.
t=90
t_verify=180
rv_wait=$((150 * RDMA_SLOW))
# rc_verify's size: on the sanitizer kernel, where a packet costs
# milliseconds, a quarter (16 MiB is still thousands of packets and
# hundreds of losses per case: the same recovery paths, in a lane that
# took 40 minutes there at 64 MiB).
rv_size=64M
[ "$RDMA_SLOW" = 1 ] || rv_size=16M

xpair_lb() { XPAIR_LB=1 xpair "$@"; }

# rc_pingpong_lossy NAME: ibv_rc_pingpong -c between the hosts.  Each side
# exits as soon as its own last receive and send are done; when the ACK of
# the other's last SEND is lost, that side's retries go to a QP that is
# gone and end in IBV_WC_RETRY_EXC_ERR, on any RC device.  A run that ends
# so, one side having passed, is run again, up to three times in all.
rc_pingpong_lossy() {
	local failed=$vm_failures slog clog try

	for try in 1 2 3; do
		xpair_lb "$1${try#1}" $t ibv_rc_pingpong -c -s 4096 -n 200
		[ "$vm_failures" -ne "$failed" ] || return 0
		read -r slog clog <<<"$PAIR_LOGS"
		# wr_id 2: a SEND (PINGPONG_SEND_WRID).  Either side may be
		# the one left behind.
		if ! { grep -q ' iters in ' "$slog" &&
			grep -q 'retry counter exceeded (12) for wr_id 2$' "$clog"; } &&
			! { grep -q ' iters in ' "$clog" &&
			grep -q 'retry counter exceeded (12) for wr_id 2$' "$slog"; }; then
			return 0
		fi
		[ "$try" -lt 3 ] || return 0
		echo "     one side had passed and left: the teardown race above; again"
		vm_failures=$failed
	done
}

# --- Counters ---

# counters DEV: "name value" lines of the port's rdma counters.
counters() {
	rdma statistic show link "$1/1" | tr ' ' '\n' | sed 1,2d |
		paste -d ' ' - - | grep -E '^[a-z_]+ [0-9]+$'
}

declare -A before
snapshot() {
	local dev name value

	for dev in zza zzb; do
		while read -r name value; do
			before[$dev.$name]=$value
		done < <(counters "$dev")
	done
}

# delta DEV NAME: how much counter NAME of DEV grew since the snapshot.
delta() {
	local now
	now=$(counters "$1" | sed -n "s/^$2 //p")
	echo $((${now:-0} - ${before[$1.$2]:-0}))
}

# show_counters: both ports' counters, and those that changed in this case.
show_counters() {
	local dev name value line

	for dev in zza zzb; do
		echo "     $(rdma statistic show link "$dev/1")"
		line=
		while read -r name value; do
			d=$((value - ${before[$dev.$name]:-0}))
			[ "$d" -eq 0 ] || line+=" $name +$d"
		done < <(counters "$dev")
		echo "     $dev/1 this case:${line:- nothing}"
	done
}

# --- netem ---

HOSTS=("hostA vethA" "hostB vethB")

# netem_on ARGS...: a netem root qdisc on both ends.  limit 10000: the
# queue of the delayed cases never overflows (no loss the case does not
# ask for).
netem_on() {
	local h ns dev

	for h in "${HOSTS[@]}"; do
		read -r ns dev <<<"$h"
		tc -n "$ns" qdisc replace dev "$dev" root netem limit 10000 "$@" ||
			return 1
	done
}

# rocev2_netem_on ARGS...: netem for the RoCEv2 packets only, on both ends.
rocev2_netem_on() {
	local h ns dev

	for h in "${HOSTS[@]}"; do
		read -r ns dev <<<"$h"
		rocev2_netem "$ns" "$dev" "$@" || return 1
	done
}

netem_off() {
	local h ns dev rc=0

	for h in "${HOSTS[@]}"; do
		read -r ns dev <<<"$h"
		tc -n "$ns" qdisc del dev "$dev" root || rc=1
	done
	return $rc
}

# netem_stats: what netem did on each end ("Sent ... (dropped N ...)").
netem_stats() {
	local h ns dev

	for h in "${HOSTS[@]}"; do
		read -r ns dev <<<"$h"
		tc -s -n "$ns" qdisc show dev "$dev" |
			awk -v d="$dev" '/qdisc netem/ { q = $0; sub(/ *refcnt.*/, "", q) }
				q && /Sent/ { print "     " d ": " q ": " $0; q = "" }'
	done
}

# netem_dropped [NS DEV]: the packets netem dropped on both ends, or on one.
netem_dropped() {
	local h ns dev total=0 hosts=("${HOSTS[@]}")

	[ $# -eq 0 ] || hosts=("$1 $2")
	for h in "${hosts[@]}"; do
		read -r ns dev <<<"$h"
		total=$((total + $(netem_dropped_on "$ns" "$dev")))
	done
	echo "$total"
}

# --- The cases ---

# step DESCRIPTION COMMAND...: ok(), and the command's success as status.
step() {
	local failed=$vm_failures

	ok "$@"
	[ "$vm_failures" -eq "$failed" ]
}

case_start=0
case_begin() {
	echo "--- case $1: $2"
	snapshot
	case_start=$SECONDS
}

case_end() {
	netem_stats
	show_counters
	ok "$1: remove netem" netem_off
	echo "     case $1 took $((SECONDS - case_start)) s"
}

# Impairments of both directions: name and netem arguments.
cases=(
	"loss-1% loss 1%"
	"loss-5% loss 5%"
	"duplicate-1% duplicate 1%"
	"reorder delay 1ms reorder 25% 50%"
	"delay-10ms delay 10ms"
)
case_times=()
# NETEM_CASES=REGEX (vm-run -e): only the cases whose name matches.
only=${NETEM_CASES:-.}
for c in "${cases[@]}"; do
	read -r name args <<<"$c"
	[[ $name =~ $only ]] || continue
	read -ra netem_args <<<"$args"
	case_begin "$name" "netem ${netem_args[*]} on vethA and vethB"
	if ! step "$name: netem on both ends" netem_on "${netem_args[@]}"; then
		netem_off 2>/dev/null || true
		continue
	fi
	case "$name" in
	loss-*) ok "$name: trace wookie_retransmit" wk_trace_on wookie_retransmit ;;
	esac
	rc_pingpong_lossy "$name-rc_pingpong"
	PAIR_ROWS='^ *[0-9]+ +[0-9]+ +[0-9.]+'
	xpair_lb "$name-ib_write_bw" $t ib_write_bw -s 65536 -n 200
	xpair_lb "$name-ib_read_bw" $t ib_read_bw -s 65536 -n 200
	PAIR_ROWS=
	xpair "$name-rc_verify" $t_verify "$rc_verify" --size "$rv_size" \
		--wait $rv_wait
	case "$name" in
	loss-*)
		d=$(netem_dropped)
		echo "     netem dropped $d packets"
		ok "$name: netem dropped packets" test "$d" -gt 0
		n=0
		for dev in zza zzb; do
			c=$(wk_trace_count wookie_retransmit "$dev ")
			equals "$name: $dev: a wookie_retransmit event per completer_retry_err" \
				"$(delta $dev completer_retry_err)" "$c"
			n=$((n + ${c//[^0-9]/}))
		done
		ok "$name: retransmissions traced ($n)" test "$n" -gt 0
		grep -m 3 ' wookie_retransmit: ' $WK_TRACEFS/trace | sed 's/^ */     /'
		wk_trace_off
		;;
	esac
	case_end "$name"
	case_times+=("$name: $((SECONDS - case_start)) s")
done

# 100% loss of RoCEv2: the ACK timeout and the retry count, measured.
for tr in "14 7" "12 3"; do
	read -r tmo rcnt <<<"$tr"
	name="loss-100%-timeout-$tmo-retry-$rcnt"
	[[ $name =~ $only ]] || continue
	case_begin "$name" "netem loss 100% for UDP 4791 on vethA and vethB"
	if step "$name: netem on both ends" rocev2_netem_on loss 100% &&
		step "$name: trace wookie_tx, wookie_ack_timeout, wookie_retransmit, wookie_qp_state" \
			wk_trace_on wookie_tx wookie_ack_timeout wookie_retransmit \
			wookie_qp_state; then
		xpair "$name-rc_verify" $t "$rc_verify" --expect-retry-exc \
			--timeout "$tmo" --retry-cnt "$rcnt" --wait 60
		# RDMA WRITE Only is RC opcode 0x0a.
		equals "$name: zza's wookie_tx of the WRITE (1 + retry_cnt)" \
			$((rcnt + 1)) "$(wk_trace_count wookie_tx 'zza qpn [0-9]+ opcode 0x0a ')"
		equals "$name: zza's wookie_ack_timeout (1 + retry_cnt)" \
			$((rcnt + 1)) "$(wk_trace_count wookie_ack_timeout 'zza ')"
		equals "$name: zza's wookie_retransmit for a timeout (retry_cnt)" \
			"$rcnt" "$(wk_trace_count wookie_retransmit 'zza .*[(]timeout[)]$')"
		equals "$name: zza's QP traced RTS -> ERR" 1 \
			"$(wk_trace_count wookie_qp_state 'zza qpn [0-9]+ RTS -> ERR$')"
		grep -E ' wookie_(ack_timeout|retransmit|qp_state): zza ' \
			$WK_TRACEFS/trace | tail -n 4 | sed 's/^ */     /'
		wk_trace_off
		# The WRITE is one packet: the first try and retry_cnt
		# retries, all lost on the requester's side.
		equals "$name: tries of the WRITE (1 + retry_cnt) dropped" \
			$((rcnt + 1)) "$(netem_dropped hostA vethA)"
		equals "$name: zza retry_exceeded_err +1" 1 \
			"$(delta zza retry_exceeded_err)"
	fi
	case_end "$name"
	case_times+=("$name: $((SECONDS - case_start)) s")
done

echo "--- time per case"
printf '     %s\n' "${case_times[@]}"

# netem neither corrupts nor misroutes.
for dev in zza zzb; do
	for c in rx_icrc_err rx_drop_bad_hdr tx_drop_no_route; do
		equals "$dev $c" 0 "$(counters "$dev" | sed -n "s/^$c //p")"
	done
done

wire_del_all zza zzb
vm_done
