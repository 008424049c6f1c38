/* pb_model.c — the model presets as data (pb_model.h): each decode token's matvec shapes, in order. */
#include "pb_model.h"

#include "kern_isa.h"

#include <string.h>

/* Heads, RoPE and norms as the models' config.json give them (qwen3: q/k norms, NeoX RoPE at base 1e6; Llama 3:
 * base 5e5); every preset keeps the 1e-6 epsilon the synthetic decode always used (eps 0). */
static const pb_model pb_models[PB_MODEL_COUNT] = {
    [PB_MODEL_QWEN3_0_6B] = { .name = "qwen3-0.6b", .hidden = 1024, .q_dim = 2048, .kv_dim = 1024, .ffn = 3072,
                              .layers = 28, .vocab = 151936, .n_head = 16, .n_kv_head = 8, .head_dim = 128,
                              .qk_norm = true, .rope_neox = true, .rope_base = 1e6f },
    [PB_MODEL_QWEN3_8B] = { .name = "qwen3-8b", .hidden = 4096, .q_dim = 4096, .kv_dim = 1024, .ffn = 12288,
                            .layers = 36, .vocab = 151936, .n_head = 32, .n_kv_head = 8, .head_dim = 128,
                            .qk_norm = true, .rope_neox = true, .rope_base = 1e6f },
    [PB_MODEL_LLAMA3_8B] = { .name = "llama3-8b", .hidden = 4096, .q_dim = 4096, .kv_dim = 1024, .ffn = 14336,
                             .layers = 32, .vocab = 128256, .n_head = 32, .n_kv_head = 8, .head_dim = 128,
                             .rope_base = 5e5f },
};

const char *const pb_model_names[PB_MODEL_COUNT + 1] = { "qwen3-0.6b", "qwen3-8b", "llama3-8b", NULL };

const pb_model *pb_model_get(pb_model_id id)
{
    return (unsigned)id < PB_MODEL_COUNT ? &pb_models[id] : NULL;
}

int pb_model_parse(const char *name, pb_model_id *out)
{
    int i = kern_name_index(pb_model_names, name);
    return i < 0 ? -1 : (*out = (pb_model_id)i, 0);
}

bool pb_model_attn_ok(const pb_model *m)
{
    return m->n_kv_head >= 1 && m->n_head >= m->n_kv_head && m->n_head % m->n_kv_head == 0 && m->head_dim >= 2 &&
           m->head_dim % 2 == 0 && m->q_dim == (uint64_t)m->n_head * m->head_dim &&
           m->kv_dim == (uint64_t)m->n_kv_head * m->head_dim && m->rope_base > 0;
}

int pb_model_matvec_count(const pb_model *m)
{
    return PB_MODEL_MATVECS_PER_LAYER * m->layers + 1;
}

/* One layer's matvecs, in the order a token runs them; every layer has the same shapes. */
static void pb_model_layer(const pb_model *m, int l, pb_matvec out[PB_MODEL_MATVECS_PER_LAYER])
{
    const pb_matvec layer[PB_MODEL_MATVECS_PER_LAYER] = {
        { .name = "q", .layer = l, .rows = m->q_dim, .cols = m->hidden },
        { .name = "k", .layer = l, .rows = m->kv_dim, .cols = m->hidden },
        { .name = "v", .layer = l, .rows = m->kv_dim, .cols = m->hidden },
        { .name = "o", .layer = l, .rows = m->hidden, .cols = m->q_dim },
        { .name = "gate", .layer = l, .rows = m->ffn, .cols = m->hidden },
        { .name = "up", .layer = l, .rows = m->ffn, .cols = m->hidden },
        { .name = "down", .layer = l, .rows = m->hidden, .cols = m->ffn },
    };
    memcpy(out, layer, sizeof layer);
}

static pb_matvec pb_model_head(const pb_model *m)
{
    return (pb_matvec){ .name = "lm_head", .layer = -1, .rows = m->vocab, .cols = m->hidden };
}

int pb_model_matvecs(const pb_model *m, pb_matvec *out, int max)
{
    int n = 0;
    for (int l = 0; l < m->layers; l++) {
        pb_matvec layer[PB_MODEL_MATVECS_PER_LAYER];
        pb_model_layer(m, l, layer);
        for (int k = 0; k < PB_MODEL_MATVECS_PER_LAYER; k++, n++)
            if (n < max)
                out[n] = layer[k];
    }
    if (n < max)
        out[n] = pb_model_head(m);
    return n + 1;
}

uint64_t pb_model_token_bytes(const pb_model *m, kern_format f)
{
    pb_matvec layer[PB_MODEL_MATVECS_PER_LAYER];
    pb_model_layer(m, 0, layer);
    uint64_t per_layer = 0;
    for (int k = 0; k < PB_MODEL_MATVECS_PER_LAYER; k++) {
        uint64_t b = kern_format_matrix_bytes(f, layer[k].rows, layer[k].cols);
        if (b == 0)
            return 0;
        per_layer += b;
    }
    pb_matvec head = pb_model_head(m);
    uint64_t head_bytes = kern_format_matrix_bytes(f, head.rows, head.cols);
    return head_bytes == 0 ? 0 : per_layer * (uint64_t)m->layers + head_bytes;
}
