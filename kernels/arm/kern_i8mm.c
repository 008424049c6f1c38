/* kern_i8mm.c — matmul (batch > 1) of the quantized formats with SMMLA (FEAT_I8MM; chosen where the CPU has
 * HWCAP2_I8MM, kern_isa.c). One SMMLA multiplies a 2 x 8 block of signed bytes by another's transpose and adds
 * the 2 x 2 int32 result: here two weight rows times two activation rows over 8 columns, so each weight
 * chunk decoded once serves two (or four) activations.
 *
 * At batch 1 there is nothing to pair: the table's rows are dotprod's kernels (kern_arm.h's and
 * kern_kquant_arm.h's passes with SDOT, instantiated here so that this table has rows of its own, which is
 * what makes kern_job_rows use its batch kernels). Both reach the same exact unit (K-quants: sub-block) sums,
 * and the batch kernels fold them into the accumulators exactly as the pass does (kern_arm_fold; the
 * K-quants' kern_arm_q4_K_fold / kern_arm_q6_K_fold), so row m of a matmul equals the matvec of activation
 * m bit for bit. f32 and f16 run NEON's kernels (the table lacks them). */
#include "kern_arm.h"
#include "kern_kquant_arm.h"

KERN_ARM_QROWS_ALL(kern_arm_dot_sdot)
KERN_ARM_KQ_ROWS_ALL(kern_arm_dot16_sdot)

/* ---- SMMLA tiles: 2 weight rows x 2 or 4 activation rows ---- */

KERN_ARM_INLINE int8x16_t zip1_64(int8x16_t p, int8x16_t q)
{
    return vreinterpretq_s8_s64(vzip1q_s64(vreinterpretq_s64_s8(p), vreinterpretq_s64_s8(q)));
}

KERN_ARM_INLINE int8x16_t zip2_64(int8x16_t p, int8x16_t q)
{
    return vreinterpretq_s8_s64(vzip2q_s64(vreinterpretq_s64_s8(p), vreinterpretq_s64_s8(q)));
}

/* acc += the dots over 16 columns of rows (w0, w1) with activations (x0, x1), as lanes w0.x0, w0.x1, w1.x0,
 * w1.x1: SMMLA's operands hold 8 columns of two rows each (first row in the low 8 bytes). */
KERN_ARM_INLINE int32x4_t mm16(int32x4_t acc, int8x16_t w0, int8x16_t w1, int8x16_t x0, int8x16_t x1)
{
    acc = vmmlaq_s32(acc, zip1_64(w0, w1), zip1_64(x0, x1));
    return vmmlaq_s32(acc, zip2_64(w0, w1), zip2_64(x0, x1));
}

KERN_ARM_INLINE int32x4_t zip1_s32x2(int32x4_t p, int32x4_t q)
{
    return vreinterpretq_s32_s64(vzip1q_s64(vreinterpretq_s64_s32(p), vreinterpretq_s64_s32(q)));
}

KERN_ARM_INLINE int32x4_t zip2_s32x2(int32x4_t p, int32x4_t q)
{
    return vreinterpretq_s32_s64(vzip2q_s64(vreinterpretq_s64_s32(p), vreinterpretq_s64_s32(q)));
}

/* v[k]: unit k's sums as lanes (w0.x0, w0.x1, w1.x0, w1.x1); out[p]: pair p's sums with unit k in lane k, the
 * layout the matvec pass folds (a 4 x 4 transpose). */
KERN_ARM_INLINE void by_pair(const int32x4_t v[4], int32x4_t out[4])
{
    int32x4_t t0 = vtrn1q_s32(v[0], v[1]), t1 = vtrn2q_s32(v[0], v[1]);
    int32x4_t t2 = vtrn1q_s32(v[2], v[3]), t3 = vtrn2q_s32(v[2], v[3]);
    out[0] = zip1_s32x2(t0, t2);
    out[1] = zip1_s32x2(t1, t3);
    out[2] = zip2_s32x2(t0, t2);
    out[3] = zip2_s32x2(t1, t3);
}

/* Units u0 .. u0 + nk - 1 of rows w0, w1 against activations 0 .. 2np - 1 (quants xq, scales dx):
 * acc[r][j] as kern_arm_group leaves row r's accumulator for activation j. */
