/* bench_pool_overhead — the cost of one dispatch per policy (spin, condvar, hybrid, spawn, and OpenMP's
 * parallel region as the peer) × threads × gap × job size, beside the physical floor: the core-to-core
 * round trip (pingpong) measured before and after every policy's block in the same run. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_cli.h"
#include "pb_csv.h"
#include "pb_dispatch_cost.h"
#include "pb_harness.h"
#include "pb_pingpong.h"
#include "pb_schema.h"
#include "pb_time.h"
#include "pb_tuning.h"

#define PROG "bench_pool_overhead"
#define RT_BATCHES 11
#define RT_ITERS 20000

typedef struct po_opts {
    pb_list policies, threads, gaps, jobs, cpus;
    long spin_us, reps;
    double batch_ms;
    bool quick;
    const char *out, *run_dir;
} po_opts;

/* One CSV row: a dispatch point, or a pingpong measurement (kind = -1). */
typedef struct po_row {
    int kind; /* PB_DISPATCH_* kind, -1 = pingpong */
    int threads;
    unsigned gap_us, job_ns;
    pb_dispatch_cost_result r;
    double rt_before, rt_after, ratio_to_rt, ratio_to_omp;
    char placement[8];
} po_row;

typedef struct po_run {
    po_opts o;
    int cpus[POOL_MAX_THREADS]; /* pinning order; wraps around for more threads than cpus */
    int ncpus;
    po_row *rows;
    int nrows, cap;
    pb_harness h;
    pb_csv *csv;  /* pool_overhead.csv: a thread count's rows once its omp block gave ratio_to_omp */
    int written;  /* rows[0..written) are in it */
} po_run;

static const char *po_placement(double before, double after)
{
    const char *a = pb_placement(before), *b = pb_placement(after);
    return strcmp(a, b) == 0 ? a : "mixed";
}

/* A zeroed row at the end, or NULL after pb_harness_fail (the rows so far stay). */
static po_row *po_add(po_run *pr)
{
    if (pr->nrows == pr->cap) {
        int cap = pr->cap ? 2 * pr->cap : 64;
        po_row *rows = realloc(pr->rows, (size_t)cap * sizeof *rows);
        if (!rows) {
            pb_harness_fail(&pr->h, "the rows: %s", strerror(errno));
            return NULL;
        }
        pr->rows = rows;
        pr->cap = cap;
    }
    po_row *row = &pr->rows[pr->nrows++];
    memset(row, 0, sizeof *row);
    return row;
}

/* The round trip between the first two cpus of the placement: the traffic of one dispatch. */
static double po_roundtrip(po_run *pr)
{
    pb_rt rt;
    if (pr->ncpus < 2 || pb_pingpong(pr->cpus[0], pr->cpus[1], RT_BATCHES, pr->o.quick ? RT_ITERS / 4 : RT_ITERS, &rt) != 0)
        return NAN;
    po_row *row = po_add(pr);
    if (!row)
        return NAN;
    row->kind = -1;
    row->threads = 2;
    row->r.batch_mean_ns = rt.ns_batch_mean;
    row->r.batches = rt.batches;
    row->r.samples = rt.batches;
    row->r.k = pr->o.quick ? RT_ITERS / 4 : RT_ITERS;
    row->rt_before = row->rt_after = rt.ns_batch_mean;
    row->ratio_to_rt = 1.0;
    row->ratio_to_omp = NAN;
    snprintf(row->placement, sizeof row->placement, "%s", pb_placement(rt.ns_batch_mean));
    return rt.ns_batch_mean;
}

