/* pb_kv.c — see pb_attn.h: the KV cache's layout, its bytes, its fill, and RoPE. */
#include "pb_attn.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern.h"
#include "pb_attn_forms.h"

const char *const pb_kv_type_names[PB_KV_TYPES + 1] = { "f16", "q8_0", NULL };

/* One position of one head in type t; 0 when t cannot hold head_dim values. */
static size_t kv_row_bytes(pb_kv_type t, size_t head_dim)
{
    if (t == PB_KV_F16)
        return head_dim * sizeof(kern_half);
    return head_dim % QK8_0 == 0 ? head_dim / QK8_0 * sizeof(block_q8_0) : 0;
}

uint64_t pb_kv_bytes(const pb_model *m, pb_kv_type type, size_t batch, size_t context)
{
    uint64_t row = kv_row_bytes(type, (size_t)m->head_dim);
    return 2ull * (uint64_t)m->layers * batch * (uint64_t)m->n_kv_head * (context + 1) * row;
}

int pb_kv_init(pb_kv_cache *c, const pb_model *m, pb_kv_type type, size_t batch, size_t cap)
{
    memset(c, 0, sizeof *c);
    size_t row = pb_model_attn_ok(m) ? kv_row_bytes(type, (size_t)m->head_dim) : 0;
    if (row == 0 || batch == 0 || cap == 0) {
        errno = EINVAL;
        return -1;
    }
    *c = (pb_kv_cache){ .type = type, .layers = m->layers, .n_kv = m->n_kv_head, .head_dim = (size_t)m->head_dim,
                        .batch = batch, .cap = cap, .row_bytes = row };
    size_t bytes = 2 * (size_t)m->layers * batch * (size_t)m->n_kv_head * cap * row;
    if (pb_membuf_map(&c->buf, bytes, true) != 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void pb_kv_free(pb_kv_cache *c)
{
    if (c->buf.map)
        pb_membuf_unmap(&c->buf);
    memset(c, 0, sizeof *c);
}

unsigned char *pb_kv_row(const pb_kv_cache *c, int kv, int layer, size_t seq, int head, size_t pos)
{
    size_t rows = ((((size_t)kv * c->layers + (size_t)layer) * c->batch + seq) * (size_t)c->n_kv + (size_t)head);
    return c->buf.p + (rows * c->cap + pos) * c->row_bytes;
}

/* One row of floats into the cache's type, through the scalar form of attention's store (pb_attn_forms.h): the
 * fill is set-up, and every ISA's store gives the same bits. */
static void kv_store(const pb_kv_cache *c, unsigned char *dst, const float *x)
{
    if (c->type == PB_KV_F16)
        pb_attn_store_f16_scalar(dst, x, c->head_dim);
    else
        pb_attn_store_q8_scalar(dst, x, c->head_dim);
}

typedef struct kv_fill {
    const pb_kv_cache *c;
    size_t context;
    pb_kv_gen_fn gen;
    void *gctx;
    int failed;
} kv_fill;

/* Rows r0..r1 of the (kv, layer, sequence, head) rows, each with its context positions. */
static void kv_fill_rows(void *ctx, size_t r0, size_t r1)
{
    /* ctx is the caller's kv_fill, alive for the whole dispatch; threads write disjoint rows. */
    kv_fill *f = ctx;
    const pb_kv_cache *c = f->c;
    float *x = malloc(c->head_dim * sizeof *x);
    if (!x) {
        __atomic_store_n(&f->failed, 1, __ATOMIC_RELAXED); /* read after the dispatch returned */
        return;
    }
    for (size_t r = r0; r < r1; r++)
        for (size_t t = 0; t < f->context; t++) {
            f->gen(f->gctx, (uint64_t)r << 32 | t, x, c->head_dim); /* the same values whatever the cap */
            kv_store(c, c->buf.p + (r * c->cap + t) * c->row_bytes, x);
        }
    free(x);
}

int pb_kv_fill(pb_kv_cache *c, size_t context, pb_kv_gen_fn gen, void *gctx, pb_exec *ex)
{
    if (context >= c->cap) {
        errno = EINVAL;
        return -1;
    }
    kv_fill f = { .c = c, .context = context, .gen = gen, .gctx = gctx };
    size_t rows = 2 * (size_t)c->layers * c->batch * (size_t)c->n_kv;
    pb_exec_rows(ex, rows, kv_fill_rows, &f);
    if (f.failed) {
        errno = ENOMEM;
        return -1;
    }
    c->context = context;
    return 0;
}

int pb_rope_init(pb_rope *r, size_t head_dim, float base, bool neox)
{
    memset(r, 0, sizeof *r);
    size_t half = head_dim / 2;
    r->head_dim = head_dim;
    r->neox = neox;
    r->inv_freq = half ? malloc(half * sizeof *r->inv_freq) : NULL;
    if (!r->inv_freq) {
        errno = half ? ENOMEM : EINVAL;
        return -1;
    }
    for (size_t i = 0; i < half; i++)
        r->inv_freq[i] = (float)pow((double)base, -2.0 * (double)i / (double)head_dim);
    if (pb_rope_span(r, 0, 1) != 0) {
        pb_rope_free(r);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void pb_rope_free(pb_rope *r)
{
    free(r->inv_freq);
    free(r->cos);
    free(r->sin);
    memset(r, 0, sizeof *r);
}

int pb_rope_span(pb_rope *r, size_t pos, size_t n)
{
    size_t half = r->head_dim / 2;
    if (n > r->cap) {
        float *c = malloc(n * half * sizeof *c), *s = malloc(n * half * sizeof *s);
        if (!c || !s) {
            free(c);
            free(s);
            errno = ENOMEM;
            return -1;
        }
        free(r->cos);
        free(r->sin);
        r->cos = c;
        r->sin = s;
        r->cap = n;
    }
    r->pos = pos;
    r->n = n;
    for (size_t t = 0; t < n; t++)
        for (size_t i = 0; i < half; i++) {
            double a = (double)(pos + t) * (double)r->inv_freq[i];
            r->cos[t * half + i] = (float)cos(a);
            r->sin[t * half + i] = (float)sin(a);
        }
    return 0;
}

void pb_rope_at(pb_rope *r, size_t pos)
{
    (void)pb_rope_span(r, pos, 1); /* cannot fail: pb_rope_init made room for one position */
}

void pb_rope_apply_at(const pb_rope *r, float *x, int heads, size_t t)
{
    size_t half = r->head_dim / 2, step = r->neox ? 1 : 2, pair = r->neox ? half : 1;
    const float *cs = r->cos + t * half, *sn = r->sin + t * half;
    for (int h = 0; h < heads; h++) {
        float *y = x + (size_t)h * r->head_dim;
        /* omp simd: pair i touches elements of its own only (i and i + half, or 2i and 2i + 1) */
#pragma omp simd
        for (size_t i = 0; i < half; i++) {
            float *a = y + i * step, *b = a + pair;
            float x0 = *a, x1 = *b;
            *a = x0 * cs[i] - x1 * sn[i];
            *b = x0 * sn[i] + x1 * cs[i];
        }
    }
}

void pb_rope_apply(const pb_rope *r, float *x, int heads)
{
    pb_rope_apply_at(r, x, heads, 0);
}
