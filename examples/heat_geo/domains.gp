# The domains of examples/heat_geo following the heavy disc: one panel per
# snapshot of `heat_geo --owners FILE` (blocks of "x y owner cost"), each
# rank's cells in its own colour, the disc's cells darker.
#
#   mpiexec -n 8 ./heat_geo --method rcb --weights given --owners own.dat --owners-every 66
#   gnuplot -e "data='own.dat'; out='domains.png'; title='rcb, 8 ranks'" domains.gp
#
# `panels` (default 4) snapshots are drawn side by side; `every` (default
# 66) is the --owners-every of the run, for the panels' titles.
if (!exists("data")) { print "set data='FILE'"; exit status 2 }
if (!exists("out")) out = 'domains.png'
if (!exists("title")) title = data
if (!exists("panels")) panels = 4
if (!exists("every")) every = 66

set terminal pngcairo size 300 * panels + 40, 300 noenhanced font ',10'
set output out
# a colour per rank: spread around the hue circle, darker in the disc
hue(o) = (o * 0.381966) - floor(o * 0.381966)
ch(h, k) = 0.55 + 0.45 * cos(2 * pi * (h - k / 3.0))
dim(c) = c > 1 ? 0.45 : 1.0
R(o, c) = 255 * ch(hue(o), 0) * dim(c)
G(o, c) = 255 * ch(hue(o), 1) * dim(c)
B(o, c) = 255 * ch(hue(o), 2) * dim(c)
set multiplot layout 1, panels title title
unset key
unset colorbox
set size ratio -1
set xtics format ''
set ytics format ''
do for [i = 0:panels - 1] {
  set title sprintf('step %d', i * every)
  plot data index i using 1:2:(R($3, $4)):(G($3, $4)):(B($3, $4)) with rgbimage
}
unset multiplot
