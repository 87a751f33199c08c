#!/usr/bin/env bash
# `ballast simulate-uts` end to end: UTS, built by smpicc, on simulated
# ranks; the published T1 tree counted exactly (the tool also checks the
# parallel count against its sequential one) under every stealing policy
# with the node cost injected as simulated time; the --json and --csv
# outputs; errors naming the flag.
# Usage: simulate_uts.sh BALLAST_SIMULATE_UTS_BINARY
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" --help | grep -q -- "--cores-per-node" || fail "--help"
"$bin" --version | grep -q "Ballast" || fail "--version"

# T1 (4,130,071 nodes, 3,305,118 leaves, depth 10) on 16 ranks of 8-core
# nodes, 0.2 s of simulated work per rank.
for pol in smallworld random biased sharing; do
  json=$("$bin" --ranks 16 --cores-per-node 8 -t 1 -a 3 -d 10 -b 4 -r 19 --policy $pol \
    --work-per-rank 0.2 --slice 1e-3 --json --csv "$tmp/runs.csv") || fail "$pol: the simulation failed"
  jq -e '.ok and .uts.nodes == 4130071 and .uts.leaves == 3305118 and .uts.max_depth == 10 and
    .uts.simulated and .platform.ranks == 16 and .platform.nodes == 2 and
    ((.uts.work_per_rank_s - 0.2) | fabs) < 1e-9 and .uts.check_every >= 1 and
    .uts.efficiency > 0 and .uts.efficiency <= 1.0001 and .simulation.wall_s > 0' \
    <<<"$json" >/dev/null || fail "$pol: $json"
done
# Stealing spreads the tree: smallworld keeps most of 16 ranks busy.
jq -e '.uts.efficiency > 0.3' <<<"$("$bin" --ranks 16 --cores-per-node 8 -t 1 -a 3 -d 10 -b 4 \
  -r 19 --work-per-rank 0.2 --slice 1e-4 --json)" >/dev/null || fail "smallworld under 0.3"
[ "$(wc -l <"$tmp/runs.csv")" -eq 5 ] || fail "--csv: header + 4 rows, got $(wc -l <"$tmp/runs.csv")"
head -1 "$tmp/runs.csv" | grep -q "^ranks,cores_per_node,.*,idle_wait,lifelines$" || fail "--csv header"
awk -F, 'NR > 1 && ($(NF - 1) != "poll" || $NF != "0") {bad = 1} END {exit bad}' "$tmp/runs.csv" ||
  fail "--csv idle_wait and lifelines columns"
# A file of other columns (an older version's) is refused before any
# simulation, and kept as it was.
printf 'ranks,cores_per_node,latency\n4,28,1e-06\n' >"$tmp/old.csv"
cp "$tmp/old.csv" "$tmp/old.orig"
if "$bin" --ranks 4 -t 1 -a 3 -d 6 -b 4 -r 19 --csv "$tmp/old.csv" 2>"$tmp/err" >/dev/null; then
  fail "--csv of other columns accepted"
fi
grep -q -- "--csv: .*other columns" "$tmp/err" || fail "--csv of other columns: $(cat "$tmp/err")"
cmp -s "$tmp/old.csv" "$tmp/old.orig" || fail "--csv of other columns: the file changed"
# A fixed node cost: the work per rank follows from it.
json=$("$bin" --ranks 4 -t 1 -a 3 -d 6 -b 4 -r 19 --node-cost 1e-4 --json) || fail "--node-cost"
jq -e '.uts.node_cost_s == 1e-4 and ((.uts.work_per_rank_s - 1e-4 * .uts.nodes / 4) | fabs) < 1e-12' \
  <<<"$json" >/dev/null || fail "--node-cost: $json"
# Time constants not given follow the node cost: a check every 3 nodes, a
# thief's poll a tenth of that, its back-off at most one slice; given ones stay.
jq -e '((.uts.slice_s - 3e-4) | fabs) < 1e-12 and .uts.check_every == 3 and
  ((.uts.poll_interval_s - 3e-5) | fabs) < 1e-12 and ((.uts.backoff_max_s - 3e-4) | fabs) < 1e-12' \
  <<<"$json" >/dev/null || fail "time constants from the node cost: $json"
json=$("$bin" --ranks 4 -t 1 -a 3 -d 6 -b 4 -r 19 --node-cost 1e-6 --poll-interval 2e-5 --json) ||
  fail "--poll-interval"
