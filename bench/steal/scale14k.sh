#!/usr/bin/env bash
# Issue 30, part 3: DLB_Bench and UTS at 14,336 simulated ranks (512 nodes
# x 28 cores, [Fontenaille 2018]'s largest platform) on this machine. Runs
# one of the runs below at `nice -n 19` under GNU time (-v: wall time, max
# RSS) and a timeout, in a memory cgroup of its own when cgroup v2 lets
# this shell make one (removed at the end), and keeps the JSON and the
# measurements in OUT_DIR/NAME.{json,time,err}.
#   smallworld  DLB_Bench, smallworld, 5 s of work per rank, ITERATIONS (default 3)
#               iterations, the hot zone moving by 0.25 (sigma/2) per iteration
#   sharing     the same under work sharing (YALES2's estimates from the last iteration)
#   t1l         UTS T1L (geometric, 102,181,082 nodes), smallworld stealing
# Settings (environment), each defaulting to what the first runs used:
#   ITERATIONS  DLB_Bench iterations (3)
#   SLICE       DLB_Bench's simulated work between two polls (0.002 s)
#   IDLE_WAIT   DLB_Bench's --idle-wait: poll or mpi (not passed: poll)
#   EAGER       bytes below which SMPI delivers a message eagerly,
#               smpi/async-small-thresh (not passed: SMPI's 0, every
#               message waits for its receive; docs/BENCHMARKS.md, "Where
#               a large simulation's time goes")
# Usage: [ITERATIONS=N] [SLICE=S] [IDLE_WAIT=W] [EAGER=B] bench/steal/scale14k.sh BUILD_DIR OUT_DIR NAME [RANKS] [TIMEOUT_MIN] [MEM_GB]
set -euo pipefail
build=$1 out=$2 name=$3 ranks=${4:-14336} minutes=${5:-75} mem_gb=${6:-18}
mkdir -p "$out"
iterations=${ITERATIONS:-3}
# Only the settings given are passed, so the default command lines are
# exactly those of the first runs.
smpi=(${EAGER:+--smpi-cfg "smpi/async-small-thresh:$EAGER"})
dlb=(--work-per-rank 5 --bytes-per-rank 3e7 --tasks-per-rank 100 --distribution gaussian
     --seed 1 --slice "${SLICE:-0.002}" ${IDLE_WAIT:+--idle-wait "$IDLE_WAIT"} --iterations "$iterations"
     --drift 0.25 "${smpi[@]}" --json)
case $name in
  smallworld) cmd=("$build/tools/ballast-simulate-dlb" --ranks "$ranks" --policy smallworld "${dlb[@]}") ;;
  sharing) cmd=("$build/tools/ballast-simulate-dlb" --ranks "$ranks" --policy sharing "${dlb[@]}") ;;
  t1l) cmd=("$build/tools/ballast-simulate-uts" --ranks "$ranks" -t 1 -a 3 -d 13 -b 4 -r 29 "${smpi[@]}" --json) ;;
  *) echo "$0: unknown run '$name' (smallworld, sharing, t1l)" >&2; exit 2 ;;
esac
# A memory cgroup of its own: v2 (memory.max, memory.peak) or v1
# (memory.limit_in_bytes, memory.max_usage_in_bytes); none if neither is
# writable (the run still happens, GNU time's max RSS is then the figure).
cg="" limit="" peak=""
if [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  cg=/sys/fs/cgroup/ballast-scale14k-$name-$$ limit=memory.max peak=memory.peak
elif [ -w /sys/fs/cgroup/memory ]; then
  cg=/sys/fs/cgroup/memory/ballast-scale14k-$name-$$ limit=memory.limit_in_bytes peak=memory.max_usage_in_bytes
fi
# Remove the cgroup once its last process has exited (a stopped
# simulation takes a few seconds to end); say so if it cannot be.
cleanup() {
  [ -n "$cg" ] && [ -d "$cg" ] || return 0
  for _ in $(seq 60); do
    [ -n "$(cat "$cg/cgroup.procs" 2>/dev/null)" ] || break # cgroupfs files have size 0
    sleep 1
  done
  rmdir "$cg" 2>/dev/null || echo "$0: could not remove $cg (left: $(tr '\n' ' ' <"$cg/cgroup.procs"))" >&2
}
trap cleanup EXIT
if [ -n "$cg" ]; then
  mkdir "$cg" && echo $((mem_gb * 1024 * 1024 * 1024)) >"$cg/$limit" || cg=""
fi
echo "# $name, $ranks ranks: start $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg), cgroup ${cg:-none}" | tee "$out/$name.err"
rc=0
(
  [ -n "$cg" ] && echo $BASHPID >"$cg/cgroup.procs"
  exec nice -n 19 timeout "${minutes}m" /usr/bin/time -v -o "$out/$name.time" "${cmd[@]}"
) >"$out/$name.json" 2>>"$out/$name.err" || rc=$?
[ -n "$cg" ] && echo "cgroup peak: $(cat "$cg/$peak" 2>/dev/null || echo n/a) bytes" >>"$out/$name.err"
echo "# $name: end $(date -u +%FT%TZ), exit $rc" | tee -a "$out/$name.err"
grep -E "Elapsed|Maximum resident" "$out/$name.time" || true
exit $rc
