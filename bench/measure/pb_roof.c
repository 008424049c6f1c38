/* pb_roof.c — the compute roof measured (see pb_roof.h). */
#include "pb_roof.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_csvread.h"
#include "pb_err.h"
#include "pb_exec.h"
#include "pb_poolclock.h"
#include "pb_schema.h"
#include "pb_stats.h"
#include "pb_time.h"

#define PB_ROOF_SUMS 64 /* threads whose checksums are kept; more share the last slot (only kept live) */

/* What every thread of a run does: the kernel for iters rounds, its checksum kept so nothing is dropped. */
typedef struct pb_roof_job {
    const kern_peak_kernel *k;
    uint64_t iters;
    uint64_t sum[PB_ROOF_SUMS];
} pb_roof_job;

static void pb_roof_thread(void *ctx, int id, int n)
{
    (void)n;
    pb_roof_job *j = ctx; /* pool_run hands back the pb_roof_job pb_roof_run gave it */
    j->sum[id < PB_ROOF_SUMS ? id : PB_ROOF_SUMS - 1] += j->k->run(j->iters);
}

/* Rounds for about PB_ROOF_RUN_MS on the calling thread: a short try, scaled. */
static uint64_t pb_roof_iters(const kern_peak_kernel *k)
{
    uint64_t iters = 1 << 14;
    for (;;) {
        uint64_t t0 = pb_now_ns();
        volatile uint64_t sink = k->run(iters);
        (void)sink;
        double ms = (double)(pb_now_ns() - t0) / 1e6;
        if (ms >= 2 || iters >= (uint64_t)1 << 40)
            return (uint64_t)((double)iters * PB_ROOF_RUN_MS / (ms > 0 ? ms : 1)) + 1;
        iters *= 4;
    }
}

int pb_roof_measure(kern_isa isa, kern_peak_op op, const int *cpus, int threads, pb_roof_point *out, char *err,
                    size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->isa = isa;
    out->op = op;
    out->threads = threads;
    const kern_peak_kernel *k = kern_peak_get(isa, op, &out->ran);
    if (!k)
        return pb_errf(err, errlen, "%s: this CPU or build cannot run it", kern_isa_name(isa));
    out->instr = k->instr;
    pb_exec ex;
    if (pb_exec_open(&ex, PB_EXEC_SPIN, threads, cpus, 0, 0) != 0)
        return pb_errf(err, errlen, "a spin pool of %d threads: %s", threads, strerror(errno));
    pb_roof_job job = { .k = k, .iters = pb_roof_iters(k) };
    pool_run(ex.p, pb_roof_thread, &job); /* every thread warm, at its clock, before the first timed run */
    double g[PB_ROOF_REPS];
    for (int r = 0; r < PB_ROOF_REPS; r++) {
        uint64_t t0 = pb_now_ns();
        pool_run(ex.p, pb_roof_thread, &job);
        double s = (double)(pb_now_ns() - t0) / 1e9;
        g[r] = (double)threads * (double)job.iters * k->macs_per_iter / s / 1e9;
    }
    out->ghz = pb_poolclock_ghz(ex.p);
    pb_exec_close(&ex);
    pb_summary sm = pb_summarize(g, PB_ROOF_REPS);
    out->gmacs_median = sm.median;
    out->gmacs_min = sm.min;
    out->gmacs_max = sm.max;
    out->macs_per_cycle = out->ghz > 0 ? pb_roof_bound(out) / threads / out->ghz : NAN;
    return 0;
}

int pb_roof_from_csv(const char *dir, kern_isa isa, kern_peak_op op, const int *cpus, int threads, double *gmacs,
                     char *err, size_t errlen)
{
    static const char *const need[] = { "isa", "op", "threads", "cpus", "gmacs_max", NULL };
    pb_table t;
    int loaded = pb_table_load_in(&t, dir, "roof.csv", need, err, errlen);
    if (loaded != 0)
        return loaded;
    int c_isa = pb_table_col(&t, "isa"), c_op = pb_table_col(&t, "op"), c_t = pb_table_col(&t, "threads"),
        c_cpus = pb_table_col(&t, "cpus"), c_max = pb_table_col(&t, "gmacs_max");
    int rc = 1;
    for (size_t r = 0; r < t.nrows; r++) {
        double g = pb_table_num(&t, r, c_max);
        if (strcmp(pb_table_str(&t, r, c_isa), kern_isa_name(isa)) != 0 ||
            strcmp(pb_table_str(&t, r, c_op), kern_peak_op_names[op]) != 0 || pb_table_num(&t, r, c_t) != threads ||
            !(g > 0) || (rc == 0 && g <= *gmacs) ||
            !pb_cell_cpus_are(pb_table_str(&t, r, c_cpus), cpus, threads))
            continue;
        *gmacs = g;
        rc = 0;
    }
    pb_table_free(&t);
    return rc;
}
