/* test_kernels_repack.c — the repacked layouts (kern_repack.h): every ISA's kernel on the re-laid weights gives
 * the scalar reference's bits on the file's blocks (rows no multiple of a group, a batch, a pool splitting rows
 * anywhere, activations set in slices), the bytes it takes, and the jobs it refuses. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>

#include "kern_repack.h"
#include "kern_test_util.h"

/* The scalar reference on the file's blocks (the oracle), batch rows of y (ldy = rows). */
static float *reference(kern_format f, const void *w, size_t rows, const kern_act *a)
{
    float *y = malloc(a->batch * rows * sizeof(float) + 1);
    kern_job job = { .fmt = f, .isa = KERN_ISA_SCALAR, .w = w, .rows = rows, .act = a, .y = y, .ldy = rows };
    cr_assert_eq(kern_run(&job), 0);
    return y;
}

static void *repacked(kern_layout l, kern_format f, const void *w, size_t rows, size_t cols)
{
    size_t bytes = (size_t)kern_repack_bytes(l, f, rows, cols);
    cr_assert_gt(bytes, 0);
    void *out = malloc(bytes);
    cr_assert_eq(kern_repack(l, f, w, rows, cols, out), 0);
    return out;
}

/* Every ISA this CPU runs, on layout l: the reference's bits, whole and from a row that starts mid-group. */
static void check_layout(kern_layout l, kern_format f, size_t rows, size_t cols, size_t batch, uint64_t seed)
{
    kt_rng r = { .s = seed };
    void *w = kt_weights(&r, f, rows, cols);
    float *x = kt_floats(&r, batch * cols, -1.0f, 1.0f);
    kern_act a;
    cr_assert_eq(kern_act_init(&a, f, cols, batch), 0);
    cr_assert_eq(kern_act_use_layout(&a, l), 0);
    cr_assert_eq(kern_act_set(&a, x, batch), 0);
    float *ref = reference(f, w, rows, &a), *y = malloc(batch * rows * sizeof(float) + 1);
    void *rw = repacked(l, f, w, rows, cols);
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        if (!kern_isa_supported((kern_isa)v))
            continue;
        memset(y, 0xff, batch * rows * sizeof(float));
        kern_job job = { .fmt = f, .isa = (kern_isa)v, .w = rw, .rows = rows, .act = &a, .y = y, .ldy = rows,
                         .layout = l };
        cr_assert_eq(kern_run(&job), 0, "%s on %s refused", kern_layout_names[l], kern_isa_name((kern_isa)v));
        for (size_t i = 0; i < batch * rows; i++)
            cr_assert(memcmp(&y[i], &ref[i], sizeof(float)) == 0,
                      "%s/%s (kernel %s) rows %zu cols %zu batch %zu: row %zu of activation %zu: %.9g, reference %.9g",
                      kern_layout_names[l], kern_isa_name((kern_isa)v),
                      kern_isa_name(kern_repack_isa(l, f, (kern_isa)v)), rows, cols, batch, i % rows, i / rows, y[i],
                      ref[i]);
        /* rows 5.. only: the first group computed whole, its first five rows not written */
        if (rows > 5) {
            memset(y, 0xff, batch * rows * sizeof(float));
            kern_job_rows(&job, 5, rows);
            for (size_t i = 0; i < batch * rows; i++) {
                uint32_t bits;
                memcpy(&bits, &y[i], 4);
                if (i % rows < 5)
                    cr_assert_eq(bits, 0xffffffffu, "row %zu outside 5..%zu written", i % rows, rows);
                else
                    cr_assert(memcmp(&y[i], &ref[i], 4) == 0, "row %zu of a job from row 5", i % rows);
            }
        }
    }
    free(rw);
    free(y);
    free(ref);
    kern_act_free(&a);
    free(x);
    free(w);
}

/* check_layout over rows (around a group: g - 1, g, g + 1 for a group of g, and more) x three column counts,
 * then a batch of 3. */
static void check_layout_shapes(kern_layout l, kern_format f, const size_t rows[6], const size_t cols[3], uint64_t seed)
{
    for (size_t i = 0; i < 6; i++)
        for (size_t j = 0; j < 3; j++)
            check_layout(l, f, rows[i], cols[j], 1, seed + 10 * i + j);
    check_layout(l, f, 45, 512, 3, seed + 99);
}

/* A prompt's matrix products (kern_gemm_fn's tiles where the layout has them, the group kernel once per activation
 * row where not): every output the reference's bits at M = 1, 7 (less than a tile), 64 and 512 (whole tiles), on
 * rows that end mid-group and a job that starts mid-group. */
