/* pb_kernel_timing.c — timing the kernels for bench_kernels (see pb_kernel_timing.h for what a sample is). */
#include "pb_kernel_timing.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pb_time.h"

#define PB_KERNEL_TIMING_TEMPLATE_ROWS 64 /* distinct rows a buffer repeats */
#define PB_KERNEL_TIMING_HUGE (2u << 20)

const char *const pb_kernel_timing_level_names[PB_KERNEL_TIMING_LEVELS + 1] = {
    [PB_KERNEL_TIMING_L2] = "l2", [PB_KERNEL_TIMING_L3] = "l3", [PB_KERNEL_TIMING_DRAM] = "dram",
    [PB_KERNEL_TIMING_LEVELS] = NULL,
};

/* xorshift64*: reproducible inputs without global state. */
static float next_uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    uint64_t r = *s * 0x2545f4914f6cdd1dull;
    return (float)((r >> 40) * 0x1p-24) * 2.0f - 1.0f;
}

static void fill_floats(float *x, size_t n, uint64_t seed)
{
    uint64_t s = seed | 1;
    for (size_t i = 0; i < n; i++)
        x[i] = next_uniform(&s);
}

static size_t row_bytes(kern_format f, size_t cols)
{
    return (size_t)kern_format_matrix_bytes(f, 1, cols);
}

int pb_kernel_timing_buf_init(pb_kernel_timing_buf *b, size_t cap)
{
    memset(b, 0, sizeof *b);
    cap = (cap + PB_KERNEL_TIMING_HUGE - 1) / PB_KERNEL_TIMING_HUGE * PB_KERNEL_TIMING_HUGE;
    b->mem = aligned_alloc(PB_KERNEL_TIMING_HUGE, cap);
    if (!b->mem)
        return -1;
    (void)madvise(b->mem, cap, MADV_HUGEPAGE); /* a request: without THP the buffer still works */
    b->cap = cap;
    b->fmt = KERN_FORMAT_COUNT;
    return 0;
}

void pb_kernel_timing_buf_free(pb_kernel_timing_buf *b)
{
    free(b->rp);
    free(b->mem);
    memset(b, 0, sizeof *b);
}

size_t pb_kernel_timing_buf_fill(pb_kernel_timing_buf *b, kern_format f, size_t cols, size_t bytes)
{
    size_t rb = row_bytes(f, cols);
    if (rb == 0)
        return 0;
    size_t rows = (bytes < b->cap ? bytes : b->cap) / rb;
    if (b->fmt == f && b->cols == cols && b->filled >= rows * rb)
        return rows;
    size_t tmpl = rows < PB_KERNEL_TIMING_TEMPLATE_ROWS ? rows : PB_KERNEL_TIMING_TEMPLATE_ROWS;
    float *x = malloc(cols * sizeof(float));
    if (!x)
        return 0;
    for (size_t r = 0; r < tmpl; r++) {
        fill_floats(x, cols, 0x9e3779b97f4a7c15ull * (r + 1));
        kern_quantize_row(f, x, b->mem + r * rb, cols);
    }
    free(x);
    for (size_t r = tmpl; r < rows; r++) /* the copy also pages the buffer in before any timing */
        memcpy(b->mem + r * rb, b->mem + (r % tmpl) * rb, rb);
    b->fmt = f;
    b->cols = cols;
    b->filled = rows * rb;
    b->rp_rows = 0; /* the repacked copy was of other rows */
    return rows;
}

