/* pb_dispatch_cost.c — the cost of one dispatch of a pool policy or an OpenMP region (pb_dispatch_cost.h). */
#include "pb_dispatch_cost.h"

#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>

#include "pb_time.h"

/* What one dispatch runs: every thread busy for job_ns, or an empty job (the dispatch alone). */
static void pb_job_empty(void *ctx, int id, int n)
{
    (void)ctx;
    (void)id;
    (void)n;
}

static void pb_job_busy(void *ctx, int id, int n)
{
    (void)id;
    (void)n;
    pb_spin_ns(*(const uint64_t *)ctx);
}

typedef struct pb_dispatcher {
    pb_exec e;
    uint64_t job_ns; /* read by every thread during a dispatch, written only before the first */
} pb_dispatcher;

static void pb_dispatch_once(pb_dispatcher *d)
{
    pb_exec_run(&d->e, d->job_ns ? pb_job_busy : pb_job_empty, &d->job_ns);
}

/* Busy-waits gap_ns and returns the time it really took (the clock reads bracket it). */
static uint64_t pb_gap(uint64_t gap_ns)
{
    if (gap_ns == 0)
        return 0;
    uint64_t g0 = pb_now_ns(), g1;
    do
        g1 = pb_now_ns();
    while (g1 - g0 < gap_ns);
    return g1 - g0;
}

/* Mean cost of one dispatch over k back-to-back dispatches, the caller's gap work subtracted. */
static double pb_batch(pb_dispatcher *d, long k, uint64_t gap_ns)
{
    uint64_t gap_total = 0;
    uint64_t t0 = pb_now_ns();
    for (long i = 0; i < k; i++) {
        pb_dispatch_once(d);
        gap_total += pb_gap(gap_ns);
    }
    uint64_t t1 = pb_now_ns();
    return (double)(t1 - t0 - gap_total) / (double)k;
}

/* The executor of the point's kind, its caller on cpus[0] (a pool's caller stays bound until close). */
static int pb_dispatcher_open(pb_dispatcher *d, const pb_dispatch_cost_point *pt)
{
    d->job_ns = pt->job_ns;
    const pb_exec_cfg c = { .kind = pt->kind, .threads = pt->threads, .cpus = pt->cpus, .spin_us = pt->spin_us,
                            .topo = pt->topo };
    return pb_exec_open_cfg(&d->e, &c);
}

static long pb_clamp_long(double v, long lo, long hi)
{
    return v < (double)lo ? lo : v > (double)hi ? hi : (long)v;
}

int pb_dispatch_cost_measure(const pb_dispatch_cost_point *pt, pb_dispatch_cost_result *out)
{
    pb_dispatcher d;
    if (pb_dispatcher_open(&d, pt) != 0)
        return -1;
    uint64_t gap_ns = (uint64_t)pt->gap_us * 1000u;
    /* Warm-up: wakes the threads, sizes the batch so one lasts about batch_ms. */
    pb_batch(&d, 20, gap_ns);
    double est = pb_batch(&d, 20, gap_ns);
    long k = pb_clamp_long(pt->batch_ms * 1e6 / (est + (double)gap_ns + 1.0), 5, 200000);
    int reps = pt->reps > 0 ? pt->reps : 1;
    double *means = malloc((size_t)reps * sizeof *means);
    long ns = pb_clamp_long((double)k, 200, 5000);
    double *samples = malloc((size_t)ns * sizeof *samples);
    if (!means || !samples) {
        free(means);
        free(samples);
        pb_exec_close(&d.e);
        errno = ENOMEM;
        return -1;
    }
    for (int r = 0; r < reps; r++)
        means[r] = pb_batch(&d, k, gap_ns);
    for (long i = 0; i < ns; i++) {
        pb_gap(gap_ns);
        uint64_t t0 = pb_now_ns();
        pb_dispatch_once(&d);
        samples[i] = (double)(pb_now_ns() - t0);
    }
    pb_exec_close(&d.e);
    out->batches = pb_summarize(means, (size_t)reps);
    out->batch_mean_ns = out->batches.median;
    out->samples = pb_summarize(samples, (size_t)ns);
    out->k = k;
    free(means);
    free(samples);
    return 0;
}

/* A timed job: every thread busy job_ns, its own wall time in its own line (a thread preempted inside the job
 * shows there, not as the dispatch's cost). */
typedef struct pb_timed_slot {
    alignas(64) uint64_t ns;
} pb_timed_slot;

typedef struct pb_timed_job {
    uint64_t job_ns;     /* read by every thread, written before the first dispatch */
    pb_timed_slot *slot; /* one per thread, each written by its thread only */
} pb_timed_job;

static void pb_job_timed(void *ctx, int id, int n)
{
    (void)n;
    pb_timed_job *j = ctx; /* the caller's, alive across the dispatch; slot[id] is this thread's */
    uint64_t t0 = pb_now_ns();
    pb_spin_ns(j->job_ns);
    j->slot[id].ns = pb_now_ns() - t0;
}

int pb_dispatch_cost_samples(pb_exec *e, long k, uint64_t gap_ns, uint64_t job_ns, double *out)
{
    pb_timed_job j = { .job_ns = job_ns, .slot = aligned_alloc(64, (size_t)e->threads * sizeof *j.slot) };
    if (!j.slot) {
        errno = ENOMEM;
        return -1;
    }
    for (long i = 0; i < k; i++) {
        pb_gap(gap_ns);
        uint64_t t0 = pb_now_ns(), slowest = 0;
        pb_exec_run(e, pb_job_timed, &j);
        uint64_t wall = pb_now_ns() - t0;
        /* the dispatch's completion ordered every thread's slot write before these reads */
        for (int t = 0; t < e->threads; t++)
            slowest = j.slot[t].ns > slowest ? j.slot[t].ns : slowest;
        out[i] = wall > slowest ? (double)(wall - slowest) : 0;
    }
    free(j.slot);
    return 0;
}