/* Measures one (threads, kind) block: round trip, every gap x job, round trip. */
static void po_block(po_run *pr, int threads, int kind, int *done, int total, uint64_t t0)
{
    int cpus[POOL_MAX_THREADS];
    for (int i = 0; i < threads; i++)
        cpus[i] = pr->cpus[i % pr->ncpus];
    double before = po_roundtrip(pr);
    int first = pr->nrows;
    for (int g = 0; g < pr->o.gaps.n && pb_harness_going(&pr->h); g++) {
        for (int j = 0; j < pr->o.jobs.n && pb_harness_going(&pr->h); j++) {
            char what[64];
            snprintf(what, sizeof what, "%s threads=%d gap=%ldus job=%ldns", pb_exec_kind_names[kind], threads,
                     pr->o.gaps.v[g], pr->o.jobs.v[j]);
            pb_progress((*done)++, total, t0, "%-40s", what);
            pb_dispatch_cost_point pt = { .kind = kind, .threads = threads, .cpus = cpus,
                                     .gap_us = (unsigned)pr->o.gaps.v[g], .job_ns = (unsigned)pr->o.jobs.v[j],
                                     .spin_us = (unsigned)pr->o.spin_us, .reps = (int)pr->o.reps,
                                     .batch_ms = pr->o.batch_ms };
            po_row *row = po_add(pr);
            if (!row)
                break;
            row->kind = kind;
            row->threads = threads;
            row->gap_us = pt.gap_us;
            row->job_ns = pt.job_ns;
            if (pb_dispatch_cost_measure(&pt, &row->r) != 0) {
                pr->nrows--; /* not measured */
                pb_harness_fail(&pr->h, "%s with %d threads: %s", pb_exec_kind_names[kind], threads, strerror(errno));
                break;
            }
        }
    }
    double after = po_roundtrip(pr);
    double rt = isnan(before) ? after : isnan(after) ? before : (before + after) / 2;
    for (int i = first; i < pr->nrows; i++) {
        po_row *row = &pr->rows[i];
        if (row->kind < 0)
            continue;
        row->rt_before = before;
        row->rt_after = after;
        row->ratio_to_rt = row->r.batch_mean_ns / rt;
        snprintf(row->placement, sizeof row->placement, "%s", po_placement(before, after));
    }
}

/* ratio_to_omp of rows[from..nrows): omp's point at the same threads, gap and job, NaN when it was not measured
 * (not asked for, or a signal stopped the run first). */
static void po_ratios_to_omp(po_run *pr, int from)
{
    for (int i = from; i < pr->nrows; i++) {
        po_row *a = &pr->rows[i];
        a->ratio_to_omp = NAN;
        for (int k = from; k < pr->nrows && a->kind >= 0; k++) {
            const po_row *b = &pr->rows[k];
            if (b->kind == PB_EXEC_OMP && b->threads == a->threads && b->gap_us == a->gap_us && b->job_ns == a->job_ns)
                a->ratio_to_omp = a->r.batch_mean_ns / b->r.batch_mean_ns;
        }
    }
}

static const char *po_kind_name(int kind) { return kind < 0 ? "pingpong" : pb_exec_kind_names[kind]; }

static void po_cpus_text(const po_run *pr, int threads, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < threads && o + 12 < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%d", i ? " " : "", pr->cpus[i % pr->ncpus]);
}

#define PO_HEADER pb_schema_header(PB_K_POOL)

