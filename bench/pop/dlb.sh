#!/usr/bin/env bash
# DLB_Bench with and without `ballast pop` (docs/BENCHMARKS.md, "pop:
# interception overhead"): REPS alternating pairs of runs of the same
# configuration, each timed by DLB_Bench itself (its resolution time, "resolution_s" of --json);
# prints the median of each and their ratio.
# Usage: dlb.sh BUILD_DIR [REPS] [RANKS]
set -euo pipefail
b=$1 reps=${2:-7} ranks=${3:-4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
args=(--work-per-rank 1 --tasks-per-rank 200 --work-mode sleep --json)
run() { "$@" 2>/dev/null | grep -o '^{.*}$' | tail -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["resolution_s"])'; }
without=() with=()
for ((i = 0; i < reps; i++)); do
  without+=("$(run mpiexec --oversubscribe -n "$ranks" "$b/tools/ballast-dlb-bench" "${args[@]}")")
  with+=("$(run "$b/tools/ballast-pop" -- mpiexec --oversubscribe -n "$ranks" "$b/tools/ballast-dlb-bench" "${args[@]}")")
done
python3 - "${without[*]}" "${with[*]}" <<'PY'
import statistics, sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
ma, mb = statistics.median(a), statistics.median(b)
print("without: median %.4f s %s" % (ma, a))
print("with ballast pop: median %.4f s %s" % (mb, b))
print("ratio %.4f" % (mb / ma))
PY
