# sweep_budget.gp — where the time went, from sweep.csv's budget_<part>_ms: one stacked bar per format x threads
# (x core set where the run has several), the fastest point of each, its median token split into the parts that
# add up to it (bench/measure/pb_budget.h), the read floor's part at the bottom.
# Run inside the run directory (bench/harness/pb_plot.c starts gnuplot there; by hand: cd RUN_DIR && gnuplot -e
# 'has_ctx=1' PATH/plots/sweep_budget.gp). Names are fixed and relative: no path is ever part of the script's text,
# and CSV fields are read as data only.
#   sweep_budget.png/.svg: ms per token, each segment labelled with its % of the token where it is tall enough to
#                          hold it, the token's ms above each bar; a part below zero (kernels faster than the
#                          floor on cached weights, a negative unexplained) is drawn below the axis, hatched; the
#                          axis holds 1.15x the longest token (a stack taller than that is cut, its label kept).
# Decode only: batch 1 (the smallest batch when no row has 1), no prompt (has_prompt: the file has the column), the
# shallowest context and the first row's KV cache type (has_ctx: the file has those columns, from pb_plot_spec.c). Rows without a budget (an older sweep.csv, a
# point that measured none) are left out; pb_plot_spec.c skips the plot when the file has no budget column.
# pb_plot.c draws into names of its own process (tmp_tag: its pid) and renames them over the plots once gnuplot
# is done, so a second run on the same directory never reads nor replaces a half-drawn file. By hand: the names.
if (!exists("tmp_tag")) { tmp_tag = 0 }
if (!exists("has_ctx")) { has_ctx = 0 }
if (!exists("has_prompt")) { has_prompt = 0 }
out_name(stem, fmt) = tmp_tag > 0 ? sprintf("%s.%s.tmp-%d", stem, fmt, tmp_tag) : stem.".".fmt
csv = 'sweep.csv'
set datafile separator ','
set datafile missing NaN

add_word(list, w) = strstrt(" ".list, " ".w." ") ? list : list.w." "
widx(list, w) = sum [i=1:words(list)] ((word(list, i) eq w) ? i : 0)
# The parts bottom up, and a colour each that stays put from run to run (the floor grey: the machine's).
parts = "floor kernel quant glue attn dispatch wait unexplained"
NPART = words(parts)
pcolor(j) = j == 1 ? 0xa0a0a0 : j == 2 ? 0x0072b2 : j == 3 ? 0x56b4e9 : j == 4 ? 0x009e73 : j == 5 ? 0xe69f00 : \
            j == 6 ? 0xd55e00 : j == 7 ? 0xcc79a7 : 0x333333

# ---------------------------------------------------------------- what the run holds
set datafile columnheaders
stats csv using "batch" nooutput
bsel = STATS_min
csel = 0
kvsel = ""
if (has_ctx) {
    stats csv using "context" nooutput
    csel = STATS_min
    stats csv using (kvsel = strcol("kv_type"), 0) every ::0::0 nooutput
}
has_budget(dummy) = column("budget_floor_ms") == column("budget_floor_ms") && \
                    column("budget_unexplained_ms") == column("budget_unexplained_ms")
sel(dummy) = column("batch") == bsel && (!has_prompt || !(column("prompt") > 0)) && \
             (!has_ctx || (column("context") == csel && strcol("kv_type") eq kvsel)) && has_budget(0)
seen_f = ""
sets = ""
stats csv using (sel(0) ? (seen_f = add_word(seen_f, strcol("format")), sets = add_word(sets, strcol("cpuset")), 0) : 0) nooutput
stats csv using "threads" nooutput
T = int(STATS_max)
formats = ""
# format_order (pb_plot_spec.c, the build's weight formats: KERN_FORMATS' names, then the mixes); one it lacks
# follows in the CSV's order.
forder = exists("format_order") ? format_order : ""
do for [f in forder] { if (strstrt(" ".seen_f, " ".f." ")) { formats = formats.f." " } }
do for [f in seen_f] { formats = add_word(formats, f) }
NF = words(formats)
NSET = words(sets)
if (NF == 0) { print "sweep_budget.gp: no point with a budget to draw"; exit }

# ---------------------------------------------------------------- the fastest point of each bar
key(f, t, s) = ((f - 1) * T + (t - 1)) * NSET + s
N = NF * T * NSET
array BEST[N]
array TOK[N]
array P[N * NPART]
do for [i=1:N] { BEST[i] = -1 }
rowkey(dummy) = key(widx(formats, strcol("format")), int(column("threads")), widx(sets, strcol("cpuset")))
keep(k) = (BEST[k] = column("tok_per_s"), TOK[k] = column("ms_per_token_median"), \
           sum [j=1:NPART] (P[(k - 1) * NPART + j] = column("budget_".word(parts, j)."_ms"), 0), 0)
