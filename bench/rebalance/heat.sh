#!/usr/bin/env bash
# Benchmarks of the rebalance module on `ballast heat` (docs/BENCHMARKS.md,
# "rebalance: ballast-heat"): 8 ranks oversubscribed, sleep-emulated rows (800 rows of
# 64 columns, 0.1 ms per row and sweep: 10 ms per sweep and rank when
# dedicated), so the figures measure the balancer, not the 2 shared cores.
#   constant      rank 0 at half speed: off (no balancer), string, direct, and a dedicated
#                 run (no load, no balancer) for reference; REPS repetitions
#   oscillating   rank 0 alternates 6 s at half speed and 6 s at full speed
#                 for ~60 s: off, string, direct, and string with the filter,
#                 the threshold, the profitability check switched off, and
#                 with neither threshold nor filter
#   overhead      no load: no balancer against string, interleaved, OREPS pairs
# Every run's --json goes to OUT/results.jsonl, labelled; the plots of the
# string runs to OUT/*.png; a summary (medians) is printed at the end.
# Usage: bench/rebalance/heat.sh [BUILD_DIR] [OUT_DIR]   (env: REPS=3 OREPS=5 WHAT="constant oscillating overhead")
set -euo pipefail
build=${1:-build}
out=${2:-$build/bench-heat}
reps=${REPS:-3}
oreps=${OREPS:-5}
what=${WHAT:-constant oscillating overhead}
mkdir -p "$out"
heat=("$build/tools/ballast" heat --ranks 8 --nx 64 --ny 800 --row-time 1e-4 --work-mode sleep)
res=$out/results.jsonl

run() { # run LABEL ARGS...
  local label=$1
  shift
  local json
  json=$("${heat[@]}" --json "$@")
  printf '{"label":"%s","run":%s}\n' "$label" "$json" >>"$res"
  python3 -c 'import json,sys; d=json.loads(sys.argv[2]); print("%-26s eff %.3f after %s moved %d rebalances %d elapsed %.1f s" % (sys.argv[1], d["efficiency"], d["efficiency_after_first_rebalance"], d["items_moved"], d["rebalances"], d["elapsed_s"]))' "$label" "$json" >&2
}

for w in $what; do
  case $w in
  constant)
    for r in $(seq "$reps"); do
      run dedicated --iterations 1000 --balancer off --load none
      run constant-off --iterations 1000 --balancer off --load constant --slowdown 2
      run constant-string --iterations 1000 --balancer string --load constant --slowdown 2 \
        --plot "$out/constant-string.png" --trace "$out/constant-string.csv"
      run constant-direct --iterations 1000 --balancer direct --load constant --slowdown 2
    done
    ;;
  oscillating | osc-filter)
    osc=(--iterations 5500 --load oscillating --load-period 12 --load-duty 0.5 --slowdown 2)
    for r in $(seq "${OSC_REPS:-1}"); do
      run osc-off "${osc[@]}" --balancer off
      run osc-string "${osc[@]}" --balancer string --plot "$out/oscillating-string.png" \
        --trace "$out/oscillating-string.csv"
      run osc-direct "${osc[@]}" --balancer direct
      run osc-no-filter "${osc[@]}" --balancer string --no-filter
      run osc-no-threshold "${osc[@]}" --balancer string --no-threshold
      run osc-no-profitability "${osc[@]}" --balancer string --no-profitability
      # with 8 ranks the move back when the load stops projects only ~6%:
      # below the threshold; the filter's effect shows with the threshold off
      run osc-no-threshold-no-filter "${osc[@]}" --balancer string --no-threshold --no-filter
    done
    ;;
  overhead)
    for r in $(seq "$oreps"); do
      run overhead-off --iterations 500 --balancer off --load none
      run overhead-string --iterations 500 --balancer string --load none
    done
    ;;
  *) echo "unknown benchmark $w" >&2; exit 2 ;;
  esac
done

python3 - "$res" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    runs.setdefault(d["label"], []).append(d["run"])
print("%-22s %4s %-24s %8s %8s %8s %8s %9s" % ("label", "n", "efficiency (each)", "median",
      "after1st", "moved", "rebal.", "elapsed"))
for label, rs in runs.items():
    eff = [r["efficiency"] for r in rs]
    after = [r["efficiency_after_first_rebalance"] for r in rs if r["efficiency_after_first_rebalance"] is not None]
    print("%-22s %4d %-24s %8.3f %8s %8g %8g %8.1fs" % (label, len(rs), " ".join("%.3f" % e for e in eff),
          statistics.median(eff), "%.3f" % statistics.median(after) if after else "-",
          statistics.median(r["items_moved"] for r in rs), statistics.median(r["rebalances"] for r in rs),
          statistics.median(r["elapsed_s"] for r in rs)))
PY
