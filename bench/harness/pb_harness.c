/* pb_harness.c — see pb_harness.h. */
#include "pb_harness.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pb_plot.h"
#include "pb_tunings.h"
#include "pb_time.h"

void pb_harness_begin(pb_harness *h, const char *prog, const char *out, const char *run_dir)
{
    char err[512];
    h->prog = prog;
    h->out = out;
    h->run_dir = run_dir;
    h->topo = pb_topo_load(NULL, err, sizeof err);
    if (!h->topo)
        pb_cli_fail(prog, "hwloc: %s", err);
    if (out && run_dir)
        pb_cli_fail(prog, "--out and --run-dir: give one of them");
}

void pb_harness_probe(pb_harness *h)
{
    char err[512];
    if (h->probed)
        return;
    h->probed = true;
    if (pb_machine_probe(&h->machine, h->topo, err, sizeof err) != 0)
        fprintf(stderr, "%s: machine identity incomplete: %s\n", h->prog, err);
    h->machine.tunings = pb_tunings; /* machine.csv says by which thresholds the run is judged */
}

void pb_harness_open(pb_harness *h)
{
    char err[512];
    const char *dir = h->run_dir ? h->run_dir : h->out;
    if (pb_run_prepare(&h->run, dir, h->run_dir != NULL, err, sizeof err) != 0)
        pb_cli_fail(h->prog, "%s", err);
    pb_harness_probe(h);
    /* Written first, so a run killed mid-way still says which machine its partial files came from. */
    if (pb_machine_write_csv(&h->machine, h->run.dir, h->run.run_id, err, sizeof err) < 0)
        pb_cli_fail(h->prog, "%s", err);
    pb_stop_install();
    pb_machine_print_header(&h->machine, stdout);
    fflush(stdout);
}

pb_csv *pb_harness_csv(pb_harness *h, const char *name, const char *header)
{
    if (h->ncsv == PB_HARNESS_MAX_CSV)
        pb_cli_fail(h->prog, "%s: more than %d outputs (PB_HARNESS_MAX_CSV)", name, PB_HARNESS_MAX_CSV);
    pb_csv *c = pb_csv_open(h->run.dir, name, header);
    if (!c && errno == EEXIST)
        pb_cli_fail(h->prog, "%s: '%s' already holds %s: accepted a run directory without one (results are never "
                    "replaced)", h->run_dir ? "--run-dir" : "--out", h->run.dir, name);
    if (!c && errno == EBUSY)
        pb_cli_fail(h->prog, "%s/%s: another process is writing it now (its %s%s* file is locked)", h->run.dir, name,
                    name, PB_CSV_PARTIAL);
    if (!c)
        pb_cli_fail(h->prog, "cannot create %s/%s: %s", h->run.dir, name, strerror(errno));
    h->csv_name[h->ncsv] = name;
    h->csv[h->ncsv++] = c;
    return c;
}

void pb_harness_drop_csv(pb_harness *h, pb_csv *c)
{
    for (int i = 0; i < h->ncsv; i++) {
        if (h->csv[i] == c) {
            pb_csv_abort(c);
            h->ncsv--;
            h->csv[i] = h->csv[h->ncsv];
            h->csv_name[i] = h->csv_name[h->ncsv];
            return;
        }
    }
}

static void print_paths(const char *label, const char *dir, const char *const *names)
{
    printf("%s", label);
    for (int i = 0; names[i]; i++)
        printf(" %s/%s", dir, names[i]);
    printf("\n");
}

/* Publishes every CSV; the names published go into names (NULL-terminated), the rows kept into rows. 0, or 1
 * after a line on stderr for each that failed (its partial file then keeps the rows). */
static int publish_all(pb_harness *h, const char **names, long *rows)
{
    int rc = 0, n = 0;
    *rows = 0;
    for (int i = 0; i < h->ncsv; i++) {
        pb_csv *c = h->csv[i];
        char partial[sizeof h->run.dir + 64];
        snprintf(partial, sizeof partial, "%s", pb_csv_partial_path(c));
        *rows += pb_csv_rows(c);
        if (pb_csv_close(c) == 0) {
            names[n++] = h->csv_name[i];
        } else {
            fprintf(stderr, "%s: cannot publish %s/%s: %s; its rows stay in %s\n", h->prog, h->run.dir,
                    h->csv_name[i], strerror(errno), partial);
            rc = 1;
        }
    }
    names[n] = NULL;
    h->ncsv = 0;
    return rc;
}

/* What a stopped harness leaves in machine.csv: "PROG: SIGTERM after N rows (a.csv b.csv)". */
static int mark_incomplete(const pb_harness *h, int sig, long rows, const char *const *names)
{
    char note[1024], err[512];
    size_t at = (size_t)snprintf(note, sizeof note, "%s: %s after %ld rows (", h->prog, pb_stop_name(sig), rows);
    for (int i = 0; names[i] && at < sizeof note; i++)
        at += (size_t)snprintf(note + at, sizeof note - at, "%s%s", i ? " " : "", names[i]);
    if (at < sizeof note)
        snprintf(note + at, sizeof note - at, ")");
    if (pb_machine_mark_incomplete(h->run.dir, note, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", h->prog, err);
        return 1;
    }
    fprintf(stderr, "%s: stopped by %s: %s/machine.csv says the run is incomplete\n", h->prog, pb_stop_name(sig),
            h->run.dir);
    return 0;
}

int pb_harness_close(pb_harness *h, const char *script, const char *const *plots)
{
    pb_topo_free(h->topo);
    h->topo = NULL;
    const char *names[PB_HARNESS_MAX_CSV + 1];
    long rows;
    int rc = publish_all(h, names, &rows);
    print_paths("\nresults:", h->run.dir, names);
    int sig = pb_stop_signal();
    if (sig) {
        if (mark_incomplete(h, sig, rows, names) != 0)
            rc = 1;
        fflush(stdout);
        return 128 + sig;
    }
    int plot = rc == 0 ? pb_plot_run(script, h->run.dir) : 1;
    if (plot == 0)
        print_paths("plots:", h->run.dir, plots);
    else if (plot < 0)
        rc = 1; /* a plot that failed fails the run (its line is on stderr; the CSVs stay) */
    fflush(stdout);
    return rc;
}

/* ---------------------------------------------------------------- progress */

static void vstatus(const char *fmt, va_list ap)
{
    /* On a terminal the line redraws itself (\r, then clear to the end of the line); in a log, one line per
     * call, so the log reads as a history. */
    bool tty = isatty(STDERR_FILENO);
    fputs(tty ? "\r" : "", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(tty ? "\033[K" : "\n", stderr);
    fflush(stderr);
}

void pb_status(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vstatus(fmt, ap);
    va_end(ap);
}

void pb_progress(int done, int total, uint64_t t0, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    double el = (double)(pb_now_ns() - t0) / 1e9;
    double left = done > 0 ? el / done * (total - done) : 0;
    pb_status("[%d/%d] %s %5.0f s left", done + 1, total, what, left);
}

void pb_progress_done(int n, const char *what, uint64_t t0)
{
    pb_status("measured %d %s in %.1f s", n, what, (double)(pb_now_ns() - t0) / 1e9);
    if (isatty(STDERR_FILENO))
        fputc('\n', stderr);
}
