/* kern_arm.h — what the arm64 kernel files share (kern_neon.c, kern_dotprod.c, kern_i8mm.c): the weight
 * decoders of the quantized formats, the float step that ends every group of units, and the tiles that tie them
 * together: the matvec pass (rows against one activation) and dotprod's matmul (a row against up to four, each
 * chunk decoded once). Everything here is ARMv8.0 Advanced SIMD, so it compiles in each of those files with its
 * own -march; the integer dot of a chunk is the including file's choice (SMULL/SADALP or SDOT, both below),
 * and kern_i8mm.c gets the same sums with SMMLA. The K-quants (q4_K, q6_K) have a tile of their own over the
 * same dots (kern_kquant_arm.h). Not a public header (kern.h is).
 *
 * What makes a (row, activation) pair give the same bits whichever of these files computes it, alone, in a
 * pass of rows or in a matmul tile:
 *   - a unit is the elements that share one weight scale and one activation scale: 32 (q8_0, q4_0, a quarter
 *     of a q1_0 block) or 256 (tq2_0). Its integer dot is exact however it is added up (|sum| <= 256 x 2 x
 *     127 or 32 x 128 x 127, far inside int32 and below 2^24, so exact as a float too);
 *   - units go in groups of 4: lane k of the pair's float32x4_t accumulator takes float(sum of unit 4g + k) x
 *     (dw x dx), one fused multiply-add per group (kern_arm_fold); the last group's missing units have zero
 *     sums and zero scales;
 *   - the result is the accumulator's lanes added as (0 + 1) + (2 + 3) (vaddvq_f32: FADDP, FADDP).
 * The rows are independent, so splitting them over threads never changes a bit either. */
#ifndef KERN_ARM_H
#define KERN_ARM_H

#include <arm_neon.h>
#include <stddef.h>
#include <string.h>

#include "kern_impl.h"

#if !defined(__aarch64__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "kernels/arm/ is for little-endian arm64: the loads below read a block's bytes as lanes in memory order"
#endif

#define KERN_ARM_ROWS 4 /* rows per matvec pass (KERN_QUARTER_ROWS_FN) */
#define KERN_ARM_INLINE static inline __attribute__((always_inline))

/* ---- integer dots of one 32-element chunk: acc += w . x, spread over the four int32 lanes ---- */

/* Each dot comes in two widths: 16 elements (one vector of each; q6_K's sub-blocks are 16 wide) and the
 * 32-element chunk, two 16-element dots in a row. */

/* ARMv8.0: SMULL/SMLAL put two products in each int16 lane (|w| <= 128 and |x| <= 127, kern_act's guarantee:
 * 2 x 128 x 127 = 32512 fits, -128 weights included), SADALP adds lane pairs into acc. */
KERN_ARM_INLINE int32x4_t kern_arm_dot16_smull(int32x4_t acc, int8x16_t w, int8x16_t x)
{
    return vpadalq_s16(acc, vmlal_high_s8(vmull_s8(vget_low_s8(w), vget_low_s8(x)), w, x));
}

KERN_ARM_INLINE int32x4_t kern_arm_dot_smull(int32x4_t acc, int8x16_t w0, int8x16_t w1, int8x16_t x0, int8x16_t x1)
{
    return kern_arm_dot16_smull(kern_arm_dot16_smull(acc, w0, x0), w1, x1);
}

#if defined(__ARM_FEATURE_DOTPROD)
/* FEAT_DotProd: SDOT adds four signed byte products into each lane, exactly. */
KERN_ARM_INLINE int32x4_t kern_arm_dot16_sdot(int32x4_t acc, int8x16_t w, int8x16_t x)
{
    return vdotq_s32(acc, w, x);
}

KERN_ARM_INLINE int32x4_t kern_arm_dot_sdot(int32x4_t acc, int8x16_t w0, int8x16_t w1, int8x16_t x0, int8x16_t x1)
{
    return kern_arm_dot16_sdot(kern_arm_dot16_sdot(acc, w0, x0), w1, x1);
}
#endif

typedef int32x4_t (*kern_arm_dot_fn)(int32x4_t acc, int8x16_t w0, int8x16_t w1, int8x16_t x0, int8x16_t x1);
typedef int32x4_t (*kern_arm_dot16_fn)(int32x4_t acc, int8x16_t w, int8x16_t x);

/* ---- weight decoders: chunk c (elements 32c .. 32c + 31) of unit u of a row, as signed bytes (lo: the
 * first 16), and unit u's weight scale (the half's bits) ---- */