Test(kern_repack, gemm_rows_are_the_matvec_s_bit_for_bit_at_every_m, .timeout = 120)
{
    static const size_t ms[] = { 1, 7, 64, 512 };
    for (int l = 1; l < KERN_LAYOUT_COUNT; l++) {
        kern_format f = kern_layout_get((kern_layout)l)->fmt;
        for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
            check_layout((kern_layout)l, f, 45, kern_format_get(f)->block == 256 ? 512 : 256, ms[i],
                         7000 + 10 * (uint64_t)l + i);
    }
}

Test(kern_repack, q1_0_r32lut_is_the_reference_bit_for_bit)
{
    const size_t rows[6] = { 1, 31, 32, 33, 70, 200 }, cols[3] = { 128, 384, 4096 };
    check_layout_shapes(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q1_0, rows, cols, 100);
}

Test(kern_repack, q1_0_r32lut256_is_the_reference_bit_for_bit)
{
    const size_t rows[6] = { 1, 31, 32, 33, 70, 200 }, cols[3] = { 128, 384, 4096 };
    check_layout_shapes(KERN_LAYOUT_Q1_0_R32LUT256, KERN_Q1_0, rows, cols, 150);
}

/* Rows around a group of 16, for the r16 layouts; columns of 32-weight blocks and of 256-weight ones. */
static const size_t r16_rows[6] = { 1, 15, 16, 17, 70, 200 }, cols32[3] = { 32, 96, 4096 },
                    cols256[3] = { 256, 768, 4096 };

Test(kern_repack, q4_0_r16_is_the_reference_bit_for_bit)
{
    check_layout_shapes(KERN_LAYOUT_Q4_0_R16, KERN_Q4_0, r16_rows, cols32, 300);
}

Test(kern_repack, q8_0_r16_is_the_reference_bit_for_bit)
{
    check_layout_shapes(KERN_LAYOUT_Q8_0_R16, KERN_Q8_0, r16_rows, cols32, 500);
}

Test(kern_repack, q4_K_r16_is_the_reference_bit_for_bit)
{
    check_layout_shapes(KERN_LAYOUT_Q4_K_R16, KERN_Q4_K, r16_rows, cols256, 900);
}

Test(kern_repack, q6_K_r16_is_the_reference_bit_for_bit)
{
    check_layout_shapes(KERN_LAYOUT_Q6_K_R16, KERN_Q6_K, r16_rows, cols256, 1100);
}

/* q6_K_r1 is a group of one row: rows 1..5 and one past a pass of four. */
Test(kern_repack, q6_K_r1_is_the_reference_bit_for_bit)
{
    const size_t rows[6] = { 1, 3, 4, 5, 9, 70 };
    check_layout_shapes(KERN_LAYOUT_Q6_K_R1, KERN_Q6_K, rows, cols256, 1300);
}

Test(kern_repack, tq2_0_r16_is_the_reference_bit_for_bit)
{
    check_layout_shapes(KERN_LAYOUT_TQ2_0_R16, KERN_TQ2_0, r16_rows, cols256, 700);
}

/* Every ISA on layout l of w (rows x 256 of format f) against an activation of quants +-127 (values +-1, 32 of
 * each sign in turn, or all +1 with one_sign): the reference's bits. The caller's check of the prepared activation
 * first (what makes it extreme for the layout). */
static void check_extreme_activation(kern_layout l, kern_format f, const void *w, size_t rows,
                                     void (*check)(const kern_act *a), bool one_sign)
{
    size_t cols = 256;
    float x[256], y[32]; /* a group of either layout */
    cr_assert_leq(rows, 32);
    for (size_t i = 0; i < cols; i++)
        x[i] = one_sign || i % 64 < 32 ? 1.0f : -1.0f;
    kern_act a;
    cr_assert_eq(kern_act_init(&a, f, cols, 1), 0);
    cr_assert_eq(kern_act_use_layout(&a, l), 0);
    cr_assert_eq(kern_act_set(&a, x, 1), 0);
    check(&a);
    float *ref = reference(f, w, rows, &a);
    void *rw = repacked(l, f, w, rows, cols);
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        if (!kern_isa_supported((kern_isa)v))
            continue;
        kern_job job = { .fmt = f, .isa = (kern_isa)v, .w = rw, .rows = rows, .act = &a, .y = y, .layout = l };
        cr_assert_eq(kern_run(&job), 0);
        cr_assert(memcmp(y, ref, rows * sizeof *y) == 0, "%s on %s: row 1 %.9g, reference %.9g",
                  kern_layout_names[l], kern_isa_name((kern_isa)v), y[1], ref[1]);
    }
    free(rw);
    free(ref);
    kern_act_free(&a);
}

