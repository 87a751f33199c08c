#!/usr/bin/env bash
# The start-of-iteration race of lending on real CPUs (docs/node.md,
# "Lending"): tests/mpi/test_lend's 2 ranks (rank 0 with 3x rank 1's work,
# then MPI_Barrier; each a 2-worker pool on one CPU of its own), under
# `ballast pop --lend`, run alternately from several builds, REPS times
# each, and the distribution of rank 0's iteration times per build: the
# median, the mean, the 90th percentile and the share of iterations more
# than 3% above the ideal (two thirds of the median without lending, which
# is also run, from the first build, in every repetition); and how often
# rank 0's second worker joined within 1 ms of the iteration's start, i.e.
# rank 0 borrowed rank 1's CPU at entry as rank 1 returned from the
# barrier (a count, less sensitive to the machine's load than the times).
# The builds must have this test_lend (it prints worker1_start_ms).
# Usage: bench/node/lend_race.sh ITERS REPS BUILD_DIR...   (e.g. 40 3 ../old/build build)
set -euo pipefail
iters=$1 reps=$2
shift 2
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export BALLAST_NODE=1
unset BALLAST_LEND
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "start $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
# run BUILD LABEL [--lend]: one run of ITERS iterations, its times appended to $tmp/LABEL
run() {
  local b=$1 label=$2 reg
  shift 2
  reg="/ballast-bench-race-$$-$(date +%s%N)"
  "$b/tools/ballast-node" init --registry "$reg" --real >/dev/null
  BALLAST_NODE_REGISTRY=$reg "$b/tools/ballast-pop" "$@" -- mpiexec -n 2 --map-by core \
    --bind-to hwthread "$b/tests/mpi/test_lend" run "$iters" >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
  "$b/tools/ballast-node" destroy --registry "$reg" >/dev/null
  grep '^times_ms ' "$tmp/out" | cut -d' ' -f2- >>"$tmp/$label"
  grep '^worker1_start_ms ' "$tmp/out" | cut -d' ' -f2- >>"$tmp/$label.start"
}
for _ in $(seq "$reps"); do
  run "$1" off
  for k in $(seq $#); do run "${!k}" "b$k" --lend; done
done
echo "end $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp" "$@" <<'PY'
import statistics, sys
tmp, builds = sys.argv[1], sys.argv[2:]
off = [float(x) for x in open(f"{tmp}/off").read().split()]
ideal = statistics.median(off) * 2 / 3
print(f"without lending ({builds[0]}): median {statistics.median(off):.2f} ms; ideal with lending {ideal:.2f} ms")
for k, b in enumerate(builds, 1):
    t = sorted(float(x) for x in open(f"{tmp}/b{k}").read().split())
    p90 = t[int(0.9 * (len(t) - 1) + 0.5)]
    slow = sum(x > 1.03 * ideal for x in t) / len(t)
    st = [float(x) for x in open(f"{tmp}/b{k}.start").read().split()]
    joined = [x for x in st if x >= 0]
    early = sum(0 <= x < 1.0 for x in st) / len(st)
    entry = sum(0 <= x < 0.1 for x in st) / len(st)
    print(f"{b}: median {statistics.median(t):.2f} ms, mean {statistics.mean(t):.2f}, p90 {p90:.2f}, "
          f"max {t[-1]:.2f}, {100 * slow:.0f}% of {len(t)} iterations > 1.03 x ideal; rank 0's worker 1 "
          f"joined in {len(joined)} iterations, within 1 ms of the start in {100 * early:.0f}% "
          f"(within 0.1 ms, at the entry poll itself: {100 * entry:.0f}%), median join {statistics.median(joined) if joined else float('nan'):.2f} ms")
    print("  joins within 2 ms (ms):", " ".join(f"{x:.2f}" for x in sorted(x for x in joined if x < 2)))
PY