KERN_ARM_INLINE void mm_group(const uint8_t *w0, const uint8_t *w1, const int8_t *const xq[4],
                              const float *const dx[4], const int np, size_t u0, const int nk, const int unit,
                              kern_arm_decode_fn decode, kern_arm_scale_fn scale, float32x4_t acc[2][4])
{
    int32x4_t s[2][4]; /* [activation pair][unit] */
#pragma GCC unroll 2
    for (int p = 0; p < np; p++)
        s[p][0] = s[p][1] = s[p][2] = s[p][3] = vdupq_n_s32(0);
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        if (k >= nk)
            break;
        for (int c = 0; c < unit / 32; c++) {
            size_t off = (u0 + (size_t)k) * (size_t)unit + 32 * (size_t)c;
            int8x16_t a0, a1, b0, b1;
            decode(w0, u0 + (size_t)k, c, &a0, &a1);
            decode(w1, u0 + (size_t)k, c, &b0, &b1);
#pragma GCC unroll 2
            for (int p = 0; p < np; p++) {
                const int8_t *x0 = xq[2 * p] + off, *x1 = xq[2 * p + 1] + off;
                s[p][k] = mm16(s[p][k], a0, b0, vld1q_s8(x0), vld1q_s8(x1));
                s[p][k] = mm16(s[p][k], a1, b1, vld1q_s8(x0 + 16), vld1q_s8(x1 + 16));
            }
        }
    }
    float32x4_t dw0 = kern_arm_dw4(w0, u0, nk, scale), dw1 = kern_arm_dw4(w1, u0, nk, scale);
#pragma GCC unroll 2
    for (int p = 0; p < np; p++) {
        int32x4_t q[4];
        by_pair(s[p], q);
        float32x4_t dxa = kern_arm_dx4(dx[2 * p], u0, nk), dxb = kern_arm_dx4(dx[2 * p + 1], u0, nk);
        acc[0][2 * p] = kern_arm_fold(acc[0][2 * p], q[0], dw0, dxa);
        acc[0][2 * p + 1] = kern_arm_fold(acc[0][2 * p + 1], q[1], dw0, dxb);
        acc[1][2 * p] = kern_arm_fold(acc[1][2 * p], q[2], dw1, dxa);
        acc[1][2 * p + 1] = kern_arm_fold(acc[1][2 * p + 1], q[3], dw1, dxb);
    }
}

/* Rows w0, w1 against activation rows m[0 .. 2np - 1]: out[r][j]. */
KERN_ARM_INLINE void mm_tile(const uint8_t *w0, const uint8_t *w1, const kern_act *a, const size_t m[4], const int np,
                             const int unit, kern_arm_decode_fn decode, kern_arm_scale_fn scale, float out[2][4])
{
    const int8_t *xq[4];
    const float *dx[4];
    float32x4_t acc[2][4];
#pragma GCC unroll 4
    for (int j = 0; j < 2 * np; j++) {
        xq[j] = kern_act_qs(a, m[j]);
        dx[j] = kern_act_scale(a, m[j]);
        acc[0][j] = acc[1][j] = vdupq_n_f32(0.0f);
    }
    size_t nu = a->cols / (size_t)unit, full = nu / 4 * 4;
    for (size_t u0 = 0; u0 < full; u0 += 4)
        mm_group(w0, w1, xq, dx, np, u0, 4, unit, decode, scale, acc);
    if (full < nu)
        mm_group(w0, w1, xq, dx, np, full, (int)(nu - full), unit, decode, scale, acc);
#pragma GCC unroll 4
    for (int j = 0; j < 2 * np; j++) {
        out[0][j] = vaddvq_f32(acc[0][j]);
        out[1][j] = vaddvq_f32(acc[1][j]);
    }
}

/* ---- SMMLA tiles of the K-quants: 2 weight rows x 2 or 4 activation rows, a block at a time ----
 * Each sub-block's 2 x 2 sums come from SMMLA (exact, as SDOT's); by_pair turns four sub-blocks' into each
 * (row, activation) pair's vector with sub-block k in lane k, the layout of the pass's dots, and the pass's own
 * fold finishes the block for each pair: the same integers and the same float steps, so the matvec's bits. */

/* A block's sub-block dots for rows (b0, b1) x activations (x0, x1): out[p][v] is pair p's (w0.x0, w0.x1, w1.x0,
 * w1.x1) dot vector v, laid out as kern_kquant_arm.h's pass lays its one row's out. */