/* rows x 256 weights of f (q1_0, q4_0, q8_0: each block a half d, then its codes; q4_K: d, dmin, then its scales
 * and codes; tq2_0, q6_K: the codes (and q6_K's scales), then d), block i's halves 0.5 or -1.25 and all its other
 * bytes hi in odd rows, lo in even ones: every code (and q4_K's every scale and min) at an end of its range. */
static void *extreme_weights(kern_format f, size_t rows, unsigned char lo, unsigned char hi)
{
    size_t nb = 256 / (size_t)kern_format_get(f)->block, bb = (size_t)kern_format_get(f)->block_bytes;
    size_t d_at = f == KERN_TQ2_0 || f == KERN_Q6_K ? bb - sizeof(kern_half) : 0, halves = f == KERN_Q4_K ? 2 : 1;
    unsigned char *w = malloc(rows * nb * bb);
    for (size_t i = 0; i < rows * nb; i++) {
        kern_half d = kern_float_to_half(i % 3 ? 0.5f : -1.25f);
        memset(w + i * bb, (i / nb) % 2 ? hi : lo, bb);
        for (size_t h = 0; h < halves; h++)
            memcpy(w + i * bb + d_at + h * sizeof d, &d, sizeof d);
    }
    return w;
}

/* Layout l of a group (rows) of f at the ends of their range (extreme_weights: lo in even rows, hi in odd ones)
 * against extreme quants (check_extreme_activation, check first). */
static void check_extremes(kern_layout l, kern_format f, size_t rows, unsigned char lo, unsigned char hi,
                           void (*check)(const kern_act *a), bool one_sign)
{
    void *w = extreme_weights(f, rows, lo, hi);
    check_extreme_activation(l, f, w, rows, check, one_sign);
    free(w);
}

static void first_block_is_127s(const kern_act *a)
{
    cr_assert_eq(a->nsumb[0], -32 * 127, "a block of quants of 127");
}

/* Extreme codes against extreme quants: every nibble 0 or 15 (weights -8 and +7) against quants of +-127, so a
 * block's sum reaches 16 x 8 x 127 x 2 from both chains and its seed (8 x 32 x 127) is the widest. */
Test(kern_repack, q4_0_r16_extremes)
{
    check_extremes(KERN_LAYOUT_Q4_0_R16, KERN_Q4_0, 16, 0x00, 0xff, first_block_is_127s, false);
}

/* Every quant -128 or +127 (stored 0 and 255) against quants of +-127: a chain's lane reaches 255 x 127 x 16 and
 * the seed 128 x 32 x 127, the widest q8_0_r16 takes. */
Test(kern_repack, q8_0_r16_extremes)
{
    check_extremes(KERN_LAYOUT_Q8_0_R16, KERN_Q8_0, 16, 0x80, 0x7f, first_block_is_127s, false);
}

static void tq2_0_quants_are_127(const kern_act *a)
{
    cr_assert(a->qs[0] == 127 && a->qs[32] == -127, "quants of +-127, 32 of each sign in turn");
}

/* Every code 0 or 3 (weights -1 and +2, the top field 192 unshifted in its chain) against quants of +-127. */
Test(kern_repack, tq2_0_r16_extremes)
{
    check_extremes(KERN_LAYOUT_TQ2_0_R16, KERN_TQ2_0, 16, 0x00, 0xff, tq2_0_quants_are_127, false);
}

static void tq2_0_quants_are_all_127(const kern_act *a)
{
    cr_assert(a->qs[0] == 127 && a->qs[32] == 127 && a->qs[255] == 127, "quants of 127, all of one sign");
}

/* Every code 3 (weight +2, which ggml's quantizer never writes but a file may hold) against quants of +127 alone:
 * nothing cancels, so a block's products reach 256 x 3 x 127 = 97536, past any int16 chain that holds the block. */
Test(kern_repack, tq2_0_r16_codes_of_3_against_one_sign)
{
    check_extremes(KERN_LAYOUT_TQ2_0_R16, KERN_TQ2_0, 16, 0xff, 0xff, tq2_0_quants_are_all_127, true);
}

static void q4_K_sub_block_sums_are_widest(const kern_act *a)
{
    const block_q8_K *x = a->q8k;
    cr_assert(x->bsums[0] + x->bsums[1] == 32 * 127 && x->bsums[2] + x->bsums[3] == -32 * 127,
              "sub-block sums of +-4064: the mins' split into 256 H + L at both ends");
}

