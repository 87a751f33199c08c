#!/bin/bash
# The replay benchmark of SD-Policy on a stock SLURM: a window of 100
# consecutive jobs of KTH-SP2 (chosen by slurm/bench/find-window.sh, see
# docs/BENCHMARKS.md) replayed live by `ballast slurm-replay` under EASY and
# SD-Policy on an 8 x 8 sandbox with the SPANK plugin, and the simulator's
# figures for the same scaled trace beside each. Writes POLICY.json (the
# replay's --json), POLICY/jobs.csv and POLICY/slurm-sd.log under OUT.
# Usage: replay-window.sh TRACE.swf.gz [OUT]   (root; about 15 min per policy)
set -u
trace=${1:?usage: replay-window.sh KTH-SP2-1996-2.1-cln.swf.gz [OUT]}
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
  "$tools/ballast-slurm-replay" "$trace" --from 6863 --count 100 --speedup 200 \
    --nodes 8 --cpus 8 --policy "$policy" --out-dir "$out/$policy" \
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
