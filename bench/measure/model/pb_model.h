/* pb_model.h — the model presets (DESIGN.md) as data: the shapes of a decode token's matvecs, in the order a
 * token runs them, and the exact weight bytes one token streams in a given format (from kern_format's block
 * sizes). bench_memory_floor turns those bytes into a per-token floor; bench_sweep runs the same matvecs.
 *
 * A token is, per layer: q (q_dim x hidden), k (kv_dim x hidden), v (kv_dim x hidden), o (hidden x q_dim),
 * gate (ffn x hidden), up (ffn x hidden), down (hidden x ffn); then lm_head (vocab x hidden): 7 per layer + 1.
 * A matvec's matrix is rows x cols: it reads cols inputs and writes rows outputs. Embedding lookups, norms and
 * attention over the KV cache are not weight matvecs and are not counted. */
#ifndef PB_MODEL_H
#define PB_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "kern_format.h"

typedef enum pb_model_id {
    PB_MODEL_QWEN3_0_6B,
    PB_MODEL_QWEN3_8B,
    PB_MODEL_LLAMA3_8B,
    PB_MODEL_COUNT
} pb_model_id;

typedef struct pb_model {
    const char *name; /* "qwen3-0.6b", "qwen3-8b", "llama3-8b" */
    uint64_t hidden;  /* residual stream width */
    uint64_t q_dim;   /* query heads x head dim */
    uint64_t kv_dim;  /* key/value heads x head dim */
    uint64_t ffn;     /* feed-forward width */
    int layers;
    uint64_t vocab;
    /* Attention (bench/measure/attn): q_dim = n_head x head_dim, kv_dim = n_kv_head x head_dim, grouped-query
     * (n_head a multiple of n_kv_head); pb_model_attn_ok says whether a shape is one. */
    int n_head, n_kv_head;
    uint64_t head_dim;
    bool qk_norm;     /* qwen3: every q and k head RMSNormed (its own weights) before RoPE */
    bool rope_neox;   /* RoPE rotates pairs (i, i + head_dim/2) (qwen2, qwen3), else (2i, 2i + 1) (llama) */
    float rope_base;  /* RoPE's frequency base */
    float eps;        /* RMSNorm's epsilon; 0: PB_RMS_EPS */
} pb_model;

typedef struct pb_matvec {
    const char *name; /* "q", "k", "v", "o", "gate", "up", "down", "lm_head" */
    int layer;        /* 0..layers-1; -1 for lm_head */
    uint64_t rows, cols;
} pb_matvec;

#define PB_MODEL_MATVECS_PER_LAYER 7

/* NULL for an unknown id. */
const pb_model *pb_model_get(pb_model_id id);
/* 0 and *out on a known name, -1 otherwise. */
int pb_model_parse(const char *name, pb_model_id *out);
/* The names, NULL-terminated, in enum order (for option tables). */
extern const char *const pb_model_names[PB_MODEL_COUNT + 1];

/* Whether m's attention fields describe grouped-query heads: n_kv_head >= 1 dividing n_head, an even head_dim,
 * q_dim and kv_dim their products, a positive RoPE base. */
bool pb_model_attn_ok(const pb_model *m);

/* Matvecs in one token: 7 x layers + 1. */
int pb_model_matvec_count(const pb_model *m);
/* Writes the token's matvecs in order into out[0..max) and returns how many the token has (which may be
 * more than max: call with max 0 to size the array). */
int pb_model_matvecs(const pb_model *m, pb_matvec *out, int max);
/* Weight bytes one token reads in format f: the sum of kern_format_matrix_bytes over its matvecs. 0 when a
 * matrix's cols is not a multiple of the format's block (the format cannot hold that model). */
uint64_t pb_model_token_bytes(const pb_model *m, kern_format f);

#endif
