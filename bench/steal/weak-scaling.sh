#!/usr/bin/env bash
# DLB_Bench weak scaling under SimGrid SMPI ([Fontenaille 2018] Fig. 3, regenerated):
# parallel efficiency against the number of ranks for workload profiles
# (average work per rank x problem size per rank), for small-world stealing,
# random stealing and hierarchical work sharing, plus the pairs each policy
# connects. Every point is one `ballast simulate-dlb` run (one seed: the
# simulator is deterministic for a seed); rows accumulate in a CSV, so an
# interrupted study resumes where it stopped. Then a PNG per quantity.
#
# Usage: bench/steal/weak-scaling.sh [BUILD_DIR] [OUT_PREFIX]
#   RANKS="28 112 448 1792 3584"  rank counts (multiples of 28: whole nodes);
#                                 RANKS="" runs nothing and only replots the CSV
#   WORKS="1 5 10"                average seconds of work per rank
#   BYTES="4096 1e6 3e7"          input bytes per rank (cycles/byte at 2.4 GHz:
#                                 2.4e9 * work / bytes)
#   POLICIES="smallworld,random,sharing"
#   BIG=448 BIG_PROFILES="5:3e7 1:3e7 5:4096 10:3e7"  above BIG ranks only these
#                                 work:bytes profiles run (each 3,584-rank run
#                                 takes minutes)
#   EXTRA="--slice 0.002"         further simulate-dlb flags: tasks poll every 2 ms
#                                 (half the simulation cost of 1 ms, -0.007 efficiency)
set -euo pipefail
build=${1:-build}
out=${2:-$build/weak-scaling}
RANKS=${RANKS-"28 112 448 1792 3584"}
WORKS=${WORKS:-"1 5 10"}
BYTES=${BYTES:-"4096 1e6 3e7"}
POLICIES=${POLICIES:-"smallworld,random,sharing"}
BIG=${BIG:-448}
BIG_PROFILES=${BIG_PROFILES:-"5:3e7 1:3e7 5:4096 10:3e7"}
EXTRA=${EXTRA-"--slice 0.002"}
sim="$build/tools/ballast-simulate-dlb"
csv="$out.csv"
[ -x "$sim" ] || { echo "weak-scaling: $sim not found (build with SimGrid)" >&2; exit 2; }

done_already() { # ranks work bytes: a row exists for this point
  [ -f "$csv" ] && awk -F, -v r="$1" -v w="$2" -v b="$3" \
    'NR>1 && $1==r && $6==w && $8==b {f=1} END {exit !f}' "$csv"
}

for r in $RANKS; do
  for w in $WORKS; do
    for b in $BYTES; do
      if [ "$r" -gt "$BIG" ] && ! grep -qw -- "$w:$b" <<<"$BIG_PROFILES"; then continue; fi
      bn=$(awk -v b="$b" 'BEGIN {printf "%.17g", b}')
      if done_already "$r" "$w" "$bn"; then continue; fi
      echo "weak-scaling: $r ranks, $w s/rank, $b bytes/rank" >&2
      # shellcheck disable=SC2086
      "$sim" --ranks "$r" --policy "$POLICIES" --work-per-rank "$w" --bytes-per-rank "$b" \
        --tasks-per-rank 100 --distribution gaussian --seed 1 $EXTRA --csv "$csv" >/dev/null
    done
  done
done

command -v gnuplot >/dev/null || { echo "weak-scaling: $csv (gnuplot missing: no plots)"; exit 0; }
# One data file per curve (ranks, efficiency, peers_max sorted by ranks), so
# that gnuplot draws lines through every point of a curve. Sizes are
# compared as numbers: the CSV holds them as printed by %g.
dat="$out.d"
rm -rf "$dat" && mkdir -p "$dat"
pols=${POLICIES//,/ }
for w in $WORKS; do for pol in $pols; do for b in $BYTES; do
  awk -F, -v w="$w" -v b="$b" -v p="$pol" 'NR>1 && $6==w && $8==b+0 && $10==p {print $1, $11, $16}' "$csv" |
    sort -n >"$dat/$w-$pol-$b.dat"
done; done; done
# The pairs plot: 5 s of work if studied, else the first work value; the
# largest problem size.
pw=$(grep -qw 5 <<<"$WORKS" && echo 5 || awk '{print $1}' <<<"$WORKS")
bmax=$(awk '{print $NF}' <<<"$BYTES")
# Panels only for work values with data, curves only for non-empty files
# (gnuplot fails on a plot with no point at all).
pworks=""
for w in $WORKS; do
  for f in "$dat/$w"-*.dat; do [ -s "$f" ] && { pworks="$pworks $w"; break; }; done
done
[ -n "$pworks" ] || { echo "weak-scaling: no data in $csv" >&2; exit 1; }
npanels=$(wc -w <<<"$pworks")
{
  echo "set terminal pngcairo size $((500 * npanels)),480 noenhanced"
  echo "set output \"$out.png\""
  echo "set multiplot layout 1,$npanels title \"DLB_Bench weak scaling under SMPI (gaussian: 10% of ranks hold 70% of the tasks)\""
  echo 'set logscale x 2; set xlabel "ranks"; set ylabel "parallel efficiency"'
  echo 'set yrange [*:1.01]; set key bottom left font ",8"; set grid'
  for w in $pworks; do
    echo "set title \"$w s of work per rank\""
    sep="plot"
    pi=0
    for pol in $pols; do
      pi=$((pi + 1)); bi=0
      for b in $BYTES; do
        bi=$((bi + 4))
        [ -s "$dat/$w-$pol-$b.dat" ] || continue
        cpb=$(awk -v w="$w" -v b="$b" 'BEGIN {printf "%.3g", 2.4e9 * w / b}')
        printf '%s "%s" using 1:2 with linespoints lc %d pt %d title "%s, %s B/rank (%s cycles/B)"' \
          "$sep" "$dat/$w-$pol-$b.dat" "$pi" "$bi" "$pol" "$b" "$cpb"
        sep=","
      done
    done
    echo
  done
  echo 'unset multiplot'
  echo 'set terminal pngcairo size 700,480 noenhanced'
  echo "set output \"$out-peers.png\""
  echo "set title \"Pairs a rank connects to (max over ranks), $pw s of work, $bmax B/rank\""
  echo 'set ylabel "peers (max)"; set autoscale y; set logscale y 2; set key top left'
  sep="plot"
  pi=0
  for pol in $pols; do
    pi=$((pi + 1))
    [ -s "$dat/$pw-$pol-$bmax.dat" ] || continue
    printf '%s "%s" using 1:3 with linespoints lc %d pt 7 title "%s"' "$sep" "$dat/$pw-$pol-$bmax.dat" "$pi" "$pol"
    sep=","
  done
  echo
} >"$out.gp"
gnuplot "$out.gp"
echo "weak-scaling: $csv, $out.png, $out-peers.png"
