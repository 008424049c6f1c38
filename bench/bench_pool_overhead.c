/* bench_pool_overhead — the cost of one dispatch per policy (spin, condvar, hybrid, spawn, tree, and OpenMP's
 * parallel region as the peer) × threads × gap × job size, and of one barrier among the threads inside a job
 * (central, tree, dissemination, and OpenMP's barrier), beside the physical floor: the core-to-core round trip
 * (pingpong) measured before and after every block in the same run. */
#include <stdio.h>

#include "pb_cli.h"
#include "pb_harness.h"
#include "pb_overhead_report.h"
#include "pb_overhead_run.h"
#include "pb_schema.h"

#define PROG "bench_pool_overhead"

typedef struct bpo_opts {
    pb_list policies, threads, gaps, jobs, cpus, barriers;
    long spin_us, reps;
    const char *co_runner;
    double batch_ms;
} bpo_opts;

typedef struct bpo_run {
    bpo_opts o;
    int cpus[POOL_MAX_THREADS]; /* pinning order; wraps around for more threads than cpus */
    int ncpus;
    pb_corunner co; /* --co-runner */
    pb_overhead_plan plan;
    pb_overhead_run run;
    pb_harness h;
    pb_overhead_report report; /* pool_overhead.csv: a thread count's rows once its omp block gave ratio_to_omp */
} bpo_run;

/* ---------------------------------------------------------------- options */

static int bpo_parse(bpo_run *pr, int argc, char **argv)
{
    bpo_opts *o = &pr->o;
    o->spin_us = POOL_DEFAULT_SPIN_US;
    o->reps = 0;
    o->batch_ms = 0;
    const pb_opt opts[] = {
        { .name = "policy", .kind = PB_OPT_CHOICES, .dest = &o->policies, .choices = pb_exec_kind_names,
          .metavar = "LIST", .help = "policies to measure (spin, condvar, hybrid, spawn, omp, tree = spin with "
          "workers grouped by shared cache; or all)", .dflt = "all" },
        PB_OPT_THREADS(&o->threads, "", "1..PUs, then 2xPUs (oversubscribed)"),
        { .name = "barrier", .kind = PB_OPT_CHOICES, .dest = &o->barriers, .choices = pb_barrier_names,
          .metavar = "LIST", .help = "barriers inside a job, from 2 threads: central (one counter), tree (the cache "
          "groups), dissemination, omp (OpenMP's), or all", .dflt = "all" },
        { .name = "gap-us", .kind = PB_OPT_LIST, .dest = &o->gaps, .min = 0, .max = 1000000, .metavar = "LIST",
          .help = "caller's serial busy work between dispatches, µs (sleeping workers go cold)", .dflt = "0,5,20,100" },
        { .name = "job-ns", .kind = PB_OPT_LIST, .dest = &o->jobs, .min = 0, .max = 100000000, .metavar = "LIST",
          .help = "busy work per thread per dispatch, ns (0 = empty job)", .dflt = "0" },
        PB_OPT_SPIN_US(&o->spin_us),
        PB_OPT_CO_RUNNER(&o->co_runner),
        { .name = "reps", .kind = PB_OPT_INT, .dest = &o->reps, .min = 3, .max = 10000, .metavar = "N",
          .help = "batches per point (the median is quoted)", .dflt = "15 (5 with --quick)" },
        { .name = "batch-ms", .kind = PB_OPT_DOUBLE, .dest = &o->batch_ms, .dmin = 0.1, .dmax = 10000, .metavar = "MS",
          .help = "target length of one batch of back-to-back dispatches", .dflt = "10 (2 with --quick)" },
        PB_OPT_CPU_IDS(&o->cpus, "LIST", "OS cpu ids to pin threads to, in order (caller on the first)",
                       "one per core, then SMT siblings"),
        { 0 },
    };
    const pb_cli cli = { .prog = PROG, .opts = opts,
                         .summary = "Cost of one pool dispatch per policy, threads, gap and job size, and of one barrier\n"
                                    "among the threads inside a job per algorithm, against OpenMP's parallel region and\n"
                                    "barrier and the core-to-core round trip, measured in the same run." };
    return pb_harness_setup(&pr->h, &cli, "a short run (CI): fewer, shorter batches", NULL, argc, argv);
}

