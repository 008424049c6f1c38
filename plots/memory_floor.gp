# memory_floor.gp — the streaming read floor from memory_floor.csv and the per-token ceilings from
# token_floor.csv.
# usage: gnuplot -c plots/memory_floor.gp RUN_DIR
#   RUN_DIR/memory_floor.png/.svg: best-pass GB/s vs threads, a line per kernel (reads solid, copy and write
#                                  dashed), the floor (best read kernel per thread count) as a thick line
#                                  labelled with its placement (near, far, mixed)
#   RUN_DIR/token_floor.png/.svg:  tok/s ceiling per format, a bar per thread count, one panel per model
dir = ARG1
csv = dir.'/memory_floor.csv'
tok = dir.'/token_floor.csv'
set datafile separator ','
set datafile missing NaN

# The kernels, models and thread counts present, in file order (awk is in every base system).
uniq(file, col) = system(sprintf("awk -F, 'NR > 1 && !seen[$%d]++ { printf \"%%s \", $%d }' '%s'", col, col, file))
# kernels of one op, in file order
kernels_of(op) = system(sprintf("awk -F, 'NR > 1 && $3 == \"%s\" && !seen[$4]++ { printf \"%%s \", $4 }' '%s'", op, csv))
reads = kernels_of("read")
others = kernels_of("copy").kernels_of("write")
models = uniq(tok, 3)
threads = uniq(tok, 5)
formats = "f16 q8_0 q4_0 q1_0 tq2_0"

gbps(k) = (strcol("kernel") eq k) ? column("gbps_best") : NaN
floor_at(m, f) = (strcol("model") eq m && strcol("format") eq f) ? column("floor_gbps") : NaN
fidx(f) = (f eq "f16") ? 0 : (f eq "q8_0") ? 1 : (f eq "q4_0") ? 2 : (f eq "q1_0") ? 3 : 4
nthr = words(threads)
barw = 0.8 / nthr
ceiling_at(m, t) = (strcol("model") eq m && column("threads") == t) ? column("tok_per_s_ceiling") : NaN
m1 = word(models, 1)

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size 960,600 font ",10"; } else { set terminal svg noenhanced size 960,600 font ",10"; }
    set output dir.'/memory_floor.'.fmt
    set title "Streaming bandwidth vs threads (best pass of each point); the read floor is the best read kernel"
    set xlabel "threads"
    set ylabel "GB/s (1e9 B/s; copy counts read + write)"
    set grid
    set key outside right
    set offsets graph 0.03, graph 0.03, graph 0.05, 0
    set yrange [0:*]
    set xtics 1
    set autoscale xfix
    plot for [k in reads] csv using "threads":(gbps(k)) with linespoints lw 2 dt 1 pt 7 ps 0.6 title k, \
         for [k in others] csv using "threads":(gbps(k)) with linespoints lw 1 dt 2 pt 7 ps 0.6 title k, \
         tok using "threads":(floor_at(m1, "f16")) with linespoints lw 5 lc rgb "black" pt 5 ps 1.2 title "read floor", \
         tok using "threads":(floor_at(m1, "f16")):(strcol("placement")) with labels offset 0,1.2 notitle

    set output dir.'/token_floor.'.fmt
    unset offsets
    set xtics ("f16" 0, "q8_0" 1, "q4_0" 2, "q1_0" 3, "tq2_0" 4)
    set style fill solid 0.8 border -1
    set boxwidth barw
    set xrange [-0.6:words(formats) - 0.4]
    set multiplot layout words(models), 1 title "Decode ceiling per token at the read floor (weights / floor GB/s)"
    do for [m in models] {
        set title m
        set xlabel ""
        set ylabel "tok/s ceiling"
        plot for [i = 1:nthr] tok using (fidx(strcol("format")) - 0.4 + barw * (i - 0.5)):(ceiling_at(m, word(threads, i) + 0)) \
             with boxes title sprintf("%s thr", word(threads, i))
    }
    unset multiplot
    unset xrange
}