int pb_kernel_timing_buf_repack(pb_kernel_timing_buf *b, kern_layout l, size_t rows)
{
    if (l == KERN_LAYOUT_FILE)
        return 0;
    size_t rb = row_bytes(b->fmt, b->cols), bytes = (size_t)kern_repack_bytes(l, b->fmt, rows, b->cols);
    if (bytes == 0 || rb == 0 || rows * rb > b->filled) {
        errno = EINVAL;
        return -1;
    }
    if (b->rp_layout == l && b->rp_rows >= rows)
        return 0;
    if (bytes > b->rp_cap) {
        free(b->rp);
        size_t cap = (bytes + PB_KERNEL_TIMING_HUGE - 1) / PB_KERNEL_TIMING_HUGE * PB_KERNEL_TIMING_HUGE;
        b->rp_cap = 0;
        if (!(b->rp = aligned_alloc(PB_KERNEL_TIMING_HUGE, cap)))
            return -1;
        (void)madvise(b->rp, cap, MADV_HUGEPAGE);
        memset(b->rp, 0, cap); /* paged in before the repack is timed: a load repacks into memory it has */
        b->rp_cap = cap;
    }
    uint64_t t0 = pb_now_ns();
    if (kern_repack(l, b->fmt, b->mem, rows, b->cols, b->rp) != 0)
        return -1;
    b->repack_ms = (double)(pb_now_ns() - t0) / 1e6;
    b->rp_layout = l;
    b->rp_rows = rows;
    return 0;
}

/* rows rounded down to whole groups of g, at least one group (the caller keeps it within the matrix). */
static size_t whole_groups(size_t rows, size_t g)
{
    return rows >= g ? rows / g * g : g;
}

/* The activation a call quantizes first, when a sample includes it: x's batch rows with isa's quantizer. */
typedef struct requant {
    kern_act *act;
    const float *x;
    size_t batch;
    kern_isa isa;
} requant;

/* One sample: passes runs of job over rows [start, start + n), each after quantizing rq's activation when rq is
 * given. Returns ns, or -1 when the job is refused. */
static double run_sample(kern_job *job, pool *p, const char *w, size_t rb, size_t start, int passes,
                         const requant *rq)
{
    job->w = w + start * rb;
    uint64_t t0 = pb_now_ns();
    for (int i = 0; i < passes; i++)
        if ((rq && kern_act_set_isa(rq->act, rq->x, rq->batch, rq->isa) != 0) ||
            (p ? kern_run_pool(p, 0, job) : kern_run(job)) != 0)
            return -1.0;
    return (double)(pb_now_ns() - t0);
}

/* Reads every cache line of [p, p + n): puts a matrix into the caches of its level without running a
 * kernel over it (which, for the scalar kernels at batch 16, takes seconds). */
static void touch(const char *p, size_t n)
{
    volatile char sink = 0;
    char acc = 0;
    for (size_t i = 0; i < n; i += 64)
        acc ^= p[i];
    sink = acc;
    (void)sink;
}

