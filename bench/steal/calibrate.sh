#!/usr/bin/env bash
# Does the simulator agree with this machine? Measures this machine's MPI
# latency and bandwidth (bench_mpi_pingpong, 2 ranks), then runs DLB_Bench
# on P real ranks here (sleep work mode: the balancer, not the CPU, is
# measured) and on P simulated ranks of a one-node platform with those
# latency and bandwidth figures, for several seeds, and prints the median
# efficiency of each policy both ways and their difference.
#
# Usage: bench/steal/calibrate.sh [BUILD_DIR]
#   P=32 SEEDS="1 2 3 4 5" WORK=2 TASKS=100 BYTES=65536
#   POLICIES="smallworld,random,sharing"
set -euo pipefail
build=${1:-build}
P=${P:-32}
SEEDS=${SEEDS:-"1 2 3 4 5"}
WORK=${WORK:-2}
TASKS=${TASKS:-100}
BYTES=${BYTES:-65536}
POLICIES=${POLICIES:-"smallworld,random,sharing"}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

pp=$(mpiexec -n 2 "$build/bench/bench_mpi_pingpong")
lat=$(sed -n 's/.*"latency_s": *\([0-9.e+-]*\).*/\1/p' <<<"$pp")
bw=$(sed -n 's/.*"bandwidth_Bps": *\([0-9.e+-]*\).*/\1/p' <<<"$pp")
echo "this machine: MPI latency $lat s, bandwidth $bw B/s (bench_mpi_pingpong)"

common=(--work-per-rank "$WORK" --tasks-per-rank "$TASKS" --bytes-per-rank "$BYTES"
  --distribution gaussian --policy "$POLICIES" --json)
# policy efficiency pairs of one DLB_Bench JSON object, one per line
effs() { tr -d ' \n' | grep -o '"policy":"[a-z]*","efficiency":[0-9.e+-]*' |
  sed 's/"policy":"\([a-z]*\)","efficiency":\(.*\)/\1 \2/'; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for s in $SEEDS; do
  "$build/tools/ballast" dlb-bench --ranks "$P" --work-mode sleep --seed "$s" "${common[@]}" |
    effs | sed "s/^/real $s /" >>"$tmp"
  "$build/tools/ballast" simulate-dlb --ranks "$P" --cores-per-node "$P" --intra-latency "$lat" \
    --intra-bandwidth "$bw" --seed "$s" "${common[@]}" | effs | sed "s/^/sim $s /" >>"$tmp"
done
echo "P=$P, gaussian, $WORK s and $TASKS tasks per rank, seeds: $SEEDS"
printf "%-11s %-36s %-36s %7s %7s %7s\n" policy "real (per seed)" "simulated (per seed)" real sim diff
for pol in ${POLICIES//,/ }; do
  r=$(awk -v p="$pol" '$1=="real" && $3==p {print $4}' "$tmp")
  m=$(awk -v p="$pol" '$1=="sim" && $3==p {print $4}' "$tmp")
  med() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
  rm_=$(med <<<"$r")
  sm_=$(med <<<"$m")
  printf "%-11s %-36s %-36s %7.3f %7.3f %+7.3f\n" "$pol" "$(printf '%.3f ' $r)" "$(printf '%.3f ' $m)" \
    "$rm_" "$sm_" "$(awk -v a="$sm_" -v b="$rm_" 'BEGIN {print a-b}')"
done
