#!/usr/bin/env bash
# The picture of bench/steal/uts-smpi.sh's CSV: efficiency against simulated
# ranks, left the weak-scaling runs (the T1L family, per policy), right T3L
# (strong scaling, per policy) with the bounds its critical path sets:
# T1/T_inf = 111,345,631 / 17,845 nodes ~ 6,240, so at most min(1, 6240/P),
# and a greedy schedule (Brent) at least 1 / (1 + P/6240).
# Usage: bench/steal/uts-smpi-plot.sh CSV OUT.png
set -euo pipefail
csv=$1
png=$2
command -v gnuplot >/dev/null || { echo "uts-smpi-plot: gnuplot missing: no plot" >&2; exit 0; }
dat=$(mktemp -d)
trap 'rm -rf "$dat"' EXIT
# Columns by name (uts-smpi-row.py's header): study, ranks, policy, efficiency.
for study in weak t3l; do
  for pol in smallworld random; do
    awk -F, -v s="$study" -v p="$pol" '
      NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
      $c["study"] == s && $c["policy"] == p {print $c["ranks"], $c["efficiency"]}' "$csv" |
      sort -n >"$dat/$study-$pol.dat"
  done
done
plot_panel() { # STUDY
  local sep="plot" pi=0
  for pol in smallworld random; do
    pi=$((pi + 1))
    [ -s "$dat/$1-$pol.dat" ] || continue
    printf '%s "%s" using 1:2 with linespoints lc %d pt %d lw 2 title "%s"' "$sep" \
      "$dat/$1-$pol.dat" "$pi" $((pi + 4)) "$pol"
    sep=","
  done
  if [ "$1" = t3l ]; then
    printf '%s (6240/x < 1 ? 6240/x : 1) with lines dt 2 lc 3 title "bound: min(1, T1/(P T_inf))", 1/(1+x/6240) with lines dt 3 lc 4 title "greedy (Brent): 1/(1 + P T_inf/T1)"' "$sep"
  elif [ "$sep" = plot ]; then
    printf 'plot NaN notitle'
  fi
  echo
}
{
  echo 'set terminal pngcairo size 1000,440 noenhanced'
  echo "set output \"$png\""
  echo 'set multiplot layout 1,2 title "UTS under SimGrid SMPI (28-core nodes, work injected as simulated time)"'
  echo 'set logscale x 2; set xrange [20:5000]; set xlabel "simulated ranks"; set ylabel "parallel efficiency"'
  echo 'set yrange [0:1.05]; set key bottom left font ",9"; set grid; set samples 400'
  echo 'set title "weak scaling: T1L family, ~30,000 nodes/rank"'
  plot_panel weak
  echo 'set title "T3L (depth 17,844), 10 s of work/rank"'
  plot_panel t3l
  echo 'unset multiplot'
} >"$dat/plot.gp"
gnuplot "$dat/plot.gp"
echo "uts-smpi-plot: $png"
