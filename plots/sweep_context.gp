# sweep_context.gp — decode speed against the KV cache's depth, from sweep.csv: the curve llama-bench's depth sweeps
# (-d N) draw. bench_report draws it when sweep.csv holds more than one context.
# Run inside the run directory (bench/harness/pb_plot.c starts gnuplot there; by hand: cd RUN_DIR && gnuplot
# PATH/plots/sweep_context.gp). Names are fixed and relative: no path is ever part of the script's text.
#   sweep_context.png/.svg: left, tok/s against context; right, % of the floor (the weights and the KV cache a
#                           token reads, against the read floor of the same cpus); one line per policy x threads x
#                           cache type x batch x schedule x glue x core set, in the file's order of contexts.
# pb_plot.c draws into names of its own process (tmp_tag: its pid) and renames them over the plots once gnuplot
# is done, so a second run on the same directory never reads nor replaces a half-drawn file. By hand: the names.
if (!exists("tmp_tag")) { tmp_tag = 0 }
out_name(stem, fmt) = tmp_tag > 0 ? sprintf("%s.%s.tmp-%d", stem, fmt, tmp_tag) : stem.".".fmt
csv = 'sweep.csv'
set datafile separator ','
set datafile missing NaN

# The lines and the model, in file order. stats reads them as data: a CSV field is never part of a command.
set datafile columnheaders
add_word(list, w) = strstrt(" ".list, " ".w." ") ? list : list.w." "
line_of(x) = strcol("policy")."/".strcol("threads")."thr/".strcol("kv_type")."/M".strcol("batch")."/". \
             strcol("schedule")."/".strcol("glue")."/".strcol("cpuset")
lines = ""
model = ""
stats csv using (lines = add_word(lines, line_of(0)), model = strcol("model"), 0) nooutput
unset datafile columnheaders

at(w, col) = (line_of(0) eq w) ? column(col) : NaN

do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size 1200,560 font ",11" } else { set terminal svg noenhanced size 1200,560 font ",11" }
    set output out_name('sweep_context', fmt)
    set multiplot layout 1, 2 title "Decode at depth: ".model." (context = positions already in the KV cache)"
    set xlabel "context"
    set grid
    set key below vertical samplen 2
    set yrange [0:*]
    set ylabel "tok/s"
    plot for [w in lines] csv using "context":(at(w, "tok_per_s")) with linespoints lw 2 pt 7 ps 0.7 title w
    set ylabel "% of the floor (weights + KV)"
    plot for [w in lines] csv using "context":(at(w, "pct_of_floor")) with linespoints lw 2 pt 7 ps 0.7 title w
    unset multiplot
}
