#!/usr/bin/env bash
# The geometric balancer on hundreds of simulated ranks: examples/heat_geo's
# SMPI build (build/examples/heat_geo_smpi, built when SimGrid's smpicc and
# smpirun are found) under smpirun, every method (none, hilbert, morton,
# rcb, tensor, staggered) one after the other at one rank count, one table
# row per method: efficiency (sum avg / sum max of the compute times over
# all steps), halo values sent per step, cells moved, rebalances, the
# balancer's step on the steps that moved nothing (% of an iteration, in
# simulated time) and the wall time of the simulation. The JSON line of
# each run goes to OUT.jsonl when OUT is set.
#
# Usage: heat_geo_smpi.sh HEAT_GEO_SMPI RANKS [PLATFORM.xml HOSTFILE]
#   Without a platform, the one `ballast simulate-dlb` writes by default
#   (tools/simulate-common/platform.c, sim_opts_init()): nodes of 28 cores
#   of 2.4 Gflop/s, each node's link 12.5 GB/s and 1 us to a non-blocking
#   switch, 10 GB/s and 0.3 us within a node; ranks fill nodes in order.
#   With one, HOSTFILE places the ranks (one host name per line) and
#   CORE_SPEED (flop/s, default 2.4e9) must be its hosts' speed.
# Environment (defaults): NX=512 NY=384 RADIUS=64 HEAVY=8 STEPS=200
#   CELL_TIME=4.8e-5 (seconds of simulated work per unit of cost: a rank's
#   work about 54 ms per step at 256 ranks, as in heat_geo_live.sh; scale it
#   by P/256 elsewhere). 1024 x 768 is not practical: a method's run at
#   512 x 384 already takes 15+ minutes of simulation (docs/rebalance.md).
#   WEIGHTS=given INTERVAL=0 (automatic period) METHODS="none hilbert ..."
#   OUT=, SMPI_CFG="" (more --cfg=K:V settings for smpirun).
# The SimGrid settings are those of `ballast simulate-dlb`
# (tools/simulate-common/simrun.c, sim_run()): no privatization (the
# example and the library keep no per-rank globals), no benchmarking of
# the CPU time between MPI calls (only the cell work, charged by
# smpi_execute(), and the network cost simulated time), logarithmic
# collectives; and a ring MPI_Allgatherv (SMPI's default one is linear:
# the example's halo rebuild, P^2 concurrent messages, took over ten
# minutes at 256 ranks). The example's SMPI build also exchanges the
# balancer's measurements with a blocking MPI_Allgather (main.c).
set -euo pipefail
[ $# -eq 2 ] || [ $# -eq 4 ] || { sed -n 12,25p "$0" >&2; exit 2; }
bin=$1 P=$2
NX=${NX:-512} NY=${NY:-384} RADIUS=${RADIUS:-64} HEAVY=${HEAVY:-8} STEPS=${STEPS:-200}
CELL_TIME=${CELL_TIME:-4.8e-5} WEIGHTS=${WEIGHTS:-given} INTERVAL=${INTERVAL:-0}
METHODS=${METHODS:-none hilbert morton rcb tensor staggered} CORE_SPEED=${CORE_SPEED:-2.4e9}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# -eq 4 ]; then
  plat=$3 hosts=$4
else
  cores=28 nodes=$(((P + 27) / 28))
  plat=$tmp/platform.xml hosts=$tmp/hosts.txt
  cat >"$plat" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="cluster" prefix="node-" suffix="" radical="0-$((nodes - 1))"
           speed="${CORE_SPEED}f" core="$cores" sharing_policy="SPLITDUPLEX"
           bw="12.5e9Bps" lat="1e-6s" loopback_bw="1e10Bps" loopback_lat="3e-7s"/>
</platform>
EOF
  for ((r = 0; r < P; r++)); do echo "node-$((r / cores))"; done >"$hosts"
fi
cfg=(--cfg=smpi/host-speed:"${CORE_SPEED}"f -no-privatize --cfg=smpi/simulate-computation:no
  --cfg=smpi/coll-selector:default --cfg=smpi/bcast:binomial_tree --cfg=smpi/reduce:binomial
  --cfg=smpi/allreduce:rdb --cfg=smpi/allgather:bruck --cfg=smpi/gather:ompi_binomial
  --cfg=smpi/barrier:ompi_tree --cfg=smpi/allgatherv:ring --cfg=smpi/grow-injected-times:no
  --log=root.thres:warning --log=xbt_cfg.thres:warning)
for c in ${SMPI_CFG:-}; do cfg+=("--cfg=$c"); done

echo "# heat_geo under SMPI: $P ranks, ${NX} x ${NY} cells, $STEPS steps, heavy $HEAVY, radius $RADIUS," \
  "cell time $CELL_TIME s, weights $WEIGHTS, interval $INTERVAL; $(date -u '+%Y-%m-%d %H:%M:%S') UTC"
printf '| method | efficiency | halo values/step | cells moved | rebalances | step cost, no move (%% of an iteration) | wall s |\n'
printf '|---|---|---|---|---|---|---|\n'
for m in $METHODS; do
  t0=$(date +%s.%N)
  smpirun -np "$P" -platform "$plat" -hostfile "$hosts" "${cfg[@]}" "$bin" --method "$m" \
    --weights "$WEIGHTS" --interval "$INTERVAL" --nx "$NX" --ny "$NY" --radius "$RADIUS" \
    --heavy "$HEAVY" --steps "$STEPS" --cell-time "$CELL_TIME" --json >"$tmp/out" 2>"$tmp/err" ||
    { echo "heat_geo_smpi: $m failed:" >&2; cat "$tmp/err" >&2; exit 1; }
  wall=$(python3 -c "import time; print('%.1f' % (time.time() - $t0))")
  line=$(grep '^{' "$tmp/out" | tail -1)
  [ -n "$line" ] || { echo "heat_geo_smpi: $m printed no JSON:" >&2; cat "$tmp/out" "$tmp/err" >&2; exit 1; }
  [ -z "${OUT:-}" ] || python3 -c "import json,sys; d=json.loads(sys.argv[1]); d['sim_wall_s']=float(sys.argv[2]); print(json.dumps(d))" \
    "$line" "$wall" >>"$OUT.jsonl"
  python3 - "$line" "$wall" <<'EOF'
import json, sys
d = json.loads(sys.argv[1])
q = '—' if d['method'] == 'none' else '%.2f' % (100 * d['quiet_step_fraction'])
print('| %s | **%.3f** | %.0f | %d | %d | %s | %s |' % (d['method'], d['efficiency'],
      d['halo_per_step'], d['moved'], d['rebalances'], q, sys.argv[2]))
EOF
done
echo "# end $(date -u '+%H:%M:%S') UTC"
