#!/usr/bin/env bash
# Small-world stealing against hierarchical work sharing when the load
# moves: DLB_Bench with --iterations (one balancer, several iterations)
# and --drift (the gaussian hot zone moves by D along x in [0,10) per
# iteration; sigma = 0.5), under SimGrid SMPI. Work sharing forms its groups
# from the work each rank measured in the previous iteration, as YALES2
# does ([Fontenaille 2018] §5.2); stealing needs no estimate. Figures are over
# iterations 2..K (the first warms up, as in the YALES2 runs of [Fontenaille 2018]). The
# two policies of a drift run side by side (2 cores). Rows accumulate in a
# CSV, so an interrupted sweep resumes; then one PNG.
#
# Usage: bench/steal/drift.sh [BUILD_DIR] [OUT_PREFIX]
#   RANKS=448                     simulated ranks (whole 28-core nodes)
#   DRIFTS="0 0.05 0.1 0.15 0.25 0.5 1"
#   ITERATIONS=3
#   EXTRA="--work-per-rank 5 --bytes-per-rank 3e7 --tasks-per-rank 100 --slice 0.002"
#                                 (the profile of docs/BENCHMARKS.md: 5 s, 400 cycles/byte)
set -euo pipefail
build=${1:-build}
out=${2:-$build/steal-drift}
RANKS=${RANKS:-448}
DRIFTS=${DRIFTS-"0 0.05 0.1 0.15 0.25 0.5 1"}
ITERATIONS=${ITERATIONS:-3}
EXTRA=${EXTRA-"--work-per-rank 5 --bytes-per-rank 3e7 --tasks-per-rank 100 --slice 0.002"}
sim="$build/tools/ballast-simulate-dlb"
csv="$out.csv"
[ -x "$sim" ] || { echo "drift: $sim not found (build with SimGrid)" >&2; exit 2; }
command -v jq >/dev/null || { echo "drift: jq is needed to read simulate-dlb's --json" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -f "$csv" ] || echo "ranks,drift,iterations,policy,efficiency,resolution_s,iteration_efficiencies,wall_s,peak_mb" >"$csv"
have() { # ranks drift policy
  awk -F, -v r="$1" -v d="$2" -v p="$3" -v k="$ITERATIONS" \
    'NR>1 && $1==r && $2+0==d+0 && $3==k && $4==p {f=1} END {exit !f}' "$csv"
}
run() { # drift policy
  # shellcheck disable=SC2086
  "$sim" --ranks "$RANKS" --policy "$2" --distribution gaussian --seed 1 \
    --iterations "$ITERATIONS" --drift "$1" $EXTRA --json >"$tmp/$1-$2.json"
  jq -r --arg d "$1" '[.platform.ranks, $d, .dlb.iterations, .dlb.runs[0].policy,
      .dlb.runs[0].efficiency, .dlb.runs[0].resolution_s,
      ([.dlb.runs[0].iterations[].efficiency | tostring] | join(" ")),
      .simulation.wall_s, .simulation.peak_mb] | @csv' "$tmp/$1-$2.json" | tr -d '"' >"$tmp/$1-$2.row"
}
for d in $DRIFTS; do
  pids=()
  for pol in smallworld sharing; do
    have "$RANKS" "$d" "$pol" && continue
    echo "drift: $RANKS ranks, drift $d, $pol" >&2
    run "$d" "$pol" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  for pol in smallworld sharing; do
    [ -f "$tmp/$d-$pol.row" ] && cat "$tmp/$d-$pol.row" >>"$csv"
  done
done

# Per drift: efficiency of both, and smallworld's speed-up = sharing's
# resolution time / smallworld's (work_s differs a little between policies,
# so the efficiency ratio is not quite the same). One file feeds the table
# and the plot.
awk -F, -v r="$RANKS" -v k="$ITERATIONS" 'NR>1 && $1==r && $3==k {e[$2","$4]=$5; t[$2","$4]=$6; ds[$2]=1}
  END {for (d in ds) if ((d",smallworld") in e && (d",sharing") in e)
         print d, e[d",smallworld"], e[d",sharing"], t[d",sharing"] / t[d",smallworld"]}' "$csv" |
  sort -g >"$tmp/points"
printf "%-7s %10s %8s %8s\n" drift smallworld sharing speedup
awk '{printf "%-7s %10.3f %8.3f %7.3fx\n", $1, $2, $3, $4}' "$tmp/points"

command -v gnuplot >/dev/null || { echo "drift: $csv (gnuplot missing: no plot)"; exit 0; }
gnuplot <<GP
set terminal pngcairo size 900,520
set output "$out.png"
set title "DLB\\\\_Bench, $RANKS simulated ranks, gaussian load moving by D per iteration (sigma = 0.5)"
set xlabel "drift D per iteration (x in [0,10))"
set ylabel "parallel efficiency (iterations 2..$ITERATIONS)"
set y2label "smallworld speed-up over sharing"
set yrange [0.5:1]
set y2range [0.9:1.6]
set ytics nomirror
set y2tics
set key bottom left
set grid
plot "$tmp/points" using 1:2 with linespoints lw 2 title "smallworld (stealing)", \
     "$tmp/points" using 1:3 with linespoints lw 2 title "sharing (groups from last iteration)", \
     "$tmp/points" using 1:4 axes x1y2 with linespoints dt 2 title "speed-up (right axis)", \
     1.3 axes x1y2 with lines lw 1 lc rgb "red" title "1.3x (right axis)"
GP
echo "drift: $csv, $out.png"
