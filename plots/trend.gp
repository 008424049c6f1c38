# trend.gp — one headline figure over a host's runs, by commit, from trend.dat (bench_db trend writes it; run
# inside its directory, as pb_plot.c starts gnuplot there). trend.dat: a title line ("figure (unit), host"), then
# "index commit value started" per run, oldest first. Gives trend.png and trend.svg. pb_plot_spec.c sets runs (the
# rows), so that one run is a point in the middle rather than gnuplot's warning about an empty range.
if (!exists("tmp_tag")) { tmp_tag = 0 }
out_name(stem, fmt) = tmp_tag > 0 ? sprintf("%s.%s.tmp-%d", stem, fmt, tmp_tag) : stem.".".fmt
set grid
set key top left
set xlabel "run, by commit (oldest first)"
set ylabel "value"
set xtics rotate by -45
if (!exists("runs")) { print "trend.gp: runs is not set (bench_db trend sets it)"; exit status 2 }
set xrange [0.5:runs + 0.5]
set yrange [0:*]
do for [fmt in "png svg"] {
    if (fmt eq "png") { set terminal pngcairo noenhanced size 1000,500 font ",11"; } else { set terminal svg noenhanced size 1000,500 font ",11"; }
    set output out_name('trend', fmt)
    set title "One figure over runs of the results database, by commit"
    plot 'trend.dat' using 1:3:xticlabels(2) with linespoints pt 7 title columnheader(1)
}
