# latency.gp — memory latency from latency.csv (bench_memory_floor --latency).
# Run inside the run directory (bench/harness/pb_plot.c starts gnuplot there; by hand: cd RUN_DIR && gnuplot -e
# 'has_loaded=1' PATH/plots/latency.gp). Names are fixed and relative: no path is ever part of the script's text.
#   latency.png/.svg: left, the loaded curve: ns per hop of the chase against the bandwidth drawn (the streamers'
#                     reads and the chase's own lines), each point labelled with the streamers' duty, the idle
#                     point (the ladder's largest working set) at the left; right, the idle ladder: ns per hop
#                     against the working set (both axes log scale), each point labelled with the cache level that holds it.
#                     has_loaded (1/0, from pb_plot_spec.c) says whether there is a loaded curve (a one-cpu set has
#                     none).
# pb_plot.c draws into names of its own process (tmp_tag: its pid) and renames them over the plots once gnuplot
# is done. By hand: the names.
if (!exists("tmp_tag")) { tmp_tag = 0 }
if (!exists("has_loaded")) { has_loaded = 0 }
out_name(stem, fmt) = tmp_tag > 0 ? sprintf("%s.%s.tmp-%d", stem, fmt, tmp_tag) : stem.".".fmt
csv = 'latency.csv'
set datafile separator ','
set datafile missing NaN
set datafile columnheaders

# The ladder's largest working set: the idle point of the loaded curve.
biggest = 0
stats csv using (biggest = (strcol("phase") eq "ladder" && column("size_kib") > biggest) ? column("size_kib") : biggest, 0) nooutput

ladder_ns(x) = (strcol("phase") eq "ladder") ? column(x) : NaN
idle_ns(x) = (strcol("phase") eq "ladder" && column("size_kib") == biggest) ? column(x) : NaN
loaded_ns(x) = (strcol("phase") eq "loaded") ? column(x) : NaN

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size 1200,520 font ",11" } else { set terminal svg noenhanced size 1200,520 font ",11" }
    set output out_name('latency', fmt)
    set multiplot layout 1, (has_loaded ? 2 : 1) title "Memory latency: a pointer chase, one random cycle through every 64 B line (median round; bars: fastest to slowest)"
    set grid
    set key top left
    set yrange [0:*]
    if (has_loaded) {
        set title "loaded: the other cpus stream reads at a duty (label: duty %)"
        set xlabel "bandwidth drawn, GB/s (1e9 B/s): streamers + the chase's lines"
        set ylabel "ns per hop"
        set xrange [0:*]
        plot csv using "total_gbps":(loaded_ns("ns_median")):(loaded_ns("ns_min")):(loaded_ns("ns_max")) with yerrorlines lw 2 pt 7 title "loaded", \
             csv using "total_gbps":(loaded_ns("ns_median")):(sprintf("%d%%", column("duty_pct"))) with labels offset 0,1 notitle, \
             csv using "total_gbps":(idle_ns("ns_median")):(idle_ns("ns_min")):(idle_ns("ns_max")) with yerrorbars lw 2 pt 5 ps 1.3 lc rgb "black" title "idle"
        unset xrange
    }
    set title "idle ladder by working set (label: the cache level that holds it)"
    set xlabel "working set, KiB"
    set ylabel "ns per hop"
    set logscale x 2
    set logscale y 10
    set yrange [*:*]
    set format x "%.0f"
    plot csv using "size_kib":(ladder_ns("ns_median")):(ladder_ns("ns_min")):(ladder_ns("ns_max")) with yerrorlines lw 2 pt 7 title "idle", \
         csv using "size_kib":(ladder_ns("ns_median")):(strcol("level")) with labels offset 0,1 notitle
    unset logscale x
    unset logscale y
    set format x
    unset multiplot
}