/* Every code 0 or 15, every scale and min 0 or 63, against sub-block sums of +-4064. */
Test(kern_repack, q4_K_r16_extremes)
{
    check_extremes(KERN_LAYOUT_Q4_K_R16, KERN_Q4_K, 16, 0x00, 0xff, q4_K_sub_block_sums_are_widest, false);
}

static void q6_K_sub_block_sums_are_widest(const kern_act *a)
{
    const block_q8_K *x = a->q8k;
    cr_assert(x->bsums[0] == 16 * 127 && x->bsums[2] == -16 * 127, "sub-block sums of +-2032: the widest seeds");
}

/* Bytes 0x80 in even rows (scales -128, the fields of elements 0-63 code 0: weight -32) and 0x7f in odd ones
 * (scales 127, the first field's codes 63) against sub-block sums of +-2032: every scale at an end of its range,
 * a chain at its widest, and a sign extension that a zero-extended scale would get wrong. */
Test(kern_repack, q6_K_r16_extremes)
{
    check_extremes(KERN_LAYOUT_Q6_K_R16, KERN_Q6_K, 16, 0x80, 0x7f, q6_K_sub_block_sums_are_widest, false);
}

/* The same bytes re-coded: scales at both ends, codes 0 and 63 in every field, the widest chains. */
Test(kern_repack, q6_K_r1_extremes)
{
    check_extremes(KERN_LAYOUT_Q6_K_R1, KERN_Q6_K, 16, 0x80, 0x7f, q6_K_sub_block_sums_are_widest, false);
}

static void q1_0_table_is_widest(const kern_act *a)
{
    cr_assert_eq(a->lut[15], 508, "all four bits set on quants of 127");
}

/* Extreme activations: every quant +-127 (a table entry of +-508, an activation block's sum +-4064, the int16
 * sums' widest), and every weight bit one way. */
Test(kern_repack, q1_0_r32lut_extremes)
{
    check_extremes(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q1_0, 32, 0x00, 0xff, q1_0_table_is_widest, false);
    check_extremes(KERN_LAYOUT_Q1_0_R32LUT256, KERN_Q1_0, 32, 0x00, 0xff, q1_0_table_is_widest, false);
}

/* A pool splitting rows anywhere (static shares, claims of 1 and 7 rows) and an activation set in slices, as the
 * decode does, on layout l of format f: the same bits as one thread. */
static void check_pool_and_slices(kern_layout l, kern_format f)
{
    size_t rows = 301, cols = 512;
    kt_rng r = { .s = 9 };
    void *w = kt_weights(&r, f, rows, cols);
    float *x = kt_floats(&r, cols, -1.0f, 1.0f);
    kern_act a;
    cr_assert_eq(kern_act_init(&a, f, cols, 1), 0);
    cr_assert_eq(kern_act_use_layout(&a, l), 0);
    a.batch = 1;
    cr_assert_eq(kern_act_set_cols(&a, x, 1, 256, 512), 0);
    cr_assert_eq(kern_act_set_cols(&a, x, 1, 0, 256), 0);
    float *ref = reference(f, w, rows, &a), y[301];
    void *rw = repacked(l, f, w, rows, cols);
    kern_job job = { .fmt = f, .isa = kern_isa_best(), .w = rw, .rows = rows, .act = &a, .y = y, .layout = l };
    pool_config cfg = pool_config_default();
    cfg.threads = 3;
    pool *p = pool_create(&cfg);
    cr_assert_not_null(p);
    const size_t chunks[] = { 0, 1, 7 };
    for (size_t k = 0; k < 3; k++) {
        memset(y, 0xff, sizeof y);
        cr_assert_eq(kern_run_pool(p, chunks[k], &job), 0);
        cr_assert(memcmp(y, ref, sizeof y) == 0, "%s: chunk %zu differs from the reference", kern_layout_names[l],
                  chunks[k]);
    }
    pool_destroy(p);
    free(rw);
    free(ref);
    kern_act_free(&a);
    free(x);
    free(w);
}

/* A prompt's GEMM (64 activation rows) through pools of 1..3 threads splitting rows as static shares and as claims
 * of 1, 7 and 16 rows: every layout gives one thread's bits, on the best ISA here and on every other it runs. */
