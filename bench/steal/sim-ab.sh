#!/usr/bin/env bash
# Two settings of the same simulations, alternating: `ballast simulate-uts`
# (T3) and `ballast simulate-dlb` (DLB_Bench smallworld), each run with
# FLAGS_A then FLAGS_B, REPS times. Prints each run's wall time (the
# launcher's .simulation.wall_s) and simulated efficiency, then per
# workload the median wall time of each setting and A's over B's. Every
# simulation is deterministic: each setting's runs must simulate the same
# as its first (with SAME=1, as A's first: settings that must not change
# what is simulated), or the script fails.
# Usage: bench/steal/sim-ab.sh BUILD_DIR OUT_DIR NAME_A "FLAGS_A" NAME_B "FLAGS_B"
#   REPS=3
#   UTS_ARGS="--ranks 224 --work-per-rank 2"   added to T3's tree and policy
#   DLB_ARGS="--ranks 448"   added to 0.5 s of work and 20 tasks per rank
#   SAME=0
# Wrappers: smpi-timers.sh, idle-wait.sh.
set -euo pipefail
export LC_ALL=C # printf's decimal point
[ $# -eq 6 ] || { echo "usage: sim-ab.sh BUILD_DIR OUT_DIR NAME_A FLAGS_A NAME_B FLAGS_B" >&2; exit 2; }
build=$1 out=$2
names=("$3" "$5")
flags=("$4" "$6")
mkdir -p "$out"
echo "# runs kept in $out"
REPS=${REPS:-3}
UTS_ARGS=${UTS_ARGS:---ranks 224 --work-per-rank 2}
DLB_ARGS=${DLB_ARGS:---ranks 448}
SAME=${SAME:-0}
command -v jq >/dev/null || { echo "sim-ab.sh: needs jq" >&2; exit 1; }

# shellcheck disable=SC2086 # flag lists
uts() { "$build/tools/ballast" simulate-uts -t 0 -b 2000 -q 0.124875 -m 8 -r 42 --policy smallworld \
  $UTS_ARGS --json "$@"; }
# shellcheck disable=SC2086
dlb() { "$build/tools/ballast" simulate-dlb --policy smallworld --work-per-rank 0.5 --tasks-per-rank 20 \
  --seed 1 $DLB_ARGS --json "$@"; }
efficiency() { jq '.uts.efficiency // .dlb.efficiency' "$1"; }

# shellcheck source=../median.sh
. "$(dirname "$0")/../median.sh"

for w in uts dlb; do
  for ((r = 1; r <= REPS; r++)); do
    for k in 0 1; do
      f=$out/$w-${names[k]}-$r.json
      # shellcheck disable=SC2086
      "$w" ${flags[k]} >"$f"
      printf '%s %s run %d: %.2f s, efficiency %s\n' "$w" "${names[k]}" "$r" \
        "$(jq .simulation.wall_s "$f")" "$(efficiency "$f")"
      ref=$out/$w-${names[k]}-1.json
      [ "$SAME" = 1 ] && ref=$out/$w-${names[0]}-1.json
      if ! diff <(jq -S 'del(.simulation)' "$ref") <(jq -S 'del(.simulation)' "$f") >/dev/null; then
        echo "sim-ab.sh: $w ${names[k]} run $r simulated something else than $(basename "$ref" .json)" >&2
        exit 1
      fi
    done
  done
  # This run's files only (a reused OUT_DIR may hold more from an earlier one).
  med() { for ((r = 1; r <= REPS; r++)); do jq .simulation.wall_s "$out/$w-$1-$r.json"; done | median; }
  a=$(med "${names[0]}") b=$(med "${names[1]}")
  awk -v w="$w" -v na="${names[0]}" -v nb="${names[1]}" -v a="$a" -v b="$b" \
    -v ea="$(efficiency "$out/$w-${names[0]}-1.json")" -v eb="$(efficiency "$out/$w-${names[1]}-1.json")" \
    'BEGIN {printf "%s: median wall %.2f s %s, %.2f s %s: %.2fx; efficiency %.4f, %.4f\n",
      w, a, na, b, nb, a / b, ea, eb}'
done
