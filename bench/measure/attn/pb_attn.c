/* pb_attn.c — see pb_attn.h: the two dispatches of a layer's attention and the choice of inner loops. */
#include "pb_attn.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_attn_forms.h"
#include "pb_time.h"

/* The inner loops by ISA and cache type; an ISA without a row (avx512, the arm64 ones for now) runs the best one
 * below it, and every row gives the same bits (pb_attn_forms.h). */
static const pb_attn_ops attn_table[KERN_ISA_COUNT][PB_KV_TYPES] = {
    [KERN_ISA_SCALAR] = {
        [PB_KV_F16] = { pb_attn_scores_f16_scalar, pb_attn_weigh_f16_scalar, pb_attn_exp_sub_scalar,
                        pb_attn_store_f16_scalar },
        [PB_KV_Q8_0] = { pb_attn_scores_q8_scalar, pb_attn_weigh_q8_scalar, pb_attn_exp_sub_scalar,
                         pb_attn_store_q8_scalar },
    },
#if defined(__x86_64__)
    [KERN_ISA_AVX2] = {
        [PB_KV_F16] = { pb_attn_scores_f16_avx2, pb_attn_weigh_f16_avx2, pb_attn_exp_sub_avx2,
                        pb_attn_store_f16_avx2, pb_attn_scores_n_f16_avx2, pb_attn_weigh_n_f16_avx2 },
        [PB_KV_Q8_0] = { pb_attn_scores_q8_avx2, pb_attn_weigh_q8_avx2, pb_attn_exp_sub_avx2,
                         pb_attn_store_q8_scalar },
    },
#endif
};

/* The chosen ISA's loops (kern_isa_chosen), or the best below it; the scalar ones for a head width the vector
 * forms do not take (not a multiple of 16). */
static const pb_attn_ops *attn_ops(pb_kv_type t, size_t head_dim)
{
    kern_isa isa = head_dim % 16 == 0 ? kern_isa_chosen() : KERN_ISA_SCALAR;
    while ((unsigned)isa < KERN_ISA_COUNT && !attn_table[isa][t].scores)
        isa = kern_isa_below(isa);
    return &attn_table[isa < KERN_ISA_COUNT ? isa : KERN_ISA_SCALAR][t];
}

static size_t attn_max_chunks(const pb_kv_cache *c)
{
    return (c->cap + PB_ATTN_CHUNK - 1) / PB_ATTN_CHUNK;
}