Test(kern_repack, gemm_through_a_pool_keeps_the_bits_at_any_threads_and_split, .timeout = 120)
{
    size_t rows = 77, m = 64;
    for (int l = 1; l < KERN_LAYOUT_COUNT; l++) {
        kern_format f = kern_layout_get((kern_layout)l)->fmt;
        size_t cols = kern_format_get(f)->block == 256 ? 512 : 256;
        kt_rng r = { .s = 40 + (uint64_t)l };
        void *w = kt_weights(&r, f, rows, cols);
        float *x = kt_floats(&r, m * cols, -1.0f, 1.0f), *ref = malloc(m * rows * sizeof(float)),
              *y = malloc(m * rows * sizeof(float));
        kern_act a;
        cr_assert_eq(kern_act_init(&a, f, cols, m), 0);
        cr_assert_eq(kern_act_use_layout(&a, (kern_layout)l), 0);
        cr_assert_eq(kern_act_set(&a, x, m), 0);
        void *rw = repacked((kern_layout)l, f, w, rows, cols);
        for (int v = 0; v < KERN_ISA_COUNT; v++) {
            if (!kern_isa_supported((kern_isa)v) || v == KERN_ISA_SCALAR)
                continue;
            kern_job job = { .fmt = f, .isa = (kern_isa)v, .w = rw, .rows = rows, .act = &a, .y = ref,
                             .ldy = rows, .layout = (kern_layout)l };
            cr_assert_eq(kern_run(&job), 0);
            job.y = y;
            for (int threads = 1; threads <= 3; threads++) {
                pool_config cfg = pool_config_default();
                cfg.threads = threads;
                pool *p = pool_create(&cfg);
                cr_assert_not_null(p);
                const size_t chunks[] = { 0, 1, 7, 16 };
                for (size_t k = 0; k < 4; k++) {
                    memset(y, 0xff, m * rows * sizeof(float));
                    cr_assert_eq(kern_run_pool(p, chunks[k], &job), 0);
                    cr_assert(memcmp(y, ref, m * rows * sizeof(float)) == 0, "%s on %s: %d threads, chunk %zu",
                              kern_layout_names[l], kern_isa_name((kern_isa)v), threads, chunks[k]);
                }
                pool_destroy(p);
            }
        }
        free(rw);
        kern_act_free(&a);
        free(y);
        free(ref);
        free(x);
        free(w);
    }
}

Test(kern_repack, pool_and_slices_keep_the_bits)
{
    check_pool_and_slices(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q1_0);
    check_pool_and_slices(KERN_LAYOUT_Q4_0_R16, KERN_Q4_0);
    check_pool_and_slices(KERN_LAYOUT_Q8_0_R16, KERN_Q8_0);
    check_pool_and_slices(KERN_LAYOUT_TQ2_0_R16, KERN_TQ2_0);
    check_pool_and_slices(KERN_LAYOUT_Q4_K_R16, KERN_Q4_K);
    check_pool_and_slices(KERN_LAYOUT_Q6_K_R16, KERN_Q6_K);
    check_pool_and_slices(KERN_LAYOUT_Q6_K_R1, KERN_Q6_K);
    check_pool_and_slices(KERN_LAYOUT_Q1_0_R32LUT256, KERN_Q1_0);
}

/* The four-group pass is compiled once per prefetch setting (kern_stream): each copy gives the reference's bits,
 * over rows that run it (200: four groups of 16 or 32 and a remainder) and columns a few blocks long. */
Test(kern_repack, every_prefetch_setting_keeps_the_bits)
{
    static const struct {
        kern_layout l;
        kern_format f;
        size_t cols;
    } layouts[] = { { KERN_LAYOUT_Q1_0_R32LUT, KERN_Q1_0, 384 }, { KERN_LAYOUT_Q4_0_R16, KERN_Q4_0, 96 },
                    { KERN_LAYOUT_Q8_0_R16, KERN_Q8_0, 96 },     { KERN_LAYOUT_TQ2_0_R16, KERN_TQ2_0, 512 },
                    { KERN_LAYOUT_Q4_K_R16, KERN_Q4_K, 512 },    { KERN_LAYOUT_Q6_K_R16, KERN_Q6_K, 512 },
                    { KERN_LAYOUT_Q1_0_R32LUT256, KERN_Q1_0, 384 } };
    for (int near = 0; near < 2; near++)
        for (int temporal = 0; temporal < 2; temporal++) {
            kern_prefetch_set_near(near);
            kern_prefetch_set_temporal(temporal);
            for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++)
                check_layout(layouts[i].l, layouts[i].f, 200, layouts[i].cols, 1, 2000 + 10 * i + 2 * near + temporal);
        }
    kern_prefetch_set_near(kern_prefetch_vendor_near());
    kern_prefetch_set_temporal(kern_prefetch_vendor_temporal());
}

