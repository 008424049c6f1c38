/* test_kernels_dot.c — dot products: every variant against a double-precision dot of the dequantized values
 * (tolerance KT_DOT_REL_TOL of sum |w_i x_i|), every SIMD variant against the scalar reference, row m of a
 * matmul equal (bit for bit) to the matvec of activation m, and the shape errors. */
#include <criterion/criterion.h>
#include <errno.h>

#include "kern_test_util.h"

/* Widths per format: one block, a few, an odd count (the 512-bit kernels' half-pair tail), and for the float
 * formats widths that leave every tail length. */
static size_t widths(kern_format f, size_t *out)
{
    if (f == KERN_F32 || f == KERN_F16) {
        const size_t w[] = { 1, 7, 15, 16, 17, 31, 33, 1013 };
        memcpy(out, w, sizeof w);
        return sizeof w / sizeof w[0];
    }
    size_t b = (size_t)kern_format_get(f)->block, n = 0;
    const size_t k[] = { 1, 2, 3, 7, 16 };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (b * k[i] <= 4096)
            out[n++] = b * k[i];
    return n;
}

/* rows x cols weights and one activation row through variant v; checks each row against the oracle, and
 * returns the outputs (caller frees). mag (rows entries, or NULL): each row's sum |w_i x_i|, the scale of
 * its tolerance. */
static float *check_against_oracle(kern_format f, kern_isa v, const void *w, const kern_act *a, size_t rows,
                                   double *mag)
{
    float *y = malloc(rows * sizeof(float));
    kern_job job = { .fmt = f, .isa = v, .w = w, .rows = rows, .act = a, .y = y, .ldy = rows };
    cr_assert_eq(kern_run(&job), 0, "%s/%s", kern_format_names[f], kern_isa_name(v));
    size_t rb = kt_row_bytes(f, a->cols);
    for (size_t r = 0; r < rows; r++) {
        double m, want = kt_oracle(f, (const char *)w + r * rb, a, 0, &m);
        double tol = KT_DOT_REL_TOL * m + 1e-30;
        if (mag)
            mag[r] = m;
        cr_assert(fabs(y[r] - want) <= tol, "%s/%s cols %zu row %zu: %.9g vs exact %.9g (tolerance %.3g)",
                  kern_format_names[f], kern_isa_name(v), a->cols, r, y[r], want, tol);
    }
    return y;
}

/* Every supported variant of every format, on weights from make_w. */
static void dot_all(void *(*make_w)(kt_rng *r, kern_format f, size_t rows, size_t cols))
{
    enum { ROWS = 6 };
    const size_t rows = ROWS;
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        size_t ws[16], nw = widths((kern_format)f, ws);
        for (size_t i = 0; i < nw; i++) {
            size_t cols = ws[i];
            kt_rng r = { .s = 1000 * (uint64_t)f + cols };
            void *w = make_w(&r, (kern_format)f, rows, cols);
            float *x = kt_floats(&r, cols, -2.0f, 2.0f);
            kern_act a;
            cr_assert_eq(kern_act_init(&a, (kern_format)f, cols, 1), 0);
            cr_assert_eq(kern_act_set(&a, x, 1), 0);
            double mag[ROWS];
            float *ref = check_against_oracle((kern_format)f, KERN_ISA_SCALAR, w, &a, rows, mag);
            for (int v = 1; v < KERN_ISA_COUNT; v++) {
                if (!kern_isa_supported((kern_isa)v))
                    continue;
                float *y = check_against_oracle((kern_format)f, (kern_isa)v, w, &a, rows, NULL);
                for (size_t k = 0; k < rows; k++) { /* against the scalar reference: twice the oracle bound */
                    cr_assert(fabs(y[k] - ref[k]) <= 2 * KT_DOT_REL_TOL * mag[k] + 1e-30,
                              "%s/%s vs scalar, cols %zu row %zu: %.9g vs %.9g", kern_format_names[f],
                              kern_isa_name((kern_isa)v), cols, k, y[k], ref[k]);
                }
                free(y);
            }
            free(ref);
            kern_act_free(&a);
            free(x);
            free(w);
        }
    }
}

static void *quantized_weights(kt_rng *r, kern_format f, size_t rows, size_t cols)
{
    return kt_weights(r, f, rows, cols);
}