typedef void (*kern_arm_decode_fn)(const uint8_t *row, size_t u, int c, int8x16_t *lo, int8x16_t *hi);
typedef kern_half (*kern_arm_scale_fn)(const uint8_t *row, size_t u);

KERN_ARM_INLINE kern_half kern_arm_half_at(const uint8_t *p)
{
    kern_half h;
    memcpy(&h, p, sizeof h);
    return h;
}

KERN_ARM_INLINE int8x16_t kern_arm_bytes(const uint8_t *p)
{
    return vreinterpretq_s8_u8(vld1q_u8(p));
}

/* q8_0: the quants as they are (-128 included). */
KERN_ARM_INLINE void kern_arm_dec_q8_0(const uint8_t *row, size_t u, int c, int8x16_t *lo, int8x16_t *hi)
{
    (void)c; /* one chunk per unit */
    const uint8_t *qs = row + u * sizeof(block_q8_0) + offsetof(block_q8_0, qs);
    *lo = kern_arm_bytes(qs);
    *hi = kern_arm_bytes(qs + 16);
}

KERN_ARM_INLINE kern_half kern_arm_dw_q8_0(const uint8_t *row, size_t u)
{
    return kern_arm_half_at(row + u * sizeof(block_q8_0) + offsetof(block_q8_0, d));
}

/* q4_0: low nibbles are elements 0-15, high nibbles 16-31, each minus 8. */
KERN_ARM_INLINE void kern_arm_dec_q4_0(const uint8_t *row, size_t u, int c, int8x16_t *lo, int8x16_t *hi)
{
    (void)c;
    uint8x16_t v = vld1q_u8(row + u * sizeof(block_q4_0) + offsetof(block_q4_0, qs));
    *lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(v, vdupq_n_u8(0x0F))), vdupq_n_s8(8));
    *hi = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(v, 4)), vdupq_n_s8(8));
}

KERN_ARM_INLINE kern_half kern_arm_dw_q4_0(const uint8_t *row, size_t u)
{
    return kern_arm_half_at(row + u * sizeof(block_q4_0) + offsetof(block_q4_0, d));
}

/* 16 elements from two bit bytes (b0: elements 0-7, b1: 8-15, least significant bit first): +1 where the bit
 * is set, -1 where it is not. */
KERN_ARM_INLINE int8x16_t kern_arm_signs(uint8_t b0, uint8_t b1)
{
    const uint8x16_t bit = vreinterpretq_u8_u64(vdupq_n_u64(0x8040201008040201ull)); /* bytes 1, 2, .., 128 */
    uint8x16_t set = vtstq_u8(vcombine_u8(vdup_n_u8(b0), vdup_n_u8(b1)), bit);
    return vbslq_s8(set, vdupq_n_s8(1), vdupq_n_s8(-1));
}

/* q1_0: unit u is quarter u % 4 of block u / 4, its 32 bits in 4 bytes. */
KERN_ARM_INLINE void kern_arm_dec_q1_0(const uint8_t *row, size_t u, int c, int8x16_t *lo, int8x16_t *hi)
{
    (void)c;
    const uint8_t *bits = row + u / 4 * sizeof(block_q1_0) + offsetof(block_q1_0, qs) + 4 * (u % 4);
    *lo = kern_arm_signs(bits[0], bits[1]);
    *hi = kern_arm_signs(bits[2], bits[3]);
}

KERN_ARM_INLINE kern_half kern_arm_dw_q1_0(const uint8_t *row, size_t u)
{
    return kern_arm_half_at(row + u / 4 * sizeof(block_q1_0) + offsetof(block_q1_0, d));
}

/* tq2_0: chunk c = 4h + l is elements 128h + 32l .. + 31, bits 2l..2l+1 of bytes 32h .. 32h + 31, minus 1 (the
 * unused code 3 gives 2, as the reference's dequantization does). USHL by a negative count shifts right. */
KERN_ARM_INLINE void kern_arm_dec_tq2_0(const uint8_t *row, size_t u, int c, int8x16_t *lo, int8x16_t *hi)
{
    const uint8_t *qs = row + u * sizeof(block_tq2_0) + offsetof(block_tq2_0, qs) + 32 * (c / 4);
    const int8x16_t down = vdupq_n_s8((int8_t)(-2 * (c % 4)));
    const uint8x16_t three = vdupq_n_u8(3);
    *lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(vshlq_u8(vld1q_u8(qs), down), three)), vdupq_n_s8(1));
    *hi = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(vshlq_u8(vld1q_u8(qs + 16), down), three)), vdupq_n_s8(1));
}