/* One q8_K activation feeding q4_K_r16 and q6_K_r16 matrices at once (a q4_K_M mix quantizes it once): readied
 * for both, each job gives its format's reference bits; one readied for neither is refused. */
Test(kern_repack, one_activation_feeds_two_layouts)
{
    size_t rows = 33, cols = 512;
    kt_rng r = { .s = 21 };
    void *w4 = kt_weights(&r, KERN_Q4_K, rows, cols), *w6 = kt_weights(&r, KERN_Q6_K, rows, cols);
    float *x = kt_floats(&r, cols, -1.0f, 1.0f), y[33];
    kern_act a;
    cr_assert_eq(kern_act_init(&a, KERN_Q4_K, cols, 1), 0);
    cr_assert_eq(kern_act_use_layout(&a, KERN_LAYOUT_Q4_K_R16), 0);
    cr_assert_eq(kern_act_set(&a, x, 1), 0);
    void *r4 = repacked(KERN_LAYOUT_Q4_K_R16, KERN_Q4_K, w4, rows, cols);
    void *r6 = repacked(KERN_LAYOUT_Q6_K_R16, KERN_Q6_K, w6, rows, cols);
    kern_job j6 = { .fmt = KERN_Q6_K, .isa = kern_isa_best(), .w = r6, .rows = rows, .act = &a, .y = y,
                    .layout = KERN_LAYOUT_Q6_K_R16 };
    cr_assert_eq(kern_run(&j6), -1, "not readied for q6_K_r16");
    cr_assert_eq(kern_act_use_layout(&a, KERN_LAYOUT_Q6_K_R16), 0, "a q4_K activation feeds q6_K");
    const struct {
        kern_format f;
        kern_layout l;
        const void *w, *rw;
    } each[2] = { { KERN_Q4_K, KERN_LAYOUT_Q4_K_R16, w4, r4 }, { KERN_Q6_K, KERN_LAYOUT_Q6_K_R16, w6, r6 } };
    for (int i = 0; i < 2; i++) {
        float *ref = reference(each[i].f, each[i].w, rows, &a);
        kern_job job = { .fmt = each[i].f, .isa = kern_isa_best(), .w = each[i].rw, .rows = rows, .act = &a,
                         .y = y, .layout = each[i].l };
        cr_assert_eq(kern_run(&job), 0, "%s", kern_layout_names[each[i].l]);
        cr_assert(memcmp(y, ref, rows * sizeof *y) == 0, "%s differs from the reference", kern_layout_names[each[i].l]);
        job.isa = KERN_ISA_SCALAR;
        cr_assert_eq(kern_run(&job), 0);
        cr_assert(memcmp(y, ref, rows * sizeof *y) == 0, "%s scalar differs", kern_layout_names[each[i].l]);
        free(ref);
    }
    free(r6);
    free(r4);
    kern_act_free(&a);
    free(x);
    free(w6);
    free(w4);
}

/* q1_0's two table layouts read the same tables: one activation readied for both feeds each its reference bits,
 * and a job of the one it was not readied for is refused. */
Test(kern_repack, q1_0_layouts_share_their_tables)
{
    size_t rows = 40, cols = 256;
    kt_rng r = { .s = 23 };
    void *w = kt_weights(&r, KERN_Q1_0, rows, cols);
    float *x = kt_floats(&r, cols, -1.0f, 1.0f), y[40];
    kern_act a;
    cr_assert_eq(kern_act_init(&a, KERN_Q1_0, cols, 1), 0);
    cr_assert_eq(kern_act_use_layout(&a, KERN_LAYOUT_Q1_0_R32LUT), 0);
    cr_assert_eq(kern_act_set(&a, x, 1), 0);
    float *ref = reference(KERN_Q1_0, w, rows, &a);
    const kern_layout each[2] = { KERN_LAYOUT_Q1_0_R32LUT, KERN_LAYOUT_Q1_0_R32LUT256 };
    for (int i = 0; i < 2; i++) {
        void *rw = repacked(each[i], KERN_Q1_0, w, rows, cols);
        kern_job job = { .fmt = KERN_Q1_0, .isa = kern_isa_best(), .w = rw, .rows = rows, .act = &a, .y = y,
                         .layout = each[i] };
        if (i == 1) {
            cr_assert_eq(kern_run(&job), -1, "not readied for q1_0_r32lut256");
            cr_assert_eq(kern_act_use_layout(&a, each[i]), 0, "the tables it has serve it");
        }
        cr_assert_eq(kern_run(&job), 0, "%s", kern_layout_names[each[i]]);
        cr_assert(memcmp(y, ref, rows * sizeof *y) == 0, "%s differs from the reference", kern_layout_names[each[i]]);
        free(rw);
    }
    free(ref);
    kern_act_free(&a);
    free(x);
    free(w);
}

