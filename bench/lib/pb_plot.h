/* pb_plot.h — draws a run's plots with gnuplot (pngcairo) from the scripts in plots/.
 * A script is called as `gnuplot -c plots/NAME.gp RUN_DIR` and writes PNG (and SVG) files into RUN_DIR. The plots
 * directory is found through POOLBENCH_PLOTS, then ../../plots beside the executable (build/bin/), then
 * ./plots. A missing gnuplot is not an error: the CSV is the result, the plot a view of it. */
#ifndef PB_PLOT_H
#define PB_PLOT_H

#include <stdbool.h>
#include <stddef.h>

/* Finds plots/NAME (e.g. "pool_overhead.gp"); 0 and the path in out, -1 when not found. */
int pb_plot_script(const char *name, char *out, size_t len);
/* True when a gnuplot is on PATH. */
bool pb_plot_available(void);
/* Runs the script on run_dir; 0 on success, 1 when gnuplot or the script is missing (said on stderr),
 * -1 when gnuplot failed. */
int pb_plot_run(const char *script, const char *run_dir);

#endif
