# pool_overhead.gp — dispatch cost per policy from pool_overhead.csv.
# Run inside the run directory (bench/lib/pb_plot.c starts gnuplot there; by hand: cd RUN_DIR && gnuplot
# PATH/plots/pool_overhead.gp). Names are fixed and relative: no path is ever part of the script's text.
#   pool_overhead_threads.png/.svg: cost vs threads (gap 0, empty job), log y, the round trip dashed
#   pool_overhead_gap.png/.svg:     cost vs caller gap at the largest non-oversubscribed thread count
csv = 'pool_overhead.csv'
set datafile separator ','
set datafile missing NaN
policies = "spin condvar hybrid spawn omp"

# the largest thread count that still has a pingpong partner and is not oversubscribed: the median thread
# count of the non-pingpong rows is a fair proxy; use the second-largest distinct count when there are 3+.
stats csv using (column("threads")) nooutput
maxthr = STATS_max
stats csv using ((strcol("policy") ne "pingpong" && column("threads") < maxthr) ? column("threads") : NaN) nooutput
gapthr = (exists("STATS_max") && STATS_records > 0) ? STATS_max : maxthr

sel(p, g, j) = (strcol("policy") eq p && column("gap_us") == g && column("job_ns") == j) ? column("ns_batch_mean") : NaN
selthr(p, t, j) = (strcol("policy") eq p && column("threads") == t && column("job_ns") == j) ? column("ns_batch_mean") : NaN

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 900,560 font ",10"; } else { set terminal svg size 900,560 font ",10"; }
    set output 'pool_overhead_threads.'.fmt
    set title "Dispatch cost per policy (gap 0, empty job): median batch mean"
    set xlabel "threads"
    set ylabel "ns per dispatch (log)"
    set logscale y
    set grid
    set offsets graph 0.03, graph 0.03, 0, 0
    set key outside right
    plot for [p in policies] csv using "threads":(sel(p, 0, 0)) with linespoints title p, \
         csv using "threads":((strcol("policy") eq "pingpong") ? column("ns_batch_mean") : NaN) with points pt 6 lc rgb "gray40" title "round trip (pingpong)"

    set output 'pool_overhead_gap.'.fmt
    set title sprintf("Dispatch cost vs caller gap (%d threads, empty job)", gapthr)
    set xlabel "serial work between dispatches (µs)"
    plot for [p in policies] csv using "gap_us":(selthr(p, gapthr, 0)) with linespoints title p
    unset logscale y
}
