/* pb_harness.h — the opening and closing every harness shares, its CSVs, and its progress line on stderr.
 *
 *   static pb_harness h;                                   // holds a pb_machine: static, off the stack
 *   parse the options (PB_OPT_QUICK / PB_OPT_OUT / PB_OPT_RUN_DIR in the table)
 *   pb_harness_begin(&h, PROG, o.out, o.run_dir);          // hwloc topology; --out with --run-dir: exit 2
 *   the harness's own checks on h.topo (exit 2 through pb_cli_fail: nothing is written yet)
 *   pb_harness_open(&h);                                   // run directory (exit 2), probe, machine.csv, header,
 *                                                          // SIGINT/SIGTERM/SIGHUP handled, SIGPIPE ignored
 *   pb_csv *c = pb_harness_csv(&h, "kernels.csv", HEADER); // every output name claimed before measuring (exit 2)
 *   for each point: if (pb_stop_signal()) break; measure; pb_csv_row(c, ...) (pb_progress each point,
 *   pb_progress_done after the last)
 *   print the table
 *   return pb_harness_close(&h, "kernels.gp", plots);     // publishes the CSVs, plots; the exit status
 *
 * Rows reach the disk as they are measured (pb_csv: a partial file, flushed per row). When a signal stopped the
 * loop, pb_harness_close publishes what was measured, adds an `incomplete` line to machine.csv naming the
 * signal and the rows kept, skips the plots and returns 128 + the signal. A harness that needs the machine's
 * identity for its checks calls pb_harness_probe before pb_harness_open. */
#ifndef PB_HARNESS_H
#define PB_HARNESS_H

#include <stdint.h>

#include "pb_cli.h"
#include "pb_csv.h"
#include "pb_machine.h"
#include "pb_run.h"
#include "pb_stop.h"
#include "pb_topo.h"

/* The option-table entries every harness has. QUICK's help says what the harness shortens. */
#define PB_OPT_QUICK(ptr, text) { .name = "quick", .kind = PB_OPT_FLAG, .dest = (ptr), .help = (text) }
#define PB_OPT_OUT(ptr)                                                                                          \
    { .name = "out", .kind = PB_OPT_STRING, .dest = (ptr), .metavar = "DIR",                                     \
      .help = "new or empty directory for the results", .dflt = "results/<host>/<stamp>/" }
#define PB_OPT_RUN_DIR(ptr)                                                                                      \
    { .name = "run-dir", .kind = PB_OPT_STRING, .dest = (ptr), .metavar = "DIR",                                 \
      .help = "add the results to an existing run directory (never replacing a file)" }

#define PB_HARNESS_MAX_CSV 8

typedef struct pb_harness {
    const char *prog;
    const char *out, *run_dir; /* the --out and --run-dir values (NULL when not given) */
    pb_topo *topo;             /* the live machine, from pb_harness_begin */
    pb_machine machine;        /* filled by pb_harness_probe (or pb_harness_open) */
    bool probed;
    pb_run run;                /* the run directory, from pb_harness_open */
    pb_csv *csv[PB_HARNESS_MAX_CSV]; /* the outputs, published by pb_harness_close */
    const char *csv_name[PB_HARNESS_MAX_CSV]; /* their file names (the callers' strings, which outlive them) */
    int ncsv;
} pb_harness;

/* Loads the live topology ("PROG: hwloc: REASON", exit 2, on failure) and refuses --out together with
 * --run-dir (exit 2). */
void pb_harness_begin(pb_harness *h, const char *prog, const char *out, const char *run_dir);

/* Probes the machine's identity once; what is missing is a warning on stderr, not an error. */
void pb_harness_probe(pb_harness *h);

/* After the harness's own checks: creates (or joins) the run directory, exit 2 when it is refused; probes
 * the machine unless that was done; writes machine.csv (a joined run may hold one already: kept), installs
 * pb_stop's handlers, prints the context header on stdout and flushes it. */
void pb_harness_open(pb_harness *h);

/* Claims DIR/NAME for this harness and opens its partial file with the header written: exit 2 with one line
 * when the name is taken (a joined run that holds it), another process is writing it, or it cannot be
 * created. Call for every output before measuring anything. */
pb_csv *pb_harness_csv(pb_harness *h, const char *name, const char *header);

/* Drops one output before it is published (a harness whose rows turned out invalid). */
void pb_harness_drop_csv(pb_harness *h, pb_csv *c);

/* After the last row: publishes every CSV (in the order they were claimed), prints "results: DIR/NAME ..."
 * and, unless a signal stopped the harness, draws the script's plots (plots: NULL-terminated file names) and
 * prints "plots: DIR/NAME ...". When a signal stopped it, appends `incomplete` to machine.csv and returns
 * 128 + the signal. Frees the topology. 0, 1 after an error line on stderr, or 128 + signal. */
int pb_harness_close(pb_harness *h, const char *script, const char *const *plots);

/* "[done+1/total] WHAT  N s left" on stderr, N extrapolated from the time since t0 (pb_now_ns). */
void pb_progress(int done, int total, uint64_t t0, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "measured N WHAT in S s": the line that ends the progress. */
void pb_progress_done(int n, const char *what, uint64_t t0);
/* One status line on stderr: on a terminal it redraws itself in place; in a log it is a line of its own. */
void pb_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
