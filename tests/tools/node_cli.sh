#!/bin/bash
# `ballast node` end to end: the four scenarios of the distribution rule
# (ballast/node.h, 16 virtual CPUs, SF 0.5) reproduced with the command line
# alone — `run` admits sleeping child processes, `set` and `remove` act on
# them — with exact masks read from `list --json`; run's exit status,
# environment, --cpus refusal and signal forwarding; bad input that must
# change nothing. The registry is named after this shell's pid and destroyed
# by that exact name on every exit; the runs it started are stopped by pid.
# With JOB (examples/node_job.c), also a job that attaches when run starts it
# and follows its mask: it finds its admitted CPUs, and `set --wait` returns
# once it has applied the new mask.
# Usage: node_cli.sh PATH/TO/ballast-node [JOB]   (exit 77: no jq)
set -u
node=$1
job=${2:-}
if ! command -v jq >/dev/null; then
  echo "SKIP: needs jq"
  exit 77
fi
export BALLAST_NODE_REGISTRY="ballast-test-node-cli-$$"
main_registry=$BALLAST_NODE_REGISTRY
real_registry="ballast-test-node-cli-real-$$"
group_registry="ballast-test-node-cli-group-$$"
tmp=$(mktemp -d)
runners=""
cleanup() {
  for p in $runners; do kill -TERM "$p" 2>/dev/null; done
  for p in $runners; do wait "$p" 2>/dev/null; done
  "$node" destroy --registry "$main_registry" >/dev/null 2>&1
  "$node" destroy --registry "$real_registry" >/dev/null 2>&1
  "$node" destroy --registry "$group_registry" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

list() { "$node" list --json; }
# The mask of job $1's process ("" if none).
mask() { list | jq -r --argjson j "$1" '[.processes[] | select(.job == $j) | .cpus] | join(" ")'; }
pid_of() { list | jq -r --argjson j "$1" '.processes[] | select(.job == $j) | .pid'; }
expect_mask() { # JOB WANT WHAT
  local got
  got=$(mask "$1")
  [ "$got" = "$2" ] || fail "$3: job $1 holds '$got', expected '$2'"
}
# Start `run --job J ARGS -- sleep 60` in the background; wait until admitted.
start() { # VAR JOB [FLAGS...]
  local var=$1 job=$2
  shift 2
  "$node" run --job "$job" "$@" -- sleep 60 &
  local p=$!
  runners="$runners $p"
  eval "$var=$p"
  for _ in $(seq 100); do
    [ -n "$(pid_of "$job")" ] && return 0
    kill -0 "$p" 2>/dev/null || break
    sleep 0.05
  done
  fail "job $job was not admitted"
}
# Stop a runner with SIGTERM (passed on to its sleep): it gives the CPUs
# back and exits with the sleep's status, 128 + 15.
stop() { # RUNNER_PID
  kill -TERM "$1"
  wait "$1"
  local st=$?
  [ "$st" = 143 ] || fail "run stopped by SIGTERM exited $st, expected 143"
  runners=$(echo "$runners" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
}
cpu_invariant() { # every CPU in at most one mask, and the free list completes them
  local j
  j=$(list)
  echo "$j" | jq -e '
    def expand: if . == "" then [] else split(",") | map(split("-") | map(tonumber)
      | if length == 1 then [.[0]] else [range(.[0]; .[1] + 1)] end) | add end;
    ([.processes[].cpus | expand] | add // []) as $held
    | ($held | length) == ($held | unique | length)
    and (($held + (.free | expand)) | sort) == [range(0; .node_cpus)]' >/dev/null ||
    fail "invariant broken: $j"
}

"$node" init --cpus 16 --json >"$tmp/init.json" || fail "init"
jq -e --arg r "$BALLAST_NODE_REGISTRY" '.tool == "node" and .command == "init" and .registry == $r
  and .cpus == 16 and .real == false and .sharing_factor == 0.5 and .group == null
  and .node_cpus == 16 and .virtual == true' "$tmp/init.json" >/dev/null ||
  fail "init --json: $(cat "$tmp/init.json")"
"$node" init --cpus 16 2>"$tmp/err"
[ $? = 1 ] && grep -q "exists already" "$tmp/err" || fail "a second init: $(cat "$tmp/err")"
list | jq -e '.free == "0-15" and .processes == []' >/dev/null || fail "empty list: $(list)"

# Scenario 1: A (1 rank) holds 0-15; admit B: A 0-7, B 8-15; B ends: A 0-15.
start A 1
expect_mask 1 "0-15" "A alone"
start B 2
expect_mask 1 "0-7" "A after admitting B"
expect_mask 2 "8-15" "B admitted"
list | jq -e '.processes[] | select(.job == 2) | .borrowed == [{"from_job": 1, "cpus": "8-15"}]
  and .attached == false and .ncpus == 8' >/dev/null || fail "B's borrowed CPUs: $(list)"
cpu_invariant
stop "$B"
expect_mask 1 "0-15" "A after B ended"
expect_mask 2 "" "B gone"

# Scenario 2: same, A ends while B runs: B 0-15.
start B 2
stop "$A"
expect_mask 2 "0-15" "B after A ended"
cpu_invariant
stop "$B"
list | jq -e '.free == "0-15" and .processes == []' >/dev/null || fail "all free: $(list)"

# Scenario 3: A (12 ranks) holds 0-15; admit B: A 0-11, B 12-15; B ends: A 0-15.
start A 1 --ranks 12
start B 2
expect_mask 1 "0-11" "A (12 ranks) after admitting B"
expect_mask 2 "12-15" "B next to a 12-rank job"
# A 12-rank job on 12 CPUs lends nothing and no CPU is free: a guest next
# to it gets no CPU, CMD does not run, nothing changes.
before=$(list)
"$node" run --job 4 --next-to 1 -- touch "$tmp/ran" 2>"$tmp/err"
st=$?
[ $st = 1 ] || fail "run with nothing to give exited $st, expected 1"
grep -q "no CPU for CMD" "$tmp/err" || fail "run refused: $(cat "$tmp/err")"
[ -e "$tmp/ran" ] && fail "CMD ran although not admitted"
[ "$(list)" = "$before" ] || fail "a refused run changed the registry"
stop "$B"
expect_mask 1 "0-15" "A (12 ranks) after B ended"
stop "$A"

# Scenario 4: A holds 0-7, C holds 8-15 (both their own), admit B next to
# both: A 0-3, C 8-11, B 4-7 and 12-15; B ends: A 0-7, C 8-15. The starting
# point is reached with run and set alone.
start A 1
pa=$(pid_of 1)
"$node" set "$pa" 0-7 --json | jq -e --argjson p "$pa" '.pid == $p and .cpus == "0-7"
  and .wait_s == 0 and .applied == null' >/dev/null || fail "set A 0-7 --json"
start C 3
expect_mask 3 "4-15" "C next to A on 0-7 (8-15 free)"
pc=$(pid_of 3)
"$node" set "$pc" 8-15 >/dev/null || fail "set C 8-15"
"$node" set "$pa" 0-7 >/dev/null || fail "set A 0-7 again"
list | jq -e '[.processes[].borrowed] == [[], []] and .free == ""' >/dev/null ||
  fail "A and C own their CPUs: $(list)"
start B 2 --next-to 1 --next-to 3
expect_mask 1 "0-3" "A after B"
expect_mask 3 "8-11" "C after B"
expect_mask 2 "4-7,12-15" "B next to A and C"
list | jq -e '.processes[] | select(.job == 2) | .borrowed ==
  [{"from_job": 1, "cpus": "4-7"}, {"from_job": 3, "cpus": "12-15"}]' >/dev/null ||
  fail "who lent what to B: $(list)"
cpu_invariant

# Bad input changes nothing (exit 2: the arguments alone are wrong; 1: the
# registry refuses).
before=$(list)
pb=$(pid_of 2)
check() { # STATUS REGEX ARGS...
  local want=$1 rx=$2
  shift 2
  "$node" "$@" >/dev/null 2>"$tmp/err"
  local st=$?
  [ "$st" = "$want" ] || fail "'$*' exited $st, expected $want"
  head -1 "$tmp/err" | grep -Eq -- "$rx" || fail "'$*' said '$(head -1 "$tmp/err")', expected /$rx/"
}
check 1 "PID: no process 999999999 in registry" set 999999999 0-3
check 1 "PID: no process 999999999" remove 999999999
check 1 "CPULIST: CPU 16 is outside the node \(CPUs 0-15\)" set "$pa" 0-16
check 2 "CPULIST: empty" set "$pa" ""
check 2 "CPULIST: '0-3,x' is not a CPU list" set "$pa" 0-3,x
check 2 "CPULIST: '3-1' is not a CPU list" set "$pa" 3-1
check 1 "CPULIST: CPU 4 is held by pid $pb \(job 2\)" set "$pa" 0-4
check 1 "--next-to: job 77 has no process" run --next-to 77 -- touch "$tmp/ran"
check 1 "--cpus: the rule gives CMD 4 CPUs \(2-3,10-11\), fewer than 5" \
  run --cpus 5 -- touch "$tmp/ran"
check 1 "no registry 'ballast-test-none-$$'" list --registry "ballast-test-none-$$"
check 2 "--registry: 'a/b' is not a registry name" list --registry a/b
[ -e "$tmp/ran" ] && fail "CMD ran although refused"
[ "$(list)" = "$before" ] || fail "bad input changed the registry: $before -> $(list)"
(unset BALLAST_NODE_REGISTRY && check 2 "--registry is required" list) || true

# set --wait on a process that never polls (sleep does not attach): the mask
# is set, the wait times out (exit 1), --json says applied false.
"$node" set "$pa" 0-2 --wait 0.2 --json >"$tmp/set.json" 2>"$tmp/err"
[ $? = 1 ] || fail "set --wait on a process that never polls should time out"
grep -q -- "--wait: pid $pa has not applied the mask within 0.2 s" "$tmp/err" ||
  fail "set --wait message: $(cat "$tmp/err")"
jq -e '.applied == false and .wait_s == 0.2 and .cpus == "0-2"' "$tmp/set.json" >/dev/null ||
  fail "set --wait --json: $(cat "$tmp/set.json")"
expect_mask 1 "0-2" "A after set 0-2"
cpu_invariant

# remove: A ends first, so what it held (0-2) and what it lent B (4-7) go to
# its guest B, which owns them now; CPU 3, freed by the set, stays free.
"$node" remove "$pa" --json | jq -e --argjson p "$pa" '.command == "remove" and .pid == $p' \
  >/dev/null || fail "remove --json"
expect_mask 1 "" "A removed"
expect_mask 2 "0-2,4-7,12-15" "B after its lender A was removed"
list | jq -e '.processes[] | select(.job == 2) | .borrowed == [{"from_job": 3, "cpus": "12-15"}]' \
  >/dev/null || fail "B owns what A lent it: $(list)"
stop "$A" # its sleep is no longer registered: run gives back nothing, exits 143
stop "$B"
expect_mask 3 "8-15" "C after B ended"
stop "$C"

# A job that attaches (the registry from run's environment) and polls.
if [ -n "$job" ]; then
  start A 1
  "$node" run --job 2 -- "$job" 30 >"$tmp/job.out" &
  J=$!
  runners="$runners $J"
  for _ in $(seq 100); do
    list | jq -e '.processes[] | select(.job == 2) | .attached and .applied' >/dev/null && break
    sleep 0.05
  done
  list | jq -e '.processes[] | select(.job == 2) | .attached and .applied and .cpus == "8-15"' \
    >/dev/null || fail "the job did not attach to its admitted CPUs: $(list)"
  pj=$(pid_of 2)
  grep -qx "pid $pj: CPUs 8-15" "$tmp/job.out" || fail "the job saw: $(cat "$tmp/job.out")"
  "$node" set "$pj" 8-11 --wait 5 --json >"$tmp/set.json" || fail "set --wait on a polling job"
  jq -e '.applied == true and .wait_s == 5' "$tmp/set.json" >/dev/null ||
    fail "set --wait --json: $(cat "$tmp/set.json")"
  grep -qx "pid $pj: CPUs 8-11" "$tmp/job.out" || fail "the job did not print its new mask"
  list | jq -e '.free == "12-15"' >/dev/null || fail "set freed 12-15: $(list)"
  kill -TERM "$J" # passed on: the job detaches and exits 0, and so does run
  wait "$J"
  st=$?
  [ $st = 0 ] || fail "run of a job stopped by SIGTERM exited $st, expected its 0"
  runners=$(echo "$runners" | tr ' ' '\n' | grep -vx "$J" | tr '\n' ' ')
  expect_mask 1 "0-11" "A got back what the job borrowed (12-15 stay free)"
  stop "$A"
fi

# run: CMD's exit status, the registry in its environment, --json.
"$node" run --json -- sh -c 'echo "$BALLAST_NODE_REGISTRY" >&2; exit 3' >"$tmp/run.json" 2>"$tmp/err"
st=$?
[ $st = 3 ] || fail "run exited $st, expected CMD's 3"
[ "$(cat "$tmp/err")" = "$BALLAST_NODE_REGISTRY" ] || fail "CMD's environment: $(cat "$tmp/err")"
jq -e --arg r "$BALLAST_NODE_REGISTRY" '.command == "run" and .registry == $r and .cpus == 1
  and .ranks == 1 and .next_to == [] and .argv == ["sh", "-c",
  "echo \"$BALLAST_NODE_REGISTRY\" >&2; exit 3"] and .granted == "0-15" and .status == 3
  and .job == .pid' "$tmp/run.json" >/dev/null || fail "run --json: $(cat "$tmp/run.json")"
"$node" run -- "$tmp/no-such-program" 2>"$tmp/err"
[ $? = 127 ] || fail "run of a missing program should exit 127"
grep -q "cannot run" "$tmp/err" || fail "run of a missing program: $(cat "$tmp/err")"
list | jq -e '.free == "0-15" and .processes == []' >/dev/null || fail "all free at the end: $(list)"

# SIGTERM at any moment of run (before its handlers, during admission, at
# the gate, while CMD runs) leaves no CMD running and no CPU taken. In a
# subshell without the EXIT trap: a signal that lands before bash's forked
# child has exec'd the program would run the trap there.
(
  trap - EXIT
  for i in $(seq 12); do
    "$node" run -- sh -c 'echo $$ >>"$0"; exec sleep 60' "$tmp/cmds" &
    p=$!
    [ $((i % 3)) = 0 ] && sleep "0.0$i"
    kill -TERM "$p"
    wait "$p"
    st=$?
    [ $st = 143 ] || echo "run stopped by SIGTERM at once exited $st"
  done
) >"$tmp/term.out"
[ -s "$tmp/term.out" ] && fail "$(cat "$tmp/term.out")"
sleep 0.2
for c in $(cat "$tmp/cmds" 2>/dev/null); do
  kill -0 "$c" 2>/dev/null && fail "CMD $c outlived its run" && kill "$c"
done
list | jq -e '.free == "0-15" and .processes == []' >/dev/null || fail "after SIGTERMs: $(list)"

# Real CPUs: run binds CMD to its CPUs before it starts, as taskset would
# (checked when this shell may run on every CPU of the machine).
export BALLAST_NODE_REGISTRY=$real_registry
"$node" init --real --json >"$tmp/real.json" || fail "init --real"
n=$(jq .node_cpus "$tmp/real.json")
if [ "$n" -ge 2 ] && grep -Eq "^Cpus_allowed_list:\s*0-$((n - 1))$" /proc/self/status; then
  start A 1
  expect_mask 1 "0-$((n - 1))" "A alone on the real CPUs"
  lo=$((n - n / 2)) # A keeps n - floor(n/2), the guest gets the rest
  want="$lo-$((n - 1))"
  [ "$lo" = $((n - 1)) ] && want=$lo
  "$node" run --job 2 --json -- grep Cpus_allowed_list /proc/self/status >"$tmp/real.out"
  got=$(head -1 "$tmp/real.out" | awk '{print $2}')
  granted=$(tail -1 "$tmp/real.out" | jq -r .granted)
  [ "$granted" = "$want" ] && [ "$got" = "$want" ] ||
    fail "real CPUs: granted '$granted', CMD ran on '$got', expected '$want'"
  stop "$A"
else
  echo "note: binding to real CPUs not checked (this shell may not run on every CPU)"
fi
"$node" destroy >/dev/null || fail "destroy the real-CPU registry"
export BALLAST_NODE_REGISTRY=$main_registry

# --group: mode 0660 with the group (this user's own group: always allowed).
g=$(id -gn)
"$node" init --registry "$group_registry" --cpus 4 --group "$g" --sharing-factor 1 --json \
  >"$tmp/group.json" || fail "init --group $g"
jq -e --arg g "$g" '.group == $g and .sharing_factor == 1 and .node_cpus == 4' \
  "$tmp/group.json" >/dev/null || fail "init --group --json: $(cat "$tmp/group.json")"
if [ -e "/dev/shm/$group_registry" ]; then
  [ "$(stat -c '%a %G' "/dev/shm/$group_registry")" = "660 $g" ] ||
    fail "group registry: $(stat -c '%a %G' "/dev/shm/$group_registry")"
  [ "$(stat -c '%a' "/dev/shm/$main_registry")" = 600 ] || fail "registry not 0600"
fi
"$node" destroy --registry "$group_registry" >/dev/null || fail "destroy the group registry"

# Something other than a registry under the name: each message says what
# is there and how to remove it; init and plain destroy refuse it, destroy
# --force removes the user's own object (not a directory: rmdir's job).
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  other="ballast-test-node-cli-other-$$"
  mkdir "/dev/shm/$other"
  check 1 "'$other' is a directory \(/dev/shm/$other\); remove it with 'rmdir /dev/shm/$other'" \
    list --registry "$other"
  check 1 "is a directory" init --registry "$other" --cpus 2
  check 1 "is a directory" destroy --registry "$other" --force
  rmdir "/dev/shm/$other"
  ln -s /dev/null "/dev/shm/$other"
  check 1 "'$other' is a symbolic link .*remove it with 'ballast node destroy --force --registry $other'" \
    list --registry "$other"
  check 1 "is a symbolic link" init --registry "$other" --cpus 2
  check 1 "is a symbolic link" destroy --registry "$other"
  "$node" destroy --registry "$other" --force >/dev/null || fail "destroy --force of a symlink"
  [ -L "/dev/shm/$other" ] && { fail "the symlink is still there"; rm -f "/dev/shm/$other"; }
  printf 'not a registry' >"/dev/shm/$other"
  check 1 "'$other' is an object of 14 bytes that is not a registry of this Ballast.*destroy --force" \
    set --registry "$other" 1 0
  check 1 "is an object of 14 bytes" init --registry "$other" --cpus 2
  "$node" destroy --registry "$other" --force --json >"$tmp/force.json" ||
    fail "destroy --force of a foreign object"
  jq -e '.force == true' "$tmp/force.json" >/dev/null || fail "destroy --force --json: $(cat "$tmp/force.json")"
  [ -e "/dev/shm/$other" ] && { fail "the object is still there"; rm -f "/dev/shm/$other"; }
  check 1 "no registry '$other'" destroy --registry "$other" --force
  # a registry truncated to nothing under `run` and CMD: no SIGBUS, run
  # says so and exits with CMD's status (its participants get BAL_EFORMAT)
  "$node" init --registry "$other" --cpus 2 >/dev/null || fail "init $other"
  "$node" run --registry "$other" -- sleep 1 2>"$tmp/trunc.err" &
  tr=$!
  runners="$runners $tr"
  for _ in $(seq 100); do
    [ "$("$node" list --registry "$other" --json | jq '.processes | length')" = 1 ] && break
    sleep 0.02
  done
  truncate -s 0 "/dev/shm/$other"
  wait "$tr"
  st=$?
  [ "$st" = 0 ] || fail "run on a registry truncated under it exited $st: $(cat "$tmp/trunc.err")"
  grep -q "registry '$other' went bad while CMD ran" "$tmp/trunc.err" ||
    fail "run on a truncated registry said: $(cat "$tmp/trunc.err")"
  check 1 "is an object of 0 bytes" list --registry "$other"
  "$node" destroy --registry "$other" --force >/dev/null || fail "destroy --force a truncated registry"
fi
# A name with a control character is refused, and echoed escaped (one line).
check 2 "'a.nb' is not a registry name .*no control characters" list --registry "$(printf 'a\nb')"
# After "--", set's and remove's positionals are positionals, "-1" included.
check 2 "PID: -1 is out of range" set -- -1 0
check 2 "PID: -5 is out of range" remove -- -5

"$node" destroy --json | jq -e '.command == "destroy" and .processes == 0' >/dev/null ||
  fail "destroy --json"
check 1 "no registry" list

if [ $fails -gt 0 ]; then
  echo "$fails failures"
  exit 1
fi
echo "ballast node: all checks passed"
