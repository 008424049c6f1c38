/* pb_harness.c — see pb_harness.h. */
#include "pb_harness.h"
#include "pb_tuning.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pb_plot.h"
#include "pb_tunings.h"

int pb_harness_parse(pb_harness *h, const pb_cli *cli, int argc, char **argv, int *first)
{
    h->prog = cli->prog;
    int rc = pb_cli_parse(cli, argc, argv, first, h->err, sizeof h->err);
    h->helped = rc == 1;
    return rc == 0 ? 0 : -1;
}

/* --out and --run-dir both say where the results go: one of them. A value from the environment (POOLBENCH_OUT,
 * POOLBENCH_RUN_DIR) gives way to the other given on the command line, as every option's variable does to its
 * own option; two from the same source are refused. */
static int pick_output(pb_harness *h)
{
    if (!h->out || !h->run_dir)
        return 0;
    bool out_env = pb_cli_from_env(h->out), dir_env = pb_cli_from_env(h->run_dir);
    if (out_env && !dir_env)
        h->out = NULL;
    else if (dir_env && !out_env)
        h->run_dir = NULL;
    else if (out_env)
        return pb_harness_refusef(h, "POOLBENCH_OUT and POOLBENCH_RUN_DIR: accepted one of them, not both");
    else
        return pb_harness_refusef(h, "--out and --run-dir: accepted one of them, not both");
    return 0;
}

int pb_harness_begin(pb_harness *h, const char *prog, const char *out, const char *run_dir)
{
    char err[512];
    h->prog = prog;
    h->out = out;
    h->run_dir = run_dir;
    if (pick_output(h) != 0)
        return -1;
    kern_isa isa; /* POOLBENCH_ISA means one thing in every harness: a name that is no ISA here is exit 2 */
    if (kern_isa_select(&isa, err, sizeof err) != 0)
        return pb_harness_refusef(h, "%s", err);

    h->topo = pb_topo_load(NULL, err, sizeof err);
    if (!h->topo)
        return pb_harness_refusef(h, "hwloc: %s", err);
    return 0;
}

int pb_harness_setup(pb_harness *h, const pb_cli *cli, const char *quick_help, const char *run_dir_help, int argc,
                     char **argv)
{
    pb_opt shared[] = { PB_OPT_QUICK(&h->quick, quick_help), PB_OPT_OUT(&h->out), PB_OPT_RUN_DIR(&h->run_dir) };
    enum { NSHARED = sizeof shared / sizeof *shared };
    if (run_dir_help)
        shared[NSHARED - 1].help = run_dir_help;
    /* The harness's table, then the shared entries and the end: a copy, so that each main lists only its own. */
    pb_opt all[PB_CLI_MAX_OPTS + 1] = { { 0 } };
    int n = 0;
    for (; cli->opts && cli->opts[n].name; n++) {
        if (n + NSHARED >= PB_CLI_MAX_OPTS) {
            h->prog = cli->prog;
            return pb_harness_refusef(h, "more than %d options in the table", PB_CLI_MAX_OPTS);
        }
        all[n] = cli->opts[n];
    }
    memcpy(all + n, shared, sizeof shared);
    pb_cli with_shared = *cli;
    with_shared.opts = all;
    if (pb_harness_parse(h, &with_shared, argc, argv, NULL) != 0)
        return -1;
    return pb_harness_begin(h, cli->prog, h->out, h->run_dir);
}

/* "PROG: [ORIGIN: ]MESSAGE" into h->err (name NULL: no origin); -1. */
static int refuse_v(pb_harness *h, const char *name, const char *text, const char *fmt, va_list ap)
{
    char msg[PB_HARNESS_ERR];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (!name)
        return pb_cli_errf(h->err, sizeof h->err, h->prog, "%s", msg);
    return pb_cli_opt_errf(h->err, sizeof h->err, h->prog, name, text, "%s", msg);
}

int pb_harness_refusef(pb_harness *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    refuse_v(h, NULL, NULL, fmt, ap);
    va_end(ap);
    return -1;
}

int pb_harness_refuse_opt(pb_harness *h, const char *name, const char *text, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    refuse_v(h, name, text, fmt, ap);
    va_end(ap);
    return -1;
}

int pb_harness_spread(pb_harness *h, int *cpus, int *n)
{
    pb_cpulist all, placed; /* 4 KiB each: on the stack, as long as the call */
    char err[256];
    if (pb_topo_set(h->topo, "smt", &all, err, sizeof err) != 0 ||
        pb_topo_place(h->topo, &all, all.n, &placed, err, sizeof err) != 0)
        return pb_harness_refusef(h, "topology: %s", err);
    for (*n = 0; *n < placed.n; ++*n)
        cpus[*n] = placed.cpu[*n];
    return 0;
}

