#!/usr/bin/env bash
# UTS on real ranks ([Olivier 2006]; docs/BENCHMARKS.md, "steal: UTS"): the
# large published trees T1L and T3L, 2 ranks x 1 worker and 1 rank x 2
# workers, REPS runs each. Every run first searches the whole tree
# sequentially on rank 0 (the same binary, the same search code) and then in
# parallel; efficiency = parallel nodes/s / (ranks x workers x sequential
# nodes/s). The tool checks that both counts agree; this script checks them
# against the published sizes and prints one row per configuration with the
# efficiencies of every run and their median.
#
# Usage: bench/steal/uts.sh [BUILD_DIR]
#   REPS=3                      runs per configuration
#   TREES="T1L T3L"
#   CONFIGS="2x1 1x2"           ranks x workers
#   EXTRA=""                    further ballast uts flags (e.g. --policy random)
#   LOG=FILE                    also append every run's --json line to FILE
set -euo pipefail
build=${1:-build}
REPS=${REPS:-3}
TREES=${TREES:-"T1L T3L"}
CONFIGS=${CONFIGS:-"2x1 1x2"}
EXTRA=${EXTRA:-}
uts=$build/tools/ballast
echo "| tree | ranks x workers | efficiency (runs) | median | parallel time (median) | sequential M nodes/s (median) | thefts (median) |"
echo "|---|---|---|---|---|---|---|"
for tree in $TREES; do
  case $tree in
  T1L) args="-t 1 -a 3 -d 13 -b 4 -r 29" want="102181082 81746377 13" ;;
  T3L) args="-t 0 -b 2000 -q 0.200014 -m 5 -r 7" want="111345631 89076904 17844" ;;
  *) echo "uts.sh: unknown tree $tree" >&2; exit 2 ;;
  esac
  for cfg in $CONFIGS; do
    ranks=${cfg%x*} workers=${cfg#*x}
    rows=""
    for ((i = 0; i < REPS; i++)); do
      # shellcheck disable=SC2086 # word lists
      j=$("$uts" uts --ranks "$ranks" --workers "$workers" $args $EXTRA --json </dev/null)
      rows+="$j"$'\n'
      [ -n "${LOG:-}" ] && printf '%s\n' "$j" >>"$LOG"
    done
    printf '%s' "$rows" | python3 -c '
import json, statistics, sys
tree, cfg, want = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split()]
runs = [json.loads(l) for l in sys.stdin if l.strip()]
for r in runs:
    got = [r["nodes"], r["leaves"], r["max_depth"]]
    if got != want:
        sys.exit(f"uts.sh: {tree} {cfg}: counted {got}, published {want}")
eff = [r["efficiency"] for r in runs]
med = statistics.median
effs = " ".join("%.3f" % e for e in eff)
t = med([r["time_s"] for r in runs])
seq = med([r["sequential"]["nodes_per_s"] for r in runs]) / 1e6
th = med([r["steal"]["thefts"] for r in runs])
print("| %s | %s | %s | **%.3f** | %.2f s | %.1f | %.0f |" % (tree, cfg, effs, med(eff), t, seq, th))
' "$tree" "$cfg" "$want"
  done
done
