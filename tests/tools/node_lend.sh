#!/bin/bash
# shellcheck disable=SC2016 # jq filters: $a and $b are jq's variables
# `ballast node list` shows lending (docs/node.md, "Lending"): on a
# registry of 4 virtual CPUs, A (job 1, CPUs 0-1) lends, B (job 2, CPUs
# 2-3) borrows at its poll, A reclaims, B gives back at its next poll, and
# a SIGKILLed borrower leaves the lent CPUs to borrow again. Each state is
# read from `list --json` (exact masks and pids) and from the table. The
# two processes are tests/tools/node_lender.c, driven line by line; the
# registry is named after this shell's pid and the clock and destroyed by
# that exact name on every exit, the helpers stopped by pid.
# Usage: node_lend.sh PATH/TO/ballast-node PATH/TO/node_lender   (exit 77: no jq)
set -u
node=$1 helper=$2
if ! command -v jq >/dev/null; then
  echo "SKIP: needs jq"
  exit 77
fi
BALLAST_NODE_REGISTRY="ballast-test-node-lend-$$-$(date +%s%N)"
export BALLAST_NODE_REGISTRY
pids=""
tmp=$(mktemp -d)
cleanup() {
  for p in $pids; do kill -KILL "$p" 2>/dev/null; done
  for p in $pids; do wait "$p" 2>/dev/null; done
  "$node" destroy --registry "$BALLAST_NODE_REGISTRY" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
"$node" init --registry "$BALLAST_NODE_REGISTRY" --cpus 4 >/dev/null || exit 1

# start NAME JOB CPULIST: a helper fed through fifos; sets NAME_PID and
# the fds NAME_IN, NAME_OUT
start() {
  local name=$1 p fin fout line
  mkfifo "$tmp/$name.in" "$tmp/$name.out"
  "$helper" "$BALLAST_NODE_REGISTRY" "$2" "$3" <"$tmp/$name.in" >"$tmp/$name.out" &
  p=$!
  pids="$pids $p"
  exec {fin}>"$tmp/$name.in" {fout}<"$tmp/$name.out"
  printf -v "${name}_PID" %s "$p"
  printf -v "${name}_IN" %s "$fin"
  printf -v "${name}_OUT" %s "$fout"
  if ! read -r -t 10 line <&"$fout" || [ "$line" != attached ]; then
    echo "FAIL: $name: '$line'"
    exit 1
  fi
}
# say NAME COMMAND EXPECTED: one command, its one-line answer checked
say() {
  local in="${1}_IN" out="${1}_OUT" line
  echo "$2" >&"${!in}"
  read -r -t 10 line <&"${!out}"
  [ "$line" = "$3" ] || fail "$1 $2: answered '$line', expected '$3'"
}
list() { "$node" list --json; }
expect() { # JQ-FILTER WHAT
  list | jq -e --argjson a "$A_PID" --argjson b "$B_PID" "$1" >/dev/null || fail "$2: $(list)"
}

start A 1 0-1
start B 2 2-3
expect '.lent_unused == "" and ([.processes[] | .lends] == ["", ""])
  and ([.processes[] | .uses_lent] == [[], []])' "nothing lent at first"

say A lend "lent 2"
expect '.lent_unused == "0-1" and (.processes[] | select(.pid == $a) | .lends == "0-1"
  and .cpus == "0-1") and (.processes[] | select(.pid == $b) | .uses_lent == [])' \
  "A lends 0-1, nobody uses them yet"
"$node" list | grep -q "lent and unused: 0-1" || fail "table: lent and unused: $("$node" list)"

say B poll "mask 0-3"
expect '.lent_unused == "" and (.processes[] | select(.pid == $a) | .lends == "0-1")
  and (.processes[] | select(.pid == $b) | .uses_lent == [{"from_pid": $a, "cpus": "0-1"}]
  and .cpus == "2-3" and .lends == "")' "B borrowed A's 0-1"
# The table: A's row lends 0-1, B's uses 0-1 of A
table=$("$node" list)
echo "$table" | awk -v a="$A_PID" '$1 == a && $7 == "0-1" && $8 == "-" {ok = 1} END {exit !ok}' ||
  fail "table: A's row: $table"
echo "$table" | awk -v b="$B_PID" -v want="0-1 of $A_PID" '$1 == b && $7 == "-" && ($8 " " $9 " " $10) == want {ok = 1} END {exit !ok}' ||
  fail "table: B's row: $table"

say A reclaim "reclaimed 2"
expect '.lent_unused == "" and ([.processes[] | .lends] == ["", ""])' "A reclaimed"
say B poll "mask 2-3"
expect '([.processes[] | .uses_lent] == [[], []])' "B gave 0-1 back"

# A borrower killed with SIGKILL: the CPUs it used are lent again, unused.
say A lend "lent 2"
say B poll "mask 0-3"
kill -KILL "$B_PID"
wait "$B_PID" 2>/dev/null
expect '.lent_unused == "0-1" and (.processes | length) == 1
  and (.processes[0] | .pid == $a and .lends == "0-1" and .uses_lent == [])' \
  "a killed borrower's CPUs are lent, unused"
say A reclaim "reclaimed 2"
expect '.lent_unused == "" and .processes[0].lends == "" and .free == "2-3"' "A reclaimed at the end"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "node list shows lending: passed"