/* Writes the rows not yet written: a thread count's blocks are complete once the last (omp's) gave the ratio. */
static void po_write_rows(po_run *pr)
{
    for (; pr->written < pr->nrows; pr->written++) {
        const po_row *r = &pr->rows[pr->written];
        char cpus[256];
        po_cpus_text(pr, r->kind < 0 ? 2 : r->threads, cpus, sizeof cpus);
        const pb_value v[PB_POOL_NCOLS] = {
            [PB_POOL_run_id].s = pr->h.run.run_id, [PB_POOL_host].s = pr->h.run.host,
            [PB_POOL_policy].s = po_kind_name(r->kind), [PB_POOL_threads].i = r->threads, [PB_POOL_cpus].s = cpus,
            [PB_POOL_gap_us].i = r->gap_us, [PB_POOL_job_ns].i = r->job_ns,
            [PB_POOL_spin_us].i = r->kind == POOL_HYBRID ? pr->o.spin_us : 0,
            [PB_POOL_reps].i = r->kind < 0 ? RT_BATCHES : pr->o.reps, [PB_POOL_k].i = r->r.k,
            [PB_POOL_ns_min].d = r->r.samples.min, [PB_POOL_ns_median].d = r->r.samples.median,
            [PB_POOL_ns_p90].d = r->r.samples.p90, [PB_POOL_ns_p99].d = r->r.samples.p99,
            [PB_POOL_ns_max].d = r->r.samples.max, [PB_POOL_ns_batch_mean].d = r->r.batch_mean_ns,
            [PB_POOL_ns_batch_min].d = r->r.batches.min, [PB_POOL_ns_batch_max].d = r->r.batches.max,
            [PB_POOL_rt_ns_before].d = r->rt_before, [PB_POOL_rt_ns_after].d = r->rt_after,
            [PB_POOL_placement].s = r->placement, [PB_POOL_ratio_to_rt].d = r->ratio_to_rt,
            [PB_POOL_ratio_to_omp].d = r->ratio_to_omp,
        };
        pb_csv_values(pr->csv, pb_schema_get(PB_K_POOL), v);
    }
}

static void po_print_table(const po_run *pr)
{
    printf("\n%-8s %3s %6s %7s %11s %11s %11s %9s %6s %8s %8s\n", "policy", "thr", "gap_us", "job_ns", "batch_ns",
           "median_ns", "p99_ns", "rt_ns", "place", "x_rt", "x_omp");
    for (int t = 0; t < pr->o.threads.n; t++) {
        for (int i = 0; i < pr->nrows; i++) {
            const po_row *r = &pr->rows[i];
            if (r->kind < 0 || r->threads != pr->o.threads.v[t])
                continue;
            double rt = (r->rt_before + r->rt_after) / 2;
            bool noisy = r->r.batches.spread > PB_NOISY_SPREAD;
            printf("%-8s %3d %6u %7u %11.1f %11.1f %11.1f %9.1f %6s %8.2f %8.3f%s\n", po_kind_name(r->kind),
                   r->threads, r->gap_us, r->job_ns, r->r.batch_mean_ns, r->r.samples.median, r->r.samples.p99, rt,
                   r->placement, r->ratio_to_rt, r->ratio_to_omp, noisy ? PB_NOISY_NOTE : "");
        }
    }
    printf("\nbatch_ns: median over %ld batches of the mean dispatch in a batch; x_rt: batch_ns / the same block's "
           "round trip (mean of before and after); x_omp: batch_ns / omp's at the same threads, gap and job.\n",
           pr->o.reps);
}

/* ---------------------------------------------------------------- options */

