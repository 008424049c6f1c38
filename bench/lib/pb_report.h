/* pb_report.h — report.md for one run directory: machine block, sources, headline tables, findings, noise notes
 * and the plots. The figures come from a pb_digest; this layer only formats. */
#ifndef PB_REPORT_H
#define PB_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "pb_digest.h"

typedef enum pb_plot_state {
    PB_PLOT_NO_CSV,     /* nothing to draw */
    PB_PLOT_DRAWN,
    PB_PLOT_SKIPPED,    /* --no-plots */
    PB_PLOT_NO_SCRIPT,  /* plots/<name>.gp is not there (its harness has not landed it) */
    PB_PLOT_NO_GNUPLOT,
    PB_PLOT_FAILED,
} pb_plot_state;

typedef struct pb_plotlog {
    pb_plot_state state[PB_K_COUNT];
} pb_plotlog;

/* Draws every plot whose CSV loaded (gnuplot -c plots/<kind>.gp DIR: PNG and SVG), or records why not.
 * Returns how many failed. */
int pb_report_plots(const pb_rundata *rd, bool draw, pb_plotlog *log);

/* The whole report.md. */
void pb_report_md(FILE *out, const pb_rundata *rd, const pb_digest *d, const pb_plotlog *log);
/* The headline section alone (tables per part). */
void pb_report_headline(FILE *out, const pb_digest *d);
/* Embeds every PNG in dir (sorted), each with a link to its SVG. */
void pb_report_embed_pngs(FILE *out, const char *dir);
/* Writes path through a temporary file and a rename, so a reader never sees half a report. The writer
 * callback fills the file. 0 or -1 (errno set). */
int pb_write_file(const char *path, void (*writer)(FILE *, const void *), const void *arg);

#endif
