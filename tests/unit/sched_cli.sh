#!/usr/bin/env bash
# ballast-sched end to end on the hand-made trace: table, --json keys and
# parameters, --jobs-csv, errors naming file:line and flags, exit codes.
# Usage: sched_cli.sh BALLAST_SCHED_BINARY TEST_DATA_DIR
set -euo pipefail
bin=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" --help | grep -q -- "--max-slowdown" || fail "--help"
"$bin" --version | grep -q "Ballast" || fail "--version"
"$bin" "$data/sched_small.swf" | grep -q "average bounded slowdown" || fail "table"

json=$("$bin" --policy sd --max-slowdown inf --json --jobs-csv "$tmp/jobs.csv" "$data/sched_small.swf.gz")
for key in jobs makespan_s avg_wait_s avg_response_s avg_slowdown avg_bounded_slowdown \
  utilization malleable_jobs mates policy nodes cores_per_node partition from to first lenient \
  max_mates max_slowdown sharing_factor runtime_model core_demand malleable_fraction seed; do
  grep -q "\"$key\":" <<<"$json" || fail "--json lacks $key"
done
grep -q '"max_slowdown":"inf"' <<<"$json" || grep -q '"max_slowdown": "inf"' <<<"$json" || fail "inf echo"
[ "$(wc -l <"$tmp/jobs.csv")" -eq 6 ] || fail "--jobs-csv rows"
head -1 "$tmp/jobs.csv" | grep -q "^id,submit,start,end,nodes" || fail "--jobs-csv header"
grep -q '"nodes":10' <<<"$json" || grep -q '"nodes": 10' <<<"$json" || fail "machine from header"
"$bin" --nodes 10 --cores-per-node 1 "$data/sched_small.swf" | grep -q "rejected (too large) *2$" ||
  fail "jobs of 16 and 40 procs on 10 nodes x 1 core are rejected"

printf '; MaxNodes: 4\n; MaxProcs: 4\n1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n2 0 -1 x\n' >"$tmp/bad.swf"
if "$bin" "$tmp/bad.swf" 2>"$tmp/err"; then fail "malformed accepted"; fi
grep -q "bad.swf:4:" "$tmp/err" || fail "error names file:line: $(cat "$tmp/err")"
"$bin" --lenient "$tmp/bad.swf" | grep -q "1 malformed skipped" || fail "--lenient"
if "$bin" --max-slowdown abc "$tmp/bad.swf" 2>"$tmp/err"; then fail "bad flag accepted"; fi
grep -q -- "--max-slowdown" "$tmp/err" || fail "error names the flag"
printf '; MaxNodes: 5544\n; MaxProcs: 93312\n' >"$tmp/curie.swf"
if "$bin" "$tmp/curie.swf" 2>"$tmp/err"; then fail "undetermined machine accepted"; fi
grep -q -- "--cores-per-node" "$tmp/err" || fail "machine hint"
# only one of the two machine flags: the message names the one given and the one missing
if "$bin" --cores-per-node 7 "$tmp/curie.swf" 2>"$tmp/err"; then fail "cores 7 of 93312 accepted"; fi
grep -q -- "--cores-per-node 7 was given" "$tmp/err" && grep -q -- "give --nodes" "$tmp/err" ||
  fail "machine hint with --cores-per-node only: $(cat "$tmp/err")"

# no jobs: averages are n/a (table) and null (JSON), with a warning, exit 0
printf '; MaxNodes: 4\n; MaxProcs: 16\n' >"$tmp/empty.swf"
"$bin" "$tmp/empty.swf" >"$tmp/out" 2>"$tmp/err" || fail "empty trace: exit $?"
grep -q "average slowdown *n/a$" "$tmp/out" || fail "empty trace table: $(cat "$tmp/out")"
grep -q "no job to simulate" "$tmp/err" || fail "empty trace warning"
"$bin" --json "$tmp/empty.swf" 2>/dev/null | tr -d ' ' | grep -q '"avg_slowdown":null' ||
  fail "empty trace JSON"

# --lenient on something that is not SWF at all is a failure, not 0 jobs
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\n\x01\x02 binary\n' >"$tmp/x.png"
if "$bin" --lenient --nodes 4 --cores-per-node 4 "$tmp/x.png" 2>"$tmp/err"; then
  fail "--lenient PNG accepted"
fi
grep -q "no valid job lines" "$tmp/err" || fail "--lenient PNG message: $(cat "$tmp/err")"

# a 19-digit field is too large, not "not a number"
printf '; MaxNodes: 4\n; MaxProcs: 4\n1 0 -1 1234567890123456789 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n' \
  >"$tmp/big.swf"
if "$bin" "$tmp/big.swf" 2>"$tmp/err"; then fail "19-digit field accepted"; fi
grep -q "too large (field 4)" "$tmp/err" || fail "19 digits: $(cat "$tmp/err")"

# the replay scaling (bal_swf_scale()): docs/sched.md's tiny.swf (4 x 4)
# on 4 nodes x 8 CPUs at speedup 10: job sizes keep their share (1, 3 and 4
# nodes, now of 8 CPUs); runtimes 100, 100 and 10 s, job 3's lengthened to
# 20. Under sd, job 3 arrives at 1 s and starts at once as the guest of 1
# and 2 for 20 / 0.5 = 40 s, which slows them by 20 s. With limits in whole
# minutes its limit is 60 s, its guest limit 120 s, and mates predicted to
# end at 120 s cannot host it: it waits until 100.
printf '; MaxNodes: 4\n; MaxProcs: 16\n%s\n%s\n%s\n' \
  "1 0 -1 1000 4 -1 -1 4 1000 -1 1 1 1 -1 1 1 -1 -1" \
  "2 0 -1 1000 12 -1 -1 12 1000 -1 1 1 1 -1 1 1 -1 -1" \
  "3 10 -1 100 16 -1 -1 16 100 -1 1 1 1 -1 1 1 -1 -1" >"$tmp/tiny.swf"
scaled=(--speedup 10 --scale-to-nodes 4 --scale-to-cpus 8 --min-runtime 20)
json=$("$bin" --policy sd --json --jobs-csv "$tmp/scaled.csv" "${scaled[@]}" "$tmp/tiny.swf" | tr -d ' ')
for kv in '"nodes":4' '"cores_per_node":8' '"speedup":10' '"lengthened":1' '"lengthened_s":10' \
  '"trace_nodes":4' '"scale_to_cpus":8' '"time_unit_s":1' '"malleable_jobs":1'; do
  grep -q "$kv" <<<"$json" || fail "scaled --json lacks $kv: $json"
done
grep -q '^3,1,1,41,4,32,20,20,' "$tmp/scaled.csv" || fail "scaled job 3: $(cat "$tmp/scaled.csv")"
grep -q '^1,0,0,120,1,8,100,100,' "$tmp/scaled.csv" || fail "scaled job 1: $(cat "$tmp/scaled.csv")"
"$bin" --policy sd --jobs-csv "$tmp/minutes.csv" "${scaled[@]}" --time-unit 60 "$tmp/tiny.swf" >/dev/null
grep -q '^3,1,100,120,4,32,20,60,' "$tmp/minutes.csv" || fail "minutes job 3: $(cat "$tmp/minutes.csv")"
grep -q '^1,0,0,100,1,8,100,120,' "$tmp/minutes.csv" || fail "minutes job 1: $(cat "$tmp/minutes.csv")"
"$bin" --json "$data/sched_small.swf" | tr -d ' ' | grep -q '"scaling":null' || fail "scaling null"

echo "sched cli checks passed"
