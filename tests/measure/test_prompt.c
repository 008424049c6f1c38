/* test_prompt.c — a prompt through the model (pb_decode_init_prompt): its rows are one sequence's successive
 * positions, every matvec a matmul over them. Its logits are bit-identical at 1..3 threads, over policies,
 * schedules and glue modes, for every format, and a repacked layout's GEMM tiles give the scalar file kernels'
 * bits; a row never sees a later one (a shorter prompt's rows are the longer one's first rows, bit for bit); rows
 * out of range are refused. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kern_repack.h"
#include "pb_decode.h"

/* Widths a multiple of 256 (tq2_0's block); 2 layers; a vocab that is a multiple of nothing. */
static const pb_model tiny = { .name = "tiny", .hidden = 256, .q_dim = 512, .kv_dim = 256, .ffn = 768, .layers = 2,
                               .vocab = 1001, .n_head = 4, .n_kv_head = 2, .head_dim = 128, .qk_norm = true,
                               .rope_neox = true, .rope_base = 1e6f };

static void build(pb_decode_weights *w, kern_format f)
{
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 2, NULL, 0, 0), 0);
    cr_assert_eq(pb_decode_weights_build(w, &tiny, f, 42, &e, NULL, NULL), 0, "%s", kern_format_names[f]);
    pb_exec_close(&e);
}

static void kernels_of(pb_kernel_choice *k, kern_isa isa, kern_layout lay, kern_format only)
{
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        k[f] = (pb_kernel_choice){ .isa = isa, .prefetch = true, .why = PB_KERNEL_WHY_FORCED,
                                   .layout = f == (int)only ? lay : KERN_LAYOUT_FILE };
}

/* One prompt of rows tokens through an executor; the logits (vocab floats) and, when x is given, the residual
 * stream after the last layer (rows x hidden) copied out. */
static float *prompt(const pb_decode_weights *w, const pb_kernel_choice *k, size_t rows, const pb_exec_cfg *cfg,
                     pb_glue_mode glue, float **x)
{
    pb_decode d;
    cr_assert_eq(pb_decode_init_prompt(&d, w, k, rows), 0, "%zu rows: %s", rows, strerror(errno));
    d.glue = glue;
    pb_exec e;
    cr_assert_eq(pb_exec_open_cfg(&e, cfg), 0);
    cr_assert_eq(pb_decode_token(&d, &e, 3), 0);
    /* serial: 7 matvecs a layer, fused: 4; attention: its rows readied and stored, then its chunks (a merge
     * beside them past one chunk: none at these rows); the rows normed and quantized for q, k, v and for gate, up,
     * and o's input quantized, one dispatch each */
    int mv = glue == PB_GLUE_FUSED ? 4 : 7;
    cr_assert_eq(d.dispatches, (mv + 2 + 3) * tiny.layers + 1, "%s glue: %d dispatches", pb_glue_mode_names[glue],
                 d.dispatches);
    cr_assert_eq(d.mv_dispatches, mv * tiny.layers + 1);
    pb_exec_close(&e);
    float *out = malloc(tiny.vocab * sizeof *out);
    memcpy(out, d.logits, tiny.vocab * sizeof *out);
    if (x) {
        *x = malloc(rows * tiny.hidden * sizeof **x);
        memcpy(*x, d.x, rows * tiny.hidden * sizeof **x);
    }
    pb_decode_free(&d);
    return out;
}

Test(prompt, logits_bit_identical_across_threads_policies_schedules_and_glue, .timeout = 240)
{
    static const struct { int kind, threads; pb_sched s; } runs[] = {
        { PB_EXEC_SPIN, 2, { PB_SCHED_STATIC, 0 } },  { PB_EXEC_SPIN, 3, { PB_SCHED_DYNAMIC, 3 } },
        { PB_EXEC_CONDVAR, 3, { PB_SCHED_STEAL, 5 } }, { PB_EXEC_OMP, 2, { PB_SCHED_DYNAMIC, 7 } },
    };
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        pb_decode_weights w;
        build(&w, (kern_format)f);
        pb_kernel_choice k[KERN_FORMAT_COUNT];
        kernels_of(k, kern_isa_best(), KERN_LAYOUT_FILE, KERN_FORMAT_COUNT);
        const pb_exec_cfg one = { .kind = PB_EXEC_SPIN, .threads = 1 };
        float *ref = prompt(&w, k, 64, &one, PB_GLUE_SERIAL, NULL);
        for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
            for (int g = 0; g < PB_GLUE_MODES; g++) {
                const pb_exec_cfg cfg = { .kind = runs[r].kind, .threads = runs[r].threads, .sched = runs[r].s,
                                          .spin_us = 50 };
                float *got = prompt(&w, k, 64, &cfg, (pb_glue_mode)g, NULL);
                cr_assert(memcmp(ref, got, tiny.vocab * sizeof *got) == 0, "%s: %s at %d threads, %s glue differ",
                          kern_format_names[f], pb_exec_kind_names[runs[r].kind], runs[r].threads,
                          pb_glue_mode_names[g]);
                free(got);
            }
        free(ref);
        pb_decode_weights_free(&w);
    }
}