/* Where a block keeps its halves (its scales: random bytes there could be inf or NaN); returns how many. */
static int half_offsets(kern_format f, size_t off[2])
{
    off[0] = f == KERN_TQ2_0 ? offsetof(block_tq2_0, d) : f == KERN_Q6_K ? offsetof(block_q6_K, d) : 0;
    off[1] = offsetof(block_q4_K, dmin);
    return f == KERN_Q4_K ? 2 : 1;
}

/* Arbitrary bytes with finite scales: q8_0's -128, tq2_0's unused code 3, every nibble pattern and every
 * K-quant sub-block scale and min (q6_K's -128 included), which a quantizer never writes but a file may hold;
 * every variant must still agree with the dequantized values. */
static void *raw_weights(kt_rng *r, kern_format f, size_t rows, size_t cols)
{
    if (f == KERN_F32 || f == KERN_F16)
        return kt_weights(r, f, rows, cols);
    size_t rb = kt_row_bytes(f, cols), nb = rows * cols / (size_t)kern_format_get(f)->block;
    uint8_t *w = malloc(rows * rb);
    for (size_t i = 0; i < rows * rb; i++)
        w[i] = (uint8_t)kt_next(r);
    size_t bb = (size_t)kern_format_get(f)->block_bytes, off[2];
    int nh = half_offsets(f, off);
    for (size_t b = 0; b < nb; b++)
        for (int k = 0; k < nh; k++) {
            kern_half d = kern_float_to_half(kt_uniform(r, -0.1f, 0.1f));
            memcpy(w + b * bb + off[k], &d, sizeof d);
        }
    return w;
}

Test(kern_dot, quantized_weights_every_variant, .timeout = 60)
{
    dot_all(quantized_weights);
}

Test(kern_dot, raw_bytes_every_variant, .timeout = 60)
{
    dot_all(raw_weights);
}

/* Row k of a matmul of w (rows x cols) with x (m x cols) through variant v: the matvec of activation k bit for
 * bit, and within the tolerance of the exact dot. */
static void check_matmul_rows(kern_format f, kern_isa v, const void *w, const float *x, size_t m, size_t rows,
                              size_t cols)
{
    const char *what = kern_format_names[f], *vn = kern_isa_name(v);
    float *y = malloc(m * rows * sizeof(float)), *one = malloc(rows * sizeof(float));
    kern_act a;
    cr_assert_eq(kern_act_init(&a, f, cols, m), 0);
    cr_assert_eq(kern_act_set_isa(&a, x, m, v), 0);
    cr_assert_eq(kern_matmul(f, v, w, x, m, y, rows, cols), 0);
    for (size_t k = 0; k < m; k++) {
        cr_assert_eq(kern_matvec(f, v, w, x + k * cols, one, rows, cols), 0);
        cr_assert(memcmp(one, y + k * rows, rows * sizeof(float)) == 0, "%s/%s batch %zu activation %zu", what, vn, m,
                  k);
        for (size_t r = 0; r < rows; r++) {
            double mag, exact = kt_oracle(f, (const char *)w + r * kt_row_bytes(f, cols), &a, k, &mag);
            cr_assert(fabs(y[k * rows + r] - exact) <= KT_DOT_REL_TOL * mag + 1e-30,
                      "%s/%s batch %zu activation %zu row %zu: %.9g vs exact %.9g", what, vn, m, k, r, y[k * rows + r],
                      exact);
        }
    }
    kern_act_free(&a);
    free(one);
    free(y);
}

/* check_matmul_rows for every format on every ISA this CPU runs, at each of nb batches (the largest last): rows x 5
 * blocks (a group of 4 units and a last one alone on arm64; 37 columns of the float formats) of weights from
 * make_w, activations in [-xmax, xmax]. */
static void matmul_every_format(void *(*make_w)(kt_rng *r, kern_format f, size_t rows, size_t cols), uint64_t seed,
                                size_t rows, const size_t *batches, size_t nb, float xmax)
{
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        size_t cols = f == KERN_F32 || f == KERN_F16 ? 37 : 5 * (size_t)kern_format_get((kern_format)f)->block;
        kt_rng r = { .s = seed + (uint64_t)f };
        void *w = make_w(&r, (kern_format)f, rows, cols);
        float *x = kt_floats(&r, batches[nb - 1] * cols, -xmax, xmax);
        for (int v = 0; v < KERN_ISA_COUNT; v++)
            for (size_t bi = 0; bi < nb && kern_isa_supported((kern_isa)v); bi++)
                check_matmul_rows((kern_format)f, (kern_isa)v, w, x, batches[bi], rows, cols);
        free(x);
        free(w);
    }
}

