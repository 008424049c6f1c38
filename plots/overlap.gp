# overlap.gp — what overlapping the caller's prep with a helper's job buys, from overlap.csv.
# Run inside the run directory (bench/lib/pb_plot.c starts gnuplot there; by hand: cd RUN_DIR && gnuplot
# PATH/plots/overlap.gp). Names are fixed and relative: no path is ever part of the script's text.
#   overlap.png/.svg:     speed-up over serial vs the prep/job ratio, one line per mode, the ideal
#                         ceiling (serial / max(prep, job)) dashed
#   overlap_pct.png/.svg: the share of that ceiling each mode reached
# pb_plot.c draws into names of its own process (tmp_tag: its pid) and renames them over the plots once gnuplot
# is done, so a second run on the same directory never reads nor replaces a half-drawn file. By hand: the names.
if (!exists("tmp_tag")) { tmp_tag = 0 }
out_name(stem, fmt) = tmp_tag > 0 ? sprintf("%s.%s.tmp-%d", stem, fmt, tmp_tag) : stem.".".fmt
csv = 'overlap.csv'
set datafile separator ','
set datafile missing NaN
modes = "serial async-spawn async-inherit async-pinned"

sel(m, col) = (strcol("mode") eq m) ? column(col) : NaN
# The % axis reaches past 100 when a mode beat its ceiling (timing noise): no point is cut off.
set datafile columnheaders
stats csv using "pct_of_ceiling" nooutput
pct_top = STATS_max * 1.08 > 110 ? STATS_max * 1.08 : 110
unset datafile columnheaders

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size 1200,560 font ",11"; } else { set terminal svg noenhanced size 1200,560 font ",11"; }
    set output out_name('overlap', fmt)
    set title "Serial prep overlapped with a helper's q8_0 matvec: speed-up over serial; dashed: the ceiling, serial / max(prep, job)"
    set xlabel "prep / job time (ratio asked for)"
    set ylabel "speed-up over serial (x)"
    set grid
    set yrange [0:*]
    set offsets graph 0.02, graph 0.02, graph 0.05, 0
    set key outside right top   # inside, it covered the lines of the low ratios
    plot for [m in modes] csv using "ratio":(sel(m, "speedup")) with linespoints title m, \
         csv using "ratio":(sel("serial", "ceiling")) with lines dt 2 lw 2 lc rgb "gray30" title "ceiling"

    set output out_name('overlap_pct', fmt)
    set title "Share of the ideal ceiling reached"
    set ylabel "% of ceiling"
    set yrange [0:pct_top]
    plot for [m in modes] csv using "ratio":(sel(m, "pct_of_ceiling")) with linespoints title m, \
         100 with lines dt 2 lc rgb "gray30" title "ceiling"
}
