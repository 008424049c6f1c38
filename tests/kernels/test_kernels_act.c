/* test_kernels_act.c — activation quantization: every variant's quantizer gives the reference's bytes
 * (ggml blocks and the derived arrays), on random, tie-breaking, constant, zero, large and subnormal rows;
 * and the derived arrays mean what kern.h says. */
#include <criterion/criterion.h>
#include <errno.h>

#include "kern_test_util.h"

#define ACT_COLS 1024
#define ACT_ROWS 3

static void check_same(const kern_act *a, const kern_act *b, const char *what, kern_isa v)
{
    size_t cols = a->cols, n = a->batch, nb = a->q8k ? cols / QK_K : cols / QK8_0;
    const char *vn = kern_isa_name(v);
    if (a->q8)
        cr_assert(memcmp(a->q8, b->q8, n * nb * sizeof(block_q8_0)) == 0, "%s %s: q8_0 blocks differ", vn, what);
    if (a->q8k)
        cr_assert(memcmp(a->q8k, b->q8k, n * nb * sizeof(block_q8_K)) == 0, "%s %s: q8_K blocks differ", vn, what);
    cr_assert(memcmp(a->qs, b->qs, n * cols) == 0, "%s %s: qs differ", vn, what);
    cr_assert(memcmp(a->scale, b->scale, n * nb * sizeof(float)) == 0, "%s %s: scales differ", vn, what);
    cr_assert(memcmp(a->nsumb, b->nsumb, n * nb * sizeof(int32_t)) == 0, "%s %s: nsumb differ", vn, what);
    cr_assert(memcmp(a->nsum4, b->nsum4, n * cols / 4 * sizeof(int32_t)) == 0, "%s %s: nsum4 differ", vn, what);
}

/* Ties: with a block's amax 127 the scale is 1, so k + 0.5 lands exactly between two quants. */
static void make_ties(float *x, size_t n, kt_rng *r)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (i % 32 == 0) ? 127.0f : (float)((int)(kt_next(r) % 253) - 126) + ((kt_next(r) & 1) ? 0.5f : -0.5f);
}

static void make_inputs(int kind, float *x, size_t n, kt_rng *r)
{
    switch (kind) {
    case 0: kt_fill(r, x, n, -3.0f, 3.0f); return;
    case 1: make_ties(x, n, r); return;
    case 2: for (size_t i = 0; i < n; i++) x[i] = 0.37f; return;
    case 3: memset(x, 0, n * sizeof(float)); return;
    case 4: kt_fill(r, x, n, -1e7f, 1e7f); return;        /* q8_0's scale saturates at 65504 */
    case 5: kt_fill(r, x, n, -1e-39f, 1e-39f); return;    /* 1/d overflows: the divide path */
    default: /* magnitudes from 1e-30 to 1e30 side by side */
        for (size_t i = 0; i < n; i++)
            x[i] = kt_uniform(r, -1.0f, 1.0f) * powf(10.0f, (float)((int)(i % 61) - 30));
        return;
    }
}

static const char *const kinds[] = { "random", "ties", "constant", "zero", "large", "subnormal", "mixed" };

Test(kern_act, every_variant_gives_the_reference_bytes)
{
    const kern_format fs[] = { KERN_Q8_0, KERN_TQ2_0 }; /* q8_0 and q8_K activations */
    float *x = malloc(ACT_ROWS * ACT_COLS * sizeof(float));
    for (size_t fi = 0; fi < 2; fi++) {
        for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++) {
            kt_rng r = { .s = 500 + (uint64_t)k };
            make_inputs(k, x, ACT_ROWS * ACT_COLS, &r);
            kern_act ref;
            cr_assert_eq(kern_act_init(&ref, fs[fi], ACT_COLS, ACT_ROWS), 0);
            cr_assert_eq(kern_act_set_isa(&ref, x, ACT_ROWS, KERN_ISA_SCALAR), 0);
            for (int v = 1; v < KERN_ISA_COUNT; v++) {
                if (!kern_isa_supported((kern_isa)v))
                    continue;
                kern_act got;
                cr_assert_eq(kern_act_init(&got, fs[fi], ACT_COLS, ACT_ROWS), 0);
                cr_assert_eq(kern_act_set_isa(&got, x, ACT_ROWS, (kern_isa)v), 0);
                check_same(&ref, &got, kinds[k], (kern_isa)v);
                kern_act_free(&got);
            }
            kern_act_free(&ref);
        }
    }
    free(x);
}

