/* test_weight_format.c — the decode's weight formats by name (pb_weight_format.h): every kern_format under its own
 * name, the q4_K_M mix's format per matvec, the bytes a token reads under each, and a decode token in the mix. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pb_weight_format.h"

static const pb_model *qwen06(void)
{
    return pb_model_get(PB_MODEL_QWEN3_0_6B);
}

Test(weight_format, names_parse_and_list)
{
    const char *const *names = pb_weight_format_names();
    for (pb_weight_format wf = 0; wf < PB_WEIGHT_FORMAT_COUNT; wf++) {
        pb_weight_format back;
        cr_assert_str_eq(names[wf], pb_weight_format_name(wf));
        cr_assert_eq(pb_weight_format_parse(names[wf], &back), 0);
        cr_assert_eq(back, wf);
        cr_assert_eq(pb_weight_format_is_mix(wf), wf >= KERN_FORMAT_COUNT);
        if (wf < KERN_FORMAT_COUNT)
            cr_assert_str_eq(names[wf], kern_format_names[wf], "a format keeps its kern_format value");
    }
    cr_assert_null(names[PB_WEIGHT_FORMAT_COUNT]);
    cr_assert_str_eq(pb_weight_format_name(PB_WEIGHT_FORMAT_Q4_K_M), "q4_K_M");
    pb_weight_format wf;
    cr_assert_eq(pb_weight_format_parse("q4_k_m", &wf), -1, "names are exact");
    cr_assert_eq(pb_weight_format_parse(NULL, &wf), -1);
    cr_assert_null(pb_weight_format_name(PB_WEIGHT_FORMAT_COUNT));
    cr_assert_null(pb_weight_format_name(-1));
}

Test(weight_format, q4_K_M_gives_v_and_down_q6_K)
{
    pb_matvec mv[8 * 7 + 1];
    int n = pb_model_matvecs(qwen06(), mv, (int)(sizeof mv / sizeof mv[0]));
    cr_assert_gt(n, (int)(sizeof mv / sizeof mv[0]));
    for (size_t i = 0; i < sizeof mv / sizeof mv[0]; i++) {
        bool six = strcmp(mv[i].name, "v") == 0 || strcmp(mv[i].name, "down") == 0;
        cr_assert_eq(pb_weight_format_matvec(PB_WEIGHT_FORMAT_Q4_K_M, &mv[i]), six ? KERN_Q6_K : KERN_Q4_K,
                     "%s of layer %d", mv[i].name, mv[i].layer);
        cr_assert_eq(pb_weight_format_matvec(KERN_Q8_0, &mv[i]), KERN_Q8_0, "a plain format for every matvec");
    }
    cr_assert_eq(pb_weight_format_matvec(PB_WEIGHT_FORMAT_COUNT, &mv[0]), KERN_FORMAT_COUNT);
}

Test(weight_format, token_bytes)
{
    /* qwen3-0.6b per layer: q, k, o, gate, up 11,534,336 weights in q4_K (144 B / 256), v and down 4,194,304 in
     * q6_K (210 B / 256); lm_head 155,582,464 in q4_K: 28 x (6,488,064 + 3,440,640) + 87,515,136. */
    cr_assert_eq(pb_weight_format_token_bytes(qwen06(), PB_WEIGHT_FORMAT_Q4_K_M), 365518848ull);
    cr_assert_eq(pb_weight_format_token_bytes(qwen06(), KERN_Q4_K), 335241216ull, "q4_K: q4_0's 9/16 byte a weight");
    cr_assert_eq(pb_weight_format_token_bytes(qwen06(), KERN_Q6_K), 488893440ull);
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        cr_assert_eq(pb_weight_format_token_bytes(qwen06(), f), pb_model_token_bytes(qwen06(), (kern_format)f), "%s",
                     kern_format_names[f]);
    cr_assert_eq(pb_weight_format_token_bytes(qwen06(), PB_WEIGHT_FORMAT_COUNT), 0);
}

/* A tiny model (widths multiples of 256) decoded in the q4_K_M mix: its matrices in their formats, the bytes the
 * token floor counts, one q8_K activation for q4_K and q6_K (the first format that shares it, tq2_0's slot), and
 * logits bit-identical at 1 and 3 threads in both glue modes. */
