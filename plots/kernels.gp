# kernels.gp — the kernels' roofline from kernels.csv (bench_kernels).
# Run inside the run directory (bench/lib/pb_plot.c starts gnuplot there; by hand: cd RUN_DIR && gnuplot -e
# 'has_floor=1' PATH/plots/kernels.gp). Names are fixed and relative: no path is ever part of the script's text.
#   kernels.png/.svg:         GB/s per format, one panel per level (l2, l3, dram), 1 thread (else the fewest
#                             threads measured), batch 1
#   kernels_threads.png/.svg: the same at the largest thread count measured (when there are several)
#   roofline.png/.svg:        the classic roofline, both roofs: GMAC/s against MACs per byte (log-log), one point
#                             per format x level x variant (1 thread, batch 1), the memory roof (floor x intensity,
#                             dashed) and each ISA's int8 compute roof (a flat line in its colour); when kernels.csv
#                             has the roof columns (has_roof, from pb_plot_spec.c: older runs lack them)
# The memory floor (memory_floor.csv's 1-thread read, column gbps_best) is drawn as a dashed line on every
# panel when that file is in the same run directory: has_floor (1/0, from pb_plot_spec.c) says so.
# pb_plot.c draws into names of its own process (tmp_tag: its pid) and renames them over the plots once gnuplot
# is done, so a second run on the same directory never reads nor replaces a half-drawn file. By hand: the names.
if (!exists("tmp_tag")) { tmp_tag = 0 }
out_name(stem, fmt) = tmp_tag > 0 ? sprintf("%s.%s.tmp-%d", stem, fmt, tmp_tag) : stem.".".fmt
csv = 'kernels.csv'
floorcsv = 'memory_floor.csv'
if (!exists("has_floor")) { has_floor = 0 }
if (!exists("has_roof")) { has_roof = 0 }
set datafile separator ','
set datafile missing NaN

# The variants (ISAs) and levels present, in a fixed order, so a variant keeps its colour from run to run and
# absent ones draw no empty series. stats reads them as data: a CSV field is never part of a command (columnheaders:
# the header row is not a value).
add_word(list, w) = strstrt(" ".list, " ".w." ") ? list : list.w." "
seen_v = ""
seen_l = ""
set datafile columnheaders
stats csv using (seen_v = add_word(seen_v, strcol("variant")), seen_l = add_word(seen_l, strcol("level")), 0) nooutput
unset datafile columnheaders
# isa_order (pb_plot_spec.c, KERN_ISAS' names) and isa_colours (its table keyed by ISA, a spare colour for an ISA
# the table lacks): the order of the variants and a colour per word of it; a variant the order lacks (a newer
# build's run) follows in the CSV's order, in orange; by hand, the CSV's order.
iorder = exists("isa_order") ? isa_order : ""
icolours = exists("isa_colours") ? isa_colours : ""
variants = ""
do for [v in iorder] { if (strstrt(" ".seen_v, " ".v." ")) { variants = variants.v." " } }
do for [v in seen_v] { variants = add_word(variants, v) }
levels = ""
do for [l in "l2 l3 dram"] { if (strstrt(" ".seen_l, " ".l." ")) { levels = levels.l." " } }
iidx(v) = sum [i=1:words(iorder)] ((word(iorder, i) eq v) ? i : 0)
vcolor(v) = iidx(v) > 0 && iidx(v) <= words(icolours) ? word(icolours, iidx(v)) + 0 : 0xe69f00
# format_order (pb_plot_spec.c, KERN_FORMATS' names): a format's place on the x axis, then any other the CSV holds
# (a run of a newer build); by hand, the CSV's order.
format_order = exists("format_order") ? format_order." " : ""
set datafile columnheaders
stats csv using (format_order = add_word(format_order, strcol("format")), 0) nooutput
unset datafile columnheaders
fo = " ".format_order." "
fmtx(s) = strstrt(fo, " ".s." ") > 0 ? words(substr(fo, 1, strstrt(fo, " ".s." "))) : NaN
nfmt = words(format_order)
# x86 and arm64 never share a run: each architecture's variants spread over the same five places (arm64 uses four).
# By hand: where a variant sits is a layout choice made per architecture; one not named here sits at +0.3.
vshift(v) = v eq "scalar" ? -0.3 : (v eq "avx2" || v eq "neon") ? -0.15 : v eq "avxvnni" ? 0 : \
            (v eq "avx512" || v eq "dotprod") ? 0.15 : 0.3
sel(v, l, t) = (strcol("variant") eq v && strcol("level") eq l && column("threads") == t && column("batch") == 1) \
               ? column("gbps_median") : NaN

stats csv using (column("threads")) nooutput
maxthr = STATS_max
minthr = STATS_min   # 1 unless the run measured none: a panel of thread counts it lacks would be empty

