/* pb_decode.c — see pb_decode.h. */
#include "pb_decode.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_glue.h"
#include "pb_membuf.h"
#include "pb_time.h"

/* The matvecs of a layer, in pb_model_matvecs' order. */
enum { MV_Q, MV_K, MV_V, MV_O, MV_GATE, MV_UP, MV_DOWN };

/* A matvec and the row-local glue fused after it (pb_decode.h): on rows r0..r1 of y, for every batch row,
 * y = SiLU(gate) * y when gate is set, then the slice quantized into next when next is set. */
struct pb_fused {
    kern_job job;
    const float *gate; /* batch x job.rows, computed by the previous dispatch */
    kern_act *next;    /* the next matvec's activation (cols = job.rows), its batch set before the dispatch */
};
typedef struct pb_fused pb_fused;

/* splitmix64: a full-period 64-bit generator whose every output is a good hash of its counter, so a row's
 * stream can start anywhere from (seed, matrix, row) without a sequential pass. */
static uint64_t pb_mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t pb_stream(uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t s = seed ^ (a * 0xD6E8FEB86659FD93ull);
    s = pb_mix(&s) ^ b;
    return pb_mix(&s);
}

/* Uniform in [-1, 1): the top 24 bits, exactly representable as a float. */
static float pb_unit(uint64_t *s)
{
    return (float)(pb_mix(s) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

typedef struct pb_gen {
    const pb_decode_weights *w;
    int mv;           /* matrix index */
    unsigned char *dst;
    size_t row_bytes;
    float scale;      /* weights uniform in [-scale, scale] */
    int failed;       /* set (relaxed: read only after the dispatch returned) when a row buffer was missing */
} pb_gen;

static void pb_gen_rows(void *ctx, size_t r0, size_t r1)
{
    /* ctx is the caller's pb_gen, alive for the whole dispatch; threads write disjoint rows of dst. */
    pb_gen *g = ctx;
    size_t cols = (size_t)g->w->mv[g->mv].cols;
    float *row = malloc(cols * sizeof *row);
    if (!row) {
        __atomic_store_n(&g->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (size_t r = r0; r < r1; r++) {
        uint64_t s = pb_stream(g->w->seed, (uint64_t)g->mv + 1, r);
        for (size_t c = 0; c < cols; c++)
            row[c] = pb_unit(&s) * g->scale;
        kern_quantize_row(g->w->fmt, row, g->dst + r * g->row_bytes, cols);
    }
    free(row);
}

int pb_decode_weights_build(pb_decode_weights *w, const pb_model *m, kern_format f, uint64_t seed, pb_exec *ex,
                            pb_decode_progress_fn progress, void *pctx)
{
    memset(w, 0, sizeof *w);
    w->shape = *m;
    w->fmt = f;
    w->seed = seed;
    w->bytes = pb_model_token_bytes(m, f);
    if (w->bytes == 0) {
        errno = EINVAL;
        return -1;
    }
    w->nmv = pb_model_matvec_count(m);
    w->mv = calloc((size_t)w->nmv, sizeof *w->mv);
    w->off = calloc((size_t)w->nmv, sizeof *w->off);
    size_t ngamma = (2 * (size_t)m->layers + 1) * m->hidden;
    w->gamma = malloc(ngamma * sizeof *w->gamma);
    /* Huge pages halve the TLB misses of a weight stream (THP in madvise mode gives them only on request);
     * a refusal is not an error: the floor is read over the same pages, so the comparison stays fair. */
    if (!w->mv || !w->off || !w->gamma || pb_membuf_map(&w->buf, (size_t)w->bytes, true) != 0) {
        pb_decode_weights_free(w);
        errno = ENOMEM;
        return -1;
    }
    w->arena = w->buf.p;
    pb_model_matvecs(m, w->mv, w->nmv);
    uint64_t s = pb_stream(seed, 0, 0);
    for (size_t i = 0; i < ngamma; i++)
        w->gamma[i] = 1.0f + 0.1f * pb_unit(&s);
    uint64_t off = 0;
    for (int i = 0; i < w->nmv; i++) {
        const pb_matvec *mv = &w->mv[i];
        w->off[i] = off;
        /* Uniform in ±sqrt(3/cols) has variance 1/cols: a unit-RMS input gives unit-RMS outputs, so 36
         * layers of residual adds stay far from overflow and from a quantizer's saturation. */
        pb_gen g = { .w = w, .mv = i, .dst = w->arena + off,
                     .row_bytes = (size_t)kern_format_matrix_bytes(f, 1, mv->cols),
                     .scale = sqrtf(3.0f / (float)mv->cols) };
        pb_exec_rows(ex, (size_t)mv->rows, pb_gen_rows, &g);
        if (g.failed) {
            pb_decode_weights_free(w);
            errno = ENOMEM;
            return -1;
        }
        off += kern_format_matrix_bytes(f, mv->rows, mv->cols);
        if (progress)
            progress(pctx, off, w->bytes);
    }
    return 0;
}

void pb_decode_weights_free(pb_decode_weights *w)
{
    if (w->buf.map)
        pb_membuf_unmap(&w->buf);
    free(w->mv);
    free(w->off);
    free(w->gamma);
    memset(w, 0, sizeof *w);
}

int pb_decode_init(pb_decode *d, const pb_decode_weights *w, kern_variant v, size_t batch)
{
    memset(d, 0, sizeof *d);
    const pb_model *m = &w->shape;
    if (batch < 1 || batch > KERN_BATCH_MAX) {
        errno = EINVAL;
        return -1;
    }
    d->w = w;
    d->variant = v;
    d->batch = batch;
    d->x = malloc(batch * m->hidden * sizeof(float));
    d->h = malloc(batch * m->hidden * sizeof(float));
    d->q = malloc(batch * m->q_dim * sizeof(float));
    d->kv = malloc(batch * m->kv_dim * sizeof(float));
    d->g = malloc(batch * m->ffn * sizeof(float));
    d->u = malloc(batch * m->ffn * sizeof(float));
    d->logits = malloc(batch * m->vocab * sizeof(float));
    d->jobs = calloc((size_t)w->nmv, sizeof *d->jobs);
    d->jobs_glue = -1;
    if (!d->x || !d->h || !d->q || !d->kv || !d->g || !d->u || !d->logits || !d->jobs ||
        kern_act_init(&d->act_hidden, w->fmt, m->hidden, batch) != 0 ||
        kern_act_init(&d->act_q, w->fmt, m->q_dim, batch) != 0 ||
        kern_act_init(&d->act_ffn, w->fmt, m->ffn, batch) != 0) {
        int e = errno == EINVAL ? EINVAL : ENOMEM;
        pb_decode_free(d);
        errno = e;
        return -1;
    }
    /* A variant that cannot run this format fails here, not in the middle of a token (the check reads the
     * activation's batch, which the first kern_act_set sets for real). */
    kern_job probe = { .fmt = w->fmt, .variant = v, .w = w->arena, .rows = 1, .act = &d->act_hidden, .y = d->h,
                       .ldy = 1 };
    d->act_hidden.batch = batch;
    if (kern_job_check(&probe) != 0) {
        int e = errno;
        pb_decode_free(d);
        errno = e;
        return -1;
    }
    d->act_hidden.batch = 0;
    return 0;
}

void pb_decode_free(pb_decode *d)
{
    free(d->x);
    free(d->h);
    free(d->q);
    free(d->kv);
    free(d->g);
    free(d->u);
    free(d->logits);
    free(d->jobs);
    kern_act_free(&d->act_hidden);
    kern_act_free(&d->act_q);
    kern_act_free(&d->act_ffn);
    memset(d, 0, sizeof *d);
}

const char *const pb_glue_mode_names[PB_GLUE_MODES + 1] = { "serial", "fused", NULL };


static void pb_fused_rows(void *ctx, size_t r0, size_t r1)
{
    /* ctx is one of d->jobs, alive as long as d; threads get disjoint row ranges, so they write
     * disjoint slices of y and (r0, r1 whole activation blocks: pb_exec_rows_grain) disjoint blocks of next. */
    const pb_fused *f = ctx;
    kern_job_rows((void *)&f->job, r0, r1); /* void * for pool_rows_fn's sake: kern_job_rows only reads the job */
    size_t batch = f->job.act->batch, ld = f->job.ldy;
    if (f->gate)
        for (size_t m = 0; m < batch; m++)
            pb_silu_mul(f->job.y + m * ld + r0, f->gate + m * ld + r0, f->job.y + m * ld + r0, r1 - r0);
    /* Cannot fail: pb_mv checked the batch, and r0, r1 are multiples of the block (the last one is rows, a
     * multiple since next's kern_act_init accepted cols = rows). */
    if (f->next)
        (void)kern_act_set_cols(f->next, f->job.y, batch, r0, r1);
}

/* Job i: matvec i from a into y, with gate and next as in pb_fused (NULL: none). */
static void pb_job(pb_decode *d, int i, const kern_act *a, float *y, const float *gate, kern_act *next)
{
    const pb_decode_weights *w = d->w;
    d->jobs[i] = (pb_fused){ .job = { .fmt = w->fmt, .variant = d->variant, .w = w->arena + w->off[i],
                                      .rows = (size_t)w->mv[i].rows, .act = a, .y = y,
                                      .ldy = (size_t)w->mv[i].rows },
                             .gate = gate, .next = next };
}

/* Every matvec's job for the current glue mode, in token order (pb_decode.h's dataflow). */
static void pb_jobs_build(pb_decode *d)
{
    const pb_model *m = &d->w->shape;
    bool fused = d->glue == PB_GLUE_FUSED;
    for (int l = 0; l < m->layers; l++) {
        int b = l * PB_MODEL_MATVECS_PER_LAYER;
        pb_job(d, b + MV_Q, &d->act_hidden, d->q, NULL, fused ? &d->act_q : NULL);
        pb_job(d, b + MV_K, &d->act_hidden, d->kv, NULL, NULL);
        pb_job(d, b + MV_V, &d->act_hidden, d->kv, NULL, NULL);
        pb_job(d, b + MV_O, &d->act_q, d->h, NULL, NULL);
        pb_job(d, b + MV_GATE, &d->act_hidden, d->g, NULL, NULL);
        /* fused: u = SiLU(g) * u, quantized: down's input */
        pb_job(d, b + MV_UP, &d->act_hidden, d->u, fused ? d->g : NULL, fused ? &d->act_ffn : NULL);
        pb_job(d, b + MV_DOWN, &d->act_ffn, d->h, NULL, NULL);
    }
    pb_job(d, d->w->nmv - 1, &d->act_hidden, d->logits, NULL, NULL);
    d->jobs_glue = (int)d->glue;
}

/* Matvec i (a matmul for batch > 1): one dispatch of ex. */
static int pb_mv(pb_decode *d, pb_exec *ex, int i)
{
    pb_fused *f = &d->jobs[i];
    if (kern_job_check(&f->job) != 0)
        return -1;
    if (f->next) {
        size_t batch = f->job.act->batch;
        if (f->next->cols != f->job.rows || batch > f->next->cap) {
            errno = EINVAL;
            return -1;
        }
        /* Before the dispatch (its threads only read it), and only on a change, so the line stays shared. */
        if (f->next->batch != batch)
            f->next->batch = batch;
    }
    size_t grain = d->glue == PB_GLUE_FUSED ? kern_act_block(d->w->fmt) : 1;
    uint64_t t0 = pb_now_ns();
    if (f->gate || f->next)
        pb_exec_rows_grain(ex, f->job.rows, grain, pb_fused_rows, f);
    else /* the job is only read by kern_job_rows */
        pb_exec_rows_grain(ex, f->job.rows, grain, kern_job_rows, &f->job);
    d->dispatch_ns += pb_now_ns() - t0;
    return 0;
}

/* h[m] = RMSNorm(x[m]) with norm weights number k, then quantized once into a. */
static void pb_norm(pb_decode *d, int k, kern_act *a)
{
    size_t n = (size_t)d->w->shape.hidden;
    for (size_t m = 0; m < d->batch; m++)
        pb_rmsnorm(d->h + m * n, d->x + m * n, d->w->gamma + (size_t)k * n, n, PB_RMS_EPS);
    kern_act_set(a, d->h, d->batch);
}

int pb_decode_token(pb_decode *d, pb_exec *ex, uint64_t token)
{
    const pb_model *m = &d->w->shape;
    size_t M = d->batch, H = (size_t)m->hidden;
    d->dispatch_ns = 0;
    for (size_t r = 0; r < M; r++) {
        uint64_t s = pb_stream(d->w->seed, UINT64_MAX, token * KERN_BATCH_MAX + r);
        for (size_t c = 0; c < H; c++)
            d->x[r * H + c] = pb_unit(&s);
    }
    int rc = 0;
    bool fused = d->glue == PB_GLUE_FUSED;
    if (d->jobs_glue != (int)d->glue)
        pb_jobs_build(d);
    for (int l = 0; l < m->layers && rc == 0; l++) {
        int b = l * PB_MODEL_MATVECS_PER_LAYER;
        pb_norm(d, 2 * l, &d->act_hidden);
        rc |= pb_mv(d, ex, b + MV_Q);
        rc |= pb_mv(d, ex, b + MV_K);
        rc |= pb_mv(d, ex, b + MV_V);
        if (!fused)
            kern_act_set(&d->act_q, d->q, M);
        rc |= pb_mv(d, ex, b + MV_O);
        pb_residual_add(d->x, d->h, M * H);
        pb_norm(d, 2 * l + 1, &d->act_hidden);
        rc |= pb_mv(d, ex, b + MV_GATE);
        rc |= pb_mv(d, ex, b + MV_UP);
        if (!fused) {
            pb_silu_mul(d->u, d->g, d->u, M * (size_t)m->ffn);
            kern_act_set(&d->act_ffn, d->u, M);
        }
        rc |= pb_mv(d, ex, b + MV_DOWN);
        pb_residual_add(d->x, d->h, M * H);
    }
    if (rc != 0)
        return -1;
    pb_norm(d, 2 * m->layers, &d->act_hidden);
    return pb_mv(d, ex, d->w->nmv - 1);
}