int pb_harness_emulate(pb_harness *h, const char *spec, pb_emulate *e)
{
    char err[512];
    if (pb_emulate_parse(spec, h->topo, e, err, sizeof err) != 0)
        return pb_harness_refuse_opt(h, "emulate-slow", spec, "%s", err);
    h->emulate = e->n ? e : NULL;
    return 0;
}

/* Emulated cores change what every row measures: said under the header, on stdout and stderr alike. */
static void warn_emulated(const pb_harness *h)
{
    for (int i = 0; h->emulate && i < h->emulate->n; i++)
        for (int k = 0; k < 2; k++)
            fprintf(k ? stderr : stdout, "***WARNING*** EMULATED SLOW CORE: cpu %d runs at %g of its speed "
                    "(--emulate-slow: it busy-waits after each slice); rows on it say so in emulate_slow\n",
                    h->emulate->cpu[i], h->emulate->factor[i]);
}

int pb_harness_co_runner(pb_harness *h, const char *spec, pb_corunner *c)
{
    char err[512];
    if (pb_corunner_parse(spec, c, err, sizeof err) != 0)
        return pb_harness_refuse_opt(h, "co-runner", spec, "%s", err);
    for (int i = 0; i < c->n; i++)
        if (pb_topo_check_cpu(h->topo, c->cpu[i], err, sizeof err) != 0)
            return pb_harness_refuse_opt(h, "co-runner", spec, "%s", err);
    h->co = c->n ? c : NULL;
    return 0;
}

int pb_harness_co_start(pb_harness *h)
{
    char err[512];
    if (!h->co)
        return 0;
    if (pb_corunner_start(h->co, err, sizeof err) != 0)
        return pb_harness_fail(h, "%s", err);
    printf("co-runner   %s: busy %d%% of every %d ms on each of those cpus, a process of its own beside the run\n",
           h->co->text, h->co->duty_pct, PB_CORUNNER_PERIOD_MS);
    fflush(stdout);
    return 0;
}

int pb_harness_refused(pb_harness *h)
{
    if (h->co)
        pb_corunner_stop(h->co);
    if (!h->helped)
        fprintf(stderr, "%s\n", h->err[0] ? h->err : "refused");
    /* Nothing was measured: a claimed output's partial file would only be a stale file in the run directory. */
    for (int i = 0; i < h->ncsv; i++)
        pb_csv_abort(h->csv[i]);
    h->ncsv = 0;
    pb_topo_free(h->topo);
    h->topo = NULL;
    return h->helped ? 0 : 2;
}

int pb_harness_fail(pb_harness *h, const char *fmt, ...)
{
    char msg[PB_HARNESS_ERR];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* A newline first: a progress line may be waiting on the terminal for its redraw. */
    fprintf(stderr, "\n%s: %s\n", h->prog, msg);
    if (!h->failure[0]) /* the first failure is the cause; later ones follow from it */
        snprintf(h->failure, sizeof h->failure, "%s", msg);
    return -1;
}

bool pb_harness_going(const pb_harness *h)
{
    return !pb_stop_signal() && !h->failure[0];
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
    /* Under a hypervisor the guest's topology is a request, not a fact: placement then comes from round trips. */
    h->where = (pb_where){ .topo = h->topo, .trust_topo = !h->machine.hypervisor };
}

int pb_harness_open(pb_harness *h)
{
    /* Said here, once the run is accepted: a refusal stays the one line it is. */
    const char *var;
    if (kern_isa_env(&var) && strcmp(var, KERN_ISA_ENV_OLD) == 0)
        fprintf(stderr, "%s: %s is the old name of %s; read as it\n", h->prog, KERN_ISA_ENV_OLD, KERN_ISA_ENV);
    char err[512];
    const char *dir = h->run_dir ? h->run_dir : h->out;
    if (pb_run_prepare(&h->run, dir, h->run_dir != NULL, err, sizeof err) != 0)
        return pb_harness_refusef(h, "%s", err);
    pb_harness_probe(h);
    /* Written first, so a run killed mid-way still says which machine its partial files came from. */
    if (pb_machine_write_csv(&h->machine, h->run.dir, h->run.run_id, err, sizeof err) < 0)
        return pb_harness_refusef(h, "%s", err);
    pb_stop_install();
    pb_machine_print_header(&h->machine, stdout);
    warn_emulated(h);
    fflush(stdout);
    return 0;
}

