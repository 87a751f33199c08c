#!/bin/bash
# `ballast malleable` follows its mask: run under `ballast node run` in a
# registry of 16 virtual CPUs (sleep work, so two cores host 16 workers),
# shrunk to 4 CPUs with `ballast node set --wait`, then grown back to 16.
# Its --json must show the workers follow: 16 active at first, then 4
# active with at most 4 workers running items (after the iteration in which
# the change landed) at about a quarter of the rate, then 16 again; its CSV
# holds the same iterations. The registry is named after this shell's pid
# and destroyed by that name on every exit; the run it started is stopped
# by pid.
# Usage: malleable.sh PATH/TO/ballast-node PATH/TO/ballast-malleable  (exit 77: no jq)
set -u
node=$1
mall=$2
if ! command -v jq >/dev/null; then
  echo "SKIP: needs jq"
  exit 77
fi
export BALLAST_NODE_REGISTRY="ballast-test-malleable-$$"
tmp=$(mktemp -d)
runner=""
cleanup() {
  [ -n "$runner" ] && kill -TERM "$runner" 2>/dev/null && wait "$runner" 2>/dev/null
  "$node" destroy >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

"$node" init --cpus 16 >/dev/null || { echo "FAIL: init"; exit 1; }
# 32 items of 2 ms: an iteration takes ~4 ms on 16 workers, ~16 ms on 4.
"$node" run --job 1 -- "$mall" --work sleep --items 32 --item-us 2000 --seconds 3 \
  --csv "$tmp/run.csv" --json >"$tmp/run.json" 2>"$tmp/run.err" &
runner=$!
pid=""
for _ in $(seq 200); do # until it has attached and polled its mask
  pid=$("$node" list --json | jq -r '.processes[] | select(.job == 1 and .attached and .applied) | .pid')
  [ -n "$pid" ] && break
  sleep 0.02
done
[ -n "$pid" ] || { echo "FAIL: ballast-malleable did not attach: $(cat "$tmp/run.err")"; exit 1; }
sleep 0.7
"$node" set "$pid" 0-3 --wait 5 >/dev/null || fail "set 0-3 --wait was not applied"
sleep 0.8
"$node" set "$pid" 0-15 --wait 5 >/dev/null || fail "set 0-15 --wait was not applied"
wait "$runner"
st=$?
runner=""
[ "$st" = 0 ] || fail "run exited $st: $(cat "$tmp/run.err")"
"$node" list --json | jq -e '.processes == [] and .free == "0-15"' >/dev/null ||
  fail "CPUs not all back after the run: $("$node" list)"

j="$tmp/run.json"
jq -e --argjson p "$pid" '.tool == "malleable" and .attached == true and .capacity == 16
  and .work == "sleep" and .items == 32 and .item_us == 2000 and .seconds == 3
  and .iterations == null and .stopped_by == "seconds" and .pid == $p
  and .iterations_run == (.per_iteration | length)' "$j" >/dev/null ||
  fail "run's parameters: $(jq -c 'del(.per_iteration)' "$j")"
# The phases, in order: [active, iterations, max workers_used after the
# first, median items/s] per run of equal `active`.
phases=$(jq -c '[(reduce .per_iteration[] as $e ([];
    if length > 0 and .[-1].a == $e.active then .[-1].it += [$e]
    else . + [{a: $e.active, it: [$e]}] end))[]
  | {a, n: (.it | length), used: ([.it[1:][] | .workers_used] | max // 0),
     rate: (.it | map(.items_per_s) | sort | .[length / 2 | floor])}]' "$j")
[ -n "$phases" ] || { echo "FAIL: no iterations in the JSON: $(head -c 300 "$j")"; exit 1; }
echo "phases: $phases"
echo "$phases" | jq -e 'map(.a) == [16, 4, 16]' >/dev/null ||
  fail "active workers went $(echo "$phases" | jq -c 'map(.a)'), expected 16 then 4 then 16"
echo "$phases" | jq -e '.[0].n >= 20 and .[1].n >= 10 and .[2].n >= 20' >/dev/null ||
  fail "too few iterations in a phase: $phases"
echo "$phases" | jq -e '.[1].used >= 1 and .[1].used <= 4' >/dev/null ||
  fail "more than 4 workers ran items while 4 were active: $phases"
echo "$phases" | jq -e '.[0].used > 4 and .[2].used > 4' >/dev/null ||
  fail "no more than 4 workers ran items with 16 active: $phases"
echo "$phases" | jq -e '(.[0].rate / .[1].rate) as $r | $r > 2 and $r < 8' >/dev/null ||
  fail "the rate did not follow the workers (16 vs 4 active): $phases"
# The CSV has the JSON's iterations.
rows=$(($(wc -l <"$tmp/run.csv") - 1))
[ "$rows" = "$(jq '.iterations_run' "$j")" ] || fail "CSV has $rows rows"
head -1 "$tmp/run.csv" | grep -qx 'iteration,t_s,time_s,active,workers_used,items_per_s' ||
  fail "CSV header: $(head -1 "$tmp/run.csv")"

[ "$fails" = 0 ] || exit 1
echo "ok"