static int po_parse(po_run *pr, int argc, char **argv)
{
    po_opts *o = &pr->o;
    o->spin_us = POOL_DEFAULT_SPIN_US;
    o->reps = 0;
    o->batch_ms = 0;
    const pb_opt opts[] = {
        { .name = "policy", .kind = PB_OPT_CHOICES, .dest = &o->policies, .choices = pb_exec_kind_names,
          .metavar = "LIST", .help = "policies to measure (spin, condvar, hybrid, spawn, omp, or all)", .dflt = "all" },
        { .name = "threads", .kind = PB_OPT_LIST, .dest = &o->threads, .min = 1, .max = POOL_MAX_THREADS,
          .metavar = "LIST", .help = "thread counts, e.g. 1,2,4 or 1-8", .dflt = "1..PUs, then 2xPUs (oversubscribed)" },
        { .name = "gap-us", .kind = PB_OPT_LIST, .dest = &o->gaps, .min = 0, .max = 1000000, .metavar = "LIST",
          .help = "caller's serial busy work between dispatches, µs (sleeping workers go cold)", .dflt = "0,5,20,100" },
        { .name = "job-ns", .kind = PB_OPT_LIST, .dest = &o->jobs, .min = 0, .max = 100000000, .metavar = "LIST",
          .help = "busy work per thread per dispatch, ns (0 = empty job)", .dflt = "0" },
        { .name = "spin-us", .kind = PB_OPT_INT, .dest = &o->spin_us, .min = 0, .max = 1000000, .metavar = "N",
          .help = "hybrid policy's spin budget before sleeping, µs", .dflt = "50" },
        { .name = "reps", .kind = PB_OPT_INT, .dest = &o->reps, .min = 3, .max = 10000, .metavar = "N",
          .help = "batches per point (the median is quoted)", .dflt = "15 (5 with --quick)" },
        { .name = "batch-ms", .kind = PB_OPT_DOUBLE, .dest = &o->batch_ms, .dmin = 0.1, .dmax = 10000, .metavar = "MS",
          .help = "target length of one batch of back-to-back dispatches", .dflt = "10 (2 with --quick)" },
        { .name = "cpus", .kind = PB_OPT_LIST, .dest = &o->cpus, .min = 0, .max = 1000000, .metavar = "LIST",
          .help = "OS cpu ids to pin threads to, in order (caller on the first)", .dflt = "one per core, then SMT siblings" },
        PB_OPT_QUICK(&o->quick, "a short run (CI): fewer, shorter batches"),
        PB_OPT_OUT(&o->out),
        PB_OPT_RUN_DIR(&o->run_dir),
        { 0 },
    };
    const pb_cli cli = { .prog = PROG, .opts = opts,
                         .summary = "Cost of one pool dispatch per policy, threads, gap and job size, against OpenMP's\n"
                                    "parallel region and the core-to-core round trip, measured in the same run." };
    if (pb_harness_parse(&pr->h, &cli, argc, argv, NULL) != 0)
        return -1;
    return pb_harness_begin(&pr->h, PROG, o->out, o->run_dir);
}

static int po_defaults(po_run *pr, const pb_topo *topo)
{
    po_opts *o = &pr->o;
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
    } else {
        static pb_cpulist all, placed;
        char err[256];
        if (pb_topo_set(topo, "smt", &all, err, sizeof err) != 0 ||
            pb_topo_place(topo, &all, all.n, &placed, err, sizeof err) != 0)
            return pb_harness_refusef(&pr->h, "topology: %s", err);
        for (int i = 0; i < placed.n; i++)
            pr->cpus[pr->ncpus++] = placed.cpu[i];
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
    if (o->reps == 0)
        o->reps = o->quick ? 5 : 15;
    if (o->batch_ms == 0)
        o->batch_ms = o->quick ? 2 : 10;
    return 0;
}

int main(int argc, char **argv)
{
    static po_run pr;
    if (po_parse(&pr, argc, argv) != 0 || po_defaults(&pr, pr.h.topo) != 0 || pb_harness_open(&pr.h) != 0 ||
        !(pr.csv = pb_harness_csv(&pr.h, "pool_overhead.csv", PO_HEADER)))
        return pb_harness_refused(&pr.h);
    int total = pr.o.threads.n * pr.o.policies.n * pr.o.gaps.n * pr.o.jobs.n, done = 0;
    uint64_t t0 = pb_now_ns();
    for (int t = 0; t < pr.o.threads.n && pb_harness_going(&pr.h); t++) {
        int from = pr.nrows;
        for (int k = 0; k < pr.o.policies.n && pb_harness_going(&pr.h); k++)
            po_block(&pr, (int)pr.o.threads.v[t], (int)pr.o.policies.v[k], &done, total, t0);
        po_ratios_to_omp(&pr, from);
        po_write_rows(&pr);
    }
    pb_progress_done(done, "points", t0);
    po_print_table(&pr);
    static const char *const plots[] = { "pool_overhead_threads.png", "pool_overhead_gap.png", NULL };
    int rc = pb_harness_close(&pr.h, "pool_overhead.gp", plots);
    free(pr.rows);
    return rc;
}
