#!/bin/bash
# The replay benchmark of SD-Policy on a stock SLURM: a window of a log
# replayed live by `ballast slurm-replay` under EASY and SD-Policy on an
# 8 x 8 sandbox with the SPANK plugin, and the simulator's figures for the
# same scaled trace beside each. The window is given (--from, --count,
# --speedup, as found by slurm/bench/find-window.sh); for KTH-SP2's log the
# default is the window of docs/BENCHMARKS.md (jobs 6863.., 100, speedup
# 200). Both policies replay one scaled trace (the replay's fixed
# --min-runtime). Writes POLICY.json (the replay's --json),
# POLICY/jobs.csv and POLICY/slurm-sd.log under OUT.
# Usage: replay-window.sh [--from ID --count N --speedup K] [--min-runtime S]
#                         TRACE.swf[.gz] [OUT]   (root; about 15 min per policy)
set -u
usage() { echo "usage: replay-window.sh [--from ID --count N --speedup K] [--min-runtime S] TRACE.swf[.gz] [OUT]" >&2; exit 2; }
from= count= speedup= minrt=()
while [ $# -gt 0 ]; do
  case $1 in
    --from) [ $# -ge 2 ] || usage; from=$2; shift 2 ;;
    --count) [ $# -ge 2 ] || usage; count=$2; shift 2 ;;
    --speedup) [ $# -ge 2 ] || usage; speedup=$2; shift 2 ;;
    --min-runtime) [ $# -ge 2 ] || usage; minrt=(--min-runtime "$2"); shift 2 ;;
    -*) usage ;;
    *) break ;;
  esac
done
trace=${1:-}
[ -n "$trace" ] || usage
if [ -z "$from$count$speedup" ]; then
  case $(basename "$trace") in
    KTH-SP2-1996-2.1-cln.swf|KTH-SP2-1996-2.1-cln.swf.gz) from=6863 count=100 speedup=200 ;;
    *) echo "replay-window.sh: $trace: give the window (--from, --count, --speedup; slurm/bench/find-window.sh finds one)" >&2; exit 2 ;;
  esac
fi
[ -n "$from" ] && [ -n "$count" ] && [ -n "$speedup" ] || { echo "replay-window.sh: --from, --count and --speedup go together" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
tools=${BALLAST_TOOLS:-$root/build/tools}
out=${2:-$(mktemp -d /tmp/ballast-replay-window-XXXXXX)}
mkdir -p "$out"
box=$out/sandbox
trap '"$root/slurm/sandbox" stop --dir "$box" >/dev/null 2>&1' EXIT
"$root/slurm/sandbox" start --nodes 8 --cpus 8 --hold --dir "$box" >/dev/null || exit $?
export SLURM_CONF=$box/slurm.conf
for policy in ${POLICIES:-easy sd}; do
  mkdir -p "$out/$policy"
  "$tools/ballast-slurm-replay" "$trace" --from "$from" --count "$count" --speedup "$speedup" \
    "${minrt[@]}" --nodes 8 --cpus 8 --policy "$policy" --out-dir "$out/$policy" \
    --jobs-csv "$out/$policy/jobs.csv" --json >"$out/$policy.json" || exit 1
  python3 - "$out/$policy.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["simulator"]
print("%-4s live: avg slowdown %.3f, bounded %.3f, makespan %.0f s, guests %d | simulator: %.3f, %.3f, %.0f s, %d | latency %.2f s, min runtime %d s, %d lengthened, lost %d"
      % (d["policy"], d["avg_slowdown"], d["avg_bounded_slowdown"], d["makespan_s"], d["malleable_jobs"],
         s["avg_slowdown"], s["avg_bounded_slowdown"], s["makespan_s"], s["malleable_jobs"],
         d["start_latency_s"], d["min_runtime"], d["lengthened"], d["lost"]))
PY
done
echo "results in $out"
