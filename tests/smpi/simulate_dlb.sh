#!/usr/bin/env bash
# `ballast simulate-dlb` end to end: DLB_Bench, built by smpicc, on 64
# simulated ranks under every registered policy, each owner checking that
# every result came back exactly once (the program fails otherwise); the
# --json and --csv outputs; undefined figures; errors naming the flag.
# Usage: simulate_dlb.sh BALLAST_SIMULATE_DLB_BINARY
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" --help | grep -q -- "--cores-per-node" || fail "--help"
"$bin" --version | grep -q "Ballast" || fail "--version"

for dist in gaussian single; do
  json=$("$bin" --ranks 64 --cores-per-node 8 --policy all --distribution $dist \
    --work-per-rank 0.2 --tasks-per-rank 20 --bytes-per-rank 2e5 --seed 3 --json \
    --csv "$tmp/runs.csv") || fail "$dist: the simulation failed"
  tr -d ' \n' <<<"$json" | grep -q '"ok":true' || fail "$dist: not ok: $json"
  for pol in none sharing random smallworld biased; do
    tr -d ' \n' <<<"$json" | grep -q "\"policy\":\"$pol\",\"efficiency\"" || fail "$dist: no $pol run"
  done
  nruns=$(jq '.dlb.runs | length' <<<"$json")
  [ "$(tr -d ' \n' <<<"$json" | grep -o '"results_ok":true' | wc -l)" -eq $((nruns + 1)) ] ||
    fail "$dist: results not all checked ok"
  for key in ranks nodes cores_per_node core_speed latency bandwidth probe_cost wall_s peak_mb; do
    grep -q "\"$key\"" <<<"$json" || fail "--json lacks $key"
  done
done
[ "$(wc -l <"$tmp/runs.csv")" -eq $((1 + 2 * nruns)) ] ||
  fail "--csv: header + 2 x $nruns rows, got $(wc -l <"$tmp/runs.csv")"
head -1 "$tmp/runs.csv" | grep -q "^ranks,cores_per_node,.*,idle_wait,lifelines$" || fail "--csv header"
# Task inputs of 20 KB: the part beyond the kept 4 KiB is simulated traffic;
# smallworld must balance the gaussian load (16 ranks hold most tasks).
awk -F, '$5=="gaussian" && $10=="smallworld" && $11 < 0.5 {bad=1} END {exit bad}' "$tmp/runs.csv" ||
  fail "smallworld efficiency under 0.5 on 64 simulated ranks: $(cat "$tmp/runs.csv")"

# Thieves waiting in a blocking receive (--idle-wait mpi), dormant after
# three empty replies (--lifelines 3): the tasks' simulated bulk (20 KB
# inputs, past the 4 KiB a waiting rank receives unannounced) travels
# after headers, pushed or stolen; every result comes back once.
json=$("$bin" --ranks 64 --cores-per-node 8 --policy smallworld,random --idle-wait mpi --lifelines 3 \
  --work-per-rank 0.2 --tasks-per-rank 20 --bytes-per-rank 2e5 --seed 3 --json --csv "$tmp/runs.csv") ||
  fail "--idle-wait mpi: the simulation failed"
jq -e '.ok and .dlb.idle_wait == "mpi" and .dlb.lifelines == 3 and all(.dlb.runs[]; .results_ok and .efficiency > 0.5)' \
  <<<"$json" >/dev/null || fail "--idle-wait mpi: $json"
# The --csv rows say how thieves waited: poll above, mpi with lifelines
# after 3 empty replies for the two rows here.
[ "$(awk -F, 'NR > 1 {print $(NF - 1) "/" $NF}' "$tmp/runs.csv" | sort | uniq -c | tr -s ' ' |
  sed 's/^ //' | tr '\n' ' ')" = "2 mpi/3 $((2 * nruns)) poll/0 " ] ||
  fail "--csv idle_wait and lifelines columns: $(cat "$tmp/runs.csv")"

# Iterations on one balancer with a drifting load (sharing then groups by
# the work measured in the previous iteration): every result of every
# iteration comes back exactly once, and the run's figures are the totals
# of iterations 2..3.
json=$("$bin" --ranks 64 --cores-per-node 8 --policy sharing,smallworld --iterations 3 \
  --drift 0.5 --work-per-rank 0.1 --tasks-per-rank 20 --bytes-per-rank 2e5 --seed 5 --json) ||
  fail "--iterations 3: the simulation failed"
jq -e '.dlb as $d | $d.iterations == 3 and ($d.runs | length) == 2 and
  all($d.runs[]; .results_ok and .executions == 3 * $d.tasks and (.iterations | length) == 3 and
      ((.resolution_s - (.iterations[1].resolution_s + .iterations[2].resolution_s)) | fabs) < 1e-9)' \
  <<<"$json" >/dev/null || fail "--iterations 3: $json"
if "$bin" --ranks 4 --iterations 0 2>"$tmp/err" >/dev/null; then fail "--iterations 0 accepted"; fi
grep -q -- "--iterations" "$tmp/err" || fail "DLB_Bench names --iterations"

# No task: the efficiency is undefined, null in JSON and n/a in the table,
# with a warning.
json=$("$bin" --ranks 4 --cores-per-node 2 --work-per-rank 0 --tasks-per-rank 0 --json 2>"$tmp/err") ||
  fail "no tasks: the simulation failed"
jq -e '.dlb.efficiency == null and all(.dlb.runs[]; .efficiency == null and .results_ok)' \
  <<<"$json" >/dev/null || fail "no tasks: efficiency not null: $json"
grep -q "no tasks" "$tmp/err" || fail "no tasks: no warning"
"$bin" --ranks 4 --cores-per-node 2 --work-per-rank 0 --tasks-per-rank 0 2>/dev/null |
  grep -q "smallworld *n/a" || fail "no tasks: table does not say n/a"
# More memory than the machine has: refused before the simulation starts,
# naming the flag (exit 1, not a crash inside SimGrid).
if "$bin" --ranks 4 --bytes-per-rank 1e12 >/dev/null 2>"$tmp/err"; then fail "1 TB accepted"; fi
grep -q -- "--bytes-per-rank" "$tmp/err" || fail "memory: flag not named: $(cat "$tmp/err")"
# The SMPI program only runs under smpirun: it is not a `ballast` subcommand.
[ ! -e "$(dirname "$bin")/ballast-dlb-bench-smpi" ] || fail "ballast-dlb-bench-smpi next to ballast"

if "$bin" 2>"$tmp/err"; then fail "missing --ranks accepted"; fi
grep -q -- "--ranks" "$tmp/err" || fail "error names --ranks"
if "$bin" --ranks 4 --latency -1 2>"$tmp/err"; then fail "bad --latency accepted"; fi
grep -q -- "--latency" "$tmp/err" || fail "error names --latency"
if "$bin" --ranks 4 --work-mode sleep 2>"$tmp/err"; then fail "--work-mode sleep accepted"; fi
grep -q -- "--work-mode" "$tmp/err" || fail "error names --work-mode"
if "$bin" --ranks 4 --poll-interval 0 2>"$tmp/err" >/dev/null; then fail "--poll-interval 0 accepted"; fi
grep -q -- "--poll-interval" "$tmp/err" || fail "DLB_Bench names --poll-interval"
# A DLB_Bench flag it does not know itself reaches DLB_Bench, which names it.
if "$bin" --ranks 4 --bogus 2>"$tmp/err" >/dev/null; then fail "--bogus accepted"; fi
grep -q -- "--bogus" "$tmp/err" || fail "DLB_Bench names --bogus: $(cat "$tmp/err")"
echo "simulate-dlb: ok"