/* The raw bytes through the matmul kernels (arm64's i8mm pairs rows and activations: an odd row count and
 * batches of 2, 3 and 5 leave a row or an activation without a partner). */
Test(kern_matmul, raw_bytes_row_m_equals_matvec, .timeout = 60)
{
    const size_t batches[] = { 2, 3, 5 };
    matmul_every_format(raw_weights, 300, 5, batches, sizeof batches / sizeof batches[0], 2.0f);
}

/* Prompt-sized batches through every ISA's matmul kernels (arm64's dotprod tiles take 4, 2 or 1 rows against a
 * step's 1 to 4 activations, i8mm's pairs): M = 5, 2 and 7 end on a step of 1, 2 and 3 activations, 64 and 512
 * are whole steps, 1 is the matvec; 9 rows leave one out of every tile. */
Test(kern_matmul, prompt_batches_row_m_equals_matvec, .timeout = 120)
{
    const size_t batches[] = { 1, 2, 5, 7, 64, 512 };
    matmul_every_format(kt_weights, 900, 9, batches, sizeof batches / sizeof batches[0], 1.0f);
}

Test(kern_dot, q8_0_integer_part_exact)
{
    /* All quants at the extremes: w = -128 (raw) and x = +-127; the sums are far from float rounding, so
     * every variant must give exactly d_w * d_x * sum. */
    const size_t cols = 96;
    block_q8_0 w[3];
    float x[96];
    for (int b = 0; b < 3; b++) {
        w[b].d = kern_float_to_half(1.0f);
        for (int j = 0; j < 32; j++)
            w[b].qs[j] = (j % 3 == 0) ? -128 : 127;
    }
    for (size_t i = 0; i < cols; i++)
        x[i] = (i % 2) ? 1.0f : -1.0f;
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        if (!kern_isa_supported((kern_isa)v))
            continue;
        float y;
        cr_assert_eq(kern_matvec(KERN_Q8_0, (kern_isa)v, w, x, &y, 1, cols), 0);
        /* x quantizes to +-127 with d = 1/127 */
        long sumi = 0;
        for (size_t i = 0; i < cols; i++)
            sumi += (long)w[i / 32].qs[i % 32] * ((i % 2) ? 127 : -127);
        float dx = kern_half_to_float(kern_float_to_half(1.0f / 127.0f));
        cr_assert_eq(y, (float)sumi * dx, "%s: %.9g vs %.9g", kern_isa_name((kern_isa)v), y,
                     (float)sumi * dx);
    }
}

/* ---- matmul ---- */

Test(kern_matmul, row_m_equals_matvec_of_activation_m, .timeout = 60)
{
    const size_t rows = 7;
    const size_t batches[] = { 1, 3, 16 };
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        /* 8192 q8_0 columns make 8.5 KiB rows: the matmul's L1 group is smaller than a pass there */
        const size_t colss[] = { 256, 8192 };
        for (size_t ci = 0; ci < 2; ci++) {
            size_t cols = colss[ci];
            kt_rng r = { .s = 77 + (uint64_t)f };
            void *w = kt_weights(&r, (kern_format)f, rows, cols);
            float *x = kt_floats(&r, KERN_BATCH_MAX * cols, -1.0f, 1.0f);
            for (int v = 0; v < KERN_ISA_COUNT; v++) {
                if (!kern_isa_supported((kern_isa)v))
                    continue;
                for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; bi++) {
                    size_t m = batches[bi];
                    float *y = malloc(m * rows * sizeof(float)), one[7];
                    cr_assert_eq(kern_matmul((kern_format)f, (kern_isa)v, w, x, m, y, rows, cols), 0);
                    for (size_t k = 0; k < m; k++) {
                        cr_assert_eq(kern_matvec((kern_format)f, (kern_isa)v, w, x + k * cols, one, rows, cols), 0);
                        cr_assert(memcmp(one, y + k * rows, sizeof one) == 0, "%s/%s cols %zu batch %zu row %zu",
                                  kern_format_names[f], kern_isa_name((kern_isa)v), cols, m, k);
                    }
                    free(y);
                }
            }
            free(x);
            free(w);
        }
    }
}

