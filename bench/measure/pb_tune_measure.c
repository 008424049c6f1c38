/* pb_tune_measure.c — bench_tune's measuring seam (see pb_tune_measure.h). */
#include "pb_tune_measure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_dispatch_cost.h"
#include "pb_progress.h"
#include "pb_stop.h"
#include "pb_time.h"

#define PB_TUNE_MIN_POINT_S 0.005 /* a point's least sampling time: its 3 samples take longer anyway */
#define PB_TUNE_MAX_SAMPLES 1000
#define PB_TUNE_DISPATCH_REPS 9         /* batches of a dispatch point: its median is the figure */
#define PB_TUNE_DISPATCH_BATCH_MS 2.0   /* a batch: a few thousand dispatches, well past the clock's grain */

int pb_tune_bench_open(pb_tune_bench *b, size_t bytes, size_t cols, const int *cpus, int ncpus, double budget_s,
                       size_t window_bytes, int total, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    pb_kernel_timing_buf buf;
    if (pb_kernel_timing_buf_init(&buf, bytes) != 0) {
        snprintf(err, errlen, "a buffer of %zu MiB: %s", bytes >> 20, strerror(errno));
        return -1;
    }
    uint64_t now = pb_now_ns();
    *b = (pb_tune_bench){ .buf = buf, .bytes = bytes, .cols = cols, .cpus = cpus, .ncpus = ncpus,
                          .deadline = now + (uint64_t)(budget_s * 1e9), .window_bytes = window_bytes,
                          .total = total, .t0 = now };
    return 0;
}

void pb_tune_bench_close(pb_tune_bench *b)
{
    if (b->pool)
        pool_destroy(b->pool);
    pb_kernel_timing_buf_free(&b->buf);
    memset(b, 0, sizeof *b);
}

/* A point that could not run: NaN, the first reason kept. */
static double pb_tune_fail(pb_tune_bench *b, const char *what, const char *why)
{
    if (!b->failed++)
        snprintf(b->err, sizeof b->err, "%.90s: %.150s", what, why);
    return NAN;
}

/* The point about to run (b->done counts it already): an equal share of the time left. */
static double pb_tune_share(const pb_tune_bench *b)
{
    uint64_t now = pb_now_ns();
    int left = b->total - b->done + 1;
    double s = now < b->deadline ? (double)(b->deadline - now) / 1e9 / (left > 0 ? left : 1) : 0;
    return s > PB_TUNE_MIN_POINT_S ? s : PB_TUNE_MIN_POINT_S;
}

/* The pool of threads threads (the last one made is kept for the next points), bound to the caller; NULL with errno. */
static pool *pb_tune_pool(pb_tune_bench *b, int threads)
{
    if (b->pool && b->pool_threads != threads) {
        pool_destroy(b->pool);
        b->pool = NULL;
    }
    if (!b->pool) {
        if (threads > b->ncpus) {
            errno = EINVAL;
            return NULL;
        }
        pool_config cfg = pool_config_default();
        cfg.threads = threads;
        cfg.policy = POOL_SPIN;
        cfg.cpus = b->cpus;
        b->pool = pool_create_bound(&cfg);
        b->pool_threads = threads;
    }
    return b->pool;
}

