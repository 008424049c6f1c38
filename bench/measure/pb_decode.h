/* pb_decode.h — one decode token of a model preset on synthetic weights: every layer's 7 matvecs in order
 * (q, k, v, o, gate, up, down), each one dispatch of an executor, with the serial glue between them, then
 * lm_head. What a real engine does for a token, minus attention:
 *
 *   h = RMSNorm(x)            quantized once, shared by q, k and v (3 dispatches)
 *   q = Wq h, k = Wk h, v = Wv h     k and v are computed and discarded (no KV cache, no attention)
 *   x += Wo q                 o takes q's output as its input (width q_dim) in place of attention's
 *   h = RMSNorm(x)            quantized once, shared by gate and up (2 dispatches)
 *   x += Wdown (SiLU(Wgate h) · Wup h)
 *   ... every layer, then logits = Wlm RMSNorm(x)
 *
 * A batch of M activation rows runs the same matvecs as matmuls (each weight row streamed once for all M).
 * Weights are synthetic: each row from a seeded generator keyed by (seed, matrix, row), quantized once into
 * one 2 MiB-aligned arena (THP requested) by the executor's threads, so the bits never depend on the thread
 * count, and the memory floor can be read over the very same pages. Outputs are bit-identical for any
 * executor, thread count, schedule and glue mode (the kernels compute a row whole; the glue of a value never
 * depends on who computes it).
 *
 * Glue modes. serial: every line of glue above runs on the calling thread between dispatches, as the simplest
 * engine does. fused: the glue that is row-local runs inside the dispatch that produced its rows, on the thread
 * that computed them: q's slice quantized into o's activation, and SiLU(gate)·up plus its quantization into
 * down's activation in up's dispatch (gate and up split alike, in whole activation blocks, so a thread's gate
 * rows are its own). What needs a whole row (the norms' sum of squares) and the residual adds stay serial. At
 * 2 threads on the 2-vCPU test machine serial glue was 7-10% of a token, mostly reading the other core's
 * half of gate and up (24 KiB) where fused mode moves 3 KiB of quants. */
#ifndef PB_DECODE_H
#define PB_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "kern.h"
#include "pb_exec.h"
#include "pb_membuf.h"
#include "pb_model.h"

typedef struct pb_decode_weights {
    pb_model shape;
    kern_format fmt;
    uint64_t seed;
    int nmv;                /* matvecs per token: 7 x layers + 1 */
    pb_matvec *mv;          /* in token order */
    uint64_t *off;          /* byte offset of each matvec's matrix in the arena */
    unsigned char *arena;   /* the weights, matrices back to back */
    uint64_t bytes;         /* weight bytes (= pb_model_token_bytes) */
    pb_membuf buf;          /* the 2 MiB-aligned mapping that holds the arena */
    float *gamma;           /* RMSNorm weights: (2 x layers + 1) x hidden */
} pb_decode_weights;

/* Called after each matrix with the weight bytes built so far. */
typedef void (*pb_decode_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Builds the weights of shape m in format f with seed, generating rows on ex's threads. 0, or -1 with errno
 * (EINVAL: the format cannot hold the shape; ENOMEM). */
int pb_decode_weights_build(pb_decode_weights *w, const pb_model *m, kern_format f, uint64_t seed, pb_exec *ex,
                            pb_decode_progress_fn progress, void *pctx);
void pb_decode_weights_free(pb_decode_weights *w);

typedef enum pb_glue_mode { PB_GLUE_SERIAL, PB_GLUE_FUSED, PB_GLUE_MODES } pb_glue_mode;
extern const char *const pb_glue_mode_names[PB_GLUE_MODES + 1]; /* "serial", "fused", NULL */

/* A token's working state for batch rows (1..KERN_BATCH_MAX) and one kernel variant. */
typedef struct pb_decode {
    const pb_decode_weights *w;
    kern_variant variant;
    size_t batch;
    float *x;      /* the residual stream, batch x hidden */
    float *h;      /* normed input / matvec output of width hidden */
    float *q;      /* batch x q_dim */
    float *kv;     /* batch x kv_dim: k, then v, both discarded */
    float *g, *u;  /* batch x ffn */
    float *logits; /* batch x vocab */
    kern_act act_hidden, act_q, act_ffn;
    pb_glue_mode glue;    /* serial after pb_decode_init; the caller may set it between tokens */
    struct pb_fused *jobs; /* every matvec's job, built once per glue mode (a worker then finds each one where
                            * it left it, in its own cache, instead of on the caller's stack) */
    int jobs_glue;         /* the glue mode jobs were built for; -1 none */
    uint64_t dispatch_ns; /* the last token's time inside dispatches; the rest of the token is serial glue */
} pb_decode;

/* 0, or -1 with errno (EINVAL: batch out of range or a variant that cannot run the format; ENOMEM). */
int pb_decode_init(pb_decode *d, const pb_decode_weights *w, kern_variant v, size_t batch);
void pb_decode_free(pb_decode *d);

/* One token: the input hidden state for `token` (seeded), every matvec through ex, logits in d->logits.
 * Makes w->nmv dispatches. 0, or -1 with errno from a job check. */
int pb_decode_token(pb_decode *d, pb_exec *ex, uint64_t token);

#endif