Test(kern_matmul, strided_output)
{
    const size_t rows = 5, cols = 64, m = 2, ldy = 9;
    kt_rng r = { .s = 5 };
    void *w = kt_weights(&r, KERN_Q8_0, rows, cols);
    float *x = kt_floats(&r, m * cols, -1.0f, 1.0f);
    kern_act a;
    cr_assert_eq(kern_act_init(&a, KERN_Q8_0, cols, m), 0);
    cr_assert_eq(kern_act_set(&a, x, m), 0);
    float y[18], packed[10];
    for (int i = 0; i < 18; i++)
        y[i] = -1234.0f;
    kern_job job = { .fmt = KERN_Q8_0, .isa = kern_isa_best(), .w = w, .rows = rows, .act = &a,
                     .y = y, .ldy = ldy };
    cr_assert_eq(kern_run(&job), 0);
    cr_assert_eq(kern_matmul(KERN_Q8_0, kern_isa_best(), w, x, m, packed, rows, cols), 0);
    for (size_t k = 0; k < m; k++) {
        cr_assert(memcmp(y + k * ldy, packed + k * rows, rows * sizeof(float)) == 0);
        for (size_t i = rows; i < ldy; i++)
            cr_assert_eq(y[k * ldy + i], -1234.0f, "the gap between output rows is not written");
    }
    job.ldy = rows - 1;
    cr_assert_eq(kern_run(&job), -1, "ldy < rows with a batch");
    kern_act_free(&a);
    free(x);
    free(w);
}

/* ---- shapes and errors ---- */

Test(kern_shape, cols_not_a_multiple_of_the_block)
{
    float x[300] = { 0 }, y[2] = { 7.0f, 7.0f };
    char w[2 * 300 * 4];
    const kern_format fs[] = { KERN_Q8_0, KERN_Q4_0, KERN_Q1_0, KERN_TQ2_0, KERN_Q4_K, KERN_Q6_K };
    for (size_t k = 0; k < sizeof fs / sizeof fs[0]; k++) {
        size_t cols = (size_t)kern_format_get(fs[k])->block + 4;
        errno = 0;
        cr_assert_eq(kern_matvec(fs[k], KERN_ISA_SCALAR, w, x, y, 2, cols), -1, "%s", kern_format_names[fs[k]]);
        cr_assert_eq(errno, EINVAL);
        cr_assert(y[0] == 7.0f && y[1] == 7.0f, "nothing written on an error");
        kern_act a;
        cr_assert_eq(kern_act_init(&a, fs[k], cols, 1), -1);
        cr_assert_eq(errno, EINVAL);
    }
}

Test(kern_shape, bad_jobs)
{
    kt_rng r = { .s = 9 };
    void *w = kt_weights(&r, KERN_Q4_0, 3, 64);
    float *x = kt_floats(&r, 64, -1.0f, 1.0f), y[3];
    kern_act a, b;
    cr_assert_eq(kern_act_init(&a, KERN_Q4_0, 64, 2), 0);
    cr_assert_eq(kern_act_init(&b, KERN_Q8_0, 64, 1), 0);
    cr_assert_eq(kern_act_set(&a, x, 3), -1, "batch over the capacity");
    kern_job job = { .fmt = KERN_Q4_0, .isa = KERN_ISA_SCALAR, .w = w, .rows = 3, .act = &a, .y = y };
    cr_assert_eq(kern_run(&job), -1, "an activation never set");
    cr_assert_eq(kern_act_set(&a, x, 1), 0);
    cr_assert_eq(kern_run(&job), 0);
    cr_assert_eq(kern_act_set(&b, x, 1), 0);
    job.act = &b;
    cr_assert_eq(kern_run(&job), -1, "an activation prepared for another format");
    cr_assert_eq(errno, EINVAL);
    job.act = &a;
    job.isa = kt_isa_lacking();
    cr_assert_eq(kern_run(&job), -1);
    cr_assert_eq(errno, ENOTSUP, "%s: this CPU lacks it", kern_isa_name(job.isa));
    job.isa = KERN_ISA_SCALAR;
    job.rows = 0;
    cr_assert_eq(kern_run(&job), 0, "zero rows is nothing to do");
    kern_act_free(&b);
    cr_assert_eq(kern_act_init(&b, KERN_Q8_0, 64, KERN_GEMM_MAX + 1), -1);
    kern_act_free(&a);
    free(x);
    free(w);
}

