/* pb_decode_weights.h — a decode's weights: the matvecs of a model shape in token order, quantized into one
 * 2 MiB-aligned arena (pb_decode.h says why), built here from a seeded generator or loaded from a model file
 * (bench/measure/model). Its generator is shared: the decode draws each token's input and the KV cache's
 * seeded values from the same keyed streams. */
#ifndef PB_DECODE_WEIGHTS_H
#define PB_DECODE_WEIGHTS_H

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
    uint64_t bytes;         /* weight bytes (= pb_model_token_bytes); the floor reads arena[0..bytes) */
    pb_membuf buf;          /* the 2 MiB-aligned mapping that holds the arena (none when it is a file's mapping) */
    float *gamma;           /* RMSNorm weights: (2 x layers + 1) x hidden */
    kern_format *mfmt;      /* each matvec's format: fmt for built weights, a model file's own types (fmt is then
                             * the first one's) */
    float *qk_gamma;        /* shape.qk_norm: layer l's q-head norm weights at 2l, its k-head ones at 2l + 1
                             * (head_dim each); NULL otherwise */
    float *bias;            /* layer l's q, k and v biases (q_dim + 2 kv_dim floats, zeros where a file has none);
                             * NULL: no biases (every preset, llama and qwen3 files) */
    const char *source;     /* "arena": built or copied into buf; "mmap": read where a model file is mapped */
} pb_decode_weights;

/* Called after each matrix with the weight bytes built so far. */
typedef void (*pb_decode_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Builds the weights of shape m in format f with seed, generating rows on ex's threads. 0, or -1 with errno
 * (EINVAL: the format cannot hold the shape; ENOMEM). */
int pb_decode_weights_build(pb_decode_weights *w, const pb_model *m, kern_format f, uint64_t seed, pb_exec *ex,
                            pb_decode_progress_fn progress, void *pctx);
/* The same with matvec i in format fmts[i] (pb_model_matvecs' order): a mix, as model files have. */
int pb_decode_weights_build_fmts(pb_decode_weights *w, const pb_model *m, const kern_format *fmts, uint64_t seed,
                                 pb_exec *ex, pb_decode_progress_fn progress, void *pctx);
void pb_decode_weights_free(pb_decode_weights *w);

/* splitmix64: a full-period 64-bit generator whose every output is a good hash of its counter, so a row's
 * stream can start anywhere from (seed, matrix, row) without a sequential pass. Inline: the token's input is
 * drawn inside pb_decode_token's timed region. */
static inline uint64_t pb_decode_mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The stream keyed (a, b) under seed: a matrix and its row, or UINT64_MAX and a token's row (pb_decode.c). */
static inline uint64_t pb_decode_stream(uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t s = seed ^ (a * 0xD6E8FEB86659FD93ull);
    s = pb_decode_mix(&s) ^ b;
    return pb_decode_mix(&s);
}

/* Uniform in [-1, 1): the top 24 bits, exactly representable as a float. */
static inline float pb_decode_unit(uint64_t *s)
{
    return (float)(pb_decode_mix(s) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

#endif
