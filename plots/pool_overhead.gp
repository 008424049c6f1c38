# pool_overhead.gp — dispatch cost per policy from pool_overhead.csv.
# Run inside the run directory (bench/harness/pb_plot.c starts gnuplot there; by hand: cd RUN_DIR && gnuplot -e
# 'pus=N' PATH/plots/pool_overhead.gp). Names are fixed and relative: no path is ever part of the script's text.
#   pool_overhead_threads.png/.svg: cost vs threads (gap 0, empty job), log y, a band from 1x to 2x the run's median
#                                   round trip (where a spin dispatch belongs: one hand-off there and
#                                   one back), thread counts beyond the PUs shaded as oversubscribed; the
#                                   barriers inside a job (barrier-* rows) dashed beside the dispatches
#   pool_overhead_gap.png/.svg:     cost vs the caller's gap on a log axis (gap 0 drawn left of the smallest
#                                   gap), at the largest thread count that is not oversubscribed, with the same band
# pus (machine.csv's, 0 when unknown) comes from pb_plot_spec.c.
# pb_plot.c draws into names of its own process (tmp_tag: its pid) and renames them over the plots once gnuplot
# is done, so a second run on the same directory never reads nor replaces a half-drawn file. By hand: the names.
if (!exists("tmp_tag")) { tmp_tag = 0 }
out_name(stem, fmt) = tmp_tag > 0 ? sprintf("%s.%s.tmp-%d", stem, fmt, tmp_tag) : stem.".".fmt
csv = 'pool_overhead.csv'
set datafile separator ','
set datafile missing NaN
if (!exists("pus")) { pus = 0 }
# policy_order (pb_plot_spec.c, from the build's policy names): the order of the lines; a policy the run measured
# that the order lacks is drawn after them, and without policy_order (by hand) every one in the CSV's order.
policies = exists("policy_order") ? policy_order : ""
# policy_colours (pb_plot_spec.c, a table keyed by the build's policies): one colour per word of policy_order, so a
# policy keeps its colour from run to run and from plot to plot (sweep.gp's); a policy it lacks is grey. The
# barriers (dashed) borrow the colours of spin, tree, hybrid and omp.
porder = exists("policy_order") ? policy_order : ""
pcolours = exists("policy_colours") ? policy_colours : ""
pidx(p) = sum [i=1:words(porder)] ((word(porder, i) eq p) ? i : 0)
pcolor(p) = pidx(p) > 0 && pidx(p) <= words(pcolours) ? word(pcolours, pidx(p)) + 0 : \
            p eq "barrier-central" ? pcolor("spin") : p eq "barrier-tree" ? pcolor("tree") : \
            p eq "barrier-dissemination" ? pcolor("hybrid") : p eq "barrier-omp" ? pcolor("omp") : 0x666666
barriers = "barrier-central barrier-tree barrier-dissemination barrier-omp"
add_word(list, w) = strstrt(" ".list, " ".w." ") ? list : list.w." "

