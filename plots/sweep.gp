# sweep.gp — decode throughput against threads from sweep.csv, as small multiples: one panel per weight format.
# Run inside the run directory (bench/harness/pb_plot.c starts gnuplot there; by hand: cd RUN_DIR && gnuplot -e
# 'has_glue=1; has_best=1; has_e_cores=1; has_smt=1' PATH/plots/sweep.gp). Names are fixed and relative: no path
# is ever part of the script's text, and CSV fields are read as data only.
#   sweep.png/.svg:       tok/s vs threads, a line per policy (each thread count's best core set and schedule), the
#                         read floor's ceiling as a shaded band (the drawn points' median floor up to their best
#                         floor pass), the best point of each thread count labelled with its % of the floor, and the
#                         thread counts where the largest core set takes its first E-core or SMT sibling marked
#                         (P | E | SMT under the axis)
#   sweep_floor.png/.svg: the same points as % of the same-run read floor
# Decode only: batch 1 (the smallest batch when no row has 1), and fused glue (serial when the run has no fused
# row); -e 'glue_all=1' draws both glue modes, serial dashed; the shallowest context and the first row's KV cache
# type. Which optional columns the header holds comes from pb_plot_spec.c as 1/0: has_glue (glue), has_best
# (floor_gbps_best), has_e_cores, has_smt (e_cores, smt_threads), has_ctx (context and kv_type), has_prompt (prompt:
# a prompt's points are sweep_prompt.gp's).
# pb_plot.c draws into names of its own process (tmp_tag: its pid) and renames them over the plots once gnuplot
# is done, so a second run on the same directory never reads nor replaces a half-drawn file. By hand: the names.
if (!exists("tmp_tag")) { tmp_tag = 0 }
out_name(stem, fmt) = tmp_tag > 0 ? sprintf("%s.%s.tmp-%d", stem, fmt, tmp_tag) : stem.".".fmt
csv = 'sweep.csv'
set datafile separator ','
set datafile missing NaN
do for [v in "has_glue has_best has_e_cores has_smt has_ctx has_prompt glue_all"] { if (!exists(v)) { eval v." = 0" } }

add_word(list, w) = strstrt(" ".list, " ".w." ") ? list : list.w." "
widx(list, w) = sum [i=1:words(list)] ((word(list, i) eq w) ? i : 0)
# policy_colours (pb_plot_spec.c, a table keyed by the build's policies, Okabe-Ito's palette, readable by the
# colour-blind): one colour per word of policy_order, so a policy keeps its colour from run to run; one it lacks is
# grey.
porder = exists("policy_order") ? policy_order : ""
pcolours = exists("policy_colours") ? policy_colours : ""
pcolor(p) = widx(porder, p) > 0 && widx(porder, p) <= words(pcolours) ? word(pcolours, widx(porder, p)) + 0 : 0x666666

# ---------------------------------------------------------------- what the run holds
set datafile columnheaders
stats csv using "batch" nooutput
bsel = STATS_min
nfused = 0
if (has_glue) { stats csv using (nfused = nfused + (strcol("glue") eq "fused"), 0) nooutput }
glue_show = (has_glue && !glue_all) ? (nfused > 0 ? "fused" : "serial") : ""
gluelist = glue_all && has_glue ? "fused serial" : "-"
NG = words(gluelist)
gidx(dummy) = (glue_all && has_glue) ? widx(gluelist, strcol("glue")) : 1
# One context and cache type: the shallowest context, and the first row's cache type (sweep_context.gp draws
# decode against depth); a file without those columns has one of each.
csel = 0
kvsel = ""
if (has_ctx) {
    stats csv using "context" nooutput
    csel = STATS_min
    stats csv using (kvsel = strcol("kv_type"), 0) every ::0::0 nooutput
}
at_depth(dummy) = !has_ctx || (column("context") == csel && strcol("kv_type") eq kvsel)
sel(dummy) = column("batch") == bsel && (!has_prompt || !(column("prompt") > 0)) && \
             (glue_show eq "" || strcol("glue") eq glue_show) && at_depth(0)
seen_f = ""
seen_p = ""
stats csv using (sel(0) ? (seen_f = add_word(seen_f, strcol("format")), seen_p = add_word(seen_p, strcol("policy")), 0) : 0) nooutput
stats csv using "threads" nooutput
T = int(STATS_max)
formats = ""
policies = ""
# format_order (pb_plot_spec.c, the build's weight formats: KERN_FORMATS' names, then the mixes) orders the formats;
# one it lacks follows in the CSV's order.
forder = exists("format_order") ? format_order : ""
do for [f in forder] { if (strstrt(" ".seen_f, " ".f." ")) { formats = formats.f." " } }
do for [f in seen_f] { formats = add_word(formats, f) }
# policy_order (pb_plot_spec.c, the build's policy names) orders the series; one it lacks follows in the CSV's order.
if (exists("policy_order")) { do for [p in policy_order] { if (strstrt(" ".seen_p, " ".p." ")) { policies = policies.p." " } } }
do for [p in seen_p] { policies = add_word(policies, p) }
NF = words(formats)
NP = words(policies)
NS = NP * NG
if (NF == 0) { print "sweep.gp: no decode point to draw"; exit }

