/* bench_compare DIR DIR [DIR...] --out DIR, or bench_compare --db FILE [--host H]... [--run RUN]... [--git REV]
 * [--since DATE] --out DIR: several runs side by side, from their directories or from the results database. Writes OUT/compare.md (the
 * machines, the headline figures with ratios to the first run, what the runs do not share) and overlaid plots
 * through plots/compare.gp; each run's llama-bench files (DIR/llama-bench.*) beside its floor, per machine. OUT
 * must not exist or be empty (a comparison is never overwritten). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_cli.h"
#include "pb_compare.h"
#include "pb_db.h"
#include "pb_plot.h"
#include "pb_report.h"
#include "pb_run.h"
#include "pb_tuning.h"

typedef struct cmp_job {
    const pb_compare *c;
    const char *out;
} cmp_job;

static void bcmp_write_md(FILE *f, const void *arg)
{
    const cmp_job *j = arg;
    pb_compare_md(f, j->c, j->out);
}

static void bcmp_free_runs(pb_compare *c)
{
    for (int i = 0; i < c->n; i++)
        pb_rundata_free(&c->run[i].rd);
    free(c->run);
}

/* --help's text under the usage line. */
static const char SUMMARY[] =
    "Compares up to " PB_STR(PB_CMP_RUNS) " run directories: OUT/compare.md with the headline figures\n"
    "side by side and ratios to the first run, and OUT/compare_{floor,decode,dispatch}.{png,svg}\n"
    "(plots/compare.gp).\n"
    "With --db FILE the runs come from the results database (bench_db): each --run RUN (RUN_ID or\n"
    "HOST/RUN_ID), and every run of the --host given (any host when none) that --git and --since pass.\n"
    "exit: 0 ok; 1 written but a CSV or a cell was malformed or a plot failed; 2 bad usage, a DIR\n"
    "      that is not a run directory, or a llama-bench file in one that does not read";

typedef struct cmp_args {
    const char *dirs[PB_CMP_RUNS], *out, *db, *git, *since;
    pb_strs hosts, runs;
    int n;
    bool draw;
} cmp_args;

/* Whether any option of --db's was given without it, or DIRs with it: one line, 2. PB_CLI_GO otherwise. */
static int bcmp_usage(const cmp_args *a)
{
    bool selects = a->hosts.n || a->runs.n || a->git || a->since;
    if (a->db && a->n == 0 && !selects)
        fprintf(stderr, "bench_compare: --db %s names no run: give --run RUN, --host HOST, --git REV or --since DATE\n",
                a->db);
    else if (a->db && a->n)
        fprintf(stderr, "bench_compare: run directories and --db together; compare either directories or runs of "
                        "the database\n");
    else if (!a->db && selects)
        fprintf(stderr, "bench_compare: --host, --run, --git and --since choose runs of a database: give --db FILE\n");
    else
        return PB_CLI_GO;
    return 2;
}

/* The command line into a, through pb_cli (the run directories may come before, between or after the options;
 * no POOLBENCH_* variable applies: this is no harness). PB_CLI_GO, or the exit status (0 after --help; 2 after
 * bad usage, said in one line). */
