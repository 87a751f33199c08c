#!/usr/bin/env bash
# The picture of bench/steal/uts-peers.sh's table: efficiency (each program
# against its own sequential time) against ranks, Ballast and the UTS
# authors' MPI work stealing, one line per tree; left real MPI on this
# machine (ranks past its cores oversubscribed, shaded), right SimGrid SMPI.
# Usage: bench/steal/uts-peers-plot.sh CSV OUT.png
set -euo pipefail
csv=$1
png=$2
command -v gnuplot >/dev/null || { echo "uts-peers-plot: gnuplot missing: no plot" >&2; exit 0; }
dat=$(mktemp -d)
trap 'rm -rf "$dat"' EXIT
cores=$(nproc)
# Columns by name (uts-peers-table.py's header).
for study in mpi smpi; do
  for prog in ballast peer; do
    awk -F, -v s="$study" -v p="$prog" '
      NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
      $c["study"] == s && $c[p "_efficiency"] != "n/a" {print $c["tree"], $c["ranks"], $c[p "_efficiency"]}' "$csv" |
      sort -k1,1 -k2n >"$dat/$study-$prog.dat"
  done
done
panel() { # STUDY
  local sep="plot" li=0 tree prog
  # shellcheck disable=SC2013 # tree names are words
  for tree in $(cut -d' ' -f1 "$dat/$1-ballast.dat" "$dat/$1-peer.dat" | sort -u); do
    for prog in ballast peer; do
      li=$((li + 1))
      grep "^$tree " "$dat/$1-$prog.dat" >"$dat/$1-$prog-$tree.dat" || continue
      printf '%s "%s" using 2:3 with linespoints lw 2 pt %d dt %d lc %d title "%s %s"' "$sep" \
        "$dat/$1-$prog-$tree.dat" $((li + 4)) "$([ $prog = ballast ] && echo 1 || echo 2)" "$li" \
        "$([ $prog = ballast ] && echo Ballast || echo "UTS mpi-ws")" "$tree"
      sep=","
    done
  done
  [ "$sep" = plot ] && printf 'plot NaN notitle'
  echo
}
{
  echo 'set terminal pngcairo size 1000,440 noenhanced'
  echo "set output \"$png\""
  echo 'set multiplot layout 1,2 title "UTS: Ballast against the UTS reference MPI work stealing (efficiency vs own sequential time)"'
  echo 'set ylabel "parallel efficiency"; set yrange [0:1.1]; set key bottom left font ",9"; set grid'
  echo "set title \"real MPI, this machine ($cores cores; more ranks oversubscribed)\""
  echo "set xlabel \"MPI ranks\"; set xrange [0.5:4.5]; set xtics 1"
  echo "set object 1 rect from $cores.5,0 to 4.5,1.1 fc rgb \"#eeeeee\" behind"
  panel mpi
  echo 'unset object 1; set title "SimGrid SMPI, 28-core nodes"; set xlabel "simulated ranks"'
  echo 'set logscale x 2; set xrange [0.8:600]; set xtics auto; set key top right'
  panel smpi
  echo 'unset multiplot'
} >"$dat/plot.gp"
gnuplot "$dat/plot.gp"
echo "uts-peers-plot: $png"
