#!/usr/bin/env bash
# What SMPI's CPU timers cost a simulation: the same `ballast simulate-uts`
# and `ballast simulate-dlb` runs with --smpi-timers (SMPI reading the
# thread CPU clock at every MPI call) and with the launchers' default (the
# timers stubbed out, tools/simulate-common/no_cpu_timer.c): sim-ab.sh
# with SAME=1, which fails if any simulated figure differs between the two
# (they must not: the timers' readings are unused with
# smpi/simulate-computation off). Prints A's (timers) median wall time over
# B's (stub).
# Usage: bench/steal/smpi-timers.sh BUILD_DIR [OUT_DIR]
#   REPS=3  UTS_RANKS=224 (T3, 2 s of work per rank)
#   DLB_RANKS=448 (DLB_Bench smallworld, 0.5 s of work and 20 tasks per rank)
set -euo pipefail
out=${2:-$(mktemp -d)}
SAME=1 UTS_ARGS="--ranks ${UTS_RANKS:-224} --work-per-rank 2" DLB_ARGS="--ranks ${DLB_RANKS:-448}" \
  exec "$(dirname "$0")/sim-ab.sh" "${1:?usage: smpi-timers.sh BUILD_DIR [OUT_DIR]}" "$out" \
  timers "--smpi-timers" stub ""
