# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers for the kernel consumers' tests in two guests (nvmeof, iser,
# nfsrdma, srp; scripts/vm-pair); sourced after lib.sh and _rdma.sh, not
# run.  Each host puts a wookie device, wk0, on wan0 (10.1.0.N).

ULP_DEV=wk0
ULP_ME=10.1.0.${WOOKIE_VM_HOST:-0}
ULP_PEER=${WOOKIE_VM_PEER_IP:-}
ULP_TARGET=10.1.0.1
# One line per throughput measured, also printed at the end.
ULP_RESULTS=$RDMA_OUT/results.txt
# The main fio runs' size: 256 MiB, 64 MiB on the sanitizer kernel, where
# every byte costs several times more (as netem's 16 MiB there).
ULP_FIO_SIZE=256m
[ "$RDMA_SLOW" -eq 1 ] || ULP_FIO_SIZE=64m

# A step the other host waits for failed: stop here, and say so there.
fatal() {
	echo "FAIL $*"
	peer_abort
	vm_failures=$((vm_failures + 1))
	vm_done
}

# ulp_wookie_up: wk0 on wan0, ACTIVE, with its IPv4 GID.
ulp_wookie_up() {
	ok "add $ULP_DEV on wan0" rdma link add $ULP_DEV type wookie netdev wan0
	ok "$ULP_DEV ACTIVE" wait_until $((10 * RDMA_SLOW)) \
		port_is $ULP_DEV "4: ACTIVE"
	ok "$ULP_DEV has its IPv4 GID" wait_until $((10 * RDMA_SLOW)) \
		gid_index $ULP_DEV \
		0000:0000:0000:0000:0000:ffff:0a01:000"$WOOKIE_VM_HOST"
}

# rdma_rxe's figures in the same boot, for comparison: make check-ulp asks
# for them (WOOKIE_TEST_ULP_RXE=1); make check does not, as they check
# nothing of wookie's and cost a fio run each.
ULP_RXE_RUNS=${WOOKIE_TEST_ULP_RXE:-0}

# ulp_rxe_up: rdma_rxe's rxe0 on wan0 with its IPv4 GID, for rxe's
# figures in the same boot (after wk0 went: one UDP 4791 per namespace).
ulp_rxe_up() {
	ULP_RXE=1
	ok "add rxe0 on wan0" rdma link add rxe0 type rxe netdev wan0
	ok "rxe0 has its IPv4 GID" wait_until $((10 * RDMA_SLOW)) \
		gid_index rxe0 \
		0000:0000:0000:0000:0000:ffff:0a01:000"$WOOKIE_VM_HOST"
}

# The SCSI disk a session attached (iSER, SRP): the guest has no other.
scsi_blk() {
	local d

	for d in /sys/block/sd*; do
		[ -e "$d" ] || continue
		echo "/dev/${d##*/}"
		return 0
	done
	return 1
}

no_scsi_blk() {
	! scsi_blk >/dev/null
}

# A ramdisk of MIB MiB as /dev/ram0, the targets' backing store.
ulp_ramdisk() {
	ok "a $1 MiB ramdisk" modprobe brd rd_nr=1 rd_size=$(($1 * 1024))
}

ulp_configfs() {
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config
}

# LIO's backstore for iSER and SRP: a MIB MiB ramdisk as iblock_0/ram0.
LIO=/sys/kernel/config/target
LIO_RAM0=$LIO/core/iblock_0/ram0

lio_backstore_up() {
	ok "load target_core_iblock" modprobe target_core_iblock
	ulp_ramdisk "$1"
	ulp_configfs
	mkdir -p "$LIO_RAM0" &&
		echo "udev_path=/dev/ram0" >"$LIO_RAM0/control" &&
		echo 1 >"$LIO_RAM0/enable" ||
		fatal "the LIO backstore on /dev/ram0"
}

lio_backstore_down() {
	rmdir "$LIO_RAM0" "${LIO_RAM0%/*}" 2>/dev/null || true
}

