/* pb_plot.h — draws a run's plots with gnuplot (pngcairo) from the scripts in plots/.
 * gnuplot is started without a shell, in the run directory: `gnuplot [-e FACTS] /abs/plots/NAME.gp`, the script
 * reading and writing fixed names there (PNG and SVG). FACTS are numbers pb_plot_spec.c reads from the run's files;
 * no path, CSV field or host name reaches gnuplot's command parser or a shell. The plots directory is found
 * through POOLBENCH_PLOTS, then ../../plots beside the executable (build/bin/), then ./plots. A missing gnuplot is
 * not an error: the CSV is the result, the plot a view of it. A plot that failed is: gnuplot's exit status and
 * every file the script should have written are checked (present, not empty; an empty one is removed). gnuplot
 * draws under names of this process's (pb_plot_tmp_name) renamed over the plots after it exits: two runs drawing
 * in one directory at once each publish whole files, the last one's standing. */
#ifndef PB_PLOT_H
#define PB_PLOT_H

#include <stdbool.h>
#include <stddef.h>

/* Finds plots/NAME (e.g. "pool_overhead.gp"); 0 and the path in out, -1 when not found. */
int pb_plot_script(const char *name, char *out, size_t len);
/* True when a gnuplot is on PATH. */
bool pb_plot_available(void);
/* Runs the script in run_dir. 0 when every plot was drawn; 1 when nothing was drawn and that is not a failure
 * (gnuplot or the script missing, or no data to draw; said on stderr); -1 when a plot failed (one line on stderr
 * for each, naming the plot and why; the data files are kept). */
int pb_plot_run(const char *script, const char *run_dir);

#endif
