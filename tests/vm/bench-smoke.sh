#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm-run: --net init --timeout 900
#
# A short `make bench` (tests/bench/bench.sh with BENCH_MODE=smoke): send
# latency, 64 KiB write bandwidth, system calls per WR and idle CPU, on
# rdma_rxe and wookie, one device and two over a veth.  It checks that
# the bench runs, not the figures (emulated timings are noise at this
# length).  On the sanitizer kernel, wookie only: there rxe's own runs
# fail (a 64 KiB ib_write_bw between two rxe devices exited 1, no splat)
# and a ratio to rxe would mean nothing anyway.
export BENCH_MODE=smoke BENCH_TYPES="rxe wookie wookie_poll"
case "$(uname -r)" in
*debug*) BENCH_TYPES="wookie wookie_poll" ;;
esac
exec bash "$(dirname "$0")/../bench/bench.sh"
