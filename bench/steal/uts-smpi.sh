#!/usr/bin/env bash
# UTS on simulated ranks (SimGrid SMPI; docs/BENCHMARKS.md, "steal: UTS on
# thousands of simulated ranks"). `ballast simulate-uts` runs the real UTS
# trees (SHA-1 shapes them) with each node's work injected as simulated time,
# on nodes of 28 cores. Every run is measured with /usr/bin/time -v (wall
# time, maximum RSS) besides the launcher's own peak PSS, and checked
# against the published tree sizes where there are some.
#
# Usage: bench/steal/uts-smpi.sh [BUILD_DIR] [OUT_DIR]
#   STUDIES="weak t3l"   which runs:
#     weak  weak scaling: the T1L family -t 1 -a 3 -d 13 -r 29 with the root
#           branching factor grown with the ranks (-b 2.82, 3.1, 3.38, 3.79,
#           4 at 28, 112, 448, 1792, 3584 ranks: 27,000-33,000 nodes per
#           rank) and a fixed cost of NODE_COST s per node; the 3,584-rank
#           point is T1L itself (-b 4)
#     t3l   T3L (-t 0 -b 2000 -q 0.200014 -m 5 -r 7) at T3L_RANKS, strong
#           scaling: the node cost gives each rank T3L_WORK s of work, and a
#           task checks every 3 nodes or every SLICE, whichever is longer
#   POLICIES="smallworld random"
#   T3L_RANKS="28 112 448 1792 3584"  WEAK_RANKS="28 112 448 1792 3584"
#   NODE_COST=3.7e-5   (weak: 1.005-1.18 s of work per rank)
#   T3L_WORK=10        (t3l: seconds of work per rank)
#   SLICE=1e-4         simulated work between two checks (split, poll) of a task
#   TIMEOUT=1200       seconds a simulation may take before it is stopped
#   Every run's time constants follow its slice: a thief waiting for its
#   answer polls every POLL slices (--poll-interval; an idle rank's naps
#   start there), and a thief that found nothing retries within BACKOFF
#   slices (--backoff-max, also the longest nap of an idle rank):
#   WEAK_POLL=1 WEAK_BACKOFF=2.5   (weak)
#   T3L_POLL=0.1 T3L_BACKOFF=1     (t3l: a stolen binomial subtree is a few
#                                   dozen nodes, so a thief's wait counts
#                                   many times over; docs/BENCHMARKS.md)
#   EXTRA=""           further UTS flags for every run
#   NOCSV=1            do not write the CSV (a later call writes it from every run)
# Output: OUT_DIR/RUN.json and RUN.time per run, OUT_DIR/uts-smpi.csv (one
# row per run, written from those) and its picture OUT_DIR/uts-smpi.png,
# one line per run on stdout.
set -euo pipefail
build=${1:-build}
out=${2:-build/uts-smpi}
STUDIES=${STUDIES:-"weak t3l"}
POLICIES=${POLICIES:-"smallworld random"}
SLICE=${SLICE:-1e-4}
TIMEOUT=${TIMEOUT:-1200}
EXTRA=${EXTRA:-}
T3L_RANKS=${T3L_RANKS:-"28 112 448 1792 3584"}
WEAK_RANKS=${WEAK_RANKS:-"28 112 448 1792 3584"}
NODE_COST=${NODE_COST:-3.7e-5}
T3L_WORK=${T3L_WORK:-10}
WEAK_POLL=${WEAK_POLL:-1}
WEAK_BACKOFF=${WEAK_BACKOFF:-2.5}
T3L_POLL=${T3L_POLL:-0.1}
T3L_BACKOFF=${T3L_BACKOFF:-1}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)

slices() { # SLICE FACTOR: FACTOR slices, in seconds
  awk -v s="$1" -v f="$2" 'BEGIN {printf "%.6g", f * s}'
}

run() { # NAME RANKS SLICE POLL BACKOFF ARGS... (POLL, BACKOFF in slices)
  local name=$1 ranks=$2 slice=$3 poll backoff
  poll=$(slices "$slice" "$4")
  backoff=$(slices "$slice" "$5")
  shift 5
  # shellcheck disable=SC2086
  nice -n 10 /usr/bin/time -v -o "$out/$name.time" timeout "$TIMEOUT" \
    "$build/tools/ballast" simulate-uts --ranks "$ranks" "$@" --slice "$slice" \
    --poll-interval "$poll" --backoff-max "$backoff" $EXTRA --json >"$out/$name.json"
  python3 "$here/uts-smpi-row.py" "$out/$name.json" "$out/$name.time"
}

weak_b() {
  case $1 in 28) echo 2.82 ;; 112) echo 3.1 ;; 448) echo 3.38 ;; 1792) echo 3.79 ;; 3584) echo 4 ;;
  *) echo "uts-smpi.sh: no weak-scaling tree for $1 ranks" >&2; exit 2 ;; esac
}

for study in $STUDIES; do
  for pol in $POLICIES; do
    case $study in
    t3l) for p in $T3L_RANKS; do
        # 3 node costs (T3L_WORK x P / 111,345,631 each) or SLICE
        slice=$(awk -v w="$T3L_WORK" -v p="$p" -v s="$SLICE" \
          'BEGIN {c = 3 * w * p / 111345631; printf "%.6g", (c > s ? c : s)}')
        run "t3l-$p-$pol" "$p" "$slice" "$T3L_POLL" "$T3L_BACKOFF" -t 0 -b 2000 -q 0.200014 -m 5 -r 7 --policy "$pol" \
          --work-per-rank "$T3L_WORK"
      done ;;
    weak) for p in $WEAK_RANKS; do
        run "weak-$p-$pol" "$p" "$SLICE" "$WEAK_POLL" "$WEAK_BACKOFF" -t 1 -a 3 -d 13 -b "$(weak_b "$p")" -r 29 --policy "$pol" \
          --node-cost "$NODE_COST"
      done ;;
    *) echo "uts-smpi.sh: unknown study $study" >&2; exit 2 ;;
    esac
  done
done
[ -n "${NOCSV:-}" ] || {
  python3 "$here/uts-smpi-row.py" --csv "$out"/*.json >"$out/uts-smpi.csv"
  "$here/uts-smpi-plot.sh" "$out/uts-smpi.csv" "$out/uts-smpi.png"
}
