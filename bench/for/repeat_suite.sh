#!/usr/bin/env bash
# Repeated calls (issue 29's acceptance, docs/BENCHMARKS.md "Repeated
# calls"): bal_for_learn against every one-shot schedule, P threads, each
# command of that section in turn, in spin and sleep mode, and the lines of
# for-bench's output that carry the figures (per call over calls 2..N, the
# median over rounds of per-round ratios). The full outputs are kept in
# OUT_DIR (default: a new temporary directory, printed at the end).
# Usage: [MODES="spin sleep"] [SPIN_REPS=5] [SLEEP_REPS=3] bench/for/repeat_suite.sh BUILD_DIR [OUT_DIR] [--threads P]
# (rounds per command; more rounds make the "picked on the other rounds"
# figure, which splits them in two halves, less noisy)
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [OUT_DIR] [--threads P]}
out=${2:-$(mktemp -d)}
threads=2
[ "${3:-}" = --threads ] && threads=${4:?--threads needs a count}
bench=$build/tools/ballast-for-bench
[ -x "$bench" ] || { echo "$0: no $bench (build first)" >&2; exit 2; }
mkdir -p "$out"
n=0
# one NAME ARGS...: run for-bench, keep its output, print its figures
one() {
  local name=$1
  shift
  n=$((n + 1))
  echo "== $name: for-bench --threads $threads $* ($(date -u +%T), load $(cut -d' ' -f1 /proc/loadavg))"
  "$bench" --threads "$threads" "$@" >"$out/$n-$name.txt" 2>&1 || { cat "$out/$n-$name.txt"; exit 1; }
  grep -E "^ *(bal_for_learn|bal_for) .*(bound|baseline|bal_for)|^== |busy|change|calibration" \
    "$out/$n-$name.txt" | grep -v '^== spin\|^== sleep' || true
}
for mode in ${MODES:-spin sleep}; do
  reps=${SLEEP_REPS:-3}
  [ "$mode" = spin ] && reps=${SPIN_REPS:-5}
  for x in 0.15 0.30 0.55 0.70 0.80 0.92; do
    one "mid-$x-$mode" --mode "$mode" --workload mid --heavy-at "$x" --reps "$reps" --repeat 4
  done
  one "every-$mode" --mode "$mode" --reps "$reps" --repeat 4
  one "drift-$mode" --mode "$mode" --workload mid --heavy-at 0.92 --reps "$reps" --repeat 6 --drift 0.1
  one "change-$mode" --mode "$mode" --workload mid --heavy-at 0.92 --reps "$reps" --repeat 5 --change-at 3
done
case " ${MODES:-spin} " in *" spin "*) one uniform-spin --mode spin --workload uniform --reps 7 --repeat 4 ;; esac
echo "outputs: $out"