KERN_ARM_INLINE kern_half kern_arm_dw_tq2_0(const uint8_t *row, size_t u)
{
    return kern_arm_half_at(row + u * sizeof(block_tq2_0) + offsetof(block_tq2_0, d));
}

/* ---- the float step of a group of units ---- */

/* Units u0 .. u0 + nk - 1's weight scales as floats (an exact conversion), zero in the lanes past nk. */
KERN_ARM_INLINE float32x4_t kern_arm_dw4(const uint8_t *row, size_t u0, const int nk, kern_arm_scale_fn scale)
{
    uint16x4_t h = vdup_n_u16(0);
    h = vset_lane_u16(scale(row, u0), h, 0);
    if (nk > 1)
        h = vset_lane_u16(scale(row, u0 + 1), h, 1);
    if (nk > 2)
        h = vset_lane_u16(scale(row, u0 + 2), h, 2);
    if (nk > 3)
        h = vset_lane_u16(scale(row, u0 + 3), h, 3);
    return vcvt_f32_f16(vreinterpret_f16_u16(h));
}

/* The activation's scales of the same units, zero past nk. */
KERN_ARM_INLINE float32x4_t kern_arm_dx4(const float *dx, size_t u0, const int nk)
{
    if (nk == 4)
        return vld1q_f32(dx + u0);
    float t[4] = { 0 };
    memcpy(t, dx + u0, (size_t)nk * sizeof(float));
    return vld1q_f32(t);
}

/* acc + float(sums) x (dw x dx): one rounding for the product of the scales, one for the fused add. */
KERN_ARM_INLINE float32x4_t kern_arm_fold(float32x4_t acc, int32x4_t sums, float32x4_t dw, float32x4_t dx)
{
    return vfmaq_f32(acc, vcvtq_f32_s32(sums), vmulq_f32(dw, dx));
}

/* ---- tiles: nr rows (rs bytes apart) against nj activation rows m0 .. m0 + nj - 1 ----
 * The matvec pass is the tile with nj = 1 (KERN_ARM_ROWS rows sharing each activation load); a matmul's tiles
 * (kern_arm_batch) take 1, 2 or 4 rows against the nj = 4, 2 or 1 activations, decoding each chunk of a row
 * once for all of them. Pair p = r x nj + j (row r, activation j) has its own sums and accumulator and runs the
 * same instructions whatever nr and nj are, so a tile's shape never changes a bit. nr x nj <= KERN_ARM_PAIRS. */

#define KERN_ARM_PAIRS 4 /* (row, activation) pairs a tile keeps: 16 int32x4_t unit sums, half the registers */
_Static_assert(KERN_ARM_ROWS <= KERN_ARM_PAIRS, "a pass is a tile");

/* Four partial sums s[0..3] (int32x4_t lanes) as one vector: lane k = the whole of s[k]. */
KERN_ARM_INLINE int32x4_t kern_arm_tree4(const int32x4_t s[4])
{
    return vpaddq_s32(vpaddq_s32(s[0], s[1]), vpaddq_s32(s[2], s[3]));
}

/* The pairs' results, pair (r, j)'s into y[r x ys + j x ldy]: its accumulator's lanes added as (0 + 1) + (2 + 3)
 * (vaddvq_f32: FADDP, FADDP). */
KERN_ARM_INLINE void kern_arm_tile_out(const float32x4_t acc[KERN_ARM_PAIRS], const int nr, const int nj, float *y,
                                       size_t ys, size_t ldy)
{
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
#pragma GCC unroll 4
        for (int j = 0; j < nj; j++)
            y[(size_t)r * ys + (size_t)j * ldy] = vaddvq_f32(acc[r * nj + j]);
}

/* Units u0 .. u0 + nk - 1 (nk <= 4; a constant 4 except in the last group, so s[][k] stays in registers) of the
 * tile's rows against its activations (quants xq[j], scales dx[j]). */
