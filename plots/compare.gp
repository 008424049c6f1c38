# compare.gp — overlaid plots of several runs, from the data files bench_compare writes into its output directory.
# Run inside that directory (bench/lib/pb_plot.c starts gnuplot there). Names are fixed and relative: no path is
# ever part of the script's text, and the run directories compared are never read here.
#   compare_floor.dat     one block per run (title line, then "threads GB/s"): read floor vs threads
#   compare_decode.dat    one block per run (title line, then "threads tok/s"): best decode vs threads
#   compare_dispatch.dat  a table: policy, then ns per dispatch per run (header row names the runs)
# Each present file gives compare_<name>.png and .svg. What the script cannot ask gnuplot comes from
# pb_plot_spec.c as numbers: has_floor, has_decode, has_dispatch (1/0: the file is there), floor_blocks and
# decode_blocks (title lines: stats would do, but warns on a 2-point block), dispatch_cols (columns of the table).
# pb_plot.c draws into names of its own process (tmp_tag: its pid) and renames them over the plots once gnuplot
# is done, so a second run on the same directory never reads nor replaces a half-drawn file. By hand: the names.
if (!exists("tmp_tag")) { tmp_tag = 0 }
out_name(stem, fmt) = tmp_tag > 0 ? sprintf("%s.%s.tmp-%d", stem, fmt, tmp_tag) : stem.".".fmt
set key autotitle columnhead
set grid

floor = 'compare_floor.dat'
decode = 'compare_decode.dat'
disp = 'compare_dispatch.dat'
do for [v in "has_floor has_decode has_dispatch floor_blocks decode_blocks dispatch_cols"] {
    if (!exists(v)) { print "compare.gp: ".v." is not set (bench_compare sets it)"; exit status 2 }
}

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size 1200,600 font ",11"; } else { set terminal svg noenhanced size 1200,600 font ",11"; }
    if (has_floor) {
        set output out_name('compare_floor', fmt)
        set title "Streaming read floor vs threads"
        set xlabel "threads"; set ylabel "GB/s (best kernel)"
        unset logscale; set logscale x 2; set style data linespoints
        plot for [i=0:floor_blocks-1] floor index i using 1:2 title columnheader(1)
    }
    if (has_decode) {
        set output out_name('compare_decode', fmt)
        set title "Decode tok/s vs threads (best policy and core set per thread count)"
        set xlabel "threads"; set ylabel "tok/s"
        unset logscale; set logscale x 2; set style data linespoints
        plot for [i=0:decode_blocks-1] decode index i using 1:2 title columnheader(1)
    }
    if (has_dispatch) {
        set output out_name('compare_dispatch', fmt)
        set title "Dispatch cost per policy (each machine at all its PUs, no gap, empty job)"
        set xlabel "policy"; set ylabel "ns per dispatch (log)"
        unset logscale; set logscale y
        set style data histograms
        set style histogram clustered gap 1
        set style fill solid 0.8 border -1
        plot for [c=2:dispatch_cols] disp using c:xtic(1) title columnheader(c)
        unset logscale y
        set style data linespoints
    }
}