# The job fio_verify and fio_reverify both run: random writes of 4 KiB
# to 1 MiB blocks, iodepth 32, each block with a crc32c and its own
# offset in a header (misplaced data fails too); randrepeat so that a
# second run writes, or checks, the same blocks.
ULP_FIO_JOB=(--ioengine=libaio --direct=1 --rw=randwrite --bsrange=4k-1m
	--iodepth=32 --verify=crc32c --verify_fatal=1 --randrepeat=1
	--random_generator=tausworthe64 --verify_state_save=0)

# A seed of NAME's own: a run whose writes were lost cannot pass on what
# another run (the same job on the other device) left in the same place.
ulp_fio_seed() {
	printf '%s' "$1" | cksum | cut -d' ' -f1
}

# fio_verify NAME DEVICE SIZE [fio options...]: write, then read back and
# check every block; the write and verify-read bandwidths go to the
# results.  Ten minutes at most (times the sanitizer kernel's factor).
# ULP_RXE=1 (the runs on rdma_rxe, for its figures): five minutes, and a
# failure is noted, not counted; it is rxe's.  Returns 0 either way (a
# failure is counted): the test goes on to its cleanup.
fio_verify() {
	local name=$1 dev=$2 size=$3 log=$RDMA_OUT/fio-$1.log limit=600

	shift 3
	[ -z "${ULP_RXE:-}" ] || limit=300
	if timeout -k 10 $((limit * RDMA_SLOW)) fio --name="$name" \
		--filename="$dev" --size="$size" "${ULP_FIO_JOB[@]}" \
		--randseed="$(ulp_fio_seed "$name")" \
		--do_verify=1 --output-format=terse --terse-version=3 "$@" \
		>"$log" 2>&1; then
		# terse v3: field 48 is the write bandwidth in KiB/s, 7 the
		# read's (the verification).
		awk -F';' -v n="$name" 'NF > 48 { printf "%-24s write %7.1f MiB/s  verify-read %7.1f MiB/s\n", n, $48 / 1024, $7 / 1024 }' \
			"$log" >>"$ULP_RESULTS"
		echo "ok   fio $name: $size written and verified"
	elif [ -n "${ULP_RXE:-}" ]; then
		echo "note fio $name failed on rdma_rxe (not counted)"
		tail -n 5 "$log" | sed 's/^/     | /'
		printf '%-24s failed on rdma_rxe\n' "$name" >>"$ULP_RESULTS"
	else
		echo "FAIL fio $name"
		tail -n 15 "$log" | sed 's/^/     | /'
		vm_failures=$((vm_failures + 1))
	fi
}

# fio_reverify NAME DEVICE SIZE: check again what fio_verify NAME DEVICE
# SIZE wrote.
fio_reverify() {
	local name=$1 dev=$2 size=$3 log=$RDMA_OUT/fio-$1-again.log rc=0

	timeout -k 10 $((600 * RDMA_SLOW)) fio --name="$name" \
		--filename="$dev" --size="$size" "${ULP_FIO_JOB[@]}" \
		--randseed="$(ulp_fio_seed "$name")" \
		--verify_only=1 >"$log" 2>&1 || rc=$?
	verdict "$rc" "fio $name: the data written before verifies" "$log"
}

# The kernel's objects on DEV other than ib_mad's (QP1, and its CQ, PD
# and MR): what a consumer left behind.
consumer_objects() {
	local kind

	for kind in pd mr cq qp srq cm_id; do
		rdma resource show "$kind" 2>/dev/null |
			grep -E "(dev|link) $1[ /]" |
			grep -vE 'comm \[ib_core\]|lqpn 1 ' |
			sed "s/^/$kind: /" || true
	done
}

no_consumer_objects() {
	[ -z "$(consumer_objects "$1")" ]
}

# ulp_end: nothing left on wk0 and it goes; the results are printed.
ulp_end() {
	ok "no objects left on $ULP_DEV" wait_until $((20 * RDMA_SLOW)) \
		no_consumer_objects $ULP_DEV
	consumer_objects $ULP_DEV | sed 's/^/     left: /'
	ok "delete $ULP_DEV" rdma link delete $ULP_DEV
}

