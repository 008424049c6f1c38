/* pb_overlap.c — see pb_overlap.h. */
#include "pb_overlap.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_err.h"
#include "pb_placement.h"
#include "pb_time.h"

#define OV_WARMUP_STEPS 3
#define OV_CALIB_REPS 15
#define OV_RT_BATCHES 11

const char *const pb_overlap_mode_names[PB_OV_MODES + 1] = {
    [PB_OV_SERIAL] = "serial",
    [PB_OV_SPAWN] = "async-spawn",
    [PB_OV_INHERIT] = "async-inherit",
    [PB_OV_PINNED] = "async-pinned",
    [PB_OV_MODES] = NULL,
};

const pb_overlap_mode_info pb_overlap_modes[PB_OV_MODES] = {
    [PB_OV_SERIAL] = { .async = false },
    [PB_OV_SPAWN] = { .async = true, .policy = POOL_SPAWN, .elsewhere = true },
    [PB_OV_INHERIT] = { .async = true, .policy = POOL_SPIN, .elsewhere = false },
    [PB_OV_PINNED] = { .async = true, .policy = POOL_SPIN, .elsewhere = true },
};

/* ---------------------------------------------------------------- the work */

static void ov_rmsnorm(const float *x, const float *gain, float *y, size_t n)
{
    float ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += x[i] * x[i];
    float scale = 1.0f / sqrtf(ss / (float)n + 1e-6f);
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] * scale * gain[i];
}

static void ov_prep(pb_overlap_work *w)
{
    ov_rmsnorm(w->x, w->gain, w->normed, w->prep_n);
    kern_act_set(&w->prep_act, w->normed, 1); /* cannot fail: batch 1 <= cap 1 */
}

/* The helper's job: a pool_task_fn. ctx is the pb_overlap_work the pipeline owns; the job writes only w->y. */
static void ov_job(void *ctx)
{
    pb_overlap_work *w = ctx;
    kern_job_rows(&w->job, 0, w->job.rows);
}

static uint32_t ov_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void ov_fill(float *v, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (float)(ov_rand(&seed) % 2001) / 1000.0f - 1.0f;
}

static int ov_work_init(pb_overlap_work *w, const pb_kernel_choice *k, size_t rows, size_t cols, char *err,
                        size_t errlen)
{
    kern_isa v = k->isa;
    memset(w, 0, sizeof *w);
    size_t row_bytes = (size_t)kern_format_matrix_bytes(KERN_Q8_0, 1, cols);
    float *row = malloc(cols * sizeof *row);
    w->w = malloc(rows * row_bytes);
    w->y = malloc(rows * sizeof *w->y);
    if (!row || !w->w || !w->y || kern_act_init(&w->job_act, KERN_Q8_0, cols, 1) != 0) {
        free(row);
        return pb_errf(err, errlen, "the q8_0 matvec's %zu x %zu weights: %s", rows, cols, strerror(errno));
    }
    for (size_t r = 0; r < rows; r++) { /* writing every row also pages the weights in */
        ov_fill(row, cols, (uint32_t)r * 2654435761u + 1);
        kern_quantize_row(KERN_Q8_0, row, (char *)w->w + r * row_bytes, cols);
    }
    ov_fill(row, cols, 7);
    kern_act_set(&w->job_act, row, 1);
    free(row);
    w->job = (kern_job){ .fmt = KERN_Q8_0, .isa = v, .w = w->w, .rows = rows, .act = &w->job_act, .y = w->y,
                         .ldy = rows, .cached = !k->prefetch };
    if (kern_job_check(&w->job) != 0)
        return pb_errf(err, errlen, "the q8_0 %s kernel cannot run: %s", kern_isa_name(v), strerror(errno));
    return 0;
}

/* Sizes the prep for n values (a multiple of the q8_0 block). 0, or -1 with err. */
static int ov_work_prep(pb_overlap_work *w, size_t n, char *err, size_t errlen)
{
    free(w->x);
    free(w->gain);
    free(w->normed);
    kern_act_free(&w->prep_act);
    w->prep_n = n;
    w->x = malloc(n * sizeof *w->x);
    w->gain = malloc(n * sizeof *w->gain);
    w->normed = malloc(n * sizeof *w->normed);
    if (!w->x || !w->gain || !w->normed || kern_act_init(&w->prep_act, KERN_Q8_0, n, 1) != 0)
        return pb_errf(err, errlen, "the prep's %zu values: %s", n, strerror(errno));
    ov_fill(w->x, n, 11);
    ov_fill(w->gain, n, 13);
    return 0;
}