int pb_attn_init(pb_attn *a, const pb_model *m, pb_kv_cache *kv, size_t batch)
{
    memset(a, 0, sizeof *a);
    a->m = m;
    a->kv = kv;
    a->batch = batch;
    a->ops = attn_ops(kv->type, kv->head_dim);
    size_t nq = batch * (size_t)m->q_dim;
    a->qs = malloc(nq * sizeof *a->qs);
    a->out = malloc(nq * sizeof *a->out);
    a->part = malloc(batch * (size_t)m->n_head * attn_max_chunks(kv) * (kv->head_dim + 2) * sizeof *a->part);
    if (!a->qs || !a->out || !a->part) {
        pb_attn_free(a);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void pb_attn_free(pb_attn *a)
{
    void *const held[] = { a->qs, a->out, a->part };
    for (size_t i = 0; i < sizeof held / sizeof *held; i++)
        free(held[i]);
    memset(a, 0, sizeof *a);
}

/* The partial of (sequence, query head, chunk): m, l, then head_dim values of o. */
static float *attn_part(const pb_attn *a, size_t seq, int head, size_t chunk)
{
    size_t i = (seq * (size_t)a->m->n_head + (size_t)head) * attn_max_chunks(a->kv) + chunk;
    return a->part + i * (a->kv->head_dim + 2);
}

/* Row r's cache sequence and position: a decode's row r is sequence r at the cache's context; a prompt's (causal)
 * is position context + r of sequence 0. */
static size_t attn_seq(const pb_attn *a, size_t r)
{
    return a->causal ? 0 : r;
}

static size_t attn_pos(const pb_attn *a, size_t r)
{
    return a->kv->context + (a->causal ? r : 0);
}

/* The chunks row r attends over: its positions 0..attn_pos. */
static size_t attn_row_chunks(const pb_attn *a, size_t r)
{
    return (attn_pos(a, r) + PB_ATTN_CHUNK) / PB_ATTN_CHUNK;
}

static void attn_merge_head(const pb_attn *a, size_t r, int h);

/* Work items r0..r1: (row, key/value head, chunk), chunk fastest, over the most chunks of any row (a prompt's
 * earlier rows have fewer: their items past them do nothing); a row of one chunk merges its heads there too. */
static void attn_chunk_rows(void *ctx, size_t r0, size_t r1)
{
    /* ctx is the layer's pb_attn, only read here; each item writes its own partials. */
    const pb_attn *a = ctx;
    const pb_kv_cache *c = a->kv;
    size_t d = c->head_dim, nc = a->nchunks;
    int group = a->m->n_head / a->m->n_kv_head;
    float s[PB_ATTN_CHUNK];
    for (size_t it = r0; it < r1; it++) {
        size_t row = it / ((size_t)c->n_kv * nc), ch = it % nc, t0 = ch * PB_ATTN_CHUNK, n = attn_pos(a, row) + 1;
        int g = (int)(it / nc % (size_t)c->n_kv);
        if (t0 >= n)
            continue;
        size_t cnt = n - t0 < PB_ATTN_CHUNK ? n - t0 : PB_ATTN_CHUNK, seq = attn_seq(a, row);
        const unsigned char *k = pb_kv_row(c, 0, a->layer, seq, g, t0), *v = pb_kv_row(c, 1, a->layer, seq, g, t0);
        for (int h = g * group; h < (g + 1) * group; h++) {
            a->ops->scores(k, c->row_bytes, cnt, a->qs + row * (size_t)a->m->q_dim + (size_t)h * d, d, s);
            float m = -INFINITY, l = 0;
            for (size_t t = 0; t < cnt; t++)
                m = s[t] > m ? s[t] : m;
            a->ops->exp_sub(s, cnt, m);
            for (size_t t = 0; t < cnt; t++)
                l += s[t];
            float *p = attn_part(a, row, h, ch);
            p[0] = m;
            p[1] = l;
            memset(p + 2, 0, d * sizeof *p);
            a->ops->weigh(v, c->row_bytes, cnt, s, d, p + 2);
            if (n <= PB_ATTN_CHUNK)
                attn_merge_head(a, row, h);
        }
    }
}

/* A prompt's rows are attended PB_ATTN_QROWS at a time: with a key/value head's query heads, the queries that read
 * the same cache rows, each row loaded and converted once for all of them (scores_n, weigh_n). */
#define PB_ATTN_QROWS 4
#define PB_ATTN_QMAX 32 /* queries of one item: rows x query heads per key/value head */

/* The rows of a query block of a: PB_ATTN_QROWS, fewer where the heads of a group would pass PB_ATTN_QMAX. */
static size_t attn_qrows(const pb_attn *a)
{
    size_t group = (size_t)(a->m->n_head / a->m->n_kv_head), r = PB_ATTN_QROWS;
    while (r > 1 && r * group > PB_ATTN_QMAX)
        r--;
    return r;
}

/* pb_attn_ops' one-query and many-query forms of a pass over a head's cache rows (scores, weigh). */
typedef void (*attn_one)(const unsigned char *rows, size_t row_bytes, size_t n, const float *x, size_t d, float *y);
typedef void (*attn_many)(const unsigned char *rows, size_t row_bytes, size_t n, const float *const *x, int nq,
                          size_t d, float *const *y);

/* nq queries' pass over n rows at once (many), or one by one (one) where the ISA has no such form. */
static void attn_n(const pb_attn *a, attn_one one, attn_many many, const unsigned char *rows, size_t n,
                   const float *const *x, int nq, float *const *y)
{
    if (many && nq > 1) {
        many(rows, a->kv->row_bytes, n, x, nq, a->kv->head_dim, y);
        return;
    }
    for (int i = 0; i < nq; i++)
        one(rows, a->kv->row_bytes, n, x[i], a->kv->head_dim, y[i]);
}

/* Work items r0..r1 of a prompt: (query block, key/value head, chunk), chunk fastest. Each row's queries see the
 * chunk's positions up to its own (cnt of them), as attn_chunk_rows' would: their scores are made over the block's
 * most (the last row's), and a row's beyond its own are never read, their weights set to 0, which an fma adds as
 * nothing; every query's partial has attn_chunk_rows' bits. */
static void attn_block_rows(void *ctx, size_t r0, size_t r1)
{
    /* ctx is the layer's pb_attn, only read here; each item writes its own rows' partials. */
    const pb_attn *a = ctx;
    const pb_kv_cache *c = a->kv;
    size_t d = c->head_dim, nc = a->nchunks, R = attn_qrows(a);
    int group = a->m->n_head / a->m->n_kv_head;
    float s[PB_ATTN_QMAX][PB_ATTN_CHUNK];
    for (size_t it = r0; it < r1; it++) {
        size_t zig = it / ((size_t)c->n_kv * nc), ch = it % nc, t0 = ch * PB_ATTN_CHUNK;
        /* blocks in the order first, last, second, second last, ...: a causal block's work grows with its rows, so
         * any contiguous run of items (a static split's share) holds as much short work as long */
        size_t nblk = (a->batch + R - 1) / R, blk = zig % 2 ? nblk - 1 - zig / 2 : zig / 2;
        int g = (int)(it / nc % (size_t)c->n_kv);
        size_t ra = blk * R, rb = ra + R < a->batch ? ra + R : a->batch, most = 0;
        const float *q[PB_ATTN_QMAX];
        float *sc[PB_ATTN_QMAX], *o[PB_ATTN_QMAX];
        size_t cnt[PB_ATTN_QMAX], row[PB_ATTN_QMAX];
        int head[PB_ATTN_QMAX], nq = 0;
        for (size_t r = ra; r < rb; r++) {
            size_t n = attn_pos(a, r) + 1;
            for (int h = g * group; n > t0 && h < (g + 1) * group; h++, nq++) {
                cnt[nq] = n - t0 < PB_ATTN_CHUNK ? n - t0 : PB_ATTN_CHUNK;
                most = cnt[nq] > most ? cnt[nq] : most;
                row[nq] = r;
                head[nq] = h;
                q[nq] = a->qs + r * (size_t)a->m->q_dim + (size_t)h * d;
                sc[nq] = s[nq];
                float *p = attn_part(a, r, h, ch);
                memset(p + 2, 0, d * sizeof *p);
                o[nq] = p + 2;
            }
        }
        if (!nq)
            continue;
        const unsigned char *k = pb_kv_row(c, 0, a->layer, 0, g, t0), *v = pb_kv_row(c, 1, a->layer, 0, g, t0);
        attn_n(a, a->ops->scores, a->ops->scores_n, k, most, q, nq, sc);
        for (int i = 0; i < nq; i++) {
            float m = -INFINITY, l = 0;
            for (size_t t = 0; t < cnt[i]; t++)
                m = s[i][t] > m ? s[i][t] : m;
            a->ops->exp_sub(s[i], cnt[i], m);
            for (size_t t = 0; t < cnt[i]; t++)
                l += s[i][t];
            for (size_t t = cnt[i]; t < most; t++)
                s[i][t] = 0;
            o[i][-2] = m;
            o[i][-1] = l;
        }
        /* the same rows, read only from here */
        attn_n(a, a->ops->weigh, a->ops->weigh_n, v, most, (const float *const *)sc, nq, o);
        for (int i = 0; i < nq; i++)
            if (attn_pos(a, row[i]) < PB_ATTN_CHUNK) /* its only chunk: merged here */
                attn_merge_head(a, row[i], head[i]);
    }
}

/* (row, query head): its chunks' partials merged in chunk order into out. */
static void attn_merge_head(const pb_attn *a, size_t r, int h)
{
    size_t d = a->kv->head_dim, nc = attn_row_chunks(a, r);
    float *out = a->out + r * (size_t)a->m->q_dim + (size_t)h * d, mx = -INFINITY, l = 0;
    for (size_t ch = 0; ch < nc; ch++)
        mx = attn_part(a, r, h, ch)[0] > mx ? attn_part(a, r, h, ch)[0] : mx;
    memset(out, 0, d * sizeof *out);
    for (size_t ch = 0; ch < nc; ch++) {
        const float *p = attn_part(a, r, h, ch);
        float w = pb_attn_exp(p[0] - mx);
        l += p[1] * w;
        /* omp simd here and below: out and the partials are apart, and each lane does what the scalar loop
         * did to its element (a multiply and an add; a division: IEEE's, correctly rounded at any width), so
         * the bits are the scalar loop's; GCC's -O2 left both scalar (16 heads x 128 divisions a layer). */
#pragma omp simd
        for (size_t j = 0; j < d; j++)
            out[j] += p[2 + j] * w;
    }
#pragma omp simd
    for (size_t j = 0; j < d; j++)
        out[j] /= l;
}

/* (row, query head) r0..r1 of rows with more than one chunk (the others merged where their chunk was made). */
static void attn_merge_rows(void *ctx, size_t r0, size_t r1)
{
    /* ctx is the layer's pb_attn; each item writes its own head of out. */
    const pb_attn *a = ctx;
    for (size_t it = r0; it < r1; it++) {
        size_t row = it / (size_t)a->m->n_head;
        if (attn_row_chunks(a, row) > 1)
            attn_merge_head(a, row, (int)(it % (size_t)a->m->n_head));
    }
}

/* Key/value head g of row r at its position: its k and v stored there, its query heads scaled into qs (each
 * element on its own: the same bits whichever heads a call covers). */
static void attn_store_group(const pb_attn *a, size_t r, int g, const float *q, const float *k, const float *v)
{
    const pb_model *m = a->m;
    const pb_kv_cache *c = a->kv;
    size_t d = c->head_dim, at = r * (size_t)m->kv_dim + (size_t)g * d, group = (size_t)(m->n_head / m->n_kv_head);
    size_t seq = attn_seq(a, r), pos = attn_pos(a, r);
    a->ops->store(pb_kv_row(c, 0, a->layer, seq, g, pos), k + at, d);
    a->ops->store(pb_kv_row(c, 1, a->layer, seq, g, pos), v + at, d);
    float scale = (float)(1.0 / sqrt((double)d));
    size_t q0 = r * (size_t)m->q_dim + (size_t)g * group * d;
#pragma omp simd /* q and qs are separate buffers */
    for (size_t i = q0; i < q0 + group * d; i++)
        a->qs[i] = q[i] * scale;
}

void pb_attn_begin(pb_attn *a, int layer)
{
    a->layer = layer;
    a->nchunks = attn_row_chunks(a, a->batch - 1); /* the last row has the most */
}

void pb_attn_group(const pb_attn *a, int g, const float *q, const float *k, const float *v)
{
    size_t n_kv = (size_t)a->kv->n_kv, nc = a->nchunks, group = (size_t)(a->m->n_head / a->m->n_kv_head);
    for (size_t seq = 0; seq < a->batch; seq++) {
        attn_store_group(a, seq, g, q, k, v);
        size_t item = (seq * n_kv + (size_t)g) * nc; /* void * for pool_rows_fn's sake: both only read a */
        attn_chunk_rows((void *)a, item, item + nc);
        if (nc > 1) {
            size_t head = seq * (size_t)a->m->n_head + (size_t)g * group;
            attn_merge_rows((void *)a, head, head + group);
        }
    }
}

void pb_attn_store_rows(const pb_attn *a, size_t r0, size_t r1, const float *q, const float *k, const float *v)
{
    for (size_t r = r0; r < r1; r++)
        for (int g = 0; g < a->kv->n_kv; g++)
            attn_store_group(a, r, g, q, k, v);
}

void pb_attn_dispatch(pb_attn *a, pb_exec *ex)
{
    uint64_t t0 = pb_now_ns();
    if (a->causal) {
        size_t blocks = (a->batch + attn_qrows(a) - 1) / attn_qrows(a);
        pb_exec_items(ex, blocks * (size_t)a->kv->n_kv * a->nchunks, attn_block_rows, a);
    } else {
        pb_exec_items(ex, a->batch * (size_t)a->kv->n_kv * a->nchunks, attn_chunk_rows, a);
    }
    a->dispatches++;
    if (a->nchunks > 1) {
        pb_exec_items(ex, a->batch * (size_t)a->m->n_head, attn_merge_rows, a);
        a->dispatches++;
    }
    a->dispatch_ns += pb_now_ns() - t0;
}

void pb_attn_layer(pb_attn *a, pb_exec *ex, int layer, const float *q, const float *k, const float *v)
{
    pb_attn_begin(a, layer);
    pb_attn_store_rows(a, 0, a->batch, q, k, v);
    pb_attn_dispatch(a, ex);
}
