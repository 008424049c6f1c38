/* pb_decode_weights.c — see pb_decode_weights.h. */
#include "pb_decode_weights.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pb_gen {
    const pb_decode_weights *w;
    int mv;           /* matrix index */
    kern_format fmt;  /* its format */
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
        uint64_t s = pb_decode_stream(g->w->seed, (uint64_t)g->mv + 1, r);
        for (size_t c = 0; c < cols; c++)
            row[c] = pb_decode_unit(&s) * g->scale;
        kern_quantize_row(g->fmt, row, g->dst + r * g->row_bytes, cols);
    }
    free(row);
}

int pb_decode_weights_build(pb_decode_weights *w, const pb_model *m, kern_format f, uint64_t seed, pb_exec *ex,
                            pb_decode_progress_fn progress, void *pctx)
{
    int n = pb_model_matvec_count(m);
    kern_format *fmts = malloc((size_t)n * sizeof *fmts);
    if (!fmts) {
        memset(w, 0, sizeof *w);
        errno = ENOMEM;
        return -1;
    }
    for (int i = 0; i < n; i++)
        fmts[i] = f;
    int rc = pb_decode_weights_build_fmts(w, m, fmts, seed, ex, progress, pctx);
    int e = errno;
    free(fmts);
    errno = e;
    return rc;
}

/* The norm weights: near 1, seeded (the layers' norms, then the q/k head norms when the shape has them). */
static void pb_gammas(pb_decode_weights *w, size_t ngamma, size_t nqk)
{
    uint64_t s = pb_decode_stream(w->seed, 0, 0);
    for (size_t i = 0; i < ngamma; i++)
        w->gamma[i] = 1.0f + 0.1f * pb_decode_unit(&s);
    for (size_t i = 0; i < nqk; i++)
        w->qk_gamma[i] = 1.0f + 0.1f * pb_decode_unit(&s);
}

/* The arrays of w for shape m and formats fmts (bytes and offsets from them), the arena not yet mapped. 0, or -1
 * with errno (EINVAL: a format that cannot hold its matrix). */
static int pb_weights_layout(pb_decode_weights *w, const pb_model *m, const kern_format *fmts)
{
    w->shape = *m;
    w->fmt = fmts[0];
    w->nmv = pb_model_matvec_count(m);
    w->mv = calloc((size_t)w->nmv, sizeof *w->mv);
    w->off = calloc((size_t)w->nmv, sizeof *w->off);
    w->mfmt = calloc((size_t)w->nmv, sizeof *w->mfmt);
    w->gamma = malloc((2 * (size_t)m->layers + 1) * m->hidden * sizeof *w->gamma);
    w->qk_gamma = m->qk_norm ? malloc(2 * (size_t)m->layers * m->head_dim * sizeof *w->qk_gamma) : NULL;
    if (!w->mv || !w->off || !w->mfmt || !w->gamma || (m->qk_norm && !w->qk_gamma)) {
        errno = ENOMEM;
        return -1;
    }
    pb_model_matvecs(m, w->mv, w->nmv);
    for (int i = 0; i < w->nmv; i++) {
        uint64_t b = kern_format_matrix_bytes(fmts[i], w->mv[i].rows, w->mv[i].cols);
        if (b == 0) {
            errno = EINVAL;
            return -1;
        }
        w->mfmt[i] = fmts[i];
        w->off[i] = w->bytes;
        w->bytes += b;
    }
    return 0;
}

int pb_decode_weights_build_fmts(pb_decode_weights *w, const pb_model *m, const kern_format *fmts, uint64_t seed,
                                 pb_exec *ex, pb_decode_progress_fn progress, void *pctx)
{
    memset(w, 0, sizeof *w);
    w->seed = seed;
    w->source = "arena";
    /* Huge pages halve the TLB misses of a weight stream (THP in madvise mode gives them only on request);
     * a refusal is not an error: the floor is read over the same pages, so the comparison stays fair. */
    if (pb_weights_layout(w, m, fmts) != 0 || pb_membuf_map(&w->buf, (size_t)w->bytes, true) != 0) {
        int e = errno == EINVAL ? EINVAL : ENOMEM;
        pb_decode_weights_free(w);
        errno = e;
        return -1;
    }
    w->arena = w->buf.p;
    pb_gammas(w, (2 * (size_t)m->layers + 1) * m->hidden, m->qk_norm ? 2 * (size_t)m->layers * m->head_dim : 0);
    for (int i = 0; i < w->nmv; i++) {
        const pb_matvec *mv = &w->mv[i];
        /* Uniform in ±sqrt(3/cols) has variance 1/cols: a unit-RMS input gives unit-RMS outputs, so 36
         * layers of residual adds stay far from overflow and from a quantizer's saturation. */
        pb_gen g = { .w = w, .mv = i, .fmt = fmts[i], .dst = w->arena + w->off[i],
                     .row_bytes = (size_t)kern_format_matrix_bytes(fmts[i], 1, mv->cols),
                     .scale = sqrtf(3.0f / (float)mv->cols) };
        pb_exec_rows(ex, (size_t)mv->rows, pb_gen_rows, &g);
        if (g.failed) {
            pb_decode_weights_free(w);
            errno = ENOMEM;
            return -1;
        }
        if (progress)
            progress(pctx, w->off[i] + kern_format_matrix_bytes(fmts[i], mv->rows, mv->cols), w->bytes);
    }
    return 0;
}

void pb_decode_weights_free(pb_decode_weights *w)
{
    if (w->buf.map)
        pb_membuf_unmap(&w->buf);
    void *const held[] = { w->mv, w->off, w->gamma, w->mfmt, w->qk_gamma, w->bias };
    for (size_t i = 0; i < sizeof held / sizeof *held; i++)
        free(held[i]);
    memset(w, 0, sizeof *w);
}
