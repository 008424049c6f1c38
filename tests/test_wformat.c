/* test_wformat.c — the decode's weight formats by name (pb_wformat.h): every kern_format under its own name, the
 * q4_K_M mix's format per matvec, and the bytes a token reads under each. */
#include <criterion/criterion.h>
#include <string.h>

#include "pb_wformat.h"

static const pb_model *qwen06(void)
{
    return pb_model_get(PB_MODEL_QWEN3_0_6B);
}

Test(wformat, names_parse_and_list)
{
    const char *const *names = pb_wformat_names();
    for (pb_wformat wf = 0; wf < PB_WF_COUNT; wf++) {
        pb_wformat back;
        cr_assert_str_eq(names[wf], pb_wformat_name(wf));
        cr_assert_eq(pb_wformat_parse(names[wf], &back), 0);
        cr_assert_eq(back, wf);
        cr_assert_eq(pb_wformat_is_mix(wf), wf >= KERN_FORMAT_COUNT);
        if (wf < KERN_FORMAT_COUNT)
            cr_assert_str_eq(names[wf], kern_format_names[wf], "a format keeps its kern_format value");
    }
    cr_assert_null(names[PB_WF_COUNT]);
    cr_assert_str_eq(pb_wformat_name(PB_WF_Q4_K_M), "q4_K_M");
    pb_wformat wf;
    cr_assert_eq(pb_wformat_parse("q4_k_m", &wf), -1, "names are exact");
    cr_assert_eq(pb_wformat_parse(NULL, &wf), -1);
    cr_assert_null(pb_wformat_name(PB_WF_COUNT));
    cr_assert_null(pb_wformat_name(-1));
}

Test(wformat, q4_K_M_gives_v_and_down_q6_K)
{
    pb_matvec mv[8 * 7 + 1];
    int n = pb_model_matvecs(qwen06(), mv, (int)(sizeof mv / sizeof mv[0]));
    cr_assert_gt(n, (int)(sizeof mv / sizeof mv[0]));
    for (size_t i = 0; i < sizeof mv / sizeof mv[0]; i++) {
        bool six = strcmp(mv[i].name, "v") == 0 || strcmp(mv[i].name, "down") == 0;
        cr_assert_eq(pb_wformat_matvec(PB_WF_Q4_K_M, &mv[i]), six ? KERN_Q6_K : KERN_Q4_K, "%s of layer %d",
                     mv[i].name, mv[i].layer);
        cr_assert_eq(pb_wformat_matvec(KERN_Q8_0, &mv[i]), KERN_Q8_0, "a plain format for every matvec");
    }
    cr_assert_eq(pb_wformat_matvec(PB_WF_COUNT, &mv[0]), KERN_FORMAT_COUNT);
}

Test(wformat, token_bytes)
{
    /* qwen3-0.6b per layer: q, k, o, gate, up 11,534,336 weights in q4_K (144 B / 256), v and down 4,194,304 in
     * q6_K (210 B / 256); lm_head 155,582,464 in q4_K: 28 x (6,488,064 + 3,440,640) + 87,515,136. */
    cr_assert_eq(pb_wformat_token_bytes(qwen06(), PB_WF_Q4_K_M), 365518848ull);
    cr_assert_eq(pb_wformat_token_bytes(qwen06(), KERN_Q4_K), 335241216ull, "q4_K: q4_0's 9/16 byte a weight");
    cr_assert_eq(pb_wformat_token_bytes(qwen06(), KERN_Q6_K), 488893440ull);
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        cr_assert_eq(pb_wformat_token_bytes(qwen06(), f), pb_model_token_bytes(qwen06(), (kern_format)f), "%s",
                     kern_format_names[f]);
    cr_assert_eq(pb_wformat_token_bytes(qwen06(), PB_WF_COUNT), 0);
}
