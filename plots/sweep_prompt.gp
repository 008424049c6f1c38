# sweep_prompt.gp — the prompt beside the decode against threads, from sweep.csv (bench_sweep --prompt): two panels
# on one page, decode tok/s (batch 1) on the left and prompt tok/s (pp, the longest prompt) on the right, a line per
# weight format at each thread count's best point (any policy, schedule, glue and core set), the decode's points
# labelled with their % of the read floor, the prompt's with their % of the compute roof beside them. Where the
# largest core set takes its first E-core or SMT sibling is marked on both (P | E | SMT above the panels). Run
# inside the run directory (bench_report starts gnuplot there; by hand: cd RUN_DIR && gnuplot -e 'has_e_cores=1;
# has_smt=1' PATH/plots/sweep_prompt.gp). Names are fixed and relative; CSV fields are read as data only.
# pb_plot.c draws into names of its own process (tmp_tag) and renames them over the plots once gnuplot is done.
if (!exists("tmp_tag")) { tmp_tag = 0 }
out_name(stem, fmt) = tmp_tag > 0 ? sprintf("%s.%s.tmp-%d", stem, fmt, tmp_tag) : stem.".".fmt
csv = 'sweep.csv'
set datafile separator ','
set datafile missing NaN
do for [v in "has_e_cores has_smt"] { if (!exists(v)) { eval v." = 0" } }
add_word(list, w) = strstrt(" ".list, " ".w." ") ? list : list.w." "
widx(list, w) = sum [i=1:words(list)] ((word(list, i) eq w) ? i : 0)
# A format keeps its colour (Okabe-Ito's palette).
fcolor(i) = word("0x0072b2 0xd55e00 0x009e73 0xcc79a7 0xe69f00 0x56b4e9 0xf0e442 0x666666", (i - 1) % 8 + 1) + 0

# ---------------------------------------------------------------- what the run holds
set datafile columnheaders
stats csv using "prompt" nooutput
P = int(STATS_max)
if (P <= 0) { print "sweep_prompt.gp: no prompt point to draw"; exit }
stats csv using "threads" nooutput
T = int(STATS_max)
is_decode(dummy) = !(column("prompt") > 0) && column("batch") == 1
is_prompt(dummy) = column("prompt") == P
formats = ""
stats csv using ((is_decode(0) || is_prompt(0)) ? (formats = add_word(formats, strcol("format")), 0) : 0) nooutput
NF = words(formats)
# BEST[(side, format, threads)]: side 1 decode, 2 prompt; LAB: its % of the floor (decode) or of the roof (prompt).
key(side, f, t) = ((side - 1) * NF + (f - 1)) * T + t
N = 2 * NF * T
array BEST[N]
array LAB[N]
do for [i=1:N] { BEST[i] = -1 }
side(dummy) = is_decode(0) ? 1 : is_prompt(0) ? 2 : 0
rowkey(dummy) = key(side(0), widx(formats, strcol("format")), int(column("threads")))
keep(k) = (BEST[k] = column("tok_per_s"), LAB[k] = side(0) == 1 ? column("pct_of_floor") : 100 * column("roof_share"), 0)
stats csv using ((side(0) > 0 && column("tok_per_s") > BEST[rowkey(0)]) ? keep(rowkey(0)) : 0) nooutput

# The largest set's first thread count with an E-core or an SMT sibling (1e9: none), drawn halfway before it.
bigset = ""
stats csv using (column("threads") == T ? (bigset = strcol("cpuset"), 0) : 0) nooutput
e_line = 1e9
smt_line = 1e9
if (has_e_cores) {
    stats csv using ((strcol("cpuset") eq bigset && column("e_cores") > 0) ? column("threads") : 1e9) nooutput
    e_line = STATS_min < 1e9 ? STATS_min - 0.5 : 1e9
}
if (has_smt) {
    stats csv using ((strcol("cpuset") eq bigset && column("smt_threads") > 0) ? column("threads") : 1e9) nooutput
    smt_line = STATS_min < 1e9 ? STATS_min - 0.5 : 1e9
}
unset datafile columnheaders
set datafile separator whitespace

# One block per side: "threads tok/s label format" rows, a NaN row first so that none is empty.
set print $PTS
do for [sd=1:2] {
    print "NaN NaN NaN 0"
    do for [f=1:NF] { do for [t=1:T] { k = key(sd, f, t); if (BEST[k] >= 0) { print sprintf("%d %.6g %.6g %d", t, BEST[k], LAB[k], f) } } }
    print ""
    print ""
}
unset print
marks = "unset arrow; unset label; "
if (e_line < 1e9) { marks = marks.sprintf("set arrow 1 from first %g, graph 0 to first %g, graph 1 nohead dt 3 lc rgb 'gray30'; set label 1 'E' at first %g, graph 1.03 center; ", e_line, e_line, e_line + 0.5) }
if (smt_line < 1e9) { marks = marks.sprintf("set arrow 2 from first %g, graph 0 to first %g, graph 1 nohead dt 3 lc rgb 'gray30'; set label 2 'SMT' at first %g, graph 1.03 center; ", smt_line, smt_line, smt_line + 0.5) }

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size 1200,560 font ",11" } else { set terminal svg noenhanced size 1200,560 font ",11" }
    set output out_name('sweep_prompt', fmt)
    set multiplot layout 1,2 title sprintf("Decode (batch 1) and a %d-token prompt against threads: each format's best point per thread count", P)
    do for [sd=1:2] {
        eval marks
        set title (sd == 1 ? "decode tok/s (labels: % of the read floor)" : sprintf("prompt tok/s, pp%d (labels: %% of the compute roof)", P))
        set xlabel "threads"
        set ylabel "tok/s"
        set xrange [0.5:T + 0.5]
        if (T <= 16) { set xtics 1 } else { set xtics autofreq }
        set yrange [0:*]
        set grid ytics
        set key top left
        plot for [f=1:NF] $PTS index (sd - 1) using 1:($4 == f ? $2 : NaN) with linespoints lw 2 pt 7 ps 0.8 lc rgb fcolor(f) title word(formats, f), \
             $PTS index (sd - 1) using 1:2:(sprintf("%.0f%%", $3)) with labels offset 0,0.9 font ",9" textcolor rgb "gray20" notitle
    }
    unset multiplot
}