static const pb_model tiny = { .name = "tiny", .hidden = 256, .q_dim = 512, .kv_dim = 256, .ffn = 768, .layers = 2,
                               .vocab = 1001, .n_head = 4, .n_kv_head = 2, .head_dim = 128, .qk_norm = true,
                               .rope_neox = true, .rope_base = 1e6f };

static float *mix_token(const pb_decode_weights *w, int threads, pb_glue_mode glue)
{
    pb_decode d;
    cr_assert_eq(pb_decode_init(&d, w, kern_isa_best(), 1), 0);
    cr_assert(d.act_hidden[KERN_TQ2_0].cap && !d.act_hidden[KERN_Q4_K].cap && !d.act_hidden[KERN_Q6_K].cap &&
                  d.act_ffn[KERN_TQ2_0].cap && !d.act_ffn[KERN_Q6_K].cap,
              "q4_K and q6_K read one q8_K activation per input");
    d.glue = glue;
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, threads, NULL, 0, 50), 0);
    cr_assert_eq(pb_decode_token(&d, &e, 3), 0);
    pb_exec_close(&e);
    float *out = malloc(tiny.vocab * sizeof *out);
    memcpy(out, d.logits, tiny.vocab * sizeof *out);
    pb_decode_free(&d);
    return out;
}

Test(weight_format, q4_K_M_decode_token, .timeout = 60)
{
    pb_exec e;
    pb_decode_weights w;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 2, NULL, 0, 0), 0);
    cr_assert_eq(pb_weight_format_build(&w, &tiny, PB_WEIGHT_FORMAT_Q4_K_M, 7, &e, NULL, NULL), 0);
    pb_exec_close(&e);
    cr_assert_eq(w.bytes, pb_weight_format_token_bytes(&tiny, PB_WEIGHT_FORMAT_Q4_K_M));
    for (int i = 0; i < w.nmv; i++)
        cr_assert_eq(w.mfmt[i], pb_weight_format_matvec(PB_WEIGHT_FORMAT_Q4_K_M, &w.mv[i]), "matvec %d (%s)", i,
                     w.mv[i].name);
    float *ref = mix_token(&w, 1, PB_GLUE_SERIAL);
    for (int g = 0; g < PB_GLUE_MODES; g++) {
        float *got = mix_token(&w, 3, (pb_glue_mode)g);
        cr_assert(memcmp(ref, got, tiny.vocab * sizeof *got) == 0, "glue %s at 3 threads differs",
                  pb_glue_mode_names[g]);
        free(got);
    }
    free(ref);
    pb_decode_weights_free(&w);
    pb_decode_weights w2;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 1, NULL, 0, 0), 0);
    errno = 0;
    cr_assert_eq(pb_weight_format_build(&w2, &tiny, PB_WEIGHT_FORMAT_COUNT, 7, &e, NULL, NULL), -1,
                 "an unknown weight format");
    cr_assert_eq(errno, EINVAL);
    pb_exec_close(&e);
}

/* Rows are split in blocks of an activation only where a dispatch fills one (fused glue's up, for down): in a
 * q4_K_M token of the tiny model at 3 threads every thread runs a third of the rows, give or take a few. With
 * a K-quant's 256-row block as every matvec's grain, k, v, o and down (256 rows here) each went to one thread. */
Test(weight_format, fused_k_quant_token_splits_rows_evenly, .timeout = 60)
{
    pb_exec e;
    pb_decode_weights w;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 3, NULL, 0, 0), 0);
    cr_assert_eq(pb_weight_format_build(&w, &tiny, PB_WEIGHT_FORMAT_Q4_K_M, 7, &e, NULL, NULL), 0);
    pb_decode d;
    cr_assert_eq(pb_decode_init(&d, &w, kern_isa_best(), 1), 0);
    d.glue = PB_GLUE_FUSED;
    uint64_t before[3], total = 0;
    for (int t = 0; t < 3; t++)
        before[t] = e.slices.t[t].rows;
    cr_assert_eq(pb_decode_token(&d, &e, 3), 0);
    for (int t = 0; t < 3; t++)
        total += e.slices.t[t].rows - before[t];
    for (int t = 0; t < 3; t++) {
        double share = (double)(e.slices.t[t].rows - before[t]) / (double)total;
        cr_expect(share > 0.30 && share < 0.37, "thread %d ran %.1f%% of the token's %llu rows", t, 100 * share,
                  (unsigned long long)total);
    }
    pb_decode_free(&d);
    pb_exec_close(&e);
    pb_decode_weights_free(&w);
}