set datafile columnheaders
is_pp(dummy) = strcol("policy") eq "pingpong"
# The policies the run measured, in the order above: an absent one draws nothing and has no key entry.
seen = ""
stats csv using (seen = add_word(seen, strcol("policy")), 0) nooutput
known = policies
policies = ""
do for [p in known] { if (strstrt(" ".seen, " ".p." ")) { policies = policies.(policies eq "" ? "" : " ").p } }
do for [p in seen] { if (p ne "pingpong" && strstrt(p, "barrier-") != 1 && !strstrt(" ".policies." ", " ".p." ")) { policies = policies.(policies eq "" ? "" : " ").p } }
known = barriers
barriers = ""
do for [p in known] { if (strstrt(" ".seen, " ".p." ")) { barriers = barriers.(barriers eq "" ? "" : " ").p } }
# The round trip: the median batch mean of the pingpong rows (NaN when there are none), with their range. Not
# the least: a hypervisor moves vCPUs, and one block timed between hidden SMT siblings (49 ns on a 16-vCPU VM
# whose other blocks timed 108-190 ns) would set the band for every thread count.
# stats undefines its variables when no row is valid (a 1-thread run has no pingpong row): have_stats() asks first.
have_stats(dummy) = exists("STATS_records") ? STATS_records > 0 : 0
rt = NaN
rt_lo = NaN
rt_hi = NaN
stats csv using (is_pp(0) ? column("ns_batch_mean") : NaN) nooutput
if (have_stats(0)) { rt = STATS_median; rt_lo = STATS_min; rt_hi = STATS_max }   # records: the pingpong rows only
stats csv using "threads" nooutput
maxthr = STATS_max
# The gap plot's thread count: the most threads that fit the PUs (every count when pus is unknown).
stats csv using ((!is_pp(0) && (pus == 0 || column("threads") <= pus)) ? column("threads") : NaN) nooutput
gapthr = have_stats(0) ? STATS_max : maxthr
# The gaps, and the place of gap 0 on the log axis: a quarter of the smallest positive gap (1 when none).
gaps = ""
stats csv using (gaps = add_word(gaps, sprintf("%g", column("gap_us"))), 0) nooutput
stats csv using (column("gap_us") > 0 ? column("gap_us") : NaN) nooutput
g0 = have_stats(0) ? STATS_min / 4.0 : 1
gmax = have_stats(0) ? STATS_max : 1
unset datafile columnheaders
xg(g) = g > 0 ? g : g0
gap_tics = "set xtics ("
do for [i=1:words(gaps)] { g = word(gaps, i) + 0; gap_tics = gap_tics.(i > 1 ? ", " : "").sprintf('"%g" %g', g, xg(g)) }
gap_tics = gap_tics.")"

sel(p, g, j) = (strcol("policy") eq p && column("gap_us") == g && column("job_ns") == j) ? column("ns_batch_mean") : NaN
selthr(p, t, j) = (strcol("policy") eq p && column("threads") == t && column("job_ns") == j) ? column("ns_batch_mean") : NaN
band_title = "round trip x1-2"
band_words = rt == rt ? sprintf("; shaded: 1-2x the run's median round trip (%.0f ns; %.0f-%.0f over its blocks)", rt, rt_lo, rt_hi) : ""
# Outside, at the right: a key never covers a line; its short titles leave the plot most of the width.
set key outside right top samplen 3

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size 1200,620 font ",11"; } else { set terminal svg noenhanced size 1200,620 font ",11"; }
    set output out_name('pool_overhead_threads', fmt)
    set title "Dispatch cost per policy (no caller gap, empty job): median batch mean".band_words
    set xlabel "threads"
    set ylabel "ns per dispatch, or per barrier (log)"
    set logscale y
    set grid
    set xrange [0.5:maxthr + 0.5]
    if (maxthr <= 16) { set xtics 1 } else { set xtics autofreq }
    unset object
    unset label
    if (pus > 0 && pus < maxthr) {
        set object 1 rect from first pus + 0.5, graph 0 to graph 1, graph 1 fc rgb "#f3e3e3" fs solid 1.0 noborder behind
        set label 1 "oversubscribed: more threads than PUs" at first pus + 0.6, graph 0.04 left textcolor rgb "#a04040"
    }
    plot [0.5:maxthr + 0.5] '+' using 1:(rt):(2 * rt) with filledcurves fc rgb "#c8c8c8" fs solid 0.6 noborder \
             title (rt == rt ? band_title : ""), \
         for [p in policies] csv using "threads":(sel(p, 0, 0)) with linespoints lw 2 pt 7 ps 0.8 lc rgb pcolor(p) title p, \
         for [p in barriers] csv using "threads":(sel(p, 0, 0)) with linespoints lw 2 dt 2 pt 6 ps 0.8 lc rgb pcolor(p) \
             title p

    set output out_name('pool_overhead_gap', fmt)
    set title sprintf("Dispatch cost vs the caller's gap (%d threads, empty job)", gapthr).band_words
    set xlabel "caller's serial work between dispatches (µs, log; 0 at the left)"
    unset object
    unset label
    set logscale x
    set xrange [g0 / 1.6:gmax * 1.6]
    eval gap_tics
    plot '+' using 1:(rt):(2 * rt) with filledcurves fc rgb "#c8c8c8" fs solid 0.6 noborder title (rt == rt ? band_title : ""), \
         for [p in policies] csv using (xg(column("gap_us"))):(selthr(p, gapthr, 0)) with linespoints lw 2 pt 7 ps 0.8 \
             lc rgb pcolor(p) title p
    unset logscale
    set xtics autofreq
}
