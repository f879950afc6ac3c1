#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 2400
#
# The verbs and ring fuzzer (tests/vm/progs/verbs_fuzz.cc): worker
# processes run random sequences of every verb with valid and invalid
# attributes on zz0 (vethA), scribble on their own rings, end by
# themselves or are killed with SIGKILL, and are replaced until the time
# is up, while a checker process moves data over RC on zz1 (vethB in
# hostB, an address the workers never aim at) and checks every byte.
# Then nothing may be left on either device, and zz0 still carries
# traffic.  Kernel splats, leaks (kmemleak on the sanitizer kernel) and a
# module that does not unload fail the run through the harness.
#
# WOOKIE_TEST_FUZZ_SECONDS: how long the workers run (default 60; the
# sanitizer kernel's long run: 1200).  WOOKIE_TEST_FUZZ_SEED: the seed
# (default: a random one, printed); WOOKIE_TEST_FUZZ_WORKERS: how many
# workers at a time (default 4).  The --timeout above covers 1200 s on
# either kernel (scripts/vm-test multiplies it by 4 on the sanitizer one).
# wookie only: the rings are wookie's ABI.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/_rdma.sh"

[ "$RDMA_TYPE" = wookie ] || { echo "ok   skipped: rings are wookie's"; exit 0; }
rdma_setup
CHECKDEV=zz1
ok "add $CHECKDEV on vethB in hostB" wire_add hostB "$CHECKDEV" vethB
ok "$CHECKDEV has its IPv4 GID" wait_until 10 gid_index "$CHECKDEV" \
	0000:0000:0000:0000:0000:ffff:0a00:0002

prog=$WOOKIE_TOP/build/vm-progs/verbs_fuzz
secs=${WOOKIE_TEST_FUZZ_SECONDS:-60}
workers=${WOOKIE_TEST_FUZZ_WORKERS:-4}
seed=${WOOKIE_TEST_FUZZ_SEED:-$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')}
# A verb or transfer stuck this long is a hang; the sanitizer kernel is
# slower.
stall=$((60 * RDMA_SLOW))
# The program's own limit: the run, the workers' wind-down and the
# checker's (at most 2 x stall each), and start-up.
limit=$((secs + 6 * stall + 120))
log=$RDMA_OUT/verbs_fuzz.log

echo "fuzzing $RDMA_DEV for $secs s with $workers workers, checker on $CHECKDEV," \
	"seed $seed (WOOKIE_TEST_FUZZ_SEED=$seed repeats it)"
rc=0
timeout -k 10 "$limit" "$prog" --seed "$seed" --seconds "$secs" \
	--workers "$workers" --stall "$stall" "$RDMA_DEV" "$CHECKDEV" \
	>"$log" 2>&1 || rc=$?
# Its lines as they are: "ok"/"FAIL" checks, the summary indented.
cat "$log"
if [ "$rc" -ne 0 ]; then
	echo "FAIL verbs_fuzz --seed $seed exited $rc (124: not done within $limit s)"
	vm_failures=$((vm_failures + 1))
fi

ok "nothing left on $RDMA_DEV" wait_until $((10 * RDMA_SLOW)) rdma_no_objects "$RDMA_DEV"
ok "nothing left on $CHECKDEV" wait_until $((10 * RDMA_SLOW)) rdma_no_objects "$CHECKDEV"
rdma_user_objects "$RDMA_DEV" | head -n 20 | sed 's/^/     | /'
rdma_user_objects "$CHECKDEV" | head -n 20 | sed 's/^/     | /'
pair "$RDMA_DEV still carries traffic" 120 ibv_rc_pingpong -d "$RDMA_DEV" \
	-g "$RDMA_GID" -c -s 4096 -n 20
ok "delete $CHECKDEV" ip netns exec hostB rdma link delete "$CHECKDEV"
vm_done
