# sweep.gp — decode throughput per policy from sweep.csv.
# Run inside the run directory (bench/lib/pb_plot.c starts gnuplot there; by hand: cd RUN_DIR && gnuplot -e
# 'by_id=1; has_e_cores=1; has_smt=1' PATH/plots/sweep.gp). Names are fixed and relative: no path is ever part
# of the script's text.
#   sweep.png/.svg:       tok/s vs threads, a line per series, the read floor's ceiling dashed, and vertical
#                         lines where the placement first takes an E-core or an SMT sibling
#   sweep_floor.png/.svg: the same points as % of the same-run read floor
# A series is bench_sweep's series_id/series columns (policy, plus format / schedule / core set / batch where the
# run has several); a sweep.csv without them (an older one) gets a line per policy and format. The boundaries need the
# e_cores and smt_threads columns; without them there are none. Which columns the header holds comes from
# pb_plot_spec.c as 1/0: by_id (series_id and series), has_e_cores, has_smt.
csv = 'sweep.csv'
set datafile separator ','
set datafile missing NaN
if (!exists("by_id")) { by_id = 0 }
if (!exists("has_e_cores")) { has_e_cores = 0 }
if (!exists("has_smt")) { has_smt = 0 }

policies = "spin condvar hybrid spawn omp"
formats = "f32 f16 q8_0 q4_0 q1_0 tq2_0"
NP = words(policies)
widx(list, w) = sum [i=1:words(list)] ((word(list, i) eq w) ? i : 0)
if (by_id) {
    stats csv using "series_id" nooutput
    K = int(STATS_max)
} else {
    K = NP * words(formats)
}
# Without series columns: one series per (format, policy); 0 (no series) for a name not in the lists.
fallback(p, f) = (widx(policies, p) > 0 && widx(formats, f) > 0) ? (widx(formats, f) - 1) * NP + widx(policies, p) : 0
sid(dummy) = by_id ? column("series_id") : fallback(strcol("policy"), strcol("format"))
array LABEL[K]
array N[K]
do for [s=1:K] {
    LABEL[s] = by_id ? "" : word(policies, (s - 1) % NP + 1).' '.word(formats, (s - 1) / NP + 1)
    stats csv using ((sid(0) == s) ? 1 : 0) nooutput
    N[s] = STATS_sum
}
if (by_id) { stats csv using (LABEL[int(column("series_id"))] = strcol("series"), 0) nooutput }

# The first thread count whose placement holds an E-core / an SMT sibling (1e9: none).
e_from = 1e9
smt_from = 1e9
if (has_e_cores) { stats csv using ((column("e_cores") > 0) ? column("threads") : 1e9) nooutput; e_from = STATS_min }
if (has_smt) { stats csv using ((column("smt_threads") > 0) ? column("threads") : 1e9) nooutput; smt_from = STATS_min }
if (e_from < 1e9) {
    set arrow 1 from first e_from - 0.5, graph 0 to first e_from - 0.5, graph 1 nohead dt 3 lw 2 lc rgb "dark-orange"
    set label 1 "E-cores →" at first e_from - 0.45, graph 0.97 left textcolor rgb "dark-orange"
}
if (smt_from < 1e9) {
    set arrow 2 from first smt_from - 0.5, graph 0 to first smt_from - 0.5, graph 1 nohead dt 3 lw 2 lc rgb "purple"
    set label 2 "SMT siblings →" at first smt_from - 0.45, graph 0.92 left textcolor rgb "purple"
}

sel(s, v) = (sid(0) == s) ? v : NaN
ceiling(dummy) = column("batch") * column("floor_gbps") * 1e9 / column("weight_bytes")

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size 960,580 font ",10"; } else { set terminal svg noenhanced size 960,580 font ",10"; }
    set output 'sweep.'.fmt
    set title "Decode throughput per policy (median token) against the same-run read floor"
    set xlabel "threads"
    set ylabel "tokens/s"
    set xtics 1
    set grid
    set yrange [0:*]
    set offsets graph 0.03, graph 0.03, 0, 0
    set key outside right
    plot for [s=1:K] csv using "threads":(sel(s, column("tok_per_s"))) with linespoints lw 2 \
             title (N[s] > 0 ? LABEL[s] : ""), \
         for [s=1:K] csv using "threads":(sel(s, ceiling(0))) with lines dt 2 lc rgb "gray40" \
             title (s == 1 ? "read floor (ceiling)" : "")

    set output 'sweep_floor.'.fmt
    set title "Decode as % of the same-run read floor of the same cpus"
    set ylabel "% of floor"
    set yrange [0:*]
    plot for [s=1:K] csv using "threads":(sel(s, column("pct_of_floor"))) with linespoints lw 2 \
             title (N[s] > 0 ? LABEL[s] : ""), \
         90 with lines dt 2 lc rgb "gray40" title "90%"
}
