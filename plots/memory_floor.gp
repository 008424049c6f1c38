# memory_floor.gp — the streaming read floor from memory_floor.csv and the per-token ceilings from
# token_floor.csv.
# Run inside the run directory (bench/lib/pb_plot.c starts gnuplot there; by hand: cd RUN_DIR && gnuplot -e
# 'has_token=1' PATH/plots/memory_floor.gp). Names are fixed and relative: no path is ever part of the script's
# text.
#   memory_floor.png/.svg: best-pass GB/s vs threads, a panel per op (read, copy, write) and a line per kernel;
#                          on the read panel the floor (best read kernel per thread count) as a thick line
#                          labelled with its placement (near, far, mixed); the floor line needs token_floor.csv
#   token_floor.png/.svg:  tok/s ceiling per format, a bar per thread count, one panel per model (when
#                          token_floor.csv is there: has_token, 1/0 from pb_plot_spec.c, says so)
# pb_plot.c draws into names of its own process (tmp_tag: its pid) and renames them over the plots once gnuplot
# is done, so a second run on the same directory never reads nor replaces a half-drawn file. By hand: the names.
if (!exists("tmp_tag")) { tmp_tag = 0 }
out_name(stem, fmt) = tmp_tag > 0 ? sprintf("%s.%s.tmp-%d", stem, fmt, tmp_tag) : stem.".".fmt
csv = 'memory_floor.csv'
tok = 'token_floor.csv'
if (!exists("has_token")) { has_token = 0 }
set datafile separator ','
set datafile missing NaN

# The kernels of each op, and the models and thread counts of the token floor, in file order. stats reads them
# as data: a CSV field is never part of a command (columnheaders: the header row is not a value).
set datafile columnheaders
add_word(list, w) = strstrt(" ".list, " ".w." ") ? list : list.w." "
reads = ""
copies = ""
writes = ""
stats csv using (op = strcol("op"), k = strcol("kernel"), reads = (op eq "read") ? add_word(reads, k) : reads, \
                 copies = (op eq "copy") ? add_word(copies, k) : copies, \
                 writes = (op eq "write") ? add_word(writes, k) : writes, 0) nooutput
others = copies.writes
models = ""
threads = ""
if (has_token) {
    stats tok using (models = add_word(models, strcol("model")), threads = add_word(threads, strcol("threads")), 0) \
          nooutput
}
unset datafile columnheaders
# format_order (pb_plot_spec.c): the formats a token floor is given for, in the build's order; then any other the
# CSV holds (a model file's own type mix), in its order; by hand, the CSV's alone.
formats = exists("format_order") ? format_order." " : ""
if (has_token) { set datafile columnheaders; \
    stats tok using (formats = add_word(formats, strcol("format")), 0) nooutput; unset datafile columnheaders }
ffo = " ".formats." "

gbps(k) = (strcol("kernel") eq k) ? column("gbps_best") : NaN
floor_at(m, f) = (strcol("model") eq m && strcol("format") eq f) ? column("floor_gbps") : NaN
fidx(f) = strstrt(ffo, " ".f." ") > 0 ? words(substr(ffo, 1, strstrt(ffo, " ".f." "))) : NaN
nthr = words(threads)
barw = 0.8 / (nthr > 0 ? nthr : 1)
ceiling_at(m, t) = (strcol("model") eq m && column("threads") == t) ? column("tok_per_s_ceiling") : NaN
m1 = word(models, 1)

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size 1200,560 font ",11"; } else { set terminal svg noenhanced size 1200,560 font ",11"; }
    set output out_name('memory_floor', fmt)
    # One panel per op, each with its own key (at most 8 entries: 7 read kernels and the floor).
    set multiplot layout 1, (others eq "" ? 1 : (copies ne "" && writes ne "" ? 3 : 2)) \
        title "Streaming bandwidth vs threads (best pass of each point); the read floor is the best read kernel"
    set xlabel "threads"
    set ylabel "GB/s (1e9 B/s)"
    set grid
    set key below horizontal samplen 2
    set offsets graph 0.03, graph 0.03, graph 0.05, 0
    set yrange [0:*]
    set xtics 1
    set autoscale xfix
    set title "read"
    plot for [k in reads] csv using "threads":(gbps(k)) with linespoints lw 2 dt 1 pt 7 ps 0.6 title k, \
         for [t = 1:has_token] tok using "threads":(floor_at(m1, "f16")) with linespoints lw 5 lc rgb "black" pt 5 ps 1.2 \
             title "read floor", \
         for [t = 1:has_token] tok using "threads":(floor_at(m1, "f16")):(strcol("placement")) with labels offset 0,1.2 \
             notitle
    do for [op in "copy write"] {
        list = op eq "copy" ? copies : writes
        if (list ne "") {
            set title op.(op eq "copy" ? " (GB/s counts read + write)" : "")
            plot for [k in list] csv using "threads":(gbps(k)) with linespoints lw 2 dt 1 pt 7 ps 0.6 title k
        }
    }
    unset multiplot
    unset offsets

    if (has_token) {
        th = 80 + 210 * words(models)
        if (fmt eq "png") { set terminal pngcairo noenhanced size 1200,th font ",11" } else { set terminal svg noenhanced size 1200,th font ",11" }
        set output out_name('token_floor', fmt)
        set key outside right
        set grid ytics
        set xtics ()
        do for [i = 1:words(formats)] { set xtics add (word(formats, i) i - 1) }
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
}
