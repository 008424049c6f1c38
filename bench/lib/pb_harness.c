/* pb_harness.c — see pb_harness.h. */
#include "pb_harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "pb_plot.h"
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
}

void pb_harness_open(pb_harness *h)
{
    char err[512];
    const char *dir = h->run_dir ? h->run_dir : h->out;
    if (pb_run_prepare(&h->run, dir, h->run_dir != NULL, err, sizeof err) != 0)
        pb_cli_fail(h->prog, "%s", err);
    pb_harness_probe(h);
    pb_machine_print_header(&h->machine, stdout);
    fflush(stdout);
}

static void print_paths(const char *label, const char *dir, const char *const *names)
{
    printf("%s", label);
    for (int i = 0; names[i]; i++)
        printf(" %s/%s", dir, names[i]);
    printf("\n");
}

int pb_harness_close(pb_harness *h, const char *script, const char *const *results, const char *const *plots)
{
    char err[512];
    pb_topo_free(h->topo);
    h->topo = NULL;
    if (pb_machine_write_csv(&h->machine, h->run.dir, h->run.run_id, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", h->prog, err);
        return 1;
    }
    print_paths("\nresults:", h->run.dir, results);
    int plot = pb_plot_run(script, h->run.dir);
    if (plot == 0)
        print_paths("plots:", h->run.dir, plots);
    return plot < 0 ? 1 : 0; /* a plot that failed fails the run (its line is on stderr; the CSVs stay) */
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
