# overlap.gp — what overlapping the caller's prep with a helper's job buys, from overlap.csv.
# Run inside the run directory (bench/lib/pb_plot.c starts gnuplot there; by hand: cd RUN_DIR && gnuplot
# PATH/plots/overlap.gp). Names are fixed and relative: no path is ever part of the script's text.
#   overlap.png/.svg:     speed-up over serial vs the prep/job ratio, one line per mode, the ideal
#                         ceiling (serial / max(prep, job)) dashed
#   overlap_pct.png/.svg: the share of that ceiling each mode reached
csv = 'overlap.csv'
set datafile separator ','
set datafile missing NaN
modes = "serial async-spawn async-inherit async-pinned"

sel(m, col) = (strcol("mode") eq m) ? column(col) : NaN

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size 900,560 font ",10"; } else { set terminal svg noenhanced size 900,560 font ",10"; }
    set output 'overlap.'.fmt
    set title "Serial prep overlapped with a helper's q8_0 matvec: speed-up over serial"
    set xlabel "prep / job time (ratio asked for)"
    set ylabel "speed-up over serial (x)"
    set grid
    set yrange [0:*]
    set offsets graph 0.02, graph 0.02, graph 0.05, 0
    set key top left
    plot for [m in modes] csv using "ratio":(sel(m, "speedup")) with linespoints title m, \
         csv using "ratio":(sel("serial", "ceiling")) with lines dt 2 lw 2 lc rgb "gray30" title "ceiling: serial / max(prep, job)"

    set output 'overlap_pct.'.fmt
    set title "Share of the ideal ceiling reached"
    set ylabel "% of ceiling"
    set yrange [0:110]
    set key bottom right opaque box
    plot for [m in modes] csv using "ratio":(sel(m, "pct_of_ceiling")) with linespoints title m, \
         100 with lines dt 2 lc rgb "gray30" title "ceiling"
}