int pb_kernel_timing_measure(const pb_kernel_timing_buf *b, const pb_kernel_timing_point *pt,
                             pb_kernel_timing_result *out)
{
    size_t rb = row_bytes(pt->fmt, pt->cols);
    const kern_layout_info *li = kern_layout_get(pt->layout);
    size_t g = li ? (size_t)li->rows : 1; /* a window starts and ends on whole groups */
    bool repacked = pt->layout != KERN_LAYOUT_FILE;
    if (rb == 0 || pt->rows == 0 || pt->rows * rb > b->filled || b->fmt != pt->fmt || pt->batch < 1 ||
        pt->batch > KERN_GEMM_MAX || pt->min_samples < 1 || pt->max_samples < pt->min_samples || !li ||
        (repacked && (b->rp_layout != pt->layout || b->rp_rows < pt->rows || pt->rows % g != 0))) {
        errno = EINVAL;
        return -1;
    }
    const char *mem = repacked ? b->rp : b->mem;
    /* l3, dram: windows of at most cap rows walk through the matrix; l2: the whole matrix each sample */
    bool windows = pt->level != PB_KERNEL_TIMING_L2;
    size_t threads = pt->pool ? (size_t)pool_threads(pt->pool) : 1;
    size_t cap = pt->rows;
    if (windows) {
        size_t half = pt->rows / 2 > 0 ? pt->rows / 2 : 1;
        cap = pt->window_bytes / rb > 0 ? pt->window_bytes / rb : 1;
        cap = whole_groups(cap < half ? cap : half, g);
    }
    size_t n = windows ? whole_groups(cap < 64 * threads ? cap : 64 * threads, g) : pt->rows;
    kern_act act;
    float *x = malloc((size_t)pt->batch * pt->cols * sizeof(float));
    float *y = malloc((size_t)pt->batch * cap * sizeof(float));
    double *gbps = malloc((size_t)pt->max_samples * sizeof(double));
    double *ns = malloc((size_t)pt->max_samples * sizeof(double));
    double *gbps_act = malloc((size_t)pt->max_samples * sizeof(double));
    int rc = -1;
    if (!x || !y || !gbps || !ns || !gbps_act || kern_act_init(&act, pt->fmt, pt->cols, (size_t)pt->batch) != 0)
        goto out_free;
    if (kern_act_use_layout(&act, pt->layout) != 0)
        goto out_act;
    fill_floats(x, (size_t)pt->batch * pt->cols, 12345);
    if (kern_act_set_isa(&act, x, (size_t)pt->batch, pt->isa) != 0) /* the point's ISA, as a decode would */
        goto out_act;
    /* In-cache levels run the kernel the way an engine would for weights it knows are cached; dram streams. */
    kern_job job = { .fmt = pt->fmt, .isa = pt->isa, .rows = n, .act = &act, .y = y, .ldy = cap,
                     .cached = pt->level != PB_KERNEL_TIMING_DRAM || pt->no_prefetch, .layout = pt->layout };
    size_t start = windows && pt->start_row + n <= pt->rows ? pt->start_row / g * g : 0;

    if (pt->level != PB_KERNEL_TIMING_DRAM)
        touch(mem, pt->rows * rb);
    /* Warm-up, untimed in the results: it sizes the passes per sample (l2) or the window (l3, dram) */
    double target = pt->min_sample_us * 1e3;
    double warm = run_sample(&job, pt->pool, mem, rb, start, 1, NULL);
    if (warm < 0)
        goto out_act;
    int passes = 1;
    if (!windows && warm < target) {
        passes = (int)ceil(target / fmax(warm, 1.0));
    } else if (windows) {
        double want = 2 * target / fmax(warm / (double)n, 1e-3);
        n = want < (double)cap ? (size_t)want : cap;
        n = n < 8 * threads ? (8 * threads < cap ? 8 * threads : cap) : n;
        n = whole_groups(n, g);
        job.rows = n;
    }
    const requant rq = { .act = &act, .x = x, .batch = (size_t)pt->batch, .isa = pt->isa };
    int k = 0;
    uint64_t t0 = pb_now_ns();
    while (k < pt->max_samples) {
        double t[2];
        t[1] = NAN;
        for (int q = 0; q < (pt->plain ? 1 : 2); q++) { /* plain, then quantizing the activation before every call */
            if (windows) { /* the next window; wrap before running off the matrix */
                start += n;
                if (start + n > pt->rows)
                    start = 0;
            }
            if ((t[q] = run_sample(&job, pt->pool, mem, rb, start, passes, q ? &rq : NULL)) < 0)
                goto out_act;
        }
        ns[k] = t[0];
        gbps[k] = (double)passes * (double)(n * rb) / t[0];
        gbps_act[k] = (double)passes * (double)(n * rb) / t[1];
        k++;
        if (k >= pt->min_samples && (double)(pb_now_ns() - t0) >= pt->budget_s * 1e9)
            break;
    }
    out->gbps = pb_summarize(gbps, (size_t)k);
    out->gbps_act = pt->plain ? (pb_summary){ .min = NAN, .median = NAN, .p90 = NAN, .p99 = NAN, .max = NAN,
                                              .mean = NAN, .stddev = NAN, .spread = NAN, .cv = NAN }
                              : pb_summarize(gbps_act, (size_t)k);
    pb_summary tns = pb_summarize(ns, (size_t)k);
    double per_pass = tns.median / passes;
    out->gops_median = (double)n * (double)pt->cols * pt->batch / per_pass;
    out->ns_per_row = per_pass / (double)n;
    out->rows_per_sample = n * (size_t)passes;
    out->ran = kern_repack_isa(pt->layout, pt->fmt, pt->isa);
    out->next_row = windows && start + 2 * n <= pt->rows ? start + n : 0;
    rc = 0;
out_act:
    kern_act_free(&act);
out_free:
    free(x);
    free(y);
    free(gbps);
    free(ns);
    free(gbps_act);
    return rc;
}

