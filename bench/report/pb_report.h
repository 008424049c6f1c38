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
void pb_report_md(FILE *out, const pb_rundata *rd, const pb_digest *d, const pb_plotlog *log, const char *refs);
/* "sweep.csv: from sweep.csv.partial-a1B2c3, left by a killed harness (bench_sweep): 9 rows" for a kind read
 * from a partial file, into buf (raw text: escape it for Markdown). Returns buf. */
const char *pb_report_partial_note(const pb_source *s, const pb_kind_info *ki, char *buf, size_t len);
/* One Markdown list item per sign that rd is an incomplete run (each `incomplete` fact, each kind read from a
 * partial file), each after "label: " when label is not NULL. Returns how many. */
int pb_report_incomplete_items(FILE *out, const pb_rundata *rd, const char *label);
/* What is wrong with a source, one Markdown line each after lead ("- sweep.csv: ", "  - "): a malformed or
 * unread file, or its malformed cells. Returns how many lines. */
int pb_report_source_problems(FILE *out, const pb_source *s, const char *lead);
/* report.md's first screen (pb_report_answers.c): the machine in one line, then the answers: the read floor per
 * thread count, per format the best decode and its biggest loss with its owner, what to run and what deviating
 * costs, tok/s at the floor per model size, the noise. */
void pb_report_answers(FILE *out, const pb_rundata *rd, const pb_digest *d);
/* The headline section alone (tables per part). */
void pb_report_headline(FILE *out, const pb_digest *d);
/* "Decode at depth" (model/pb_report_model.c), when sweep.csv holds a model file's points or more than one
 * context: the file's model and tensor-type mix, tok/s and % of floor per context and threads beside the
 * llama-bench command of each point, attention's speed-up over threads. Nothing otherwise. */
void pb_report_model(FILE *out, const pb_rundata *rd);
/* "Kernels that ran" (pb_report_kernels.c), from sweep.csv: per format and thread count the matvec kernel, why it
 * ran (tuned, rank, forced), its stream and the floor's why. Nothing without sweep.csv or its why columns. */
void pb_report_kernels(FILE *out, const pb_rundata *rd);
/* "Memory latency" (pb_report_latency.c), when latency.csv is there: the idle latency, the bandwidth at which it
 * doubles, the decode's bandwidth on that curve, the ladder and the curve. Nothing otherwise. */
void pb_report_latency(FILE *out, const pb_digest *d);
/* How many distinct contexts sweep.csv holds (0 without the file or the column). */
int pb_report_depths(const pb_rundata *rd);
/* "Among reference machines" (pb_report_refs.c): this run's read floor at 1 and all threads, spin's dispatch in
 * round trips, each format's best decode (% of floor) and prompt beside each run directory under refs (NULL: none
 * found), as ratios. A reference with this run's host and run id is left out. */
void pb_report_refs(FILE *out, const pb_rundata *rd, const pb_digest *d, const char *refs);
/* Embeds every PNG in dir (sorted), each with a link to its SVG. */
void pb_report_embed_pngs(FILE *out, const char *dir);
/* Writes path through a temporary file and a rename, so a reader never sees half a report. The writer
 * callback fills the file. 0 or -1 (errno set). */
int pb_write_file(const char *path, void (*writer)(FILE *, const void *), const void *arg);

#endif
