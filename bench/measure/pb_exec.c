/* pb_exec.c — see pb_exec.h. */
#include "pb_exec.h"

#include <errno.h>
#include <omp.h>
#include <string.h>

/* The pool kinds' names are the pool's (a pool kind's value is its policy's); OpenMP's is added here. */
#define PB_EXEC_POOL_NAME(policy, name) [policy] = name,
const char *const pb_exec_kind_names[PB_EXEC_KINDS + 1] = {
    POOL_POLICY_NAMES(PB_EXEC_POOL_NAME)
    [PB_EXEC_OMP] = "omp",
    [PB_EXEC_KINDS] = NULL,
};
#undef PB_EXEC_POOL_NAME

int pb_exec_kind_parse(const char *name, pb_exec_kind *out)
{
    for (int k = 0; k < PB_EXEC_KINDS; k++) {
        if (name && strcmp(name, pb_exec_kind_names[k]) == 0) {
            *out = (pb_exec_kind)k;
            return 0;
        }
    }
    return -1;
}

/* Pins each thread of an OpenMP team of `threads` to cpus[thread number] (the caller is thread 0), or back
 * to *restore when cpus is NULL. libgomp keeps its threads between regions of the same size, so the pinning
 * holds for later regions of that size. */
static void pb_omp_pin(int threads, const int *cpus, const cpu_set_t *restore)
{
#pragma omp parallel num_threads(threads)
    {
        cpu_set_t set = *restore;
        if (cpus) {
            CPU_ZERO(&set);
            CPU_SET(cpus[omp_get_thread_num()], &set);
        }
        sched_setaffinity(0, sizeof set, &set);
    }
}

int pb_exec_open(pb_exec *e, pb_exec_kind kind, int threads, const int *cpus, size_t chunk, unsigned spin_us)
{
    memset(e, 0, sizeof *e);
    if ((unsigned)kind >= PB_EXEC_KINDS || threads < 1 || threads > POOL_MAX_THREADS) {
        errno = EINVAL;
        return -1;
    }
    e->kind = kind;
    e->threads = threads;
    e->chunk = chunk;
    if (kind == PB_EXEC_OMP) {
        sched_getaffinity(0, sizeof e->saved, &e->saved);
        if (cpus)
            pb_omp_pin(threads, cpus, &e->saved);
        return 0;
    }
    pool_config cfg = pool_config_default();
    cfg.threads = threads;
    cfg.policy = (pool_policy)kind;
    cfg.spin_us = spin_us;
    cfg.cpus = cpus;
    e->p = pool_create_bound(&cfg); /* the caller on cpus[0] until pb_exec_close */
    return e->p ? 0 : -1;
}

static void pb_omp_rows(int threads, size_t rows, size_t chunk, pool_rows_fn fn, void *ctx)
{
    if (chunk == 0) {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int t = 0; t < threads; t++) {
            size_t r0, r1;
            pool_split(rows, t, threads, &r0, &r1);
            if (r1 > r0)
                fn(ctx, r0, r1);
        }
        return;
    }
    long nchunks = (long)((rows + chunk - 1) / chunk);
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (long c = 0; c < nchunks; c++) {
        size_t r0 = (size_t)c * chunk, r1 = r0 + chunk < rows ? r0 + chunk : rows;
        fn(ctx, r0, r1);
    }
}

void pb_exec_rows(pb_exec *e, size_t rows, pool_rows_fn fn, void *ctx)
{
    e->dispatches++;
    if (e->p)
        pool_rows(e->p, rows, e->chunk, fn, ctx);
    else
        pb_omp_rows(e->threads, rows, e->chunk, fn, ctx);
}

typedef struct pb_grain {
    pool_rows_fn fn;
    void *ctx;
    size_t grain, rows;
} pb_grain;

static void pb_grain_rows(void *ctx, size_t u0, size_t u1)
{
    /* ctx is pb_exec_rows_grain's pb_grain, alive until the dispatch returns; only read here. */
    const pb_grain *g = ctx;
    size_t r1 = u1 * g->grain < g->rows ? u1 * g->grain : g->rows;
    g->fn(g->ctx, u0 * g->grain, r1);
}

void pb_exec_rows_grain(pb_exec *e, size_t rows, size_t grain, pool_rows_fn fn, void *ctx)
{
    if (grain <= 1) {
        pb_exec_rows(e, rows, fn, ctx);
        return;
    }
    e->dispatches++;
    if (e->p) {
        pool_rows_grain(e->p, rows, e->chunk, grain, fn, ctx);
        return;
    }
    pb_grain g = { .fn = fn, .ctx = ctx, .grain = grain, .rows = rows };
    size_t units = (rows + grain - 1) / grain, chunk = e->chunk ? (e->chunk + grain - 1) / grain : 0;
    pb_omp_rows(e->threads, units, chunk, pb_grain_rows, &g);
}

void pb_exec_run(pb_exec *e, pool_fn fn, void *ctx)
{
    e->dispatches++;
    if (e->p) {
        pool_run(e->p, fn, ctx);
        return;
    }
#pragma omp parallel num_threads(e->threads)
    fn(ctx, omp_get_thread_num(), e->threads);
}

void pb_exec_close(pb_exec *e)
{
    if (e->p)
        pool_destroy(e->p);
    else if (e->threads > 0)
        pb_omp_pin(e->threads, NULL, &e->saved);
    memset(e, 0, sizeof *e);
}
