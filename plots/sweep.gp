# sweep.gp — decode throughput per policy from sweep.csv.
# usage: gnuplot -c plots/sweep.gp RUN_DIR
#   RUN_DIR/sweep.png/.svg:       tok/s vs threads, a line per series (policy, plus format / schedule / core set /
#                                 batch where the run has several), the read floor's ceiling dashed, and vertical
#                                 lines where the placement first takes an E-core or an SMT sibling
#   RUN_DIR/sweep_floor.png/.svg: the same points as % of the same-run read floor
dir = ARG1
csv = dir.'/sweep.csv'
set datafile separator ','
set datafile missing NaN

stats csv using "series_id" nooutput
K = int(STATS_max)
array LABEL[K]
stats csv using (LABEL[int(column("series_id"))] = strcol("series"), 0) nooutput
stats csv using "threads" nooutput
tmin = STATS_min
tmax = STATS_max

# The first thread count whose placement holds an E-core / an SMT sibling (1e9: none in this run).
stats csv using ((column("e_cores") > 0) ? column("threads") : 1e9) nooutput
e_from = STATS_min
stats csv using ((column("smt_threads") > 0) ? column("threads") : 1e9) nooutput
smt_from = STATS_min
if (e_from < 1e9) {
    set arrow 1 from first e_from - 0.5, graph 0 to first e_from - 0.5, graph 1 nohead dt 3 lw 2 lc rgb "dark-orange"
    set label 1 "E-cores →" at first e_from - 0.45, graph 0.97 left textcolor rgb "dark-orange"
}
if (smt_from < 1e9) {
    set arrow 2 from first smt_from - 0.5, graph 0 to first smt_from - 0.5, graph 1 nohead dt 3 lw 2 lc rgb "purple"
    set label 2 "SMT siblings →" at first smt_from - 0.45, graph 0.92 left textcolor rgb "purple"
}

sel(s, col) = (column("series_id") == s) ? column(col) : NaN

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 960,580 font ",10"; } else { set terminal svg size 960,580 font ",10"; }
    set output dir.'/sweep.'.fmt
    set title "Decode throughput per policy (median token) against the same-run read floor"
    set xlabel "threads"
    set ylabel "tokens/s"
    set xtics 1
    set grid
    set yrange [0:*]
    set offsets graph 0.03, graph 0.03, 0, 0
    set key outside right
    plot for [s=1:K] csv using "threads":(sel(s, "tok_per_s")) with linespoints lw 2 title LABEL[s], \
         for [s=1:K] csv using "threads":(sel(s, "floor_tok_per_s")) with lines dt 2 lc rgb "gray40" \
             title (s == 1 ? "read floor (ceiling)" : "")

    set output dir.'/sweep_floor.'.fmt
    set title "Decode as % of the same-run read floor of the same cpus"
    set ylabel "% of floor"
    set yrange [0:110]
    plot for [s=1:K] csv using "threads":(sel(s, "pct_of_floor")) with linespoints lw 2 title LABEL[s], \
         90 with lines dt 2 lc rgb "gray40" title "90%"
    set yrange [*:*]
}
