# cpu_util.gp — per-cpu utilisation of one run: a heatmap (time × cpu, 0–100 % busy) and the mean busy % per
# cpu. Run inside the run directory (bench/lib/pb_plot.c starts gnuplot there, for bench_cpu_util, bench_sweep
# and bench_report; by hand: cd RUN_DIR && gnuplot PATH/plots/cpu_util.gp). Reads cpu_util.csv (one row per cpu
# per interval, t_ms = the end of the interval; columns read by name, as bench/io/pb_schema.h declares them) and
# writes cpu_util_heatmap.png/.svg and cpu_util_mean.png/.svg. Names are fixed and relative: no path is ever part
# of the script's text. pb_plot.c does not start it on a CSV without samples (stats would
# stop with an error).
# pb_plot.c draws into names of its own process (tmp_tag: its pid) and renames them over the plots once gnuplot
# is done, so a second run on the same directory never reads nor replaces a half-drawn file. By hand: the names.
if (!exists("tmp_tag")) { tmp_tag = 0 }
out_name(stem, fmt) = tmp_tag > 0 ? sprintf("%s.%s.tmp-%d", stem, fmt, tmp_tag) : stem.".".fmt
csv = "cpu_util.csv"
set datafile separator ","
set datafile columnheaders

# The interval is the first sample's end time (the sampler starts at 0), the cpu range the ids present.
stats csv using "t_ms":"cpu" nooutput
interval_ms = STATS_min_x
cpu_min = STATS_min_y
cpu_max = STATS_max_y
seam = STATS_max_x / 1000 / 1500.0   # about a pixel (s) added to each half-width: antialiased edges that meet show a seam
# Each sample covers its cpu from the previous sample's end (0 for the first) to its own: the boxes meet, however
# the intervals vary (the sweep pauses the sampler during its floor passes), so the map has no gaps. PREV holds
# each cpu's last end; since() returns it and moves it on (the using columns are evaluated in order).
array PREV[cpu_max - cpu_min + 1]
since(c, t) = (prev_t = PREV[c - cpu_min + 1], PREV[c - cpu_min + 1] = t, prev_t)
# The host of the first sample, read as data (a host name is never part of a command).
host = ""
stats csv using (host = strcol("host"), 0) every ::0::0 nooutput

# Mean busy % per cpu: the mean of its samples (the harness's table weighs by ticks, which agrees unless a
# cpu came or went mid-run), tabulated first so the bars can carry their values.
set table $means
plot csv using "cpu":"busy_pct" smooth unique
unset table

do for [fmt in "png svg"] {
    set datafile separator ","
    set datafile columnheaders
    set colorbox
    if (fmt eq "png") { set terminal pngcairo size 1200,(300 + 40 * (cpu_max - cpu_min + 1)) font ",11" } else { set terminal svg size 1200,(300 + 40 * (cpu_max - cpu_min + 1)) font ",11" }

    # Heatmap: each sample is a box over its interval and its cpu, coloured by busy %.
    set output out_name('cpu_util_heatmap', fmt)
    set title sprintf("busy %% per cpu over time — %s (samples of about %.0f ms, each drawn from the sample before it)", host, interval_ms) noenhanced
    set xlabel "time (s)"
    set ylabel "cpu"
    set ytics 1
    set yrange [cpu_min - 0.5 : cpu_max + 0.5]
    set cbrange [0:100]
    set cblabel "busy %"
    set palette defined (0 "#ffffff", 20 "#fde0c5", 50 "#f59e4c", 80 "#d7301f", 100 "#7f0000")
    set style fill solid 1.0 noborder
    do for [i=1:|PREV|] { PREV[i] = 0 }
    set xrange [0:*]
    plot csv using (t0 = since(column("cpu"), column("t_ms")), (t0 + column("t_ms")) / 2000):"cpu": \
                   ((column("t_ms") - t0) / 2000 + seam):(0.51):"busy_pct" with boxxyerror fillcolor palette notitle

    unset colorbox
    if (fmt eq "png") { set terminal pngcairo size 800,450 font ",10" } else { set terminal svg size 800,450 font ",10" }
    set output out_name('cpu_util_mean', fmt)
    set title sprintf("mean busy %% per cpu — %s", host) noenhanced
    set xlabel "cpu"
    set ylabel "busy %"
    set xtics 1
    set xrange [cpu_min - 0.6 : cpu_max + 0.6]
    set yrange [0:105]
    set ytics 0,20,100
    set grid ytics
    set boxwidth 0.7
    set style fill solid 0.8 border -1
    set datafile separator whitespace
    unset datafile columnheaders   # $means has no header
    plot $means using 1:2 with boxes linecolor rgb "#d7301f" notitle, \
         '' using 1:2:(sprintf("%.0f", $2)) with labels offset 0,0.8 notitle
    reset
}