# ---------------------------------------------------------------- the best point of each format, series, threads
# Index of (format, series, threads); a series is a policy (and a glue mode with glue_all).
key(f, s, t) = ((f - 1) * NS + (s - 1)) * T + t
N = NF * NS * T
array BEST[N]
array PCT[N]
array FLO[N]
array FHI[N]
do for [i=1:N] { BEST[i] = -1 }
ceiling(g) = column("batch") * g * 1e9 / column("weight_bytes")
best_floor(dummy) = has_best ? column("floor_gbps_best") : column("floor_gbps")
keep(k) = (BEST[k] = column("tok_per_s"), PCT[k] = column("pct_of_floor"), FLO[k] = ceiling(column("floor_gbps")), \
           FHI[k] = ceiling(best_floor(0)), 0)
rowkey(dummy) = key(widx(formats, strcol("format")), (widx(policies, strcol("policy")) - 1) * NG + gidx(0), int(column("threads")))
stats csv using (sel(0) && column("tok_per_s") > BEST[rowkey(0)] ? keep(rowkey(0)) : 0) nooutput

# One block per panel (index f - 1): the points "threads tok/s pct series", the floor band "threads low high",
# and the labels "threads tok/s pct" of the best series at each thread count. Each block starts with a NaN row,
# so none is empty.
set print $LINES
do for [f=1:NF] {
    print "NaN NaN NaN 0"
    do for [s=1:NS] { do for [t=1:T] { k = key(f, s, t); if (BEST[k] >= 0) { print sprintf("%d %.6g %.6g %d", t, BEST[k], PCT[k], s) } } }
    print ""
    print ""
}
set print $BAND
do for [f=1:NF] {
    print "NaN NaN NaN"
    do for [t=1:T] {
        lo = 1e300; hi = -1
        do for [s=1:NS] { k = key(f, s, t); if (BEST[k] >= 0) { lo = FLO[k] < lo ? FLO[k] : lo; hi = FHI[k] > hi ? FHI[k] : hi } }
        if (hi >= 0) { print sprintf("%d %.6g %.6g", t, lo, hi) }
    }
    print ""
    print ""
}
set print $TOP
do for [f=1:NF] {
    print "NaN NaN NaN"
    do for [t=1:T] {
        b = -1
        do for [s=1:NS] { k = key(f, s, t); if (BEST[k] > b) { b = BEST[k]; bp = PCT[k] } }
        if (b >= 0) { print sprintf("%d %.6g %.6g", t, b, bp) }
    }
    print ""
    print ""
}
unset print
pct_top = 110
do for [i=1:N] { if (BEST[i] >= 0 && PCT[i] * 1.05 > pct_top) { pct_top = PCT[i] * 1.05 } }

# ---------------------------------------------------------------- core-set boundaries
# Along the largest set (the one reaching the most threads): the first thread count with an E-core, with an SMT
# sibling (1e9: none); each boundary is drawn halfway from the thread count before it.
bigset = ""
stats csv using (column("threads") == T ? (bigset = strcol("cpuset"), 0) : 0) nooutput
e_line = 1e9
smt_line = 1e9
big(dummy) = strcol("cpuset") eq bigset
if (has_e_cores) {
    stats csv using ((big(0) && column("e_cores") > 0) ? column("threads") : 1e9) nooutput
    e_from = STATS_min
    stats csv using ((big(0) && column("threads") < e_from) ? column("threads") : 0) nooutput
    e_line = e_from < 1e9 ? (STATS_max + e_from) / 2.0 : 1e9
}
if (has_smt) {
    stats csv using ((big(0) && column("smt_threads") > 0) ? column("threads") : 1e9) nooutput
    smt_from = STATS_min
    stats csv using ((big(0) && column("threads") < smt_from) ? column("threads") : 0) nooutput
    smt_line = smt_from < 1e9 ? (STATS_max + smt_from) / 2.0 : 1e9
}
unset datafile columnheaders
set datafile separator whitespace   # the blocks above; sweep.csv is not read again
bound_line(n, x) = sprintf("set arrow %d from first %g, graph 0 to first %g, graph 1 nohead dt 3 lw 1.5 lc rgb 'gray30'; ", n, x, x)
# The region names sit above the plot, clear of the data: a line near 0 tok/s would run under them.
region(n, name, a, b) = sprintf("set label %d '%s' at first %g, graph 1.03 center textcolor rgb 'gray30' front; ", n, name, (a + b) / 2.0)
first_line = e_line < smt_line ? e_line : smt_line
mark_sets = "unset arrow; unset label; "
if (first_line < 1e9) { mark_sets = mark_sets.region(1, e_line < 1e9 ? "P" : "cores", 0.5, first_line) }
if (e_line < 1e9) { mark_sets = mark_sets.bound_line(2, e_line).region(2, "E", e_line, smt_line < 1e9 ? smt_line : T + 0.5) }
if (smt_line < 1e9) { mark_sets = mark_sets.bound_line(3, smt_line).region(3, "SMT", smt_line, T + 0.5) }