/* A repacked layout's GEMM tiles (where this CPU runs one: kern_repack_isa) against the scalar file kernels, at
 * 1 and 3 threads, 7 and 64 rows (a tile's remainder and whole tiles). */
Test(prompt, a_repacked_layout_s_tiles_give_the_scalar_bits, .timeout = 120)
{
    static const struct { kern_format f; kern_layout l; } lays[] = {
        { KERN_Q4_0, KERN_LAYOUT_Q4_0_R16 }, { KERN_Q8_0, KERN_LAYOUT_Q8_0_R16 },
        { KERN_Q4_K, KERN_LAYOUT_Q4_K_R16 }, { KERN_Q6_K, KERN_LAYOUT_Q6_K_R16 },
    };
    int ran = 0;
    for (size_t i = 0; i < sizeof lays / sizeof lays[0]; i++) {
        if (kern_repack_isa(lays[i].l, lays[i].f, kern_isa_best()) == KERN_ISA_SCALAR)
            continue;
        pb_decode_weights w;
        build(&w, lays[i].f);
        pb_kernel_choice ref_k[KERN_FORMAT_COUNT], rp_k[KERN_FORMAT_COUNT];
        kernels_of(ref_k, KERN_ISA_SCALAR, KERN_LAYOUT_FILE, KERN_FORMAT_COUNT);
        kernels_of(rp_k, kern_isa_best(), lays[i].l, lays[i].f);
        static const size_t rows[] = { 7, 64 };
        for (size_t r = 0; r < 2; r++)
            for (int threads = 1; threads <= 3; threads += 2) {
                const pb_exec_cfg cfg = { .kind = PB_EXEC_SPIN, .threads = threads,
                                          .sched = { PB_SCHED_DYNAMIC, 3 }, .spin_us = 50 };
                float *a = prompt(&w, ref_k, rows[r], &cfg, PB_GLUE_SERIAL, NULL);
                float *b = prompt(&w, rp_k, rows[r], &cfg, PB_GLUE_FUSED, NULL);
                cr_assert(memcmp(a, b, tiny.vocab * sizeof *a) == 0, "%s: %zu rows at %d threads differ",
                          kern_layout_names[lays[i].l], rows[r], threads);
                free(a);
                free(b);
            }
        ran++;
        pb_decode_weights_free(&w);
    }
    if (!ran)
        cr_skip_test("no repacked layout runs on this CPU's best ISA (%s)", kern_isa_name(kern_isa_best()));
}

/* Causal: the rows of a 20-token prompt are the first 20 rows of a 64-token one (the same seeded inputs), and
 * their residual streams after the last layer equal them bit for bit: no row attended a later position. The last
 * rows differ, and so do the two prompts' logits (each its own last row's). */
Test(prompt, a_row_never_sees_a_later_one, .timeout = 60)
{
    pb_decode_weights w;
    build(&w, KERN_Q8_0);
    pb_kernel_choice k[KERN_FORMAT_COUNT];
    kernels_of(k, kern_isa_best(), KERN_LAYOUT_FILE, KERN_FORMAT_COUNT);
    const pb_exec_cfg cfg = { .kind = PB_EXEC_SPIN, .threads = 2 };
    float *xs, *xl;
    float *ls = prompt(&w, k, 20, &cfg, PB_GLUE_SERIAL, &xs), *ll = prompt(&w, k, 64, &cfg, PB_GLUE_SERIAL, &xl);
    cr_assert(memcmp(xs, xl, 20 * tiny.hidden * sizeof *xs) == 0, "a row's stream depends on later rows");
    cr_assert(memcmp(xs + 19 * tiny.hidden, xl + 20 * tiny.hidden, tiny.hidden * sizeof *xs) != 0,
              "rows 19 and 20 differ");
    cr_assert(memcmp(ls, ll, tiny.vocab * sizeof *ls) != 0, "each prompt's logits are its last row's");
    free(xs);
    free(xl);
    free(ls);
    free(ll);
    pb_decode_weights_free(&w);
}

Test(prompt, rows_out_of_range_are_refused)
{
    pb_decode_weights w;
    build(&w, KERN_Q8_0);
    pb_kernel_choice k[KERN_FORMAT_COUNT];
    kernels_of(k, kern_isa_best(), KERN_LAYOUT_FILE, KERN_FORMAT_COUNT);
    pb_decode d;
    static const size_t bad[] = { 0, KERN_GEMM_MAX + 1 };
    for (size_t i = 0; i < 2; i++) {
        errno = 0;
        cr_assert_eq(pb_decode_init_prompt(&d, &w, k, bad[i]), -1, "%zu rows accepted", bad[i]);
        cr_assert_eq(errno, EINVAL);
    }
    cr_assert_eq(pb_decode_init_prompt(&d, &w, k, KERN_GEMM_MAX), 0, "a whole %d-row prompt", KERN_GEMM_MAX);
    cr_assert(d.prompt && d.logit_rows == 1 && d.cache.batch == 1 && d.cache.cap == KERN_GEMM_MAX);
    pb_decode_free(&d);
    pb_decode_weights_free(&w);
}