KERN_ARM_INLINE void kern_arm_group(const uint8_t *w, size_t rs, const int nr, const int8_t *const xq[],
                                    const float *const dx[], const int nj, size_t u0, const int nk, const int unit,
                                    kern_arm_decode_fn decode, kern_arm_scale_fn scale, kern_arm_dot_fn dot,
                                    float32x4_t acc[KERN_ARM_PAIRS])
{
    int32x4_t s[KERN_ARM_PAIRS][4];
    float32x4_t dx4[KERN_ARM_PAIRS];
#pragma GCC unroll 4
    for (int j = 0; j < nj; j++)
        dx4[j] = kern_arm_dx4(dx[j], u0, nk);
#pragma GCC unroll 4
    for (int p = 0; p < nr * nj; p++)
        s[p][0] = s[p][1] = s[p][2] = s[p][3] = vdupq_n_s32(0);
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++) {
        if (k >= nk)
            break;
        for (int c = 0; c < unit / 32; c++) {
            size_t off = (u0 + (size_t)k) * (size_t)unit + 32 * (size_t)c;
            int8x16_t x0[KERN_ARM_PAIRS], x1[KERN_ARM_PAIRS];
#pragma GCC unroll 4
            for (int j = 0; j < nj; j++) {
                x0[j] = vld1q_s8(xq[j] + off);
                x1[j] = vld1q_s8(xq[j] + off + 16);
            }
#pragma GCC unroll 4
            for (int r = 0; r < nr; r++) {
                int8x16_t lo, hi;
                decode(w + (size_t)r * rs, u0 + (size_t)k, c, &lo, &hi); /* once for the nj activations */
#pragma GCC unroll 4
                for (int j = 0; j < nj; j++)
                    s[r * nj + j][k] = dot(s[r * nj + j][k], lo, hi, x0[j], x1[j]);
            }
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++) { /* lane k of the pairwise sums: unit k's whole sum */
        float32x4_t dw = kern_arm_dw4(w + (size_t)r * rs, u0, nk, scale);
#pragma GCC unroll 4
        for (int j = 0; j < nj; j++)
            acc[r * nj + j] = kern_arm_fold(acc[r * nj + j], kern_arm_tree4(s[r * nj + j]), dw, dx4[j]);
    }
}

/* The tile of a quantized format (kern_arm_tile_out's y). */
KERN_ARM_INLINE void kern_arm_qtile(const uint8_t *w, size_t rs, const int nr, const kern_act *a, size_t m0,
                                    const int nj, float *y, size_t ys, size_t ldy, const int unit,
                                    kern_arm_decode_fn decode, kern_arm_scale_fn scale, kern_arm_dot_fn dot)
{
    const int8_t *xq[KERN_ARM_PAIRS];
    const float *dx[KERN_ARM_PAIRS];
    float32x4_t acc[KERN_ARM_PAIRS];
#pragma GCC unroll 4
    for (int j = 0; j < nj; j++) {
        xq[j] = kern_act_qs(a, m0 + (size_t)j);
        dx[j] = kern_act_scale(a, m0 + (size_t)j);
    }
#pragma GCC unroll 4
    for (int p = 0; p < nr * nj; p++)
        acc[p] = vdupq_n_f32(0.0f);
    size_t nu = a->cols / (size_t)unit, full = nu / 4 * 4;
    for (size_t u0 = 0; u0 < full; u0 += 4)
        kern_arm_group(w, rs, nr, xq, dx, nj, u0, 4, unit, decode, scale, dot, acc);
    if (full < nu)
        kern_arm_group(w, rs, nr, xq, dx, nj, full, (int)(nu - full), unit, decode, scale, dot, acc);
    kern_arm_tile_out(acc, nr, nj, y, ys, ldy);
}

/* A format's tile, bound to its pieces: what the pass and the matmul (kern_arm_batch) instantiate. */
typedef void kern_arm_tile_fn(const char *w, size_t rs, int nr, const kern_act *a, size_t m0, int nj, float *y,
                              size_t ys, size_t ldy);

/* pass_<format> (kern_impl.h's kern_pass_fn: the tile of one activation) and rows_<format> (its quarter-rows
 * driver) over tile_<format>. */
#define KERN_ARM_PASS_OF(name)                                                                                \
    KERN_ARM_INLINE void pass_##name(const char *w, size_t rs, const int nr, const kern_act *a, size_t m,      \
                                     float *y, size_t ys)                                                     \
    {                                                                                                         \
        tile_##name(w, rs, nr, a, m, 1, y, ys, 0);                                                            \
    }                                                                                                         \
    KERN_QUARTER_ROWS_FN(name, KERN_ARM_ROWS)