typedef void (*kq_mm_dots_fn)(const uint8_t *b0, const uint8_t *b1, const int8_t *x0, const int8_t *x1,
                              int32x4_t out[4][4]);

/* Sub-blocks t[0..3]'s 2 x 2 sums as each pair's dot vector v (by_pair: lane k = sub-block k). */
KERN_ARM_INLINE void kq_mm_spread(const int32x4_t t[4], int v, int32x4_t out[4][4])
{
    int32x4_t q[4];
    by_pair(t, q);
#pragma GCC unroll 4
    for (int p = 0; p < 4; p++)
        out[p][v] = q[p];
}

KERN_ARM_INLINE void kq_mm_dots_q4_K(const uint8_t *b0, const uint8_t *b1, const int8_t *x0, const int8_t *x1,
                                     int32x4_t out[4][4])
{
    int32x4_t t[8];
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) {
        int8x16_t lo0[2], hi0[2], lo1[2], hi1[2];
        kern_arm_q4_K_chunk(b0 + offsetof(block_q4_K, qs), c, lo0, hi0);
        kern_arm_q4_K_chunk(b1 + offsetof(block_q4_K, qs), c, lo1, hi1);
        size_t xl = 64 * (size_t)c, xh = xl + 32; /* the low nibbles' 32 elements, then the high ones' */
        int32x4_t zero = vdupq_n_s32(0);
        t[2 * c] = mm16(mm16(zero, lo0[0], lo1[0], vld1q_s8(x0 + xl), vld1q_s8(x1 + xl)), lo0[1], lo1[1],
                        vld1q_s8(x0 + xl + 16), vld1q_s8(x1 + xl + 16));
        t[2 * c + 1] = mm16(mm16(zero, hi0[0], hi1[0], vld1q_s8(x0 + xh), vld1q_s8(x1 + xh)), hi0[1], hi1[1],
                            vld1q_s8(x0 + xh + 16), vld1q_s8(x1 + xh + 16));
    }
    kq_mm_spread(t, 0, out);
    kq_mm_spread(t + 4, 1, out);
}

KERN_ARM_INLINE void kq_mm_dots_q6_K(const uint8_t *b0, const uint8_t *b1, const int8_t *x0, const int8_t *x1,
                                     int32x4_t out[4][4])
{
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        int8x16_t c0[8], c1[8];
        int32x4_t t[8];
        kern_arm_q6_K_half_codes(b0, h, c0);
        kern_arm_q6_K_half_codes(b1, h, c1);
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) { /* a 16-element sub-block: one mm16 */
            size_t o = 128 * (size_t)h + 16 * (size_t)j;
            t[j] = mm16(vdupq_n_s32(0), c0[j], c1[j], vld1q_s8(x0 + o), vld1q_s8(x1 + o));
        }
        kq_mm_spread(t, 2 * h, out);
        kq_mm_spread(t + 4, 2 * h + 1, out);
    }
}

/* Rows w0, w1 against activation rows m[0 .. 2np - 1]: out[r][j], each pair through the pass's fold. */
KERN_ARM_INLINE void kq_mm_tile(const uint8_t *w0, const uint8_t *w1, const kern_act *a, const size_t m[4],
                                const int np, size_t block_bytes, kq_mm_dots_fn dots, kern_arm_kq_fold_fn fold,
                                float out[2][4])
{
    kern_q8_K_row x[4];
    float32x4_t acc[2][4];
#pragma GCC unroll 4
    for (int j = 0; j < 2 * np; j++) {
        x[j] = kern_q8_K_row_of(a, m[j]);
        acc[0][j] = acc[1][j] = vdupq_n_f32(0.0f);
    }
    for (size_t b = 0; b < x[0].nb; b++) {
        const uint8_t *blk[2] = { w0 + b * block_bytes, w1 + b * block_bytes };
#pragma GCC unroll 2
        for (int p = 0; p < np; p++) {
            int32x4_t d[4][4];
            int16x8_t bs[2][2];
            dots(blk[0], blk[1], x[2 * p].qs + b * QK_K, x[2 * p + 1].qs + b * QK_K, d);
            kern_arm_kq_bsums(&x[2 * p], b, bs[0]);
            kern_arm_kq_bsums(&x[2 * p + 1], b, bs[1]);
#pragma GCC unroll 4
            for (int q = 0; q < 4; q++) { /* pair q: row q / 2, activation 2p + q % 2 */
                int r = q / 2, j = 2 * p + q % 2;
                acc[r][j] = fold(acc[r][j], blk[r], d[q], bs[q % 2], x[j].d[b]);
            }
        }
    }
#pragma GCC unroll 4
    for (int j = 0; j < 2 * np; j++) {
        out[0][j] = vaddvq_f32(acc[0][j]);
        out[1][j] = vaddvq_f32(acc[1][j]);
    }
}