Test(kern_repack, names_bytes_and_fit)
{
    kern_layout l;
    cr_assert_eq(kern_layout_parse("q1_0_r32lut", &l), 0);
    cr_assert_eq(l, KERN_LAYOUT_Q1_0_R32LUT);
    cr_assert_eq(kern_layout_parse("file", &l), 0);
    cr_assert_eq(l, KERN_LAYOUT_FILE);
    cr_assert_eq(kern_layout_parse("q1_0_x", &l), -1);
    cr_assert_eq(kern_layout_get(KERN_LAYOUT_Q1_0_R32LUT)->rows, 32);
    cr_assert_null(kern_layout_get(KERN_LAYOUT_COUNT));
    cr_assert(kern_layout_fits(KERN_LAYOUT_FILE, KERN_Q8_0, 64));
    cr_assert_not(kern_layout_fits(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q4_0, 128));
    cr_assert_not(kern_layout_fits(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q1_0, 64));
    cr_assert_eq(kern_repack_bytes(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q1_0, 64, 256), 64 * 36, "whole groups: the file's");
    cr_assert_eq(kern_repack_bytes(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q1_0, 33, 256), 64 * 36, "rounded up to groups");
    cr_assert_eq(kern_repack_bytes(KERN_LAYOUT_FILE, KERN_Q1_0, 33, 256), 33 * 36);
    cr_assert_eq(kern_repack_bytes(KERN_LAYOUT_Q1_0_R32LUT, KERN_TQ2_0, 32, 256), 0);
    cr_assert_eq(kern_repack_isa(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q1_0, KERN_ISA_SCALAR), KERN_ISA_SCALAR);
    cr_assert_eq(kern_repack_isa(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q4_0, KERN_ISA_SCALAR), KERN_ISA_COUNT);
    cr_assert_eq(kern_layout_parse("q4_0_r16", &l), 0);
    cr_assert_eq(l, KERN_LAYOUT_Q4_0_R16);
    cr_assert_eq(kern_layout_get(KERN_LAYOUT_Q4_0_R16)->rows, 16);
    cr_assert(kern_layout_fits(KERN_LAYOUT_Q4_0_R16, KERN_Q4_0, 32));
    cr_assert_not(kern_layout_fits(KERN_LAYOUT_Q4_0_R16, KERN_Q8_0, 32));
    cr_assert_eq(kern_repack_bytes(KERN_LAYOUT_Q4_0_R16, KERN_Q4_0, 17, 64), 32 * 36, "rounded up to groups");
    cr_assert_eq(kern_repack_isa(KERN_LAYOUT_Q4_0_R16, KERN_Q4_0, KERN_ISA_SCALAR), KERN_ISA_SCALAR);
    cr_assert_not(kern_repack_prefetches(KERN_LAYOUT_Q4_0_R16, KERN_Q4_0, KERN_ISA_SCALAR), "scalar: no prefetch");
    cr_assert_not(kern_repack_prefetches(KERN_LAYOUT_Q4_0_R16, KERN_Q8_0, kern_isa_best()), "a format it does not fit");
    cr_assert_eq(kern_layout_parse("q8_0_r16", &l), 0);
    cr_assert_eq(l, KERN_LAYOUT_Q8_0_R16);
    cr_assert_eq(kern_layout_get(KERN_LAYOUT_Q8_0_R16)->fmt, KERN_Q8_0);
    cr_assert_eq(kern_repack_bytes(KERN_LAYOUT_Q8_0_R16, KERN_Q8_0, 17, 64), 32 * 68, "rounded up to groups");
    cr_assert_not(kern_layout_fits(KERN_LAYOUT_Q8_0_R16, KERN_Q4_0, 32));
    cr_assert_eq(kern_layout_parse("tq2_0_r16", &l), 0);
    cr_assert_eq(kern_repack_bytes(KERN_LAYOUT_TQ2_0_R16, KERN_TQ2_0, 17, 512), 32 * 132, "rounded up to groups");
    cr_assert_not(kern_layout_fits(KERN_LAYOUT_TQ2_0_R16, KERN_TQ2_0, 128), "whole blocks of 256 only");
    cr_assert_eq(kern_repack_prefetches(KERN_LAYOUT_FILE, KERN_Q8_0, kern_isa_best()),
                 kern_matvec_prefetches(KERN_Q8_0, kern_isa_best()), "file: the matvec's answer");
    if (kern_isa_supported(KERN_ISA_AVX512))
        cr_assert(kern_repack_prefetches(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q1_0, KERN_ISA_AVX512));
}