static void ov_work_free(pb_overlap_work *w)
{
    free(w->x);
    free(w->gain);
    free(w->normed);
    kern_act_free(&w->prep_act);
    kern_act_free(&w->job_act);
    free(w->w);
    free(w->y);
    memset(w, 0, sizeof *w);
}

int pb_overlap_check_memory(size_t rows, size_t cols, uint64_t avail_bytes, char *err, size_t errlen)
{
    uint64_t row_bytes = (uint64_t)kern_format_matrix_bytes(KERN_Q8_0, 1, cols), bytes;
    /* the weights, then the output (a float per row) and the activation (f32 row and its q8_0 form) */
    bool over = __builtin_mul_overflow((uint64_t)rows, row_bytes, &bytes) ||
                __builtin_add_overflow(bytes, (uint64_t)rows * sizeof(float) + 2 * (uint64_t)cols * sizeof(float),
                                       &bytes);
    if (!over && (avail_bytes == 0 || bytes <= avail_bytes / 2))
        return 0;
    return pb_errf(err, errlen, "--rows %zu x --cols %zu: the q8_0 matvec needs %.2f GiB, more than half of "
                   "MemAvailable (%.2f GiB); choose fewer rows or columns", rows, cols,
                   over ? INFINITY : (double)bytes / (1 << 30), (double)avail_bytes / (1 << 30));
}

int pb_overlap_open(pb_overlap *ov, const pb_kernel_choice *k, size_t rows, size_t cols, char *err, size_t errlen)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(ov->caller_cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return pb_errf(err, errlen, "pinning the caller to cpu %d: %s", ov->caller_cpu, strerror(errno));
    return ov_work_init(&ov->work, k, rows, cols, err, errlen);
}

void pb_overlap_close(pb_overlap *ov)
{
    ov_work_free(&ov->work);
}

/* ---------------------------------------------------------------- timing */

/* What one timed loop runs per step. */
typedef enum ov_loop { OV_LOOP_PREP, OV_LOOP_JOB, OV_LOOP_MODE } ov_loop;

/* 0, or -1 when the helper refused the job (errno set). */
static int ov_step(pb_overlap_work *w, ov_loop loop, pb_overlap_mode m, pool_async *a)
{
    if (loop == OV_LOOP_PREP) {
        ov_prep(w);
    } else if (loop == OV_LOOP_JOB || !pb_overlap_modes[m].async) {
        if (loop == OV_LOOP_MODE)
            ov_prep(w);
        ov_job(w);
    } else {
        if (pool_async_submit(a, ov_job, w) != 0)
            return -1;
        ov_prep(w);
        pool_async_wait(a);
    }
    return 0;
}

/* ns per step over `steps` steps (after a short warm-up). Persistent helpers live for the one loop. NaN with
 * err when the helper could not be made or refused a job. */
static double ov_time(pb_overlap *ov, ov_loop loop, pb_overlap_mode m, char *err, size_t errlen)
{
    pool_async *a = NULL;
    if (loop == OV_LOOP_MODE && pb_overlap_modes[m].async) {
        pool_async_config cfg = pool_async_config_default(pb_overlap_modes[m].elsewhere ? ov->helper_cpu
                                                                                    : POOL_ASYNC_INHERIT);
        cfg.policy = pb_overlap_modes[m].policy;
        a = pool_async_create(&cfg);
        if (!a) {
            pb_errf(err, errlen, "%s: pool_async_create: %s", pb_overlap_mode_names[m], strerror(errno));
            return NAN;
        }
    }
    int bad = 0;
    for (int k = 0; k < OV_WARMUP_STEPS; k++)
        bad |= ov_step(&ov->work, loop, m, a);
    uint64_t t0 = pb_now_ns();
    for (long k = 0; k < ov->steps; k++)
        bad |= ov_step(&ov->work, loop, m, a); /* checked after the loop: nothing leaves the timed region */
    double ns = (double)(pb_now_ns() - t0) / (double)ov->steps;
    if (bad)
        pb_errf(err, errlen, "%s: pool_async_submit: %s", pb_overlap_mode_names[m], strerror(errno));
    pool_async_destroy(a);
    return bad ? NAN : ns;
}

/* Median ns of one fn(w) (after an untimed call), timed one by one. */
static double ov_median_ns(pb_overlap_work *w, void (*fn)(pb_overlap_work *))
{
    double t[OV_CALIB_REPS];
    fn(w);
    for (int i = 0; i < OV_CALIB_REPS; i++) {
        uint64_t t0 = pb_now_ns();
        fn(w);
        t[i] = (double)(pb_now_ns() - t0);
    }
    return pb_summarize(t, OV_CALIB_REPS).median;
}

