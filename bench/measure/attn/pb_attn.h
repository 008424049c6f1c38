/* pb_attn.h — attention over a KV cache for a decode token, split across an executor's threads.
 *
 * The cache holds, per layer, sequence (batch row) and key/value head, `cap` positions of K and of V, each one
 * head_dim values as IEEE halves (f16) or q8_0 blocks (half d; int8 qs[32]: x = qs x d), positions back to back.
 * Positions 0..context-1 are filled once with seeded values (pb_kv_fill: poolbench measures a decode step at a
 * depth, not text generation); each token writes its own k and v at position `context` and attends over
 * positions 0..context, so every token of a point does the same work and ends with the same bits.
 *
 * One layer's attention (pb_attn_layer), for query head h of key/value head g = h / (n_head / n_kv_head):
 *   s_t = (q_h / sqrt(head_dim)) . k_t,   p_t = e^(s_t - max s),   out_h = sum_t p_t v_t / sum_t p_t.
 * Split across the executor in two dispatches:
 *   1. work items = (sequence, key/value head, chunk of PB_ATTN_CHUNK positions): for each of its group's query
 *      heads a partial max m, sum l = sum e^(s - m) and weighted sum o = sum e^(s - m) v over its positions; the
 *      group shares each K and V row, read once per item;
 *   2. per (sequence, query head): the partials merged in chunk order, M = max m_c, L = sum l_c e^(m_c - M),
 *      out = sum o_c e^(m_c - M) / L.
 * One dispatch when the positions are one chunk: each item then merges its heads as soon as their partials are made.
 * A prompt's rows (causal) are one sequence's successive positions: row r attends over positions 0..context + r,
 * the chunks of each row as a decode token's at that position (the same bits as that token's attention), a row
 * of one chunk merged where it was made, the others in the merge dispatch.
 * The chunks are fixed by the position count alone and merged in a fixed order, and every sum inside a chunk
 * runs in position order, so the output's bits depend on neither the thread count nor the schedule; every ISA's
 * inner loops give the same bits too (pb_attn_forms.h). tests/measure/test_attn.c holds it against a double-precision
 * oracle. */
#ifndef PB_ATTN_H
#define PB_ATTN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_exec.h"
#include "pb_membuf.h"
#include "pb_model.h"

#define PB_ATTN_CHUNK 256 /* positions per work item: 128 KiB of f16 K and V at head_dim 128, held in L2 while the
                           * group's query heads read them */

typedef enum pb_kv_type { PB_KV_F16, PB_KV_Q8_0, PB_KV_TYPES } pb_kv_type;
extern const char *const pb_kv_type_names[PB_KV_TYPES + 1]; /* "f16", "q8_0", NULL */

typedef struct pb_kv_cache {
    pb_kv_type type;
    int layers, n_kv;
    size_t head_dim, batch, cap; /* cap: positions per sequence */
    size_t row_bytes;            /* one position of one head */
    size_t context;              /* positions filled (pb_kv_fill) */
    pb_membuf buf;               /* K, then V: [layer][sequence][head][position] rows */
} pb_kv_cache;

/* Bytes one token reads from the cache of shape m at that context: K and V of positions 0..context (its own
 * included) of every layer, head and sequence. 0 when type cannot hold m's heads (q8_0 needs head_dim % 32). */
uint64_t pb_kv_bytes(const pb_model *m, pb_kv_type type, size_t batch, size_t context);

/* A cache for m's heads, batch sequences and cap positions (huge pages asked for). 0, or -1 with errno (EINVAL: a
 * head width the type cannot hold, or a shape without grouped-query heads; ENOMEM). */
int pb_kv_init(pb_kv_cache *c, const pb_model *m, pb_kv_type type, size_t batch, size_t cap);
void pb_kv_free(pb_kv_cache *c);

/* A row of n values for the row keyed by key (the caller's seeded generator: the same key, the same values). */
typedef void (*pb_kv_gen_fn)(void *ctx, uint64_t key, float *row, size_t n);
/* Fills positions 0..context-1 of every K and V row through ex's threads (each its own rows: the first touch
 * where they will be read); sets c->context. 0, or -1 with errno (EINVAL: context >= cap; ENOMEM). */
int pb_kv_fill(pb_kv_cache *c, size_t context, pb_kv_gen_fn gen, void *gctx, pb_exec *ex);