/* tile_<format>, pass_<format> and rows_<format> of one quantized format with a dot. */
#define KERN_ARM_QPASS(name, unit, dot)                                                                       \
    KERN_ARM_INLINE void tile_##name(const char *w, size_t rs, const int nr, const kern_act *a, size_t m0,     \
                                     const int nj, float *y, size_t ys, size_t ldy)                           \
    {                                                                                                         \
        /* the weights' bytes: char and uint8_t are both character types, so the same bytes are read */       \
        kern_arm_qtile((const uint8_t *)w, rs, nr, a, m0, nj, y, ys, ldy, unit, kern_arm_dec_##name,           \
                       kern_arm_dw_##name, dot);                                                              \
    }                                                                                                         \
    KERN_ARM_PASS_OF(name)

/* ---- the matmul: a kern_batch_fn over a format's tile ---- */

/* Rows w .. (n of them, rb bytes apart) against activations m0 .. m0 + nj - 1: tiles of KERN_ARM_PAIRS / nj
 * neighbouring rows (the matmul's rows are a group that stays in L1, kern_matvec.c: no streams to keep apart),
 * the rest one row at a time. */
KERN_ARM_INLINE void kern_arm_batch_nj(kern_arm_tile_fn *tile, const int nj, const char *w, size_t rb, size_t n,
                                       const kern_act *a, size_t m0, float *y, size_t ldy)
{
    const int nr = KERN_ARM_PAIRS / nj;
    size_t i = 0;
    for (; i + (size_t)nr <= n; i += (size_t)nr)
        tile(w + i * rb, rb, nr, a, m0, nj, y + i, 1, ldy);
    for (; i < n; i++)
        tile(w + i * rb, rb, 1, a, m0, nj, y + i, 1, ldy);
}

/* nm (<= KERN_BATCH_STEP) in tiles of at most max_nj activations, each tile's count a constant nj, so that each
 * shape compiles to its own loop with s[][] in registers. */
KERN_ARM_INLINE void kern_arm_batch(kern_arm_tile_fn *tile, const int max_nj, const void *w, size_t rb, size_t n,
                                    const kern_act *a, size_t m0, size_t nm, float *y, size_t ldy)
{
    _Static_assert(KERN_BATCH_STEP == KERN_ARM_PAIRS, "a batch step's activations are one tile's");
    for (size_t j = 0; j < nm; j += (size_t)max_nj) {
        size_t nj = nm - j < (size_t)max_nj ? nm - j : (size_t)max_nj;
        float *yj = y + j * ldy;
        switch (nj) {
        case 1:
            kern_arm_batch_nj(tile, 1, w, rb, n, a, m0 + j, yj, ldy);
            break;
        case 2:
            kern_arm_batch_nj(tile, 2, w, rb, n, a, m0 + j, yj, ldy);
            break;
        case 3:
            kern_arm_batch_nj(tile, 3, w, rb, n, a, m0 + j, yj, ldy);
            break;
        default:
            kern_arm_batch_nj(tile, 4, w, rb, n, a, m0 + j, yj, ldy);
            break;
        }
    }
}

/* batch_<format>, a kern_batch_fn, over tile_<format> (KERN_ARM_QPASS, KERN_ARM_KQ_PASS), max_nj activations a
 * tile (KERN_ARM_PAIRS, or fewer where more run out of registers). */
#define KERN_ARM_BATCH_OF(name, max_nj)                                                                       \
    static void batch_##name(const void *w, size_t rb, size_t n, const kern_act *a, size_t m0, size_t nm,      \
                             float *y, size_t ldy)                                                            \
    {                                                                                                         \
        kern_arm_batch(tile_##name, (max_nj), w, rb, n, a, m0, nm, y, ldy);                                   \
    }

/* The four quantized formats' rows with one dot: the one list the arm files share. */
#define KERN_ARM_QROWS_ALL(dot)                                                                               \
    KERN_ARM_QPASS(q8_0, QK8_0, dot)                                                                          \
    KERN_ARM_QPASS(q4_0, QK4_0, dot)                                                                          \
    KERN_ARM_QPASS(q1_0, QK8_0, dot)                                                                          \
    KERN_ARM_QPASS(tq2_0, QK_K, dot)

/* The rows[] entries of KERN_ARM_QROWS_ALL's kernels (a table adds the K-quants', kern_kquant_arm.h). */
#define KERN_ARM_QROWS_LIST                                                                                   \
    [KERN_Q8_0] = rows_q8_0, [KERN_Q4_0] = rows_q4_0, [KERN_Q1_0] = rows_q1_0, [KERN_TQ2_0] = rows_tq2_0

#endif
