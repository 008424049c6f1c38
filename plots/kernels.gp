# kernels.gp — the kernels' roofline from kernels.csv (bench_kernels).
# usage: gnuplot -c plots/kernels.gp RUN_DIR
#   RUN_DIR/kernels.png/.svg:         GB/s per format, one panel per level (l2, l3, dram), 1 thread, batch 1
#   RUN_DIR/kernels_threads.png/.svg: the same at the largest thread count measured
# The memory floor (memory_floor.csv's 1-thread read, column gbps_best) is drawn as a dashed line on every
# panel when that file is in the same run directory.
dir = ARG1
csv = dir.'/kernels.csv'
floorcsv = dir.'/memory_floor.csv'
set datafile separator ','
set datafile missing NaN

formats = "f32 f16 q8_0 q4_0 q1_0 tq2_0"
variants = "scalar avx2 avx512 neon"
levels = "l2 l3 dram"
fmtx(s) = s eq "f32" ? 0 : s eq "f16" ? 1 : s eq "q8_0" ? 2 : s eq "q4_0" ? 3 : s eq "q1_0" ? 4 : s eq "tq2_0" ? 5 : NaN
vshift(v) = v eq "scalar" ? -0.2 : v eq "avx2" ? 0.0 : v eq "avx512" ? 0.2 : 0.1
sel(v, l, t) = (strcol("variant") eq v && strcol("level") eq l && column("threads") == t && column("batch") == 1) \
               ? column("gbps_median") : NaN

stats csv using (column("threads")) nooutput
maxthr = STATS_max

hasfloor = system('[ -f "'.floorcsv.'" ] && echo 1 || echo 0') + 0
floor = NaN
if (hasfloor) {
    stats floorcsv using ((strcol("op") eq "read" && column("threads") == 1) ? column("gbps_best") : NaN) nooutput
    floor = STATS_max
}

do for [fmt in "png svg"] {
    do for [tsel = 1:2] {
        thr = (tsel == 1) ? 1 : maxthr
        if (tsel == 2 && maxthr == 1) { break }
        if (fmt eq "png") { set terminal pngcairo size 1200,460 font ",10" } else { set terminal svg size 1200,460 font ",10" }
        set output dir.(tsel == 1 ? '/kernels.' : '/kernels_threads.').fmt
        set multiplot layout 1,3 title sprintf("Kernel roofline: GB/s of weights (median), %d thread%s, batch 1", thr, thr > 1 ? "s" : "")
        set xtics ("f32" 0, "f16" 1, "q8_0" 2, "q4_0" 3, "q1_0" 4, "tq2_0" 5)
        set xrange [-0.5:5.5]
        set yrange [0:*]
        set grid ytics
        set ylabel "GB/s"
        set key top right
        do for [l in levels] {
            set title l
            plot for [v in variants] csv using (fmtx(strcol("format")) + vshift(v)):(sel(v, l, thr)) \
                     with points pt 7 ps 1.2 title v, \
                 (hasfloor ? floor : NaN) with lines dt 2 lc rgb "gray30" title "memory floor (1 thread)"
        }
        unset multiplot
    }
}