jq -e '.uts.slice_s == 1e-4 and .uts.check_every == 100 and .uts.poll_interval_s == 2e-5 and
  ((.uts.backoff_max_s - 1e-4) | fabs) < 1e-12' <<<"$json" >/dev/null || fail "floor of the slice: $json"
# ... within bal_steal_config's limits: a small tree with much work per rank
# makes a node cost hours; the derived poll stops at 1 s, the back-off at
# 60 s (the run was refused as "invalid argument" before).
json=$("$bin" --ranks 4 -t 1 -a 3 -d 2 -b 4 -r 19 --work-per-rank 1e5 --json) ||
  fail "a node cost of hours: the run failed"
jq -e '.uts.node_cost_s > 100 and .uts.poll_interval_s == 1 and .uts.backoff_max_s == 60 and
  .uts.efficiency > 0' <<<"$json" >/dev/null || fail "capped time constants: $json"
# SMPI's CPU timers are stubbed out by default (simrun.c); the simulated
# run is the same one with them (--smpi-timers), to the last bit.
run_t1() { "$bin" --ranks 8 -t 1 -a 3 -d 8 -b 4 -r 19 --work-per-rank 0.05 --slice 1e-4 --json "$@"; }
stub=$(run_t1) || fail "stubbed timers: the simulation failed"
timed=$(run_t1 --smpi-timers) || fail "--smpi-timers: the simulation failed"
jq -e '.simulation.smpi_cpu_timers == false' <<<"$stub" >/dev/null || fail "stub not used: $stub"
jq -e '.simulation.smpi_cpu_timers == true' <<<"$timed" >/dev/null || fail "--smpi-timers: $timed"
[ "$(jq -c 'del(.simulation)' <<<"$stub")" = "$(jq -c 'del(.simulation)' <<<"$timed")" ] ||
  fail "the stub changed the simulation: $stub against $timed"
# A thief waiting in a blocking receive (--idle-wait mpi) searches the same
# tree, also when it goes dormant after two empty replies (--lifelines 2,
# then blocked until a neighbour pushes it work); the run reports both.
waited=$(run_t1 --idle-wait mpi) || fail "--idle-wait mpi: the simulation failed"
jq -e --argjson n "$(jq '.uts.nodes' <<<"$stub")" '.ok and .uts.idle_wait == "mpi" and .uts.nodes == $n and
  .uts.efficiency > 0 and .uts.efficiency <= 1.0001' <<<"$waited" >/dev/null || fail "--idle-wait mpi: $waited"
dormant=$(run_t1 --idle-wait mpi --lifelines 2) || fail "--lifelines 2: the simulation failed"
jq -e --argjson n "$(jq '.uts.nodes' <<<"$stub")" '.ok and .uts.lifelines == 2 and .uts.nodes == $n and
  .uts.efficiency > 0 and .uts.efficiency <= 1.0001' <<<"$dormant" >/dev/null || fail "--lifelines 2: $dormant"
jq -e '.uts.idle_wait == "poll"' <<<"$stub" >/dev/null || fail "idle_wait not poll by default: $stub"
# The SMPI program only runs under smpirun: it is not a `ballast` subcommand.
[ ! -e "$(dirname "$bin")/ballast-uts-smpi" ] || fail "ballast-uts-smpi next to ballast"

if "$bin" 2>"$tmp/err"; then fail "missing --ranks accepted"; fi
grep -q -- "--ranks" "$tmp/err" || fail "error names --ranks"
# UTS's flags reach UTS, which names them; the ones SMPI cannot run are refused.
for bad in "--workers 2" "--progress thread" "--idle-wait yes" "--node-cost 2" "--slice 0" "--work-per-rank 0" \
  "--baseline-nodes 100" "--bogus" "-t 7"; do
  # shellcheck disable=SC2086
  if "$bin" --ranks 4 $bad 2>"$tmp/err" >/dev/null; then fail "$bad accepted"; fi
  grep -q -- "${bad%% *}" "$tmp/err" || fail "$bad: flag not named: $(cat "$tmp/err")"
done
# ... before the simulation, once: one line however many ranks, nothing of SimGrid's.
if "$bin" --ranks 500 -d 0 2>"$tmp/err" >/dev/null; then fail "-d 0 accepted"; fi
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "-d 0 on 500 ranks: $(wc -l <"$tmp/err") lines"
echo "simulate-uts: ok"
