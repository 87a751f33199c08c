#!/usr/bin/env bash
# What a thief waiting in a blocking receive (bal_steal_config::idle_wait,
# --idle-wait mpi) saves a simulation against one that polls (the
# default): sim-ab.sh with the two settings. The simulated figures differ
# between them (a waiting thief answers at once what a polling one answers
# at its next poll). T3 as docs/BENCHMARKS.md measured it: 224 ranks, 3 s
# of work per rank, a check every 1.63 ms, polls a tenth of that.
# Usage: bench/steal/idle-wait.sh BUILD_DIR [OUT_DIR]   (REPS=3)
set -euo pipefail
out=${2:-$(mktemp -d)}
UTS_ARGS=${UTS_ARGS:-"--ranks 224 --work-per-rank 3 --slice 0.00163388 --poll-interval 0.000163388 --backoff-max 0.00163388"} \
  exec "$(dirname "$0")/sim-ab.sh" "${1:?usage: idle-wait.sh BUILD_DIR [OUT_DIR]}" "$out" \
  poll "--idle-wait poll" mpi "--idle-wait mpi"
