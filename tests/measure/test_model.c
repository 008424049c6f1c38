/* Model presets: shapes, matvec order and exact weight bytes per token, against values computed by hand
 * (weights per token W = layers x (2 q_dim hidden + 2 kv_dim hidden + 3 ffn hidden) + vocab hidden; every
 * cols here is a multiple of 256, so bytes = W / block x block_bytes). */
#include <criterion/criterion.h>
#include <string.h>

#include "pb_model.h"

static const pb_model *model(const char *name)
{
    pb_model_id id;
    cr_assert_eq(pb_model_parse(name, &id), 0, "%s", name);
    const pb_model *m = pb_model_get(id);
    cr_assert_not_null(m);
    cr_assert_str_eq(m->name, name);
    return m;
}

Test(model, presets_and_names)
{
    pb_model_id id;
    cr_assert_eq(pb_model_parse("gpt2", &id), -1);
    cr_assert_eq(pb_model_parse(NULL, &id), -1);
    cr_assert_null(pb_model_get(PB_MODEL_COUNT));
    for (int i = 0; i < PB_MODEL_COUNT; i++)
        cr_assert_str_eq(pb_model_names[i], pb_model_get((pb_model_id)i)->name);
    cr_assert_null(pb_model_names[PB_MODEL_COUNT]);
    const pb_model *m = model("qwen3-8b");
    cr_assert(m->hidden == 4096 && m->q_dim == 4096 && m->kv_dim == 1024 && m->ffn == 12288 && m->layers == 36 &&
              m->vocab == 151936);
}

Test(model, matvec_counts)
{
    cr_assert_eq(pb_model_matvec_count(model("qwen3-0.6b")), 197);
    cr_assert_eq(pb_model_matvec_count(model("qwen3-8b")), 253);
    cr_assert_eq(pb_model_matvec_count(model("llama3-8b")), 225);
    cr_assert_eq(pb_model_matvecs(model("llama3-8b"), NULL, 0), 225);
}

Test(model, matvec_order_and_shapes)
{
    const pb_model *m = model("qwen3-0.6b");
    pb_matvec mv[197];
    cr_assert_eq(pb_model_matvecs(m, mv, 197), 197);
    static const struct { const char *name; uint64_t rows, cols; } want[7] = {
        { "q", 2048, 1024 }, { "k", 1024, 1024 }, { "v", 1024, 1024 }, { "o", 1024, 2048 },
        { "gate", 3072, 1024 }, { "up", 3072, 1024 }, { "down", 1024, 3072 },
    };
    for (int i = 0; i < 196; i++) {
        cr_assert_str_eq(mv[i].name, want[i % 7].name, "matvec %d", i);
        cr_assert_eq(mv[i].rows, want[i % 7].rows, "matvec %d", i);
        cr_assert_eq(mv[i].cols, want[i % 7].cols, "matvec %d", i);
        cr_assert_eq(mv[i].layer, i / 7);
    }
    cr_assert_str_eq(mv[196].name, "lm_head");
    cr_assert_eq(mv[196].rows, 151936);
    cr_assert_eq(mv[196].cols, 1024);
    cr_assert_eq(mv[196].layer, -1);
}

Test(model, partial_array_is_not_overrun)
{
    pb_matvec mv[4];
    memset(mv, 0xAB, sizeof mv);
    pb_matvec guard = mv[3];
    cr_assert_eq(pb_model_matvecs(model("qwen3-8b"), mv, 3), 253);
    cr_assert_str_eq(mv[2].name, "v");
    cr_assert_eq(memcmp(&mv[3], &guard, sizeof guard), 0);
}

Test(model, token_bytes_every_preset_and_format)
{
    /* W: qwen3-0.6b 595,984,384; qwen3-8b 7,568,097,280; llama3-8b 7,504,658,432 weights per token. */
    static const struct { const char *model, *format; uint64_t bytes; } want[] = {
        { "qwen3-0.6b", "f16", 1191968768ull },   { "qwen3-0.6b", "q8_0", 633233408ull },
        { "qwen3-0.6b", "q4_0", 335241216ull },   { "qwen3-0.6b", "q1_0", 83810304ull },
        { "qwen3-0.6b", "tq2_0", 153652224ull },  { "qwen3-0.6b", "f32", 2383937536ull },
        { "qwen3-8b", "f16", 15136194560ull },    { "qwen3-8b", "q8_0", 8041103360ull },
        { "qwen3-8b", "q4_0", 4257054720ull },    { "qwen3-8b", "q1_0", 1064263680ull },
        { "qwen3-8b", "tq2_0", 1951150080ull },
        { "llama3-8b", "f16", 15009316864ull },   { "llama3-8b", "q8_0", 7973699584ull },
        { "llama3-8b", "q4_0", 4221370368ull },   { "llama3-8b", "q1_0", 1055342592ull },
        { "llama3-8b", "tq2_0", 1934794752ull },
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        kern_format f;
        cr_assert_eq(kern_format_parse(want[i].format, &f), 0);
        cr_assert_eq(pb_model_token_bytes(model(want[i].model), f), want[i].bytes, "%s %s: %llu", want[i].model,
                     want[i].format, (unsigned long long)pb_model_token_bytes(model(want[i].model), f));
    }
}

Test(model, token_bytes_sum_of_matvecs)
{
    /* The per-layer shortcut agrees with summing the token's matvecs one by one. */
    for (int i = 0; i < PB_MODEL_COUNT; i++) {
        const pb_model *m = pb_model_get((pb_model_id)i);
        pb_matvec mv[300];
        int n = pb_model_matvecs(m, mv, 300);
        uint64_t sum = 0;
        for (int k = 0; k < n; k++)
            sum += kern_format_matrix_bytes(KERN_Q4_0, mv[k].rows, mv[k].cols);
        cr_assert_eq(pb_model_token_bytes(m, KERN_Q4_0), sum, "%s", m->name);
    }
}

Test(model, format_that_cannot_hold_the_shapes)
{
    /* cols 1000 is not a multiple of q4_0's 32-weight block. */
    pb_model odd = { .name = "odd", .hidden = 1000, .q_dim = 1024, .kv_dim = 256, .ffn = 2048, .layers = 2,
                     .vocab = 100 };
    cr_assert_eq(pb_model_token_bytes(&odd, KERN_Q4_0), 0);
    /* per layer 2x1024x1000 + 2x256x1000 + 3x2048x1000 = 8,704,000; x2 layers + 100x1000 = 17,508,000 weights */
    cr_assert_eq(pb_model_token_bytes(&odd, KERN_F16), 35016000ull);
}
