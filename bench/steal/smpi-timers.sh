#!/usr/bin/env bash
# What SMPI's CPU timers cost a simulation: the same `ballast simulate-uts`
# and `ballast simulate-dlb` runs with the launchers' default (the timers
# stubbed out, tools/simulate-common/no_cpu_timer.c) and with
# --smpi-timers (SMPI reading the thread CPU clock at every MPI call),
# alternating, REPS of each. Prints each run's wall time (the launcher's
# .simulation.wall_s), the median per setting and their ratio, and fails
# if any simulated figure differs between the two (they must not: the
# timers' readings are unused with smpi/simulate-computation off).
# Usage: bench/steal/smpi-timers.sh BUILD_DIR [OUT_DIR]
#   REPS=3           runs of each setting per workload
#   UTS_RANKS=224    T3 (-t 0 -b 2000 -q 0.124875 -m 8 -r 42), 2 s of work per rank
#   DLB_RANKS=448    DLB_Bench smallworld, 0.5 s of work and 20 tasks per rank
set -euo pipefail
export LC_ALL=C # printf's decimal point
build=${1:?usage: smpi-timers.sh BUILD_DIR [OUT_DIR]}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
echo "# runs kept in $out"
REPS=${REPS:-3}
UTS_RANKS=${UTS_RANKS:-224}
DLB_RANKS=${DLB_RANKS:-448}
command -v jq >/dev/null || { echo "smpi-timers.sh: needs jq" >&2; exit 1; }

uts() { "$build/tools/ballast" simulate-uts --ranks "$UTS_RANKS" -t 0 -b 2000 -q 0.124875 -m 8 -r 42 \
  --policy smallworld --work-per-rank 2 --json "$@"; }
dlb() { "$build/tools/ballast" simulate-dlb --ranks "$DLB_RANKS" --policy smallworld --work-per-rank 0.5 \
  --tasks-per-rank 20 --seed 1 --json "$@"; }

# shellcheck source=../median.sh
. "$(dirname "$0")/../median.sh"

for w in uts dlb; do
  for ((r = 1; r <= REPS; r++)); do
    for mode in stub timers; do
      flag=(); [ "$mode" = timers ] && flag=(--smpi-timers)
      "$w" "${flag[@]}" >"$out/$w-$mode-$r.json"
      printf '%s %s run %d: %.2f s\n' "$w" "$mode" "$r" "$(jq .simulation.wall_s "$out/$w-$mode-$r.json")"
      # Everything but the simulation's own cost must match the first run.
      if ! diff <(jq -S 'del(.simulation)' "$out/$w-stub-1.json") \
        <(jq -S 'del(.simulation)' "$out/$w-$mode-$r.json") >/dev/null; then
        echo "smpi-timers.sh: $w $mode run $r simulated something else than $w stub run 1" >&2
        exit 1
      fi
    done
  done
  # This run's files only (a reused OUT_DIR may hold more from an earlier one).
  s=$(for ((r = 1; r <= REPS; r++)); do jq .simulation.wall_s "$out/$w-stub-$r.json"; done | median)
  t=$(for ((r = 1; r <= REPS; r++)); do jq .simulation.wall_s "$out/$w-timers-$r.json"; done | median)
  awk -v w="$w" -v s="$s" -v t="$t" \
    'BEGIN {printf "%s: median wall %.2f s stubbed, %.2f s with SMPI timers: %.2fx faster\n", w, s, t, t / s}'
done