static double pb_tune_kernel(void *ctx, const pb_tune_cand *c)
{
    pb_tune_bench *b = ctx;
    char what[96];
    snprintf(what, sizeof what, "%s %s %s %s threads=%d", kern_format_names[c->fmt], kern_isa_name(c->isa),
             c->prefetch ? kern_prefetch_setting_name(c->temporal, c->distance, c->near) : "noprefetch",
             kern_layout_names[c->layout], c->threads);
    pb_progress(b->done++, b->total, b->t0, "%-40s", what);
    if (pb_stop_signal())
        return NAN;
    size_t rows = pb_kernel_timing_buf_fill(&b->buf, c->fmt, b->cols, b->bytes);
    size_t g = (size_t)kern_layout_get(c->layout)->rows;
    /* a repacked layout's whole groups, over half the weights: still twice every cache (pb_kernels_run_sizes makes
     * the weights four L3s), and each re-laying of all of them took 1.6-3 s, five layouts a tuning past its budget */
    rows = (c->layout == KERN_LAYOUT_FILE ? rows : rows / 2) / g * g;
    pool *p = pb_tune_pool(b, c->threads);
    if (rows == 0 || !p)
        return pb_tune_fail(b, what, rows == 0 ? "no room for the weights" : strerror(errno));
    if (pb_kernel_timing_buf_repack(&b->buf, c->layout, rows) != 0)
        return pb_tune_fail(b, what, strerror(errno));
    pb_kernel_timing_point pt = { .fmt = c->fmt, .isa = c->isa, .layout = c->layout, .level = PB_KERNEL_TIMING_DRAM,
                                  .cols = b->cols, .rows = rows,
                                  .batch = 1, .pool = p, .window_bytes = b->window_bytes, .budget_s = pb_tune_share(b),
                                  .min_samples = 3, .max_samples = PB_TUNE_MAX_SAMPLES, .min_sample_us = 1000,
                                  .start_row = b->next_row, .no_prefetch = !c->prefetch, .plain = true };
    unsigned ahead = kern_prefetch_ahead; /* the settings before (pb_tune_run's) are put back after */
    bool temporal = kern_prefetch_temporal, near = kern_prefetch_near;
    if (c->prefetch && kern_prefetch_set_distance(c->distance) != 0)
        return pb_tune_fail(b, what, "not a prefetch distance this build knows");
    kern_prefetch_set_temporal(c->prefetch ? c->temporal : temporal);
    kern_prefetch_set_near(c->prefetch ? c->near : near);
    pb_kernel_timing_result r;
    int rc = pb_kernel_timing_measure(&b->buf, &pt, &r);
    kern_prefetch_set_temporal(temporal);
    kern_prefetch_set_distance(ahead);
    kern_prefetch_set_near(near);
    if (rc != 0)
        return pb_tune_fail(b, what, strerror(errno));
    b->next_row = r.next_row;
    return r.gbps.median;
}

static double pb_tune_dispatch(void *ctx, int threads, bool tree)
{
    pb_tune_bench *b = ctx;
    char what[96];
    snprintf(what, sizeof what, "dispatch %s threads=%d", tree ? "tree" : "flat", threads);
    /* no [done/total]: the count is the kernel points' (the budget's share), which these come after */
    pb_status("%-40s a few ms", what);
    if (pb_stop_signal())
        return NAN;
    if (threads > b->ncpus)
        return pb_tune_fail(b, what, "more threads than cpus");
    if (b->pool) { /* its idle workers would spin beside the measured pool */
        pool_destroy(b->pool);
        b->pool = NULL;
    }
    const pb_dispatch_cost_point pt = { .kind = tree ? PB_EXEC_TREE : PB_EXEC_SPIN, .threads = threads,
                                        .cpus = b->cpus, .reps = PB_TUNE_DISPATCH_REPS,
                                        .batch_ms = PB_TUNE_DISPATCH_BATCH_MS, .topo = b->topo };
    pb_dispatch_cost_result r;
    if (pb_dispatch_cost_measure(&pt, &r) != 0)
        return pb_tune_fail(b, what, strerror(errno));
    return r.batch_mean_ns;
}

/* The confirmation's count, once known: the time left is shared among the points that do come. */
static void pb_tune_left(void *ctx, int calls)
{
    pb_tune_bench *b = ctx;
    b->total = b->done + calls;
}

pb_tune_seam pb_tune_bench_seam(pb_tune_bench *b)
{
    return (pb_tune_seam){ .kernel = pb_tune_kernel, .left = pb_tune_left, .dispatch = pb_tune_dispatch, .ctx = b };
}
