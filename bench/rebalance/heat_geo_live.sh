#!/usr/bin/env bash
# The geometric balancer live: examples/heat_geo with every partition
# method against none, on 4, 8 and 16 ranks (oversubscribed), given and
# measured weights with the automatic period, and given weights with a
# decision every 4 iterations; REPS repetitions. One JSON line per run on
# stdout, a comment line with the time (UTC) and the load average before
# each group; docs/rebalance.md's table is the median per configuration.
# The cell time scales with P so that a rank's work stays about 54 ms per
# step (the precision of sleeping under load).
# Usage: heat_geo_live.sh HEAT_GEO_BINARY [REPS]
set -euo pipefail
bin=$1 reps=${2:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
for rep in $(seq "$reps"); do
  for P in 4 8 16; do
    ct=$(python3 -c "print(3e-6 * $P)")
    echo "# rep $rep P $P cell_time $ct $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"
    mpiexec --oversubscribe -n "$P" "$bin" --method none --json --cell-time "$ct"
    for cfg in "given 0" "measured 0" "given 4"; do
      read -r w iv <<<"$cfg"
      for m in hilbert morton rcb tensor staggered; do
        mpiexec --oversubscribe -n "$P" "$bin" --method "$m" --weights "$w" --interval "$iv" \
          --json --cell-time "$ct"
      done
    done
  done
done
echo "# end $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"
