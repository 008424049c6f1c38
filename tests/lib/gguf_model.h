/* gguf_model.h — writes built decode weights (pb_decode_weights) as a GGUF model file, with knobs that make it
 * bad in one way at a time, for the model-file tests. Header-only (see gguf_writer.h). */
#ifndef GGUF_MODEL_H
#define GGUF_MODEL_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gguf_writer.h"
#include "pb_decode.h"
#include "pb_exec.h"
#include "pb_gguf.h"

typedef struct gm_opts {
    const char *arch;         /* "qwen3", "llama", "qwen2" */
    bool tied;                /* no output.weight: lm_head is token_embd */
    const char *skip_key;     /* a metadata key (its suffix after "ARCH.") left out */
    const char *skip_tensor;  /* a tensor left out */
    const char *q5_0;         /* tensors whose name contains this are written as q5_0 */
    bool transpose_q;         /* blk.0.attn_q.weight written with its dims swapped */
    bool norm_f16;            /* output_norm.weight written as f16 */
} gm_opts;

/* The ggml type id of a format: the id whose ggml name is the format's (q1_0 has none). */
static inline uint32_t gm_type(kern_format f)
{
    for (uint32_t id = 0; id < 64; id++)
        if (pb_ggml_type(id) && strcmp(pb_ggml_type(id)->name, kern_format_names[f]) == 0)
            return id;
    cr_assert_fail("%s has no ggml type", kern_format_names[f]);
    return 0;
}

static inline void gm_key_u32(gw *g, const gm_opts *o, const char *suffix, uint32_t v)
{
    char key[96];
    snprintf(key, sizeof key, "%s.%s", o->arch, suffix);
    if (!o->skip_key || strcmp(o->skip_key, suffix) != 0)
        gw_u32(g, key, v);
}

/* A tensor unless skipped; as q5_0 (filler bytes of the right size) when its name matches o->q5_0. */
static inline void gm_tensor(gw *g, const gm_opts *o, const char *name, uint32_t type, uint64_t rows, uint64_t cols,
                             const void *data, size_t bytes)
{
    static unsigned char filler[1 << 20];
    if (o->skip_tensor && strcmp(o->skip_tensor, name) == 0)
        return;
    if (o->q5_0 && strstr(name, o->q5_0) && rows) {
        size_t n = (size_t)(rows * cols / 32 * 22);
        cr_assert(n <= sizeof filler);
        gw_matrix(g, name, GW_Q5_0, rows, cols, filler, n);
    } else if (rows) {
        if (o->transpose_q && strcmp(name, "blk.0.attn_q.weight") == 0)
            gw_matrix(g, name, type, cols, rows, data, bytes);
        else
            gw_matrix(g, name, type, rows, cols, data, bytes);
    } else {
        const uint64_t ne[1] = { cols };
        gw_tensor(g, name, type, 1, ne, data, bytes);
    }
}

/* A norm vector: f32, or f16 halves of it for output_norm under norm_f16. */
static inline void gm_norm(gw *g, const gm_opts *o, const char *name, const float *x, size_t n)
{
    if (o->norm_f16 && strcmp(name, "output_norm.weight") == 0) {
        kern_half h[8192];
        cr_assert(n <= 8192);
        for (size_t i = 0; i < n; i++)
            h[i] = kern_float_to_half(x[i]);
        gm_tensor(g, o, name, GW_F16, 0, n, h, n * 2);
        return;
    }
    gm_tensor(g, o, name, GW_F32, 0, n, x, n * 4);
}

static inline void gm_matvec(gw *g, const gm_opts *o, const pb_decode_weights *w, int i, const char *name)
{
    const pb_matvec *mv = &w->mv[i];
    gm_tensor(g, o, name, gm_type(w->mfmt[i]), mv->rows, mv->cols, w->arena + w->off[i],
              (size_t)kern_format_matrix_bytes(w->mfmt[i], mv->rows, mv->cols));
}