# a format or core set that is not one plain word is no bar (bench_report leaves such a row out too)
named(dummy) = widx(formats, strcol("format")) > 0 && widx(sets, strcol("cpuset")) > 0
stats csv using (sel(0) && named(0) && column("tok_per_s") > BEST[rowkey(0)] ? keep(rowkey(0)) : 0) nooutput
unset datafile columnheaders

# One row per segment: "bar part low high pct", bars numbered from 1 in format, threads, set order; and one row per
# bar: "bar top token label". Positive parts stack up from 0, negative ones down from it.
set print $SEG
# every part gets a sliver of each sign at x = 0, left of the plot: no plot clause is ever empty (gnuplot warns)
do for [j=1:NPART] { print sprintf("0 %d 0 1e-300 0", j); print sprintf("0 %d -1e-300 0 0", j) }
set print $BAR
print "NaN NaN NaN -"
nbar = 0
top_all = 0
bottom_all = 0
tok_max = 0
do for [f=1:NF] {
    do for [t=1:T] {
        do for [s=1:NSET] {
            k = key(f, t, s)
            if (BEST[k] >= 0) {
                nbar = nbar + 1
                up = 0
                down = 0
                set print $SEG append
                do for [j=1:NPART] {
                    v = P[(k - 1) * NPART + j]
                    if (v >= 0) { print sprintf("%d %d %.6g %.6g %.6g", nbar, j, up, up + v, 100 * v / TOK[k]); up = up + v } \
                    else { print sprintf("%d %d %.6g %.6g %.6g", nbar, j, down + v, down, 100 * v / TOK[k]); down = down + v }
                }
                set print $BAR append
                print sprintf("%d %.6g %.6g %s/%dt%s", nbar, up, TOK[k], word(formats, f), t, NSET > 1 ? "/".word(sets, s) : "")
                top_all = up > top_all ? up : top_all
                tok_max = TOK[k] > tok_max ? TOK[k] : tok_max
                bottom_all = down < bottom_all ? down : bottom_all
            }
        }
    }
}
unset print
set datafile separator whitespace   # the blocks above; sweep.csv is not read again

# ---------------------------------------------------------------- drawing
W = 1200
H = 720
half = 0.38
# The axis holds the tokens: a stack that outgrows its token (parts below zero against it: a point the machine
# moved under) is cut at 1.15x the longest token, or at half of it below zero, its label kept in view.
y_top = 1.15 * tok_max
y_bottom = bottom_all < 0 ? (1.08 * bottom_all > -0.5 * tok_max ? 1.08 * bottom_all : -0.5 * tok_max) : 0
clip(v) = v > 0.97 * y_top ? 0.97 * y_top : v
clip_seg(v) = v > 0.88 * y_top ? 0.88 * y_top : v
# A segment's % is written inside it when it is a tenth of the axis or more and the bars are wide enough.
span = y_top - y_bottom
tall(lo, hi) = (hi - lo) >= 0.1 * span && nbar <= 40
what = sprintf("batch %d", bsel).(has_ctx && csel > 0 ? sprintf(", context %d", csel) : "").(has_ctx && kvsel ne "f16" ? ", ".kvsel." cache" : "")
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size W,H font ",11" } else { set terminal svg noenhanced size W,H font ",11" }
    set output out_name('sweep_budget', fmt)
    set title "Where the time went: each bar the fastest point of its format x threads".(NSET > 1 ? " x core set" : "")." (".what."), its median token in parts; labels: % of the token"
    set ylabel "ms per token"
    set xrange [0.4:nbar + 0.6]
    set yrange [y_bottom:y_top]
    set xtics rotate by -35 left nomirror font ",10"
    set grid ytics
    set key outside bottom center horizontal maxrows 1 samplen 2
    set style fill solid 0.9 border lc rgb "white"
    plot for [j=1:NPART] $SEG using ($2 == j && $4 > 0 ? $1 : NaN):(0):($1 - half):($1 + half):3:4 \
             with boxxyerror fs solid 0.9 border lc rgb "white" fc rgb pcolor(j) title word(parts, j), \
         for [j=1:NPART] $SEG using ($2 == j && $3 < 0 ? $1 : NaN):(0):($1 - half):($1 + half):3:4 \
             with boxxyerror fs pattern 4 border lc rgb pcolor(j) fc rgb pcolor(j) notitle, \
         $SEG using 1:(clip_seg(($3 + $4) / 2)):(tall($3, $4) && $4 > 0 ? sprintf("%.0f%%", $5) : "") with labels \
             font ",9" textcolor rgb "white" notitle, \
         $SEG using 1:((($3 + $4) / 2) < y_bottom ? y_bottom / 2 : ($3 + $4) / 2):(tall($3, $4) && $3 < 0 ? \
             sprintf("%.0f%%", $5) : "") with labels font ",9" textcolor rgb "black" notitle, \
         $BAR every ::1 using 1:(clip($2)):(sprintf("%.1f ms", $3)):xtic(4) with labels offset 0, 0.8 font ",9" notitle, \
         0 with lines lc rgb "gray30" notitle
}