Test(kern_act, derived_arrays)
{
    kt_rng r = { .s = 3 };
    float x[512];
    kt_fill(&r, x, 512, -1.0f, 1.0f);
    kern_act a;
    cr_assert_eq(kern_act_init(&a, KERN_TQ2_0, 512, 1), 0);
    cr_assert_eq(kern_act_set(&a, x, 1), 0);
    for (int b = 0; b < 2; b++) {
        int sum = 0;
        for (int j = 0; j < QK_K; j++) {
            cr_assert_eq(a.qs[b * QK_K + j], a.q8k[b].qs[j]);
            cr_assert(a.qs[b * QK_K + j] >= -127, "never -128");
            sum += a.q8k[b].qs[j];
        }
        cr_assert_eq(a.nsumb[b], -sum);
        cr_assert_eq(a.scale[b], a.q8k[b].d);
        for (int i = 0; i < QK_K / 4; i++) {
            const int8_t *q = a.q8k[b].qs + 4 * i;
            cr_assert_eq(a.nsum4[b * QK_K / 4 + i], -(q[0] + q[1] + q[2] + q[3]));
        }
    }
    cr_assert_eq(kern_act_set_isa(&a, x, 1, kt_isa_lacking()), -1);
    cr_assert_eq(errno, ENOTSUP);
    kern_act_free(&a);
    kern_act f;
    cr_assert_eq(kern_act_init(&f, KERN_F16, 7, 2), 0);
    float two[14];
    kt_fill(&r, two, 14, -1.0f, 1.0f);
    cr_assert_eq(kern_act_set(&f, two, 2), 0);
    cr_assert(memcmp(f.f32, two, sizeof two) == 0, "f32 activations are kept as given");
    kern_act_free(&f);
}

/* Every array of a, including the per-lane forms, equals b's over a->batch rows. */
static void check_all_arrays(const kern_act *a, const kern_act *b, const char *what)
{
    size_t n = a->batch, cols = a->cols;
    if (a->f32) {
        cr_assert(memcmp(a->f32, b->f32, n * cols * sizeof(float)) == 0, "%s: floats differ", what);
        return;
    }
    check_same(a, b, what, KERN_ISA_SCALAR);
    if (a->seed4) {
        cr_assert(memcmp(a->seed4, b->seed4, n * cols / 4 * sizeof(int32_t)) == 0, "%s: seed4 differ", what);
        cr_assert(memcmp(a->dx4, b->dx4, n * cols / 4 * sizeof(float)) == 0, "%s: dx4 differ", what);
    }
    if (a->qsp)
        cr_assert(memcmp(a->qsp, b->qsp, n * cols) == 0, "%s: qsp differ", what);
    size_t qc = kern_act_qt_cols(cols);
    if (a->qt)
        cr_assert(memcmp(a->qt, b->qt, n * qc) == 0, "%s: qt differ", what);
    if (a->seedt) {
        cr_assert(memcmp(a->seedt, b->seedt, n * qc / 8 * sizeof(int32_t)) == 0, "%s: seedt differ", what);
        cr_assert(memcmp(a->dxt, b->dxt, n * qc / 8 * sizeof(float)) == 0, "%s: dxt differ", what);
    }
}

/* Slices set in any order (as threads would, each its own) give kern_act_set's bytes in every array. */
Test(kern_act, column_slices_give_the_whole_rows_bytes)
{
    const kern_format fs[] = { KERN_Q8_0, KERN_Q4_0, KERN_Q1_0, KERN_TQ2_0, KERN_F16 };
    float *x = malloc(ACT_ROWS * ACT_COLS * sizeof(float));
    kt_rng r = { .s = 91 };
    kt_fill(&r, x, ACT_ROWS * ACT_COLS, -3.0f, 3.0f);
    for (size_t fi = 0; fi < sizeof fs / sizeof fs[0]; fi++) {
        size_t blk = kern_act_block(fs[fi]), nb = ACT_COLS / blk;
        kern_act whole, sliced;
        cr_assert_eq(kern_act_init(&whole, fs[fi], ACT_COLS, ACT_ROWS), 0);
        cr_assert_eq(kern_act_init(&sliced, fs[fi], ACT_COLS, ACT_ROWS), 0);
        cr_assert_eq(kern_act_set(&whole, x, ACT_ROWS), 0);
        /* Slices of 1, 2, 3, ... blocks, set last slice first. */
        size_t cut[64], nc = 0;
        for (size_t b = 0, w = 1; b < nb; b += w++)
            cut[nc++] = b;
        cut[nc] = nb;
        for (size_t i = nc; i-- > 0;)
            cr_assert_eq(kern_act_set_cols(&sliced, x, ACT_ROWS, cut[i] * blk, cut[i + 1] * blk), 0);
        cr_assert_eq(sliced.batch, 0, "set_cols must leave batch to the caller");
        sliced.batch = ACT_ROWS;
        check_all_arrays(&sliced, &whole, kern_format_names[fs[fi]]);
        /* Not a block multiple, reversed, beyond the row, a batch out of range: EINVAL, nothing written. */
        if (blk > 1) {
            errno = 0;
            cr_assert_eq(kern_act_set_cols(&sliced, x, ACT_ROWS, 1, blk), -1);
            cr_assert_eq(errno, EINVAL);
            cr_assert_eq(kern_act_set_cols(&sliced, x, ACT_ROWS, 0, blk + 1), -1);
        }
        cr_assert_eq(kern_act_set_cols(&sliced, x, ACT_ROWS, 2 * blk, blk), -1);
        cr_assert_eq(kern_act_set_cols(&sliced, x, ACT_ROWS, 0, ACT_COLS + blk), -1);
        cr_assert_eq(kern_act_set_cols(&sliced, x, 0, 0, blk), -1);
        cr_assert_eq(kern_act_set_cols(&sliced, x, ACT_ROWS + 1, 0, blk), -1);
        check_all_arrays(&sliced, &whole, "after the refused calls");
        kern_act_free(&whole);
        kern_act_free(&sliced);
    }
    cr_assert_eq(kern_act_block(KERN_Q8_0), 32);
    cr_assert_eq(kern_act_block(KERN_TQ2_0), 256);
    cr_assert_eq(kern_act_block(KERN_F32), 1);
    free(x);
}