static inline void gm_metadata(gw *g, const gm_opts *o, const pb_model *s)
{
    gw_string(g, "general.architecture", o->arch);
    gw_string(g, "general.name", "tiny test model");
    gm_key_u32(g, o, "block_count", (uint32_t)s->layers);
    gm_key_u32(g, o, "embedding_length", (uint32_t)s->hidden);
    gm_key_u32(g, o, "feed_forward_length", (uint32_t)s->ffn);
    gm_key_u32(g, o, "attention.head_count", (uint32_t)s->n_head);
    gm_key_u32(g, o, "attention.head_count_kv", (uint32_t)s->n_kv_head);
    gm_key_u32(g, o, "attention.key_length", (uint32_t)s->head_dim);
    gm_key_u32(g, o, "attention.value_length", (uint32_t)s->head_dim);
    char key[96];
    snprintf(key, sizeof key, "%s.attention.layer_norm_rms_epsilon", o->arch);
    if (!o->skip_key || strcmp(o->skip_key, "attention.layer_norm_rms_epsilon") != 0)
        gw_f32(g, key, s->eps > 0 ? s->eps : 1e-6f);
    snprintf(key, sizeof key, "%s.rope.freq_base", o->arch);
    gw_f32(g, key, s->rope_base);
}

/* Writes w as a model file at path (see gm_opts). */
static inline void gm_write(const pb_decode_weights *w, const gm_opts *o, const char *path)
{
    static const char *const names[7] = { "attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up",
                                          "ffn_down" };
    const pb_model *s = &w->shape;
    size_t H = (size_t)s->hidden, D = (size_t)s->head_dim;
    gw g;
    gw_init(&g, 3);
    gm_metadata(&g, o, s);
    gm_matvec(&g, o, w, w->nmv - 1, "token_embd.weight"); /* tied or not, the embedding holds lm_head's bytes */
    char name[96];
    for (int l = 0; l < s->layers; l++) {
        snprintf(name, sizeof name, "blk.%d.attn_norm.weight", l);
        gm_norm(&g, o, name, w->gamma + 2 * (size_t)l * H, H);
        snprintf(name, sizeof name, "blk.%d.ffn_norm.weight", l);
        gm_norm(&g, o, name, w->gamma + (2 * (size_t)l + 1) * H, H);
        for (int k = 0; k < 7; k++) {
            snprintf(name, sizeof name, "blk.%d.%s.weight", l, names[k]);
            gm_matvec(&g, o, w, l * 7 + k, name);
        }
        for (int k = 0; k < 2 && w->qk_gamma && strcmp(o->arch, "qwen3") == 0; k++) {
            snprintf(name, sizeof name, "blk.%d.%s.weight", l, k ? "attn_k_norm" : "attn_q_norm");
            gm_norm(&g, o, name, w->qk_gamma + (2 * (size_t)l + k) * D, D);
        }
    }
    gm_norm(&g, o, "output_norm.weight", w->gamma + 2 * (size_t)s->layers * H, H);
    if (!o->tied)
        gm_matvec(&g, o, w, w->nmv - 1, "output.weight");
    gw_write(&g, path);
    gw_free(&g);
}

/* Weights of shape s built (seed 1, on one thread) with q8_0 matvecs and an f16 lm_head, written as a model file
 * at path (gm_write); their matvec bytes. */
static inline unsigned long long gm_write_q8(const pb_model *s, const gm_opts *o, const char *path)
{
    kern_format fmts[64];
    int n = pb_model_matvec_count(s);
    cr_assert(n <= 64, "%d matvecs", n);
    for (int i = 0; i < n; i++)
        fmts[i] = i == n - 1 ? KERN_F16 : KERN_Q8_0;
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 1, NULL, 0, 0), 0);
    pb_decode_weights w;
    cr_assert_eq(pb_decode_weights_build_fmts(&w, s, fmts, 1, &e, NULL, NULL), 0);
    pb_exec_close(&e);
    gm_write(&w, o, path);
    unsigned long long bytes = w.bytes;
    pb_decode_weights_free(&w);
    return bytes;
}

#endif