# ---------------------------------------------------------------- layout
cols = NF == 1 ? 1 : NF <= 4 ? 2 : 3
rows = (NF + cols - 1) / cols
W = 1200
H = 110 + 400 * rows
legend_h = 60.0 / H
title_h = 40.0 / H
pw = 1.0 / cols
ph = (1.0 - legend_h - title_h) / rows
serial_dash(s) = (NG == 2 && (s - 1) % NG == 1) ? 2 : 1
stitle(s) = word(policies, (s - 1) / NG + 1).(NG == 2 ? " ".word(gluelist, (s - 1) % NG + 1) : "")
scolor(s) = pcolor(word(policies, (s - 1) / NG + 1))
what = (glue_show eq "" ? (has_glue ? "serial and fused glue, " : "") : glue_show." glue, ").sprintf("batch %d", bsel). \
       (has_ctx && csel > 0 ? sprintf(", context %d", csel) : "").(has_ctx && kvsel ne "f16" ? ", ".kvsel." cache" : "")

# One panel per format at its place; ycol: 2 (tok/s) or 3 (% of floor).
panel_at(i) = sprintf("set origin %g, %g; set size %g, %g", ((i - 1) % cols) * pw, legend_h + (rows - 1 - (i - 1) / cols) * ph, pw, ph)

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size W,H font ",11" } else { set terminal svg noenhanced size W,H font ",11" }
    do for [view=1:2] {
        set output out_name(view == 1 ? 'sweep' : 'sweep_floor', fmt)
        set multiplot title (view == 1 ? "Decode tok/s per policy at each thread count's best core set (".what."); shaded: the read floor's ceiling (median to best pass); labels: % of floor" \
                                         : "Decode as % of the same-run read floor of the same cpus (".what.")")
        do for [i=1:NF] {
            eval panel_at(i)
            eval mark_sets
            unset key
            set title word(formats, i) offset 0, (first_line < 1e9 ? 0.6 : 0)
            set xlabel "threads"
            set ylabel (view == 1 ? "tok/s" : "% of floor")
            set xrange [0.5:T + 0.5]
            # a tic per thread count while the labels fit the panel's width: 16 two-digit labels ran together in
            # a third of 1200 px (the first 16-thread run); then every second count, a minor tic between
            tics_fit = (NF > 1 ? 8 : 16)
            if (T <= tics_fit) { set xtics 1; unset mxtics } else { if (T <= 2 * tics_fit) { set xtics 2; set mxtics 2 } else { set xtics autofreq; unset mxtics } }
            set grid ytics
            if (view == 1) { set yrange [0:*] } else { set yrange [0:pct_top] }
            if (view == 1) {
                plot $BAND index (i - 1) using 1:2:3 with filledcurves fc rgb "#c8c8c8" fs transparent solid 0.6 noborder notitle, \
                     $BAND index (i - 1) using 1:2 with lines lw 1.5 lc rgb "gray55" notitle, \
                     for [s=1:NS] $LINES index (i - 1) using 1:($4 == s ? $2 : NaN) with linespoints lw 2 pt 7 ps 0.8 \
                         dt serial_dash(s) lc rgb scolor(s) notitle, \
                     $TOP index (i - 1) using 1:2:(sprintf("%.0f%%", $3)) with labels offset 0,0.9 font ",9" textcolor rgb "gray20" notitle
            } else {
                plot 100 with lines dt 2 lc rgb "gray40" notitle, \
                     for [s=1:NS] $LINES index (i - 1) using 1:($4 == s ? $3 : NaN) with linespoints lw 2 pt 7 ps 0.8 \
                         dt serial_dash(s) lc rgb scolor(s) notitle
            }
        }
        # The legend, once for every panel: the series and the band (at most 8 entries unless glue_all).
        set origin 0, 0
        set size 1, legend_h
        unset title; unset xlabel; unset ylabel; unset arrow; unset label; unset grid
        unset border; unset tics
        set xrange [0:1]; set yrange [0:1]
        set key center center horizontal samplen 3
        plot for [s=1:NS] 2 with linespoints lw 2 pt 7 dt serial_dash(s) lc rgb scolor(s) title stitle(s), \
             (view == 1 ? 2 : NaN) with filledcurves y1=3 fc rgb "#c8c8c8" fs solid 0.6 border lc rgb "gray55" title (view == 1 ? "read floor" : ""), \
             (view == 2 ? 2 : NaN) with lines dt 2 lc rgb "gray40" title (view == 2 ? "100% of floor" : "")
        set border; set tics
        unset multiplot
    }
}
