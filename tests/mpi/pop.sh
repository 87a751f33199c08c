#!/usr/bin/env bash
# ballast pop end to end:
#   fortran PROGRAM   an unmodified Fortran program (pop_fortran.F90, with
#                     module mpi or mpi_f08: rank r sleeps (r + 1) x 300 ms,
#                     then MPI_Allreduce, 3 times) on 4 ranks: LB within 2%
#                     of (P + 1) / (2P) = 0.625, CE within 2% of 1, every
#                     rank's 9 calls counted (3 x MPI_Allreduce,
#                     MPI_Iprobe, MPI_Test; Fortran reaches the C
#                     PMPI layer directly, past the C wrappers), --csv and
#                     --plot written
#   heat HEAT         `ballast heat` under a constant competing load on
#                     rank 1 (slowdown 2), balanced (string) and not (off),
#                     with --poll-interval 0 so that its waits are
#                     MPI_Waitall rather than MPI_Test loops with naps:
#                     pop's figures against heat's own efficiency, within
#                     1% once heat's reported late wake-ups and its
#                     shorter window are accounted for (docs/pop.md,
#                     "heat's efficiency and pop's figures")
#   uts UTS           `ballast uts` (2 ranks, no sequential baseline):
#                     pop's elapsed, useful and MPI time against uts's
#                     time, task time and time outside tasks, and the
#                     polls (MPI_Iprobe, MPI_Test) counted
# Usage: pop.sh MODE POP MPIEXEC OVERSUBSCRIBE_FLAG PROGRAM
set -euo pipefail
what=$1 pop=$2 mpiexec=$3 oversub=$4 prog=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Waiting ranks yield the CPU: 4 ranks share 2 cores, and a rank spinning
# in MPI would delay the wake-up of a sleeping one.
export OMPI_MCA_mpi_yield_when_idle=1

case $what in
fortran)
  # shellcheck disable=SC2086
  "$pop" --json --csv "$tmp/r.csv" --plot "$tmp/r.png" -- "$mpiexec" -n 4 $oversub "$prog" 300 3 >"$tmp/out.json"
  test -s "$tmp/r.png" || { echo "FAIL: no --plot" >&2; exit 1; }
  # --region: the one asked for, or exit 1 naming it (the report is read)
  # shellcheck disable=SC2086
  "$pop" --region global -- "$mpiexec" -n 2 $oversub "$prog" 1 1 >"$tmp/region.txt"
  grep -q '^global ' "$tmp/region.txt" || { echo "FAIL: --region global" >&2; exit 1; }
  # shellcheck disable=SC2086
  if "$pop" --region nope -- "$mpiexec" -n 2 $oversub "$prog" 1 1 >/dev/null 2>"$tmp/err"; then
    echo "FAIL: --region nope succeeded" >&2; exit 1
  fi
  grep -q "^ballast-pop: --region: no region 'nope' in the report" "$tmp/err" ||
    { echo "FAIL: --region nope: $(cat "$tmp/err")" >&2; exit 1; }
  python3 - "$tmp/out.json" "$tmp/r.csv" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
g = d["regions"][0]
assert g["name"] == "global" and g["ranks"] == 4, g
print("LB %.4f CE %.4f PE %.4f" % (g["load_balance"], g["communication_efficiency"], g["parallel_efficiency"]))
assert abs(g["load_balance"] - 0.625) <= 0.02 * 0.625, g["load_balance"]
assert abs(g["communication_efficiency"] - 1) <= 0.02, g["communication_efficiency"]
# per iteration MPI_Allreduce, MPI_Iprobe and MPI_Test: 3 x 3 calls
assert [r["calls"] for r in g["per_rank"]] == [9] * 4, "Fortran calls not all measured"
# Each rank's useful time is its sleeping, which a loaded machine
# stretches at every wake-up (up to 26 ms each, measured at load 27 on
# these 2 cores): 2% plus 40 ms per sleep for one rank. The figures above
# are ratios over seconds-long sleeps, so 300 ms steps keep them in 2%.
for k, r in enumerate(g["per_rank"]):
    want = 0.9 * (k + 1)
    assert abs(r["useful_s"] - want) <= 0.02 * want + 3 * 0.04, (k, r)
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 4 and rows[3]["region"] == "global", rows
PY
  ;;
heat)
  for bal in off string; do
    # shellcheck disable=SC2086
    "$pop" --json -- "$mpiexec" -n 4 $oversub "$prog" --json --ny 200 --iterations 30 \
      --row-time 0.002 --load constant --loaded-ranks 1 --slowdown 2 --poll-interval 0 \
      --balancer $bal >"$tmp/pop-$bal.json" 2>"$tmp/heat-$bal.out"
    grep -o '^{.*}$' "$tmp/heat-$bal.out" >"$tmp/heat-$bal.json"
  done
  python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
