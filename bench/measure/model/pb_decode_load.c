/* pb_decode_load.c — see pb_decode_load.h. */
#include "pb_decode_load.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One matrix's rows copied by the executor's threads (each its own rows: the first touch of its pages). */
typedef struct ld_copy {
    unsigned char *dst;
    const unsigned char *src;
    size_t row_bytes;
} ld_copy;

static void ld_copy_rows(void *ctx, size_t r0, size_t r1)
{
    /* ctx is the caller's ld_copy, alive for the whole dispatch; threads write disjoint rows. */
    const ld_copy *c = ctx;
    memcpy(c->dst + r0 * c->row_bytes, c->src + r0 * c->row_bytes, (r1 - r0) * c->row_bytes);
}

/* n floats of an f32 tensor into dst (the file is little-endian, as every host poolbench builds for). */
static void ld_floats(float *dst, const pb_gguf_tensor *t, size_t n)
{
    if (t)
        memcpy(dst, t->data, n * sizeof *dst);
    else
        memset(dst, 0, n * sizeof *dst);
}

/* The norms, q/k head norms and biases of f into w (its arrays sized by the shape). */
static int ld_small(pb_decode_weights *w, const pb_model_file *f)
{
    const pb_model *s = &w->shape;
    size_t H = (size_t)s->hidden, D = (size_t)s->head_dim, per = (size_t)(s->q_dim + 2 * s->kv_dim);
    w->gamma = malloc((2 * (size_t)s->layers + 1) * H * sizeof *w->gamma);
    w->qk_gamma = f->qk_norm ? malloc(2 * (size_t)s->layers * D * sizeof *w->qk_gamma) : NULL;
    w->bias = f->bias ? malloc((size_t)s->layers * per * sizeof *w->bias) : NULL;
    if (!w->gamma || (f->qk_norm && !w->qk_gamma) || (f->bias && !w->bias))
        return -1;
    for (int k = 0; k <= 2 * s->layers; k++)
        ld_floats(w->gamma + (size_t)k * H, f->norm[k], H);
    for (int k = 0; f->qk_norm && k < 2 * s->layers; k++)
        ld_floats(w->qk_gamma + (size_t)k * D, f->qk_norm[k], D);
    for (int l = 0; f->bias && l < s->layers; l++) {
        float *b = w->bias + (size_t)l * per;
        ld_floats(b, f->bias[3 * l], (size_t)s->q_dim);
        ld_floats(b + s->q_dim, f->bias[3 * l + 1], (size_t)s->kv_dim);
        ld_floats(b + s->q_dim + s->kv_dim, f->bias[3 * l + 2], (size_t)s->kv_dim);
    }
    return 0;
}

/* The matvecs where the file is mapped: offsets from the data section's start. */
static void ld_mapped(pb_decode_weights *w, const pb_model_file *f)
{
    /* Only read through (PROT_READ mapping): arena is not const because built weights are written there. */
    w->arena = (unsigned char *)(uintptr_t)(f->g.base + f->g.data_offset);
    for (int i = 0; i < w->nmv; i++)
        w->off[i] = (uint64_t)(f->mv[i]->data - w->arena);
    w->source = "mmap";
}

/* The matvecs copied into a huge-page arena, back to back in token order. */
static int ld_copied(pb_decode_weights *w, const pb_model_file *f, pb_exec *ex, pb_decode_progress_fn progress,
                     void *pctx)
{
    if (pb_membuf_map(&w->buf, (size_t)w->bytes, true) != 0)
        return -1;
    w->arena = w->buf.p;
    w->source = "arena";
    uint64_t off = 0;
    for (int i = 0; i < w->nmv; i++) {
        w->off[i] = off;
        ld_copy c = { .dst = w->arena + off, .src = f->mv[i]->data,
                      .row_bytes = (size_t)(f->mv[i]->bytes / w->mv[i].rows) };
        pb_exec_rows(ex, (size_t)w->mv[i].rows, ld_copy_rows, &c);
        off += f->mv[i]->bytes;
        if (progress)
            progress(pctx, off, w->bytes);
    }
    return 0;
}

int pb_decode_weights_load(pb_decode_weights *w, const pb_model_file *f, bool use_mmap, uint64_t seed,
                           pb_exec *ex, pb_decode_progress_fn progress, void *pctx)
{
    memset(w, 0, sizeof *w);
    w->shape = f->shape;
    w->fmt = f->fmt[0];
    w->seed = seed;
    w->nmv = f->nmv;
    w->bytes = f->weight_bytes;
    w->mv = calloc((size_t)w->nmv, sizeof *w->mv);
    w->off = calloc((size_t)w->nmv, sizeof *w->off);
    w->mfmt = malloc((size_t)w->nmv * sizeof *w->mfmt);
    int rc = w->mv && w->off && w->mfmt ? ld_small(w, f) : -1;
    if (rc == 0) {
        pb_model_matvecs(&w->shape, w->mv, w->nmv);
        memcpy(w->mfmt, f->fmt, (size_t)w->nmv * sizeof *w->mfmt);
        if (use_mmap)
            ld_mapped(w, f);
        else
            rc = ld_copied(w, f, ex, progress, pctx);
    }
    if (rc != 0) {
        pb_decode_weights_free(w);
        errno = ENOMEM;
    }
    return rc;
}
