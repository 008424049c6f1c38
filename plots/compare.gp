# compare.gp — overlaid plots of several runs, from the data files bench_compare writes into OUT_DIR.
# usage: gnuplot -c plots/compare.gp OUT_DIR
#   compare_floor.dat     one block per run (title line, then "threads GB/s"): read floor vs threads
#   compare_decode.dat    one block per run (title line, then "threads tok/s"): best decode vs threads
#   compare_dispatch.dat  a table: policy, then ns per dispatch per run (header row names the runs)
# Each present file gives OUT_DIR/compare_<name>.png and .svg.
dir = ARG1
set key autotitle columnhead
set grid
exists_file(f) = system("test -s '".f."' && echo 1 || echo 0") eq "1"
# blocks = title lines (stats would do, but warns on a 2-point block)
blocks(f) = int(system("grep -c '^\"' '".f."'"))

floor = dir.'/compare_floor.dat'
decode = dir.'/compare_decode.dat'
disp = dir.'/compare_dispatch.dat'

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo size 900,560 font ",10"; } else { set terminal svg size 900,560 font ",10"; }
    if (exists_file(floor)) {
        set output dir.'/compare_floor.'.fmt
        set title "Streaming read floor vs threads"
        set xlabel "threads"; set ylabel "GB/s (best kernel)"
        unset logscale; set logscale x 2; set style data linespoints
        plot for [i=0:blocks(floor)-1] floor index i using 1:2 title columnheader(1)
    }
    if (exists_file(decode)) {
        set output dir.'/compare_decode.'.fmt
        set title "Decode tok/s vs threads (best policy and core set per thread count)"
        set xlabel "threads"; set ylabel "tok/s"
        unset logscale; set logscale x 2; set style data linespoints
        plot for [i=0:blocks(decode)-1] decode index i using 1:2 title columnheader(1)
    }
    if (exists_file(disp)) {
        set output dir.'/compare_dispatch.'.fmt
        set title "Dispatch cost per policy (each machine at all its PUs, no gap, empty job)"
        set xlabel "policy"; set ylabel "ns per dispatch (log)"
        unset logscale; set logscale y
        set style data histograms
        set style histogram clustered gap 1
        set style fill solid 0.8 border -1
        ncol = int(system("head -1 '".disp."' | wc -w"))
        plot for [c=2:ncol] disp using c:xtic(1) title columnheader(c)
        unset logscale y
        set style data linespoints
    }
}