Test(kern_shape, rows_around_the_pass)
{
    /* 1..9 rows: below, at and past the 4-row pass, every row checked against the single-row result */
    const size_t cols = 128;
    kt_rng r = { .s = 11 };
    void *w = kt_weights(&r, KERN_Q8_0, 9, cols);
    float *x = kt_floats(&r, cols, -1.0f, 1.0f);
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        if (!kern_isa_supported((kern_isa)v))
            continue;
        float all[9];
        cr_assert_eq(kern_matvec(KERN_Q8_0, (kern_isa)v, w, x, all, 9, cols), 0);
        for (size_t n = 1; n <= 9; n++) {
            for (size_t r0 = 0; r0 + n <= 9; r0 += 2) {
                float part[9];
                const char *wr = (const char *)w + r0 * kt_row_bytes(KERN_Q8_0, cols);
                cr_assert_eq(kern_matvec(KERN_Q8_0, (kern_isa)v, wr, x, part, n, cols), 0);
                cr_assert(memcmp(part, all + r0, n * sizeof(float)) == 0, "%s rows %zu..%zu",
                          kern_isa_name((kern_isa)v), r0, r0 + n);
            }
        }
    }
    free(x);
    free(w);
}

Test(kern_shape, streaming_rows_equal_rows_in_passes, .timeout = 60)
{
    /* A call over many rows groups rows a quarter of the call apart; calls over 8 rows group other rows
     * (and over 1 MiB of rows the streams are long). Each row must come out the same either way. */
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        const size_t cols = 1024;
        size_t rb = kt_row_bytes((kern_format)f, cols), rows = (1u << 20) / rb + 11;
        kt_rng r = { .s = 31 + (uint64_t)f };
        void *w = kt_weights(&r, (kern_format)f, rows, cols);
        float *x = kt_floats(&r, cols, -1.0f, 1.0f), *all = malloc(rows * sizeof(float));
        for (int v = 1; v < KERN_ISA_COUNT; v++) {
            if (!kern_isa_supported((kern_isa)v))
                continue;
            cr_assert_eq(kern_matvec((kern_format)f, (kern_isa)v, w, x, all, rows, cols), 0);
            for (size_t r0 = 0; r0 < rows; r0 += 8) {
                size_t n = rows - r0 < 8 ? rows - r0 : 8;
                float part[8];
                const char *wr = (const char *)w + r0 * rb;
                cr_assert_eq(kern_matvec((kern_format)f, (kern_isa)v, wr, x, part, n, cols), 0);
                cr_assert(memcmp(part, all + r0, n * sizeof(float)) == 0, "%s/%s rows %zu..%zu",
                          kern_format_names[f], kern_isa_name((kern_isa)v), r0, r0 + n);
            }
        }
        free(all);
        free(x);
        free(w);
    }
}

Test(kern_matmul, odd_block_count_and_batch_remainder)
{
    /* 3 blocks (the 512-bit kernels' half-pair tail) and batch 5 (one group of 4, then one alone) */
    const kern_format fs[] = { KERN_Q8_0, KERN_Q4_0 };
    const size_t rows = 9, cols = 96, m = 5;
    for (size_t k = 0; k < 2; k++) {
        kt_rng r = { .s = 61 + k };
        void *w = kt_weights(&r, fs[k], rows, cols);
        float *x = kt_floats(&r, m * cols, -1.0f, 1.0f), y[5 * 9], one[9];
        for (int v = 0; v < KERN_ISA_COUNT; v++) {
            if (!kern_isa_supported((kern_isa)v))
                continue;
            cr_assert_eq(kern_matmul(fs[k], (kern_isa)v, w, x, m, y, rows, cols), 0);
            for (size_t j = 0; j < m; j++) {
                cr_assert_eq(kern_matvec(fs[k], (kern_isa)v, w, x + j * cols, one, rows, cols), 0);
                cr_assert(memcmp(one, y + j * rows, sizeof one) == 0, "%s/%s activation %zu",
                          kern_format_names[fs[k]], kern_isa_name((kern_isa)v), j);
            }
        }
        free(x);
        free(w);
    }
}