floor = NaN
if (has_floor) {
    stats floorcsv using ((strcol("op") eq "read" && column("threads") == 1) ? column("gbps_best") : NaN) nooutput
    floor = STATS_max
}

do for [fmt in "png svg"] {
    do for [tsel = 1:2] {
        thr = (tsel == 1) ? minthr : maxthr
        if (tsel == 2 && maxthr == minthr) { break }
        if (fmt eq "png") { set terminal pngcairo size 1200,460 font ",10" } else { set terminal svg size 1200,460 font ",10" }
        set output out_name(tsel == 1 ? 'kernels' : 'kernels_threads', fmt)
        set termoption noenhanced
        set multiplot layout 1,words(levels) title sprintf("Kernel roofline: GB/s of weights (median), %d thread%s, batch 1", thr, thr > 1 ? "s" : "")
        set xtics ()
        do for [i = 1:nfmt] { set xtics add (word(format_order, i) i - 1) }
        set xrange [-0.5:nfmt - 0.5]
        set yrange [0:*]
        set grid ytics
        set ylabel "GB/s"
        set key below horizontal
        do for [l in levels] {
            set xlabel "weights in ".(l eq "l2" ? "L2" : l eq "l3" ? "L3" : "DRAM")
            plot for [v in variants] csv using (fmtx(strcol("format")) + vshift(v)):(sel(v, l, thr)) \
                     with points pt 7 ps 1.2 lc rgb vcolor(v) title v, \
                 (has_floor ? floor : NaN) with lines dt 2 lc rgb "gray30" title (has_floor ? "memory floor (1 thread)" : "")
        }
        unset multiplot
    }
}

# ---- the roofline: both roofs. A point is (macs_per_byte, gops_median); the int8 roof of each variant is the
# largest roof_gmacs its quantized rows name at that thread count.
if (has_roof) {
    isflt(s) = s eq "f32" || s eq "f16"
    # the quantized formats only (f32 and f16 sit under the f32 roof, not drawn); a repacked layout's scalar
    # kernel is its oracle, not a contender (bench_tune never picks it)
    rsel(v, l) = (strcol("variant") eq v && strcol("level") eq l && column("threads") == minthr && \
                  column("batch") == 1 && !isflt(strcol("format")) && \
                  (v ne "scalar" || strcol("layout") eq "file")) ? column("gops_median") : NaN
    lpt(l) = l eq "l2" ? 7 : l eq "l3" ? 5 : 9
    array roof[words(variants)]
    do for [i = 1:words(variants)] {
        v = word(variants, i)
        undefine STATS_*
        stats csv using ((strcol("variant") eq v && column("threads") == minthr && !isflt(strcol("format"))) ? \
                         column("roof_gmacs") : NaN) nooutput
        roof[i] = exists("STATS_max") ? STATS_max : NaN
    }
    do for [fmt in "png svg"] {
        if (fmt eq "png") { set terminal pngcairo size 900,760 font ",10" } else { set terminal svg size 900,760 font ",10" }
        set output out_name('roofline', fmt)
        set termoption noenhanced
        set title sprintf("Roofline of the quantized kernels, %d thread%s, batch 1: the memory floor and each ISA's int8 roof", \
                          minthr, minthr > 1 ? "s" : "")
        set logscale xy
        set xrange [0.6:12]
        set yrange [*:*]
        set autoscale y
        set xlabel "arithmetic intensity: multiply-adds per weight byte (MAC/B)"
        set ylabel "GMAC/s (median)"
        set grid xtics ytics mxtics mytics
        set key below horizontal maxrows 5
        # tic_names, tic_milli (pb_plot_spec.c): each intensity of the format table once, its formats joined by '+'
        set xtics () rotate by 45 right
        if (exists("tic_names")) { do for [i = 1:words(tic_names)] { \
            v = word(tic_milli, i) / 1000.0; set xtics add (sprintf("%s %.2f", word(tic_names, i), v) v) } }
        plot for [i = 1:words(variants)] for [l in levels] \
                 csv using (column("macs_per_byte")):(rsel(word(variants, i), l)) \
                 with points pt lpt(l) ps 1.2 lc rgb vcolor(word(variants, i)) \
                 title word(variants, i)." ".(l eq "l2" ? "L2" : l eq "l3" ? "L3" : "DRAM"), \
             for [i = 1:words(variants)] (roof[i]) with lines lw 2 lc rgb vcolor(word(variants, i)) \
                 title word(variants, i)." int8 roof", \
             (has_floor ? floor * x : NaN) with lines dt 2 lw 2 lc rgb "gray30" \
                 title (has_floor ? "memory roof (1-thread floor x intensity)" : "")
        unset logscale
        unset xtics
        set xtics autofreq
    }
}