/* ov_job typed for ov_median_ns (a pool_task_fn takes void *). */
static void ov_job_alone(pb_overlap_work *w)
{
    ov_job(w);
}

static double ov_prep_ns(pb_overlap_work *w) { return ov_median_ns(w, ov_prep); }
double pb_overlap_job_ns(pb_overlap *ov) { return ov_median_ns(&ov->work, ov_job_alone); }

static size_t ov_round_block(double n)
{
    double b = floor(n / QK8_0 + 0.5);
    return b < 1 ? QK8_0 : (size_t)b * QK8_0;
}

/* Sizes the prep so that prep / job ≈ ratio: its cost per value at the job's width, then one refinement at
 * the size that predicts (caches make the cost per value size-dependent). */
static int ov_calibrate(pb_overlap_work *w, double ratio, double job_ns, char *err, size_t errlen)
{
    if (ov_work_prep(w, ov_round_block((double)w->job_act.cols), err, errlen) != 0)
        return -1;
    double target = ratio * job_ns;
    size_t n = ov_round_block(target / (ov_prep_ns(w) / (double)w->prep_n));
    if (ov_work_prep(w, n, err, errlen) != 0)
        return -1;
    n = ov_round_block((double)n * target / ov_prep_ns(w));
    return n != w->prep_n ? ov_work_prep(w, n, err, errlen) : 0;
}

bool pb_overlap_mode_runs(const pb_overlap *ov, pb_overlap_mode m)
{
    return !pb_overlap_modes[m].elsewhere || ov->helper_cpu >= 0;
}

/* One repetition: prep alone, job alone, then every mode this machine runs, in an order rotated by rep (no mode
 * always runs first or last). Each loop's ns per step into its column of t (reps values apart). */
static int ov_repetition(pb_overlap *ov, long rep, double *t, char *err, size_t errlen)
{
    long reps = ov->reps;
    t[rep] = ov_time(ov, OV_LOOP_PREP, PB_OV_SERIAL, err, errlen);
    t[reps + rep] = ov_time(ov, OV_LOOP_JOB, PB_OV_SERIAL, err, errlen);
    for (int i = 0; i < PB_OV_MODES; i++) {
        pb_overlap_mode m = (pb_overlap_mode)((i + rep) % PB_OV_MODES);
        if (pb_overlap_mode_runs(ov, m) && isnan(t[(2 + m) * reps + rep] = ov_time(ov, OV_LOOP_MODE, m, err, errlen)))
            return -1;
    }
    return 0;
}

int pb_overlap_measure_point(pb_overlap *ov, pb_overlap_point *pt, double job_ns, char *err, size_t errlen)
{
    if (ov_calibrate(&ov->work, pt->ratio, job_ns, err, errlen) != 0)
        return -1;
    pt->prep_n = ov->work.prep_n;
    pt->rt_ns = pb_roundtrip_ns(ov->caller_cpu, ov->helper_cpu, OV_RT_BATCHES, ov->quick ? 2000 : 5000);
    snprintf(pt->placement, sizeof pt->placement, "%s",
             pb_placement_block(ov->where, ov->caller_cpu, ov->helper_cpu, pt->rt_ns, pt->rt_ns));
    long reps = ov->reps;
    double *t = calloc((size_t)reps * (PB_OV_MODES + 2), sizeof *t); /* prep, job, then each mode */
    if (!t)
        return pb_errf(err, errlen, "the repetitions: %s", strerror(errno));
    int rc = 0;
    for (long rep = 0; rep < reps && rc == 0; rep++)
        rc = ov_repetition(ov, rep, t, err, errlen);
    pt->prep = pb_summarize(t, (size_t)reps);
    pt->job = pb_summarize(t + reps, (size_t)reps);
    for (int m = 0; m < PB_OV_MODES; m++) {
        pt->measured[m] = pb_overlap_mode_runs(ov, (pb_overlap_mode)m);
        if (pt->measured[m])
            pt->mode[m] = pb_summarize(t + (2 + m) * reps, (size_t)reps);
    }
    free(t);
    return rc;
}

pb_overlap_figures pb_overlap_figures_of(const pb_overlap_point *pt, pb_overlap_mode m)
{
    double serial = pt->mode[PB_OV_SERIAL].median, best = fmax(pt->prep.median, pt->job.median);
    pb_overlap_figures f = {
        .us = pt->mode[m].median / 1e3,
        .us_min = pt->mode[m].min / 1e3,
        .us_max = pt->mode[m].max / 1e3,
        .speedup = serial / pt->mode[m].median,
        .ceiling = serial / best,
    };
    f.pct = 100.0 * f.speedup / f.ceiling;
    return f;
}