static int bcmp_parse_args(int argc, char **argv, cmp_args *a)
{
    *a = (cmp_args){ .draw = true };
    bool no_plots = false;
    const pb_opt opts[] = {
        { .name = "out", .kind = PB_OPT_STRING, .dest = &a->out, .metavar = "DIR", .env = "",
          .help = "where to write; must not exist or be empty" },
        { .name = "no-plots", .kind = PB_OPT_FLAG, .dest = &no_plots, .env = "",
          .help = "write the plot data but do not draw" },
        { .name = "db", .kind = PB_OPT_STRING, .dest = &a->db, .metavar = "FILE", .env = "",
          .help = "compare runs of this results database (bench_db) instead of directories" },
        PB_OPT_DB_HOST(&a->hosts, "with --db"),
        { .name = "run", .kind = PB_OPT_REPEAT, .dest = &a->runs, .metavar = "RUN", .env = "",
          .help = "with --db: this run, RUN_ID or HOST/RUN_ID (repeat for more)" },
        PB_OPT_DB_GIT(&a->git, "with --db"),
        PB_OPT_DB_SINCE(&a->since, "with --db"),
        { 0 },
    };
    int first, rc = pb_cli_parse_tool("bench_compare", "DIR DIR [DIR...] --out DIR", SUMMARY, opts, argc, argv, &first);
    if (rc != PB_CLI_GO)
        return rc;
    a->draw = !no_plots;
    if (argc - first > PB_CMP_RUNS) {
        fprintf(stderr, "bench_compare: more than %d run directories\n", PB_CMP_RUNS);
        return 2;
    }
    for (int i = first; i < argc; i++)
        a->dirs[a->n++] = argv[i];
    if (bcmp_usage(a) != PB_CLI_GO)
        return 2;
    if ((!a->db && a->n < 2) || !a->out) {
        fprintf(stderr, "bench_compare: needs at least two run directories and --out DIR "
                        "(usage: bench_compare DIR DIR [DIR...] --out DIR)\n");
        return 2;
    }
    return PB_CLI_GO;
}

/* Loads and digests every run (from the directories or the database), saying what each leaves out. -1 (said in
 * one line) when a directory is not a run directory, holds a llama-bench file that does not read, or the database's
 * runs cannot be had: before anything is written. *bad: the malformed sources. */
static int bcmp_load_runs(pb_compare *c, const cmp_args *a, int *bad)
{
    char err[8800];
    if (a->db) {
        pb_compare_db q = { .path = a->db, .runs = a->runs.v, .nruns = a->runs.n,
                            .filter = { .hosts = a->hosts.v, .nhosts = a->hosts.n, .git = a->git, .since = a->since } };
        if (pb_compare_from_db(c, &q, bad, err, sizeof err) == 0)
            return 0;
        fprintf(stderr, "bench_compare: %s\n", err);
        return -1;
    }
    c->n = a->n;
    c->run = calloc((size_t)a->n, sizeof(pb_cmp_run));
    for (int i = 0; c->run && i < a->n; i++)
        if (pb_compare_load(&c->run[i], a->dirs[i], "bench_compare", bad, err, sizeof err) != 0) {
            fprintf(stderr, "bench_compare: %s\n", err);
            return -1;
        }
    if (!c->run)
        fprintf(stderr, "bench_compare: out of memory\n");
    return c->run ? 0 : -1;
}

int main(int argc, char **argv)
{
    cmp_args a;
    int rc = bcmp_parse_args(argc, argv, &a);
    if (rc != PB_CLI_GO)
        return rc;
    const char *out = a.out;
    pb_compare c = { 0 };
    int bad = 0;
    if (bcmp_load_runs(&c, &a, &bad) != 0) {
        bcmp_free_runs(&c);
        return 2;
    }
    char err[4400];
    pb_run run;
    if (pb_run_prepare(&run, out, false, err, sizeof err) != 0) {
        fprintf(stderr, "bench_compare: --out %s: %s\n", out, err);
        bcmp_free_runs(&c);
        return 2;
    }
    pb_compare_prepare(&c);
    int failed = 0;
    if (pb_compare_data(&c, out) != 0) {
        fprintf(stderr, "bench_compare: cannot write the plot data in %s: %s\n", out, strerror(errno));
        failed = 1;
    } else if (a.draw) {
        failed = pb_plot_run("compare.gp", out) < 0;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/compare.md", out);
    cmp_job job = { &c, out };
    if (pb_write_file(path, bcmp_write_md, &job) != 0) {
        fprintf(stderr, "bench_compare: cannot write %s: %s\n", path, strerror(errno));
        failed = 1;
    } else {
        printf("compare: %s\n", path);
    }
    bcmp_free_runs(&c);
    return bad || failed ? 1 : 0;
}