/* The regrouped forms mean what kern.h says, on a row that ends inside a 512-value chunk (896 = 1.75 chunks):
 * q1_0's transposed quants, q4_0's grouped quants and lanes, zero past the row; seed4 only for q8_0. */
Test(kern_act, regrouped_quants_and_lanes)
{
    enum { COLS = 896, QC = 1024 };
    kt_rng r = { .s = 17 };
    float *x = kt_floats(&r, 2 * COLS, -3.0f, 3.0f);
    kern_act q1, q4, q8;
    cr_assert_eq(kern_act_qt_cols(COLS), QC);
    cr_assert_eq(kern_act_init(&q1, KERN_Q1_0, COLS, 2), 0);
    cr_assert_eq(kern_act_init(&q4, KERN_Q4_0, COLS, 2), 0);
    cr_assert_eq(kern_act_init(&q8, KERN_Q8_0, COLS, 2), 0);
    cr_assert_eq(kern_act_set(&q1, x, 2), 0);
    cr_assert_eq(kern_act_set(&q4, x, 2), 0);
    cr_assert_eq(kern_act_set(&q8, x, 2), 0);
    cr_assert(q8.seed4 && !q1.seed4 && !q4.seed4 && !q8.qt && !q1.seedt, "each format's own forms only");
    for (size_t m = 0; m < 2; m++) {
        const int8_t *qs = q1.qs + m * COLS, *t1 = q1.qt + m * QC, *t4 = q4.qt + m * QC;
        for (size_t e = 0; e < QC; e++) { /* value e of chunk c = e / 512: block j, quant 8t + s */
            size_t c = e / 512, j = e % 512 / 32, u = e % 32, s = u % 8, t = u / 8;
            size_t at = 512 * c + 64 * s + 4 * j + t;
            cr_assert_eq(t1[at], e < COLS ? qs[e] : 0, "q1_0 row %zu value %zu", m, e);
            size_t g = e / 128, i = e % 128 / 32; /* q4_0: group g, block i, quant u */
            size_t at4 = 128 * g + (u < 16 ? 0 : 64) + 16 * i + u % 16;
            cr_assert_eq(t4[at4], e < COLS ? q4.qs[m * COLS + e] : 0, "q4_0 row %zu value %zu", m, e);
        }
        for (size_t g = 0; g < QC / 128; g++)
            for (size_t i = 0; i < 4; i++)
                for (size_t k = 0; k < 4; k++) {
                    size_t b = 4 * g + i, lane = m * (QC / 8) + 16 * g + 4 * i + k;
                    int want = 0;
                    for (size_t v = 0; v < 4 && b < COLS / 32; v++)
                        want -= 8 * (q4.qs[m * COLS + 32 * b + 4 * k + v] + q4.qs[m * COLS + 32 * b + 16 + 4 * k + v]);
                    cr_assert_eq(q4.seedt[lane], want, "q4_0 row %zu block %zu lane %zu", m, b, k);
                    cr_assert_eq(q4.dxt[lane], b < COLS / 32 ? q4.scale[m * (COLS / 32) + b] : 0.0f);
                }
    }
    kern_act_free(&q1);
    kern_act_free(&q4);
    kern_act_free(&q8);
    free(x);
}
