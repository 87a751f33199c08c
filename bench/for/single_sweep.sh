#!/usr/bin/env bash
# Single calls of bal_for against the best OpenMP schedule (issue 29,
# "Single calls still lose where they need not"): one heavy item holding
# share h of the work at position x of a `mid` loop, P threads, for every
# h in SHARES and x in POSITIONS, in loops of a few milliseconds (5,000
# items of 1 us) and of ~100 ms (10^5 items), optionally also ~1 s
# (--long: 10^5 items of 10 us). Each line is one `ballast-for-bench --json`
# run (rounds interleave every schedule, shuffled per round); the figures
# are the ratio of bal_for's median to the lowest median among
# omp_static, omp_dynamic_1, omp_dynamic_chunk and omp_guided, and
# bal_for's efficiency (lower bound / median). Positions inside the
# proof's losing intervals (docs/for.md, "What no schedule can give";
# OpenMP's `dynamic` reaches the bound there, no schedule that learns
# only by running can) are marked "losing".
# Usage: bench/for/single_sweep.sh BUILD_DIR [--mode spin|sleep] [--threads P]
#        [--shares "0.25 0.3"] [--positions "0.05 0.1"] [--reps-short N]
#        [--reps-medium N] [--long]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [options]}
shift
mode=spin threads=2 reps_short=15 reps_medium=5 long=0
shares="0.25 0.3 0.35 0.4"
positions="0.05 0.10 0.15 0.20 0.25 0.30 0.35 0.40 0.45 0.50"
while [ $# -gt 0 ]; do
  case $1 in
    --mode) mode=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --shares) shares=$2; shift 2 ;;
    --positions) positions=$2; shift 2 ;;
    --reps-short) reps_short=$2; shift 2 ;;
    --reps-medium) reps_medium=$2; shift 2 ;;
    --long) long=1; shift ;;
    *) echo "$0: unknown flag '$1'" >&2; exit 2 ;;
  esac
done
bench=$build/tools/ballast-for-bench
[ -x "$bench" ] || { echo "$0: no $bench (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ratio FILE X H: one table row from a --json result
ratio() {
  python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
x, h = float(sys.argv[2]), float(sys.argv[3])
res = {r["schedule"]: r for r in doc["results"] if r.get("available")}
omp = {k: v["median_s"] for k, v in res.items() if k.startswith("omp_")}
best = min(omp, key=omp.get)
bal = res["bal_for"]
# the proof's losing interval for P = 2 (docs/for.md): dynamic ends in
# time while x <= (1 - 2h)/(1 - h); a one-shot learner cannot then.
losing = x > (1 - 2 * h) / (1 - h)
print(f"{h:5.2f} {x:5.2f} {bal['median_s']/omp[best]:7.3f} {bal['efficiency']:6.3f} "
      f"{best:18s} {res[best]['efficiency']:6.3f} {'losing' if losing else ''}")
EOF
}

echo "# start $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $mode, P=$threads"
run_set() {
  local label=$1
  shift
  echo "## $label"
  echo "#share   pos bal/omp bal_eff best_omp           omp_eff"
  for h in $shares; do
    for x in $positions; do
      "$bench" --threads "$threads" --mode "$mode" --workload mid --heavy-at "$x" \
        --heavy-share "$h" --json "$@" >"$tmp/r.json" 2>/dev/null
      ratio "$tmp/r.json" "$x" "$h"
    done
  done
}
run_set "short loops: 5000 items of 1 us" --items 5000 --reps "$reps_short"
run_set "medium loops: 10^5 items of 1 us" --reps "$reps_medium"
[ "$long" = 1 ] && run_set "long loops: 10^5 items of 10 us" --spin-mean-ns 10000 --reps 3
echo "# end $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
