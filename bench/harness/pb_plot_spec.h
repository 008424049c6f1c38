/* pb_plot_spec.h — what each plots/NAME.gp needs and draws, for pb_plot.c. A script runs inside the run (or
 * comparison) directory and reads fixed file names there; what it cannot work out with gnuplot's own `stats`
 * (does a file exist, which columns does a header hold, how many blocks does a data file have) is read here and
 * handed over as `gnuplot -e` assignments built from numbers only, so no text from a path, a CSV or a host name
 * ever reaches gnuplot's command parser or a shell. The outputs listed are checked after gnuplot exits. */
#ifndef PB_PLOT_SPEC_H
#define PB_PLOT_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#define PB_PLOT_MAX_STEMS 8

typedef struct pb_plot_job {
    char vars[1024];                       /* "name=N; ..." for gnuplot -e, "" when the script needs none */
    const char *stem[PB_PLOT_MAX_STEMS];  /* outputs, each drawn as STEM.png and STEM.svg */
    bool optional[PB_PLOT_MAX_STEMS];     /* drawn only when the data calls for it (a second thread count) */
    int n;
    const char *skip;                     /* non-NULL: nothing to draw, and why */
    long tag;                             /* gnuplot's tmp_tag: it writes STEM.EXT.tmp-TAG (pb_plot_tmp_name) */
} pb_plot_job;

/* The name gnuplot draws STEM.EXT under for job (the scripts' out_name): this process's own, renamed over
 * STEM.EXT once gnuplot is done, so two runs on one directory never share a half-drawn file. */
void pb_plot_tmp_name(const pb_plot_job *job, const char *stem, const char *ext, char *buf, size_t len);

/* Fills job for the script `name` (e.g. "kernels.gp") with facts read from the directory open as dirfd. 0, or -1
 * when the script is not one this file knows (its outputs could not be checked). */
int pb_plot_job_for(const char *name, int dirfd, pb_plot_job *job);

#endif
