/* pb_barrier_cost.c — see pb_barrier_cost.h. */
#include "pb_barrier_cost.h"

#include <errno.h>
#include <stdlib.h>

#include "pb_time.h"

#define PB_BARRIER_NAME(kind, name) [kind] = name,
const char *const pb_barrier_names[PB_BARRIER_IDS + 1] = {
    POOL_BARRIER_NAMES(PB_BARRIER_NAME)
    [PB_BARRIER_OMP] = "omp",
    [PB_BARRIER_IDS] = NULL,
};
#undef PB_BARRIER_NAME

/* One measuring job: every thread makes warm + reps x k + nsamples calls; the caller's thread (id 0) writes
 * means[] and samples[], which the caller reads after the job (its completion orders them). */
typedef struct pb_barrier_job {
    pool_barrier *b; /* NULL: OpenMP's barrier */
    long warm, k, nsamples;
    int reps;
    double *means, *samples;
} pb_barrier_job;

static void pb_barrier_once(const pb_barrier_job *j, int id)
{
    if (j->b)
        pool_barrier_wait(j->b, id);
    else {
#pragma omp barrier
    }
}

static void pb_barrier_run(void *ctx, int id, int n)
{
    (void)n;
    const pb_barrier_job *j = ctx; /* the caller's, alive across the job */
    for (long i = 0; i < j->warm; i++)
        pb_barrier_once(j, id);
    for (int r = 0; r < j->reps; r++) {
        uint64_t t0 = id == 0 ? pb_now_ns() : 0;
        for (long i = 0; i < j->k; i++)
            pb_barrier_once(j, id);
        if (id == 0)
            j->means[r] = (double)(pb_now_ns() - t0) / (double)j->k;
    }
    uint64_t prev = id == 0 ? pb_now_ns() : 0;
    for (long s = 0; s < j->nsamples; s++) {
        pb_barrier_once(j, id);
        if (id == 0) {
            uint64_t t = pb_now_ns();
            j->samples[s] = (double)(t - prev);
            prev = t;
        }
    }
}

static long pb_clamp(double v, long lo, long hi)
{
    return v < (double)lo ? lo : v > (double)hi ? hi : (long)v;
}

/* The team and the barrier: the tree pool for the pool's barriers, the OpenMP team for its own. */
static int pb_barrier_open(const pb_barrier_cost_point *pt, pb_exec *e, pool_barrier **b)
{
    const pb_exec_cfg c = { .kind = pt->barrier == PB_BARRIER_OMP ? PB_EXEC_OMP : PB_EXEC_TREE,
                            .threads = pt->threads, .cpus = pt->cpus, .topo = pt->topo };
    if (pb_exec_open_cfg(e, &c) != 0)
        return -1;
    *b = NULL;
    if (pt->barrier != PB_BARRIER_OMP && !(*b = pool_barrier_create(e->p, (pool_barrier_kind)pt->barrier))) {
        int err = errno;
        pb_exec_close(e);
        errno = err;
        return -1;
    }
    return 0;
}

int pb_barrier_cost_measure(const pb_barrier_cost_point *pt, pb_dispatch_cost_result *out)
{
    if (pt->barrier < 0 || pt->barrier >= PB_BARRIER_IDS || pt->threads < 2) {
        errno = EINVAL;
        return -1;
    }
    pb_exec e;
    pool_barrier *b;
    if (pb_barrier_open(pt, &e, &b) != 0)
        return -1;
    /* Calibration: 200 barriers after a warm-up size K so that a batch lasts about batch_ms. */
    double est = 0;
    pb_barrier_job cal = { .b = b, .warm = 50, .k = 200, .reps = 1, .means = &est };
    pb_exec_run(&e, pb_barrier_run, &cal);
    int reps = pt->reps > 0 ? pt->reps : 1;
    long k = pb_clamp(pt->batch_ms * 1e6 / (est + 1.0), 5, 200000);
    pb_barrier_job j = { .b = b, .warm = 20, .k = k, .reps = reps, .nsamples = pb_clamp((double)k, 200, 5000) };
    j.means = malloc((size_t)reps * sizeof *j.means);
    j.samples = malloc((size_t)j.nsamples * sizeof *j.samples);
    int rc = 0;
    if (j.means && j.samples) {
        pb_exec_run(&e, pb_barrier_run, &j);
        out->batches = pb_summarize(j.means, (size_t)reps);
        out->batch_mean_ns = out->batches.median;
        out->samples = pb_summarize(j.samples, (size_t)j.nsamples);
        out->k = k;
    } else {
        rc = -1;
    }
    free(j.means);
    free(j.samples);
    pool_barrier_destroy(b);
    pb_exec_close(&e);
    if (rc != 0)
        errno = ENOMEM;
    return rc;
}
