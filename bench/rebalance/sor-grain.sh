#!/usr/bin/env bash
# Efficiency of the pipelined SOR sweep against the block size, with the
# block size Ballast's grain model picks marked ([Siegell 1997] §4.2.4, Fig. 8),
# measured next to the model's prediction. One examples/sor_pipeline run
# measures the model's inputs once and then sweeps every block size, so the
# predicted curve and the automatic choice come from the same inputs.
#
# Per-point compute is emulated by sleeping (--work-ns) and each boundary
# shift gets a fixed emulated delay (--shift-delay, like the paper's
# artificial delays): RANKS ranks share 2 cores with other jobs, so real
# compute would measure the OS scheduler; sleeping ranks need no core and the
# curve is a statement about the pipeline's structure. The real arithmetic is
# still done (and checked against a sequential sweep with --check).
#
# Usage: bench/rebalance/sor-grain.sh [BUILD_DIR] [OUT_PREFIX]
#   RANKS=4 ROWS=400 COLS=1000 SWEEPS=5   problem (the paper: 4 workers, 1000 x 1000, 10 sweeps)
#   WORK_NS=200       emulated ns per point update (a local sweep: ROWS/RANKS*COLS*WORK_NS)
#   DELAY="0.0002 0.001"  emulated s per shift, one curve (one run) each
#   SIZES="1,2,5,10,20,30,50,75,100,150,200,300,500,1000"  block sizes besides auto
set -euo pipefail
build=${1:-build}
out=${2:-$build/sor-grain}
RANKS=${RANKS:-4}
ROWS=${ROWS:-400}
COLS=${COLS:-1000}
SWEEPS=${SWEEPS:-5}
WORK_NS=${WORK_NS:-200}
DELAY=${DELAY:-"0.0002 0.001"}
SIZES=${SIZES:-"1,2,5,10,20,30,50,75,100,150,200,300,500,1000"}
prog="$build/examples/sor_pipeline/sor_pipeline"
[ -x "$prog" ] || { echo "sor-grain: $prog not found (build with MPI)" >&2; exit 2; }
command -v jq >/dev/null || { echo "sor-grain: needs jq to read --json" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Waiting ranks yield the CPU instead of spinning at full speed.
export OMPI_MCA_mpi_yield_when_idle=1

csv="$out.csv"
echo "shift_delay_s,block_size,blocks,automatic,measured_s,predicted_s,efficiency,predicted_efficiency,result,t_seq_s,t_fixed_s,t_incr_s" >"$csv"
for d in $DELAY; do
  echo "sor-grain: $RANKS ranks, delay $d s/shift" >&2
  mpiexec -n "$RANKS" --oversubscribe "$prog" --rows "$ROWS" --cols "$COLS" --sweeps "$SWEEPS" \
    --work-ns "$WORK_NS" --shift-delay "$d" --block-size "auto,$SIZES" --check --json >"$out-$d.json"
  jq -r '. as $r | .runs[] | [$r.shift_delay_s, .block_size, .blocks, .automatic, .measured_s,
      .predicted_s, .efficiency, .predicted_efficiency, .result, $r.model.t_seq_s,
      $r.model.t_fixed_s, $r.model.t_incr_s] | @csv' "$out-$d.json" | tr -d '"' >>"$csv"
done
if grep -q differs "$csv"; then echo "sor-grain: a pipelined result differs from the sequential one" >&2; exit 1; fi

command -v gnuplot >/dev/null || { echo "sor-grain: $csv (gnuplot missing: no plot)"; exit 0; }
cat >"$out.gp" <<GP
set datafile separator ","
set terminal pngcairo size 800,520 noenhanced
set output "$out.png"
set title "Pipelined SOR, $RANKS ranks, $ROWS x $COLS, $SWEEPS sweeps, $WORK_NS ns/point (slept)"
set xlabel "block size (columns)"
set ylabel "efficiency  t_seq / (P t_sweep)"
set logscale x
set yrange [0:1]
set key top left
set grid
delays = "$DELAY"
plot for [i = 1:words(delays)] "$csv" \
       using ((column(1) == real(word(delays, i)) && strcol(4) eq "false") ? column(2) : NaN):7 \
       with linespoints lc i pt 7 title sprintf("measured, %s s/shift", word(delays, i)), \
     for [i = 1:words(delays)] "$csv" \
       using ((column(1) == real(word(delays, i)) && strcol(4) eq "false") ? column(2) : NaN):8 \
       with lines dt 2 lc i title sprintf("predicted, %s s/shift", word(delays, i)), \
     for [i = 1:words(delays)] "$csv" \
       using ((column(1) == real(word(delays, i)) && strcol(4) eq "true") ? column(2) : NaN):(0):(0):(1) \
       with vectors nohead dt 3 lc i lw 2 title sprintf("automatic block size, %s s/shift", word(delays, i)), \
     for [i = 1:words(delays)] "$csv" \
       using ((column(1) == real(word(delays, i)) && strcol(4) eq "true") ? column(2) : NaN):7 \
       with points lc i pt 6 ps 2 notitle
GP
gnuplot "$out.gp"
echo "sor-grain: $csv, $out.png"