static int bpo_defaults(bpo_run *pr, const pb_topo *topo)
{
    bpo_opts *o = &pr->o;
    if (o->policies.n == 0)
        for (int k = 0; k < PB_EXEC_KINDS; k++)
            o->policies.v[o->policies.n++] = k;
    if (o->cpus.n) {
        char err[256];
        for (int i = 0; i < o->cpus.n; i++) {
            if (pb_topo_check_cpu(topo, (int)o->cpus.v[i], err, sizeof err) != 0)
                return pb_harness_refuse_opt(&pr->h, "cpus", o->cpus.text, "%s", err);
            pr->cpus[pr->ncpus++] = (int)o->cpus.v[i];
        }
    } else if (pb_harness_spread(&pr->h, pr->cpus, &pr->ncpus) != 0) {
        return -1;
    }
    if (o->threads.n == 0) {
        for (int t = 1; t <= pr->ncpus && t < PB_LIST_MAX - 1; t++)
            o->threads.v[o->threads.n++] = t;
        if (2 * pr->ncpus <= POOL_MAX_THREADS)
            o->threads.v[o->threads.n++] = 2 * pr->ncpus;
    }
    if (o->gaps.n == 0) {
        static const long gaps[] = { 0, 5, 20, 100 };
        for (size_t i = 0; i < sizeof gaps / sizeof *gaps; i++)
            o->gaps.v[o->gaps.n++] = gaps[i];
    }
    if (o->jobs.n == 0)
        o->jobs.v[o->jobs.n++] = 0;
    if (o->barriers.n == 0)
        for (int b = 0; b < PB_BARRIER_IDS; b++)
            o->barriers.v[o->barriers.n++] = b;
    if (pb_harness_co_runner(&pr->h, o->co_runner, &pr->co) != 0)
        return -1;
    if (o->reps == 0)
        o->reps = pr->h.quick ? 5 : 15;
    if (o->batch_ms == 0)
        o->batch_ms = pr->h.quick ? 2 : 10;
    pr->plan = (pb_overhead_plan){ .cpus = pr->cpus, .ncpus = pr->ncpus, .policies = &o->policies,
                                  .threads = &o->threads,
                             .gaps = &o->gaps, .jobs = &o->jobs, .barriers = &o->barriers,
                             .spin_us = (unsigned)o->spin_us, .co_runner = pr->co.text,
                             .reps = (int)o->reps, .batch_ms = o->batch_ms, .quick = pr->h.quick,
                             .where = &pr->h.where };
    return 0;
}

int main(int argc, char **argv)
{
    static bpo_run pr;
    pb_overhead_report *rep = &pr.report;
    if (bpo_parse(&pr, argc, argv) != 0 || bpo_defaults(&pr, pr.h.topo) != 0 || pb_harness_open(&pr.h) != 0 ||
        !(rep->csv = pb_harness_csv(&pr.h, "pool_overhead.csv", pb_schema_header(PB_K_POOL))))
        return pb_harness_refused(&pr.h);
    rep->run = &pr.h.run;
    pb_overhead_run_begin(&pr.run, &pr.plan);
    char err[512];
    pb_harness_co_start(&pr.h); /* a failure is the run's: pb_harness_going is false then */
    for (int t = 0; t < pr.o.threads.n && pb_harness_going(&pr.h); t++) {
        if (pb_overhead_run_threads(&pr.run, (int)pr.o.threads.v[t], err, sizeof err) != 0)
            pb_harness_fail(&pr.h, "%s", err);
        pb_overhead_report_rows(rep, &pr.run); /* complete now: what a failure left is published too */
    }
    pb_progress_done(pr.run.done, "points", pr.run.t0);
    pb_overhead_report_table(stdout, &pr.run);
    static const char *const plots[] = { "pool_overhead_threads.png", "pool_overhead_gap.png", NULL };
    int rc = pb_harness_close(&pr.h, "pool_overhead.gp", plots);
    pb_overhead_run_free(&pr.run);
    return rc;
}
