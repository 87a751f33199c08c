#!/bin/sh
# ballast uts reproduces the published UTS trees exactly [Olivier 2006]:
# usage: uts.sh TREE BALLAST-UTS MPIEXEC [--oversubscribe]
# Runs TREE (T1, T5 or T3) under several rank counts, worker counts, victim
# policies and progress modes; every run must count the published nodes,
# leaves and depth. The first run also searches the whole tree sequentially
# on rank 0 (the tool exits 1 if the two counts differ).
set -eu
tree=$1 uts=$2 mpiexec=$3 over=${4:-}
case $tree in
T1) args="-t 1 -a 3 -d 10 -b 4 -r 19" want="4130071 3305118 10" ;;
T5) args="-t 1 -a 0 -d 20 -b 4 -r 34" want="4147582 2181318 20" ;;
T3) args="-t 0 -b 2000 -q 0.124875 -m 8 -r 42" want="4112897 3599034 1572" ;;
*) echo "uts.sh: unknown tree $tree" >&2; exit 2 ;;
esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Threads of a rank must not be bound to the rank's one core.
export OMPI_MCA_hwloc_base_binding_policy=none
# ranks workers policy progress baseline steal-fraction (1: a thief takes
# the whole queue; two idle ranks must not pass it back and forth forever)
runs="1 1 smallworld poll all 0.5
2 2 random thread 0 0.5
3 1 sharing poll 0 0.5
4 1 biased poll 0 0.5
2 1 none thread 0 0.5
2 1 smallworld poll 0 1
1 2 smallworld poll 0 0.5"
# mpiexec reads stdin: it gets /dev/null, the loop keeps the list.
echo "$runs" | while read -r ranks workers policy progress baseline fraction; do
  # shellcheck disable=SC2086 # $args and $over are lists of words
  out=$("$mpiexec" -n "$ranks" $over "$uts" $args --workers "$workers" --policy "$policy" \
        --progress "$progress" --baseline-nodes "$baseline" --steal-fraction "$fraction" \
        --json </dev/null)
  got=$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); s=d.get("sequential"); print(d["nodes"], d["leaves"], d["max_depth"], "" if s is None else "%d %d %d" % (s["nodes"], s["leaves"], s["max_depth"]))')
  expect="$want"
  [ "$baseline" = all ] && expect="$want $want"
  if [ "$(echo $got)" != "$expect" ]; then
    echo "uts.sh: $tree on $ranks ranks x $workers workers ($policy, $progress, steal fraction $fraction): got '$got', want '$expect'" >&2
    exit 1
  fi
  echo "$tree: $ranks ranks x $workers workers ($policy, $progress, steal fraction $fraction): $got ok"
done