pb_csv *pb_harness_csv(pb_harness *h, const char *name, const char *header)
{
    if (h->ncsv == PB_HARNESS_MAX_CSV) {
        pb_harness_refusef(h, "%s: more than %d outputs (PB_HARNESS_MAX_CSV)", name, PB_HARNESS_MAX_CSV);
        return NULL;
    }
    pb_csv *c = pb_csv_open(h->run.dir, name, header);
    if (!c && errno == EEXIST)
        pb_harness_refusef(h, "%s: '%s' already holds %s: accepted a run directory without one (results are never "
                           "replaced)", h->run_dir ? "--run-dir" : "--out", h->run.dir, name);
    else if (!c && errno == EBUSY)
        pb_harness_refusef(h, "%s/%s: another process is writing it now (its %s%s* file is locked): wait for it "
                           "to end, or give this harness another --run-dir", h->run.dir, name, name, PB_CSV_PARTIAL);
    else if (!c)
        pb_harness_refusef(h, "cannot create %s/%s: %s", h->run.dir, name, strerror(errno));
    if (!c)
        return NULL;
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
 * after a line on stderr for each that did not end whole, saying where its rows are or that they were lost. A
 * failed write is the run's failure (h->failure, for the incomplete line), unless another came first. */
static int publish_all(pb_harness *h, const char **names, long *rows)
{
    int rc = 0, n = 0;
    *rows = 0;
    for (int i = 0; i < h->ncsv; i++) {
        pb_csv_end end;
        char path[sizeof h->run.dir + 64], line[sizeof end.partial + 2 * sizeof path];
        snprintf(path, sizeof path, "%s/%s", h->run.dir, h->csv_name[i]);
        if (pb_csv_finish(h->csv[i], true, &end) != 0) {
            pb_csv_end_text(&end, path, line, sizeof line);
            fprintf(stderr, "%s: %s\n", h->prog, line);
            rc = 1;
            if (end.write_err && !h->failure[0])
                snprintf(h->failure, sizeof h->failure, "%s: %ld rows lost: %s", h->csv_name[i],
                         end.lost + (end.published || end.kept ? 0 : end.rows), strerror(end.write_err));
        }
        if (end.published)
            names[n++] = h->csv_name[i];
        if (end.published || end.kept)
            *rows += end.rows;
    }
    names[n] = NULL;
    h->ncsv = 0;
    return rc;
}

/* What a stopped harness leaves in machine.csv: "PROG: SIGTERM after N rows (a.csv b.csv)", or after a failure
 * "PROG: failed after N rows (a.csv): REASON". sig: 0 for a failure. */
static int mark_incomplete(const pb_harness *h, int sig, long rows, const char *const *names)
{
    char note[PB_HARNESS_ERR + 1024], err[512];
    const char *cause = sig ? pb_stop_name(sig) : "failed";
    size_t at = (size_t)snprintf(note, sizeof note, "%s: %s after %ld rows (", h->prog, cause, rows);
    for (int i = 0; names[i] && at < sizeof note; i++)
        at += (size_t)snprintf(note + at, sizeof note - at, "%s%s", i ? " " : "", names[i]);
    if (at < sizeof note)
        snprintf(note + at, sizeof note - at, ")%s%s", h->failure[0] ? ": " : "", h->failure);
    if (pb_machine_mark_incomplete(h->run.dir, note, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", h->prog, err);
        return 1;
    }
    fprintf(stderr, "%s: %s%s: %s/machine.csv says the run is incomplete\n", h->prog, sig ? "stopped by " : "",
            cause, h->run.dir);
    return 0;
}

int pb_harness_mark_latest(const char *prog, const pb_run *run)
{
    if (pb_run_mark_latest(run) == 0)
        return 0;
    /* Not a warning: CI judges results/<host>/latest, which would still name an older run. */
    fprintf(stderr, "%s: cannot point results/%s/latest at %s: %s\n", prog, run->host, run->dir, strerror(errno));
    return 1;
}

int pb_harness_close(pb_harness *h, const char *script, const char *const *plots)
{
    if (h->co) /* before the plots: what ran beside the measurement is not to slow them */
        pb_corunner_stop(h->co);
    pb_topo_free(h->topo);
    h->topo = NULL;
    const char *names[PB_HARNESS_MAX_CSV + 1];
    long rows;
    int rc = publish_all(h, names, &rows);
    print_paths("\nresults:", h->run.dir, names);
    int sig = pb_stop_signal();
    if (sig || h->failure[0]) {
        /* Stopped or failed: what was measured is published above; the plots of a part run are left out. */
        if (mark_incomplete(h, sig, rows, names) != 0)
            rc = 1;
        fflush(stdout);
        return sig ? 128 + sig : 1;
    }
    int plot = rc == 0 ? pb_plot_run(script, h->run.dir) : 1;
    if (plot == 0)
        print_paths("plots:", h->run.dir, plots);
    else if (plot < 0)
        rc = 1; /* a plot that failed fails the run (its line is on stderr; the CSVs stay) */
    fflush(stdout);
    return rc == 0 ? pb_harness_mark_latest(h->prog, &h->run) : rc;
}