def figures(bal):
    g = json.load(open(f"{d}/pop-{bal}.json"))["regions"][0]
    h = json.load(open(f"{d}/heat-{bal}.json"))
    # heat's efficiency on pop's measurements: useful time weighted by the
    # CPU share each rank had (1/slowdown on the loaded rank 1), over the
    # CPU time available (heat's "available").
    share = [0.5 if k == 1 else 1.0 for k in range(4)]
    S = sum(share)
    u = [r["useful_s"] for r in g["per_rank"]]
    uw = sum(s * x for s, x in zip(share, u))
    eq = uw / (g["elapsed_s"] * S)
    # The same on heat's own terms (docs/pop.md, "heat's efficiency and
    # pop's figures"): heat's sweeps end late on a loaded machine (late
    # wake-ups from the emulated row cost), which heat counts as lost and
    # pop as useful; heat reports each rank's total (late_s). And heat's
    # figure covers its sweeps (elapsed_s), pop's the run from MPI_Init to
    # MPI_Finalize, up to elapsed_s - heat's elapsed_s longer, which holds
    # between none and all of the useful time outside heat's window.
    lw = sum(s * x for s, x in zip(share, h["late_s"]))
    hi = (uw - lw) / (S * h["elapsed_s"])
    lo = hi - max(0.0, g["elapsed_s"] - h["elapsed_s"]) / h["elapsed_s"]
    print("%-6s pop LB %.4f PE %.4f on heat's terms %.4f, less heat's late wake-ups %.4f "
          "(window %.4f s longer) | heat efficiency %.4f"
          % (bal, g["load_balance"], g["parallel_efficiency"], eq, hi,
             g["elapsed_s"] - h["elapsed_s"], h["efficiency"]))
    # Same quantity, same window: 10 runs at load 6-10 agreed within 0.1%
    # (docs/pop.md), so 1% here.
    assert lo * 0.99 <= h["efficiency"] <= hi * 1.01, (lo, hi, h["efficiency"])
    return g, h, eq
g_off, h_off, eq_off = figures("off")
g_on, h_on, eq_on = figures("string")
# Without the late wake-ups taken out, the gap is the lateness, which grows
# with the machine's load: balanced gaps 0.2-4.4% and unbalanced 0.6-8.0%
# measured (docs/pop.md's tables) on this shared 2-core machine at load
# 6-11.5, so 8% and 12% here, still below the 15-22% between heat's
# efficiency and the raw LB (a different definition would fail them).
assert abs(eq_on / h_on["efficiency"] - 1) <= 0.08, (eq_on, h_on["efficiency"])
assert abs(eq_off / h_off["efficiency"] - 1) <= 0.12, (eq_off, h_off["efficiency"])
# Unbalanced: both see the imbalance the load makes (LB of useful times
# [1, 2, 1, 1] = 5/8), and balancing raises both figures.
assert abs(g_off["load_balance"] - 0.625) <= 0.05, g_off["load_balance"]
assert g_on["load_balance"] > g_off["load_balance"] + 0.2
assert h_on["efficiency"] > h_off["efficiency"] + 0.2
PY
  ;;
uts)
  # UTS T1 on 2 ranks, no sequential baseline, uts's own JSON beside pop's.
  # shellcheck disable=SC2086
  "$pop" --json -- "$mpiexec" -n 2 $oversub "$prog" -t 1 -a 3 -d 10 -b 4 -r 19 \
    --baseline-nodes 0 --json >"$tmp/pop-uts.json" 2>"$tmp/uts.out"
  grep -o '^{.*}$' "$tmp/uts.out" >"$tmp/uts.json"
  python3 - "$tmp/pop-uts.json" "$tmp/uts.json" <<'PY'
import json, os, sys
g = json.load(open(sys.argv[1]))["regions"][0]
u = json.load(open(sys.argv[2]))
P, T, work = g["ranks"], u["time_s"], u["steal"]["work_s"]
useful = sum(r["useful_s"] for r in g["per_rank"])
mpi = sum(r["mpi_s"] for r in g["per_rank"])
calls = sum(r["calls"] for r in g["per_rank"])
print(f"pop: elapsed {g['elapsed_s']:.3f} s, useful {useful:.3f} s, MPI {mpi:.4f} s in {calls} calls, "
      f"PE {g['parallel_efficiency']:.4f} | uts: time {T:.3f} s, work {work:.3f} s, "
      f"idle {u['steal']['idle_s']:.3f} s, work / (P x time) {work / (P * T):.4f}")
E = g["elapsed_s"]
# pop's run (MPI_Init to MPI_Finalize) holds uts's search: longer by the
# set-up and the end, 1-2 ms unless a loaded machine holds a rank up there.
assert E >= T - 0.001, (E, T)
# Every rank's time is useful or MPI: pop loses and invents none.
for r in g["per_rank"]:
    assert abs(r["useful_s"] + r["mpi_s"] - r["elapsed_s"]) <= 1e-3 * r["elapsed_s"] + 1e-4, r
# Task time outside the polls is useful time for pop, and the polls made
# inside tasks are part of pop's MPI time, so work - mpi <= useful whatever
# the load. On a quiet machine the polls are short and this bounds pop's
# useful time closely; on a loaded one a rank preempted inside a poll
# (every 256 nodes) accrues MPI time: at load 5-6 on 2 cores pop counted
# up to 24 s of 25 as MPI while uts counted 2 s as task time, so the
# tight bounds below are asserted only for a quiet-machine run.
assert work - mpi <= useful * 1.001 + 1e-3, (work, mpi, useful)
if os.environ.get("POP_UTS_STRICT") == "1":
    # Polls are at most 2% of task time, measured on a quiet machine.
    assert useful >= 0.98 * work, (useful, work)
    # pop's MPI time is spent outside tasks but for those same polls.
    assert mpi <= P * E - work + 0.02 * P * T, (mpi, P * E - work)
# The polls are measured: without the MPI_Test/MPI_Iprobe wrappers the
# ranks made 297-403 measured calls in this run, with them 11,039-14,886
# (docs/pop.md, "Polling").
assert calls >= 2000, calls
PY
  ;;
*)
  echo "unknown mode $what" >&2
  exit 2
  ;;
esac