/* ---- the batch kernels ---- */

/* Rows w0, w1 against activation rows m[0 .. 2np - 1] (np = 1 or 2, a constant in each use): out[r][j]. */
typedef void (*mm_tile_fn)(const uint8_t *w0, const uint8_t *w1, const kern_act *a, const size_t m[4], const int np,
                           float out[2][4]);

/* kern_batch_fn: rows in pairs, the nm (<= KERN_BATCH_STEP = 4) activations in one or two pairs. An odd last
 * row pairs with itself and a missing activation repeats the last one: computed, never stored, and a real
 * pair's sums do not depend on its partner. */
KERN_ARM_INLINE void mm_batch(const void *w, size_t rb, size_t n, const kern_act *a, size_t m0, size_t nm, float *y,
                              size_t ldy, mm_tile_fn tile)
{
    _Static_assert(KERN_BATCH_STEP == 4, "a batch step is at most two activation pairs");
    const uint8_t *wb = w;
    size_t m[4];
    for (size_t j = 0; j < 4; j++)
        m[j] = m0 + (j < nm ? j : nm - 1);
    for (size_t i = 0; i < n; i += 2) {
        const uint8_t *w0 = wb + i * rb, *w1 = i + 1 < n ? w0 + rb : w0;
        float out[2][4];
        if (nm > 2)
            tile(w0, w1, a, m, 2, out);
        else
            tile(w0, w1, a, m, 1, out);
        for (size_t r = 0; r < 2 && i + r < n; r++)
            for (size_t j = 0; j < nm; j++)
                y[j * ldy + i + r] = out[r][j];
    }
}

/* batch_<format> through mmtile_<format>, its tile with the format's pieces bound (inlined: np stays a constant). */
#define MM_BATCH_OF(name)                                                                                     \
    static void batch_##name(const void *w, size_t rb, size_t n, const kern_act *a, size_t m0, size_t nm,      \
                             float *y, size_t ldy)                                                            \
    {                                                                                                         \
        mm_batch(w, rb, n, a, m0, nm, y, ldy, mmtile_##name);                                                 \
    }

/* The unit formats (kern_arm.h's decoders). */
#define MM_BATCH(name, unit)                                                                                  \
    KERN_ARM_INLINE void mmtile_##name(const uint8_t *w0, const uint8_t *w1, const kern_act *a, const size_t m[4], \
                                     const int np, float out[2][4])                                           \
    {                                                                                                         \
        mm_tile(w0, w1, a, m, np, unit, kern_arm_dec_##name, kern_arm_dw_##name, out);                        \
    }                                                                                                         \
    MM_BATCH_OF(name)

/* The K-quants (kern_kquant_arm.h's folds). */
#define KQ_MM_BATCH(name)                                                                                     \
    KERN_ARM_INLINE void mmtile_##name(const uint8_t *w0, const uint8_t *w1, const kern_act *a, const size_t m[4], \
                                     const int np, float out[2][4])                                           \
    {                                                                                                         \
        kq_mm_tile(w0, w1, a, m, np, sizeof(block_##name), kq_mm_dots_##name, kern_arm_##name##_fold, out);   \
    }                                                                                                         \
    MM_BATCH_OF(name)

MM_BATCH(q8_0, QK8_0)
MM_BATCH(q4_0, QK4_0)
MM_BATCH(q1_0, QK8_0)
MM_BATCH(tq2_0, QK_K)
KQ_MM_BATCH(q4_K)
KQ_MM_BATCH(q6_K)

const kern_table kern_table_i8mm = {
    .isa = KERN_ISA_I8MM,
    .rows = { KERN_ARM_QROWS_LIST, KERN_ARM_KQ_ROWS_LIST }, /* kern_arm.h, kern_kquant_arm.h: dotprod's passes */
    .batch = { KERN_ARM_BATCH_LIST },
    .rows_per_pass = KERN_ARM_ROWS,
};
