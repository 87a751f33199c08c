#!/usr/bin/env bash
# What a thief waiting in a blocking receive (bal_steal_config::idle_wait,
# --idle-wait mpi) saves a simulation against one that polls (the
# default): the same `ballast simulate-uts` and `simulate-dlb` runs with
# each, alternating, REPS of each. Prints each run's wall time (the
# launcher's .simulation.wall_s) and simulated efficiency, then per
# workload the median wall time of each setting and their ratio. The
# simulated figures differ between the settings (a waiting thief answers
# at once what a polling one answers at its next poll); each is
# deterministic, so every run of a setting must give the same.
# Usage: bench/steal/idle-wait.sh BUILD_DIR [OUT_DIR]
#   REPS=3           runs of each setting per workload
#   UTS_RANKS=224    T3 (-t 0 -b 2000 -q 0.124875 -m 8 -r 42), 3 s of work per
#                    rank, a check every 3 node costs, polls a tenth of that
#   DLB_RANKS=448    DLB_Bench smallworld, 0.5 s of work and 20 tasks per rank
set -euo pipefail
export LC_ALL=C # printf's decimal point
build=${1:?usage: idle-wait.sh BUILD_DIR [OUT_DIR]}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
echo "# runs kept in $out"
REPS=${REPS:-3}
UTS_RANKS=${UTS_RANKS:-224}
DLB_RANKS=${DLB_RANKS:-448}
command -v jq >/dev/null || { echo "idle-wait.sh: needs jq" >&2; exit 1; }

uts() { "$build/tools/ballast" simulate-uts --ranks "$UTS_RANKS" -t 0 -b 2000 -q 0.124875 -m 8 -r 42 \
  --policy smallworld --work-per-rank 3 --json "$@"; }
dlb() { "$build/tools/ballast" simulate-dlb --ranks "$DLB_RANKS" --policy smallworld --work-per-rank 0.5 \
  --tasks-per-rank 20 --seed 1 --json "$@"; }
efficiency() { # FILE: UTS's or DLB_Bench's
  jq '.uts.efficiency // .dlb.efficiency' "$1"
}

# shellcheck source=../median.sh
. "$(dirname "$0")/../median.sh"

for w in uts dlb; do
  for ((r = 1; r <= REPS; r++)); do
    for mode in poll mpi; do
      f=$out/$w-$mode-$r.json
      "$w" --idle-wait "$mode" >"$f"
      printf '%s %s run %d: %.2f s, efficiency %s\n' "$w" "$mode" "$r" "$(jq .simulation.wall_s "$f")" \
        "$(efficiency "$f")"
      if ! diff <(jq -S 'del(.simulation)' "$out/$w-$mode-1.json") <(jq -S 'del(.simulation)' "$f") >/dev/null; then
        echo "idle-wait.sh: $w $mode run $r simulated something else than its run 1" >&2
        exit 1
      fi
    done
  done
  p=$(for ((r = 1; r <= REPS; r++)); do jq .simulation.wall_s "$out/$w-poll-$r.json"; done | median)
  m=$(for ((r = 1; r <= REPS; r++)); do jq .simulation.wall_s "$out/$w-mpi-$r.json"; done | median)
  awk -v w="$w" -v p="$p" -v m="$m" -v ep="$(efficiency "$out/$w-poll-1.json")" \
    -v em="$(efficiency "$out/$w-mpi-1.json")" 'BEGIN {
      printf "%s: median wall %.2f s polling, %.2f s waiting in MPI: %.2fx faster; efficiency %.4f -> %.4f\n",
        w, p, m, p / m, ep, em}'
done
