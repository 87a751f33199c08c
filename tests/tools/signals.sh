#!/bin/sh
# A tool stopped by a signal ends what it started (tools/common/launch.h):
# `timeout -s TERM` stops PROGRAM ARGS... (a run far longer than that) and
# no process that was running under it, nor any process of their process
# groups, may survive, and nothing may be left in its TMPDIR (mpiexec's
# session directory, simulate-dlb's platform files). Processes are found by
# pid and process group, never by name: other runs of the same programs may
# share the machine.
# With SIGNAL=KILL the tool is killed outright instead: what it started must
# end all the same (the kernel's SIGTERM to its child, launch_spawn()), and
# only empty directories may stay in TMPDIR (the launcher could not remove
# its private one).
# Usage: [SIGNAL=KILL] signals.sh PROGRAM ARGS...   (exit 77: PROGRAM not built)
set -u
prog=$1
shift
if [ ! -x "$prog" ]; then
  echo "SKIP: $prog is not built (needs MPI or SimGrid)"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# A TMPDIR of the test's own, empty, so that anything left in it is the
# tool's.
mkdir "$out/tmp"
export TMPDIR="$out/tmp"

sig=${SIGNAL:-TERM}
case $sig in
TERM) expect=124 ;;
KILL) expect=137 ;; # timeout's status when the command died of SIGKILL
*) echo "FAIL: SIGNAL must be TERM or KILL"; exit 1 ;;
esac
timeout -s "$sig" 4 "$prog" "$@" >"$out/stdout" 2>"$out/stderr" &
tpid=$!

# Every process below pid $1, depth first.
descendants() {
  for c in $(ps -o pid= --ppid "$1"); do
    echo "$c"
    descendants "$c"
  done
}
# Wait until the tool has started its child (a grandchild of timeout).
pids=""
i=0
while [ $i -lt 30 ]; do
  pids=$(descendants "$tpid")
  [ "$(echo "$pids" | wc -w)" -ge 2 ] && break
  sleep 0.1
  i=$((i + 1))
done
sleep 1 # let the child start its own children
pids=$(descendants "$tpid")
mine=$(ps -o pgid= -p $$ | tr -d ' ')
groups=""
for p in $pids; do
  g=$(ps -o pgid= -p "$p" | tr -d ' ')
  [ -n "$g" ] && [ "$g" != "$mine" ] && groups="$groups $g"
done
groups=$(echo "$groups" | tr ' ' '\n' | sort -u | tr '\n' ' ')
echo "processes under the tool: $(echo $pids); their groups: $groups"
if [ "$(echo "$pids" | wc -w)" -lt 2 ]; then
  echo "FAIL: the tool started no child (stderr follows)"
  cat "$out/stderr"
  exit 1
fi

wait "$tpid"
status=$?
if [ "$status" -ne "$expect" ]; then
  echo "FAIL: expected timeout's status $expect, got $status (the run ended by itself?)"
  cat "$out/stderr"
  exit 1
fi

# Give what was signalled a few seconds to end.
left=""
i=0
while [ $i -lt 100 ]; do
  left=""
  for p in $pids; do
    kill -0 "$p" 2>/dev/null && left="$left $p"
  done
  for g in $groups; do
    for p in $(ps -o pid= -g "$g"); do left="$left $p"; done
  done
  [ -z "$left" ] && break
  sleep 0.1
  i=$((i + 1))
done
if [ -n "$left" ]; then
  echo "FAIL: still running after the tool was stopped:"
  ps -o pid,pgid,ppid,args -p "$(echo $left | tr ' ' ',')"
  for p in $left; do kill -KILL "$p" 2>/dev/null; done
  exit 1
fi
if [ "$sig" = KILL ]; then
  left_tmp=$(find "$TMPDIR" -mindepth 1 ! -type d; find "$TMPDIR" -mindepth 2)
else
  left_tmp=$(ls -A "$TMPDIR")
fi
if [ -n "$left_tmp" ]; then
  echo "FAIL: left in TMPDIR after the tool was stopped:"
  ls -lAR "$TMPDIR"
  exit 1
fi
echo "signals: nothing survived $(basename "$prog") (SIG$sig), nothing left in TMPDIR"