double pb_kernel_timing_read_gbps(const pb_kernel_timing_buf *b, const pb_memkern *k, size_t bytes, size_t window_bytes,
                                  double budget_s, int min_samples)
{
    bytes = bytes < b->filled ? bytes : b->filled;
    size_t win = window_bytes < bytes / 2 ? window_bytes : bytes / 2;
    enum { MAX = 1000 };
    double g[MAX];
    int n = 0;
    if (!k || win == 0)
        return NAN;
    volatile uint64_t sink = k->fn(NULL, b->mem, win); /* warm-up */
    size_t start = 0;
    uint64_t t0 = pb_now_ns();
    while (n < MAX) {
        start += win;
        if (start + win > bytes)
            start = 0;
        uint64_t t = pb_now_ns();
        sink += k->fn(NULL, b->mem + start, win);
        g[n++] = (double)win / (double)(pb_now_ns() - t);
        if (n >= min_samples && (double)(pb_now_ns() - t0) >= budget_s * 1e9)
            break;
    }
    (void)sink;
    return pb_summarize(g, (size_t)n).median;
}

const pb_memkern *pb_kernel_timing_best_read(const pb_kernel_timing_buf *b, size_t bytes, size_t window_bytes,
                                             double budget_s, int min_samples)
{
    const pb_memkern *best = NULL;
    double best_gbps = 0;
    for (const pb_memkern *k = pb_memkerns; k->name; k++) {
        if (!pb_memkern_reads_here(k))
            continue;
        double g = pb_kernel_timing_read_gbps(b, k, bytes, window_bytes, budget_s, min_samples);
        if (g > best_gbps) { /* NaN never is */
            best_gbps = g;
            best = k;
        }
    }
    return best;
}

double pb_kernel_timing_act_ns(kern_format f, size_t cols)
{
    enum { REPS = 15 };
    kern_act a;
    float *x = malloc(cols * sizeof(float));
    if (!x || kern_act_init(&a, f, cols, 1) != 0) {
        free(x);
        return NAN;
    }
    fill_floats(x, cols, 7);
    double t[REPS];
    for (int i = 0; i < REPS; i++) {
        uint64_t t0 = pb_now_ns();
        kern_act_set(&a, x, 1);
        t[i] = (double)(pb_now_ns() - t0);
    }
    kern_act_free(&a);
    free(x);
    return pb_summarize(t, REPS).median;
}

int pb_kernel_timing_verify(kern_format f, kern_isa v, size_t cols, char *err, size_t errlen)
{
    enum { ROWS = 19 }; /* no multiple of any rows-per-pass */
    size_t rb = row_bytes(f, cols);
    char *w = malloc(ROWS * rb);
    float *x = malloc(cols * sizeof(float)), ys[ROWS], yv[ROWS];
    int rc = -1;
    if (!w || !x) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (size_t r = 0; r < ROWS; r++) {
        fill_floats(x, cols, 99 + r);
        kern_quantize_row(f, x, w + r * rb, cols);
    }
    fill_floats(x, cols, 5);
    if (kern_matvec(f, KERN_ISA_SCALAR, w, x, ys, ROWS, cols) != 0 || kern_matvec(f, v, w, x, yv, ROWS, cols) != 0) {
        snprintf(err, errlen, "%s/%s: matvec refused: %s", kern_format_names[f], kern_isa_name(v),
                 strerror(errno));
        goto out;
    }
    double big = 0.0;
    for (int r = 0; r < ROWS; r++)
        big = fmax(big, fabs(ys[r]));
    for (int r = 0; r < ROWS; r++) {
        if (!(fabs(yv[r] - ys[r]) <= 1e-3 * big + 1e-6)) {
            snprintf(err, errlen, "%s/%s row %d: %.9g, scalar reference %.9g", kern_format_names[f],
                     kern_isa_name(v), r, yv[r], ys[r]);
            goto out;
        }
    }
    rc = 0;
out:
    free(w);
    free(x);
    return rc;
}