Test(kern_repack, refused_jobs)
{
    size_t cols = 128;
    kt_rng r = { .s = 3 };
    void *w = kt_weights(&r, KERN_Q1_0, 2, cols);
    float *x = kt_floats(&r, cols, -1.0f, 1.0f), y[2];
    void *rw = repacked(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q1_0, w, 2, cols);
    cr_assert_eq(kern_repack(KERN_LAYOUT_FILE, KERN_Q1_0, w, 2, cols, rw), -1, "file is no repacking");
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(kern_repack(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q4_0, w, 2, cols, rw), -1);
    kern_act a, a4;
    cr_assert_eq(kern_act_init(&a, KERN_Q1_0, cols, 1), 0);
    cr_assert_eq(kern_act_set(&a, x, 1), 0);
    kern_job job = { .fmt = KERN_Q1_0, .isa = KERN_ISA_SCALAR, .w = rw, .rows = 2, .act = &a, .y = y,
                     .layout = KERN_LAYOUT_Q1_0_R32LUT };
    cr_assert_eq(kern_run(&job), -1, "an activation without the tables");
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(kern_act_init(&a4, KERN_Q4_0, cols, 1), 0);
    cr_assert_eq(kern_act_use_layout(&a4, KERN_LAYOUT_Q1_0_R32LUT), -1, "q1_0's tables for a q4_0 activation");
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(kern_act_use_layout(&a, KERN_LAYOUT_Q1_0_R32LUT), 0);
    cr_assert_eq(kern_act_set(&a, x, 1), 0);
    cr_assert_eq(kern_run(&job), 0);
    job.layout = KERN_LAYOUT_COUNT;
    cr_assert_eq(kern_run(&job), -1, "an unknown layout");
    job.layout = KERN_LAYOUT_Q1_0_R32LUT;
    if (kt_isa_lacking() < KERN_ISA_COUNT) {
        job.isa = kt_isa_lacking();
        cr_assert_eq(kern_run(&job), -1);
        cr_assert_eq(errno, ENOTSUP, "%s: this CPU lacks it", kern_isa_name(job.isa));
    }
    /* q4_0_r16 needs no tables, but an activation readied for its layout: one that was not is refused */
    cr_assert_eq(kern_act_set(&a4, x, 1), 0);
    float y4[2];
    kern_job j4 = { .fmt = KERN_Q4_0, .isa = KERN_ISA_SCALAR, .w = rw, .rows = 2, .act = &a4, .y = y4,
                    .layout = KERN_LAYOUT_Q4_0_R16 };
    cr_assert_eq(kern_run(&j4), -1, "an activation not readied for q4_0_r16");
    cr_assert_eq(errno, EINVAL);
    kern_act_free(&a4);
    kern_act_free(&a);
    free(rw);
    free(x);
    free(w);
}

/* Every table entry is its signed sum of the activation's quants, whichever ISA's builder made it (each ISA this
 * CPU runs is asked for in turn), also after a set of columns only. */
Test(kern_repack, tables_are_the_signed_sums)
{
    size_t cols = 1024;
    kt_rng r = { .s = 11 };
    float *x = kt_floats(&r, 2 * cols, -1.0f, 1.0f);
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        if (!kern_isa_supported((kern_isa)v))
            continue;
        kern_act a;
        cr_assert_eq(kern_act_init(&a, KERN_Q1_0, cols, 2), 0);
        cr_assert_eq(kern_act_use_layout(&a, KERN_LAYOUT_Q1_0_R32LUT), 0);
        cr_assert_eq(kern_act_set_isa(&a, x, 2, (kern_isa)v), 0);
        memset(a.lut + 4 * 512, 0x55, 4 * 256 * sizeof(int16_t)); /* row 0's tables of columns 512..767, remade */
        cr_assert_eq(kern_act_set_cols(&a, x, 2, 512, 768), 0);
        for (size_t m = 0; m < 2; m++)
            for (size_t g = 0; g < cols / 4; g++)
                for (int n = 0; n < 16; n++) {
                    int want = 0;
                    for (int i = 0; i < 4; i++)
                        want += (n >> i & 1 ? 1 : -1) * a.qs[m * cols + 4 * g + (size_t)i];
                    cr_assert_eq(a.lut[m * cols * 4 + 16 * g + (size_t)n], want, "%s: row %zu table %zu entry %d",
                                 kern_isa_name((kern_isa)v), m, g, n);
                }
        kern_act_free(&a);
    }
    free(x);
}
