# cpu_util.gp — per-cpu utilisation of one run: a heatmap (time × cpu, 0–100 % busy) and the mean busy % per
# cpu. Called as `gnuplot -c plots/cpu_util.gp RUN_DIR` (bench_cpu_util and bench_report do); reads
# RUN_DIR/cpu_util.csv (run_id,host,t_ms,cpu,busy_pct,user_pct,sys_pct,steal_pct; one row per cpu per
# interval, t_ms = the end of the interval) and writes RUN_DIR/cpu_util_heatmap.png/.svg and cpu_util_mean.png/.svg.
if (ARGC < 1) { print "usage: gnuplot -c plots/cpu_util.gp RUN_DIR"; exit status 2 }
dir = ARG1
csv = dir . "/cpu_util.csv"
rows = int(system(sprintf("awk 'END { print NR - 1 }' '%s' 2>/dev/null || echo 0", csv)))
if (rows < 1) { print sprintf("cpu_util.gp: no samples in %s: no plot", csv); exit }
set datafile separator ","
set datafile columnheaders

# The interval is the first sample's end time (the sampler starts at 0), the cpu range the ids present.
stats csv using 3:4 nooutput
interval_ms = STATS_min_x
cpu_min = STATS_min_y
cpu_max = STATS_max_y
host = system(sprintf("awk -F, 'NR==2 { print $2; exit }' '%s'", csv))

# Mean busy % per cpu: the mean of its samples (the harness's table weighs by ticks, which agrees unless a
# cpu came or went mid-run), tabulated first so the bars can carry their values.
set table $means
plot csv using 4:5 smooth unique
unset table

do for [fmt in "png svg"] {
    set datafile separator ","
    set datafile columnheaders
    set colorbox
    if (fmt eq "png") { set terminal pngcairo size 1100,(300 + 40 * (cpu_max - cpu_min + 1)) font ",10" } else { set terminal svg size 1100,(300 + 40 * (cpu_max - cpu_min + 1)) font ",10" }

    # Heatmap: each sample is a box over its interval and its cpu, coloured by busy %.
    set output dir . "/cpu_util_heatmap." . fmt
    set title sprintf("busy %% per cpu over time — %s (%.0f ms samples)", host, interval_ms)
    set xlabel "time (s)"
    set ylabel "cpu"
    set ytics 1
    set yrange [cpu_min - 0.5 : cpu_max + 0.5]
    set cbrange [0:100]
    set cblabel "busy %"
    set palette defined (0 "#ffffff", 20 "#fde0c5", 50 "#f59e4c", 80 "#d7301f", 100 "#7f0000")
    set style fill solid 1.0 noborder
    plot csv using (($3 - interval_ms / 2) / 1000):4:(interval_ms / 2000.0):(0.5):5 \
         with boxxyerror fillcolor palette notitle

    unset colorbox
    if (fmt eq "png") { set terminal pngcairo size 800,450 font ",10" } else { set terminal svg size 800,450 font ",10" }
    set output dir . "/cpu_util_mean." . fmt
    set title sprintf("mean busy %% per cpu — %s", host)
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