/* The row of (K: kv 0, V: kv 1) of a layer, sequence, head and position (a token's append stores there through
 * its ISA's pb_attn_ops.store). */
unsigned char *pb_kv_row(const pb_kv_cache *c, int kv, int layer, size_t seq, int head, size_t pos);

/* RoPE at a span of positions pos..pos + n - 1 (one for a decode token, a prompt's rows for a prompt). */
typedef struct pb_rope {
    size_t head_dim;
    bool neox;       /* rotate (i, i + head_dim/2), else (2i, 2i + 1) */
    float *inv_freq; /* head_dim / 2 */
    float *cos, *sin; /* n x head_dim / 2: cos and sin of (pos + t) x base^(-2i / head_dim) */
    size_t pos, n, cap; /* the first position, how many, room for */
} pb_rope;

/* Its span is position 0. 0, or -1 with errno (EINVAL: head_dim under 2; ENOMEM). */
int pb_rope_init(pb_rope *r, size_t head_dim, float base, bool neox);
void pb_rope_free(pb_rope *r);
/* Sets the span (cos and sin computed once for each position; the same bits for a position in any span). 0, or -1
 * with errno (ENOMEM: the span kept as it was). */
int pb_rope_span(pb_rope *r, size_t pos, size_t n);
/* The span set to one position. */
void pb_rope_at(pb_rope *r, size_t pos);
/* Rotates heads x head_dim values in place at the span's position t (0 .. n - 1); pb_rope_apply at its first. */
void pb_rope_apply_at(const pb_rope *r, float *x, int heads, size_t t);
void pb_rope_apply(const pb_rope *r, float *x, int heads);

/* One token's attention state for a model's shape and a cache. */
typedef struct pb_attn {
    const pb_model *m;
    pb_kv_cache *kv;
    size_t batch;
    float *qs;        /* batch x q_dim: the queries scaled by 1 / sqrt(head_dim) */
    float *part;      /* the partials: [sequence][query head][chunk] x (head_dim + 2): m, l, o */
    float *out;       /* batch x q_dim: the attention output (o's input) */
    size_t nchunks;   /* chunks of the current layer's positions (a prompt's: its last row's) */
    bool causal;      /* the rows are a prompt's: successive positions context, context + 1, ... of sequence 0 (a
                       * cache of batch 1), each attending over the positions up to its own (set after init) */
    int layer;
    const struct pb_attn_ops *ops; /* the chosen ISA's inner loops for the cache type */
    uint64_t dispatch_ns;          /* time inside its dispatches, summed over every layer since init */
    long dispatches;               /* and how many, since init */
} pb_attn;

/* 0, or -1 with errno (ENOMEM). The cache must outlive a. */
int pb_attn_init(pb_attn *a, const pb_model *m, pb_kv_cache *kv, size_t batch);
void pb_attn_free(pb_attn *a);
/* Layer l: k and v (batch x kv_dim, k already rotated) written at position kv->context, then q (batch x q_dim,
 * rotated) attends over positions 0..context into a->out. Two dispatches of ex, the chunks' then their merge; one
 * when the positions are one chunk (each head merged where its partial was made: the same function, the same bits). */
void pb_attn_layer(pb_attn *a, pb_exec *ex, int layer, const float *q, const float *k, const float *v);

/* The same split by key/value head instead, for a caller that computes a head's q, k and v and attends it on the
 * same thread (the decode's q, k, v dispatch): pb_attn_begin for the layer between dispatches, then
 * pb_attn_group(g) for every key/value head g once, from any threads at once (each writes its own cache rows,
 * queries, partials and heads of out). The same functions in the same order per head as pb_attn_layer: the same
 * bits. A decode's only (not causal). */
void pb_attn_begin(pb_attn *a, int layer);
void pb_attn_group(const pb_attn *a, int g, const float *q, const float *k, const float *v);

/* pb_attn_layer in its three steps, for a caller that spreads the stores over threads (a prompt's rows, each
 * readied on the thread that stores it): pb_attn_begin; pb_attn_store_rows for rows r0..r1, from any threads at
 * once on disjoint rows (each writes its rows' cache positions and queries); then pb_attn_dispatch, the chunks' and
 * the merge's dispatches. The same bits as pb_attn_layer. */
void pb_attn_store_rows(const pb_attn *a, size_t r0, size_t r1, const float *q, const float *k, const float *v);
void pb_attn_dispatch(pb_attn *a, pb_exec *ex);

#endif