netem_loss() {
	tc qdisc replace dev wan0 root netem loss "$1"
}

netem_off() {
	tc qdisc del dev wan0 root 2>/dev/null || true
}

# On the way out of a test that stopped early (set -e, fatal, a failed
# check): tell the other host, and let go of what a consumer may still
# hold here, so that wookie.ko unloads.  Best effort.
ulp_on_exit() {
	local rc=$? p

	[ "$rc" -ne 0 ] || return 0
	peer_abort 2>/dev/null || true
	ulp_count_stop >/dev/null 2>&1 || true
	umount -f -l /tmp/nfs 2>/dev/null || true
	nvme disconnect-all >/dev/null 2>&1 || true
	iscsiadm -m node -u >/dev/null 2>&1 || true
	for p in /sys/class/srp_remote_ports/port-*/delete; do
		[ ! -e "$p" ] || echo 1 >"$p" 2>/dev/null || true
	done
	rdma link delete "$ULP_DEV" 2>/dev/null || true
	rdma link delete rxe0 2>/dev/null || true
}

# ulp_main TARGET_FN INITIATOR_FN: host 1 runs the first, host 2 the
# second; then the results and the verdict.
ulp_main() {
	trap ulp_on_exit EXIT
	: >"$ULP_RESULTS"
	case "${WOOKIE_VM_HOST:-}" in
	1) "$1" ;;
	2) "$2" ;;
	*) echo "FAIL not in a pair (run through scripts/vm-pair)"; exit 1 ;;
	esac
	[ ! -s "$ULP_RESULTS" ] || sed 's/^/result: /' "$ULP_RESULTS"
	[ "$vm_failures" -eq 0 ] || peer_abort
	vm_done
}

# --- which verbs a consumer used -----------------------------------------
# Calls of kernel functions (wookie's and ib_core's), counted with a kprobe
# event and a histogram trigger each: which verbs a consumer's traffic
# went through (fast registration, invalidation, drains...).
TRACEFS=/sys/kernel/tracing

# ulp_count_start FUNC...: count calls of each FUNC from now on.
ulp_count_start() {
	local f

	mountpoint -q $TRACEFS || mount -t tracefs nodev $TRACEFS
	for f in "$@"; do
		echo "p:wkcnt_$f $f" >>$TRACEFS/kprobe_events &&
			echo 'hist:keys=common_type' \
				>"$TRACEFS/events/kprobes/wkcnt_$f/trigger" &&
			echo 1 >"$TRACEFS/events/kprobes/wkcnt_$f/enable" ||
			echo "     (cannot count calls of $f)"
	done
}

# ulp_count FUNC: the calls counted so far.
ulp_count() {
	awk '/Hits:/ { print $2; found = 1 } END { if (!found) print 0 }' \
		"$TRACEFS/events/kprobes/wkcnt_$1/hist" 2>/dev/null || echo 0
}

# ulp_count_report WHAT FUNC...: print the counts; each FUNC must have
# been called at least once (the consumer's path went through it), but
# for FUNC? (only shown).
ulp_count_report() {
	local what=$1 f n line= missing=

	shift
	for f in "$@"; do
		n=$(ulp_count "${f%\?}")
		line+=" ${f%\?}=$n"
		[ "$n" -gt 0 ] || [ "$f" != "${f%\?}" ] || missing+=" $f"
	done
	echo "$what:$line" >>"$ULP_RESULTS"
	if [ -z "$missing" ]; then
		echo "ok   $what went through:$line"
	else
		echo "FAIL $what never called:$missing ($line )"
		vm_failures=$((vm_failures + 1))
	fi
}

# ulp_count_stop: no more counting (the module must unload).
ulp_count_stop() {
	local e

	[ -d "$TRACEFS/events/kprobes" ] || return 0
	for e in "$TRACEFS"/events/kprobes/wkcnt_*; do
		[ -d "$e" ] || continue
		echo 0 >"$e/enable"
		echo '!hist:keys=common_type' >"$e/trigger"
	done
	echo >$TRACEFS/kprobe_events
}
