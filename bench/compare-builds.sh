#!/usr/bin/env bash
# Wall time of the figures in docs/BENCHMARKS.md that a change to the library
# or the tools can move, for two builds of Ballast side by side: the runs
# alternate OLD, NEW, OLD, NEW, ... so both see the same machine, and each
# line reports the median of REPS runs per build and the ratio NEW / OLD.
#
#   bench/compare-builds.sh OLD_BUILD_DIR NEW_BUILD_DIR [REPS]   (default 5)
#
# A build directory is the CMake build tree (the programs are in tools/).
# The swf logs are read from ../shared/data/swf (SWF_DIR overrides); lines
# whose program is missing from either build are skipped with a note.
set -euo pipefail
old=${1:?usage: compare-builds.sh OLD_BUILD NEW_BUILD [REPS]}
new=${2:?usage: compare-builds.sh OLD_BUILD NEW_BUILD [REPS]}
reps=${3:-5}
D=${SWF_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data/swf}

# name | program | arguments
cases=(
  "sched easy, Curie part. 10|sched|--policy easy --partition 10 --nodes 5040 --cores-per-node 16 $D/CEA-Curie-2011-2.1-cln.swf.gz"
  "sched sd, Curie part. 10|sched|--policy sd --partition 10 --nodes 5040 --cores-per-node 16 $D/CEA-Curie-2011-2.1-cln.swf.gz"
  "sched sd inf, Curie part. 10|sched|--policy sd --max-slowdown inf --partition 10 --nodes 5040 --cores-per-node 16 $D/CEA-Curie-2011-2.1-cln.swf.gz"
  "sched easy, Thunder|sched|--policy easy $D/LLNL-Thunder-2007-1.1-cln.swf.gz"
  "sched sd, Thunder|sched|--policy sd $D/LLNL-Thunder-2007-1.1-cln.swf.gz"
  "sched easy, KTH-SP2|sched|--policy easy $D/KTH-SP2-1996-2.1-cln.swf.gz"
  "overlay N=100000 (build+routes)|overlay|--nodes 100000 --pairs 100000 --local-samples 100 --json"
  "dlb-bench 16 ranks, smallworld|dlb-bench|--ranks 16 --policy smallworld --work-per-rank 1 --tasks-per-rank 200 --work-mode sleep --json"
  "simulate-dlb 448 ranks, smallworld|simulate-dlb|--ranks 448 --policy smallworld --work-per-rank 5 --bytes-per-rank 3e7 --tasks-per-rank 100 --distribution gaussian --seed 1 --slice 0.002 --json"
)

wall() { # PROGRAM ARGS...: prints the wall seconds of one run
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; return 1; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'
}
# shellcheck source=median.sh
. "$(dirname "$0")/median.sh"

printf '%-34s %10s %10s %8s\n' "run (median of $reps)" "old (s)" "new (s)" "new/old"
for c in "${cases[@]}"; do
  IFS='|' read -r name prog args <<<"$c"
  po=$old/tools/ballast-$prog pn=$new/tools/ballast-$prog
  if [ ! -x "$po" ] || [ ! -x "$pn" ]; then echo "$name: skipped (no ballast-$prog in both builds)"; continue; fi
  to=() tn=()
  for ((r = 0; r < reps; r++)); do
    # shellcheck disable=SC2086 # the arguments are words on purpose
    to+=("$(wall "$po" $args)")
    # shellcheck disable=SC2086
    tn+=("$(wall "$pn" $args)")
  done
  mo=$(printf '%s\n' "${to[@]}" | median) mn=$(printf '%s\n' "${tn[@]}" | median)
  printf '%-34s %10.3f %10.3f %8.3f\n' "$name" "$mo" "$mn" "$(awk -v a="$mo" -v b="$mn" 'BEGIN {print b / a}')"
done
