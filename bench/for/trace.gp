# Draw a trace of `ballast for-bench --trace FILE`: each worker's path
# through the loop's indices over time, one segment per body call (from its
# start time and first index to its end time and last index), one colour
# per worker. Two traces side by side when `before` is set:
#
#   gnuplot -e "trace='new.trace'; block='spin mid'; out='mid.png'" bench/for/trace.gp
#   gnuplot -e "before='old.trace'; before_title='...'; trace='new.trace'; \
#               trace_title='...'; block='spin mid'; out='mid.png'" bench/for/trace.gp
#
# `block` names the data block (mode and workload, as the trace's comment
# lines do); `xmax` (optional, ms) gives both panels the same time axis.
if (!exists("trace")) { print "set trace='FILE'"; exit status 2 }
if (!exists("block")) block = 'spin mid'
if (!exists("out")) out = 'trace.png'
if (!exists("trace_title")) trace_title = trace
two = exists("before")
if (two && !exists("before_title")) before_title = before

set terminal pngcairo size (two ? 1200 : 640), 440 noenhanced font ',10'
set output out
set xlabel 'time from the start of the call (ms)'
set ylabel 'loop index'
set key top left opaque box
if (exists("xmax")) { set xrange [0:xmax] }
set grid
set linetype 1 lc rgb '#1f77b4' lw 2
set linetype 2 lc rgb '#d62728' lw 2
set linetype 3 lc rgb '#2ca02c' lw 2
set linetype 4 lc rgb '#9467bd' lw 2
# one segment per body call: from (start, begin) to (end, end index)
seg(f, w) = sprintf("< awk -v b='# %s' '$0 == b {on = 1; next} /^# / {on = 0} on && NF == 5 && $1 == %d' %s", block, w, f)
workers(f) = int(system(sprintf("awk -v b='# %s' '$0 == b {on = 1; next} /^# / {on = 0} on && NF == 5 && $1 + 1 > m {m = $1 + 1} END {print m + 0}' %s", block, f)))

if (two) { set multiplot layout 1, 2 }
if (two) {
  set title before_title
  P = workers(before)
  plot for [w = 0:P - 1] seg(before, w) using ($2 * 1e3):4:(($3 - $2) * 1e3):($5 - $4) \
       with vectors nohead lt (w + 1) title sprintf('worker %d', w)
}
set title trace_title
P = workers(trace)
plot for [w = 0:P - 1] seg(trace, w) using ($2 * 1e3):4:(($3 - $2) * 1e3):($5 - $4) \
     with vectors nohead lt (w + 1) title sprintf('worker %d', w)
if (two) { unset multiplot }
