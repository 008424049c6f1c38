/* kern_kquant_arm.h — q4_K and q6_K x q8_K on arm64, for the files that include it (kern_neon.c with
 * SMULL/SADALP dots, kern_dotprod.c and kern_i8mm.c's matvec with SDOT: kern_arm.h's 16-element dots; dotprod's
 * matmul runs the same tile against up to four activations, each block's codes decoded once; i8mm's matmul tiles
 * get the same sub-block dots from SMMLA and finish each block with the same fold). Not a public header (kern.h
 * is).
 *
 * The shape is the x86 K-quant kernels' (kernels/x86/kern_kquant_avx2.c): passes of KERN_ARM_ROWS rows a
 * quarter of the call apart (kern_impl.h's driver), one float32x4_t accumulator per (row, activation) pair, one
 * step per row and 256-weight block. A step has no branch on the row, the pass or the activation and every pair
 * runs the same instructions, so a pair gives the same bits alone, in a pass, in a matmul or on any thread.
 *
 * The integer part of a block is exact, as in the scalar reference (kern_scalar.c):
 *   - the codes go in unsigned (q4_K 0..15, q6_K 0..63: both fit a signed byte), so SMULL's int16 pairs hold at
 *     most 2 x 63 x 127 = 16002 and SDOT's lanes are exact;
 *   - each sub-block's dot gets its own int32x4_t, and ADDP trees turn four of them into one vector whose lane
 *     k is sub-block k's dot, which is then multiplied by a vector of the four scales (MUL/MLA);
 *   - what the codes' offsets take away comes from the activation's bsums (sums of 16 quants), per lane as the
 *     dots: q4_K's mins (m_j x sub-block j's sum, kept apart: it is scaled by dmin, not d), q6_K's 32
 *     (32 x scale_g x sum of sub-block g, subtracted in int32 before the float conversion, so a lane converts
 *     the exact integer its weights give).
 * Bounds: a q4_K lane holds two sub-blocks, at most 2 x 63 x 32 x 15 x 127 < 2^24, so it converts to float
 * exactly; a q6_K lane four, at most 4 x 128 x 16 x 63 x 127 < 2^27 before the offset: exact in int32, and its
 * conversion rounds once, as the reference's (float)sumi does.
 * The float step of a block: acc + float(isum) x (d x dx) (and q4_K's - float(summ) x (dmin x dx)), one
 * rounding for the product of the scales and one per fused multiply-add; the row's result is its lanes added
 * as (0 + 1) + (2 + 3) (vaddvq_f32). */
#ifndef KERN_KQUANT_ARM_H
#define KERN_KQUANT_ARM_H

#include "kern_arm.h"
#include "kern_kquant.h"

/* ---- pieces both formats use ---- */

/* Activation block b's bsums, as the steps take them. */
KERN_ARM_INLINE void kern_arm_kq_bsums(const kern_q8_K_row *x, size_t b, int16x8_t bs[2])
{
    bs[0] = vld1q_s16(x->blk[b].bsums);
    bs[1] = vld1q_s16(x->blk[b].bsums + 8);
}

/* The float step of one row's block against one activation block from its sub-block dots (kern_arm_q4_K_fold,
 * kern_arm_q6_K_fold): what the pass and i8mm's matmul tiles share, so that both give the same bits. */
typedef float32x4_t (*kern_arm_kq_fold_fn)(float32x4_t acc, const uint8_t *blk, const int32x4_t *dots,
                                           const int16x8_t bs[2], float dx);

/* One row's step over one block against nj activation blocks: acc[j] plus the block's dot with activation j;
 * x[j] its quants, bs + 2j its 16 bsums (two vectors, loaded once per block for all the tile's rows), dx[j] its
 * scale. The block's codes are decoded once for the nj activations. */
typedef void (*kern_arm_kq_step_fn)(float32x4_t acc[], const uint8_t *blk, const int8_t *const x[],
                                    const int16x8_t *bs, const float dx[], int nj, kern_arm_dot16_fn dot16);

/* 32 codes (c[0]: the first 16) . the 32 quants at x, from zero. */
KERN_ARM_INLINE int32x4_t kern_arm_kq_dot32(const int8x16_t c[2], const int8_t *x, kern_arm_dot16_fn dot16)
{
    return dot16(dot16(vdupq_n_s32(0), c[0], vld1q_s8(x)), c[1], vld1q_s8(x + 16));
}

/* ---- q4_K: chunk c of 32 qs bytes holds sub-block 2c in its low nibbles and 2c + 1 in its high ones ---- */

/* The block's d and dmin times dx, as lanes 0 and 1 (FCVTL converts the two halves exactly; they are adjacent,
 * d first, so one 32-bit load reads both). */
KERN_ARM_INLINE float32x4_t kern_arm_q4_K_dd(const uint8_t *blk, float dx)
{
    uint32_t both;
    memcpy(&both, blk + offsetof(block_q4_K, d), sizeof both);
    _Static_assert(offsetof(block_q4_K, dmin) == offsetof(block_q4_K, d) + sizeof(kern_half), "d, then dmin");
    return vmulq_n_f32(vcvt_f32_f16(vreinterpret_f16_u32(vdup_n_u32(both))), dx);
}

/* Chunk c's codes (qs: the block's qs bytes): lo[i] = sub-block 2c's elements 16i .., hi[i] = 2c + 1's. */
KERN_ARM_INLINE void kern_arm_q4_K_chunk(const uint8_t *qs, int c, int8x16_t lo[2], int8x16_t hi[2])
{
#pragma GCC unroll 2
    for (int i = 0; i < 2; i++) {
        uint8x16_t q = vld1q_u8(qs + 32 * c + 16 * i);
        lo[i] = vreinterpretq_s8_u8(vandq_u8(q, vdupq_n_u8(0x0F)));
        hi[i] = vreinterpretq_s8_u8(vshrq_n_u8(q, 4));
    }
}

/* The 8 sub-blocks' code . x[j] dots for j < nj as two vectors each: dots[j][0] lane k = sub-block k's,
 * dots[j][1] lane k = k + 4's. Two chunks (four sub-blocks, a vector of dots) at a time, decoded once. */
KERN_ARM_INLINE void kern_arm_q4_K_dots(const uint8_t *qs, const int8_t *const x[], const int nj,
                                        kern_arm_dot16_fn dot16, int32x4_t dots[][2])
{
#pragma GCC unroll 2
    for (int v = 0; v < 2; v++) {
        int8x16_t lo[2][2], hi[2][2];
        kern_arm_q4_K_chunk(qs, 2 * v, lo[0], hi[0]);
        kern_arm_q4_K_chunk(qs, 2 * v + 1, lo[1], hi[1]);
#pragma GCC unroll 4
        for (int j = 0; j < nj; j++) {
            int32x4_t s[4];
#pragma GCC unroll 2
            for (int i = 0; i < 2; i++) {
                const int8_t *xl = x[j] + 64 * (2 * v + i); /* the low nibbles' 32 elements, then the high ones' */
                s[2 * i] = kern_arm_kq_dot32(lo[i], xl, dot16);
                s[2 * i + 1] = kern_arm_kq_dot32(hi[i], xl + 32, dot16);
            }
            dots[j][v] = kern_arm_tree4(s);
        }
    }
}

/* The mins' part, laid out as the dots' lanes: lane k = m_k x (bsums 2k + 2k + 1) + m_k+4 x (bsums 2k + 8 +
 * 2k + 9). ADDP of the two bsums vectors gives sub-block j's sum in int16 lane j (|sum| <= 32 x 127),
 * SMULL/SMLAL2 multiply the low and high four lanes by the widened mins. */
KERN_ARM_INLINE int32x4_t kern_arm_q4_K_mins(uint64_t mn, const int16x8_t bs[2])
{
    int16x8_t m16 = vreinterpretq_s16_u16(vmovl_u8(vcreate_u8(mn)));
    int16x8_t sums = vpaddq_s16(bs[0], bs[1]);
    return vmlal_high_s16(vmull_s16(vget_low_s16(m16), vget_low_s16(sums)), m16, sums);
}

/* The float step of block blk (one row) against one activation block, from its sub-block dots (as
 * kern_arm_q4_K_dots lays them out, however they were summed: they are exact): lane k of the integer part is
 * sc_k x dot_k + sc_k+4 x dot_k+4, added at d x dx; the mins' part is taken away at dmin x dx. */
KERN_ARM_INLINE float32x4_t kern_arm_q4_K_fold(float32x4_t acc, const uint8_t *blk, const int32x4_t dots[2],
                                               const int16x8_t bs[2], float dx)
{
    uint64_t sc, mn;
    kern_q4_K_unpack(blk + offsetof(block_q4_K, scales), &sc, &mn);
    uint16x8_t sc16 = vmovl_u8(vcreate_u8(sc)); /* the 8 scales (bytes of sc) widened: 0-3, then 4-7 */
    int32x4_t isum = vmulq_s32(dots[0], vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(sc16))));
    isum = vmlaq_s32(isum, dots[1], vreinterpretq_s32_u32(vmovl_high_u16(sc16)));
    float32x4_t dd = kern_arm_q4_K_dd(blk, dx);
    acc = vfmaq_laneq_f32(acc, vcvtq_f32_s32(isum), dd, 0);
    return vfmsq_laneq_f32(acc, vcvtq_f32_s32(kern_arm_q4_K_mins(mn, bs)), dd, 1);
}

KERN_ARM_INLINE void kern_arm_kq_step_q4_K(float32x4_t acc[], const uint8_t *blk, const int8_t *const x[],
                                           const int16x8_t *bs, const float dx[], const int nj, kern_arm_dot16_fn dot16)
{
    int32x4_t dots[KERN_ARM_PAIRS][2];
    kern_arm_q4_K_dots(blk + offsetof(block_q4_K, qs), x, nj, dot16, dots);
#pragma GCC unroll 4
    for (int j = 0; j < nj; j++)
        acc[j] = kern_arm_q4_K_fold(acc[j], blk, dots[j], bs + 2 * j, dx[j]);
}

/* ---- q6_K: half h's ql bytes 64h .. 64h + 63 and qh bytes 32h .. 32h + 31 hold elements 128h .. 128h + 127 ---- */

/* 16 codes of k (k < 4: elements 128h + 32k + ..): ql's nibble (low for k < 2, from the ql vector of k & 1) and
 * qh's bits 2k, 2k + 1 as bits 4-5. Shift-and-insert does the merge in one instruction: SLI #4 puts qh (k = 0;
 * k = 1: qh >> 2) above ql's low nibble, SRI #4 puts ql's high nibble under qh's top four bits (k = 2; k = 3:
 * qh >> 2). The bits above 5 are qh's other pairs, so a mask drops them, except for k = 3, whose qh >> 2 has
 * none. Literal shift counts, one call per k, not one computed: without optimisation (-O1 under ASan) the
 * _n intrinsics must see a constant. */
KERN_ARM_INLINE int8x16_t kern_arm_q6_K_codes(uint8x16_t ql, uint8x16_t qh, int k)
{
    const uint8x16_t low6 = vdupq_n_u8(0x3F);
    uint8x16_t c = k == 0   ? vandq_u8(vsliq_n_u8(ql, qh, 4), low6)
                   : k == 1 ? vandq_u8(vsliq_n_u8(ql, vshrq_n_u8(qh, 2), 4), low6)
                   : k == 2 ? vandq_u8(vsriq_n_u8(qh, ql, 4), low6)
                            : vsriq_n_u8(vshrq_n_u8(qh, 2), ql, 4);
    return vreinterpretq_s8_u8(c);
}

/* Half h's 16 code vectors (c[2k + i]: elements 128h + 32k + 16i ..; sub-block 8h + 2k + i). */
KERN_ARM_INLINE void kern_arm_q6_K_half_codes(const uint8_t *blk, int h, int8x16_t c[8])
{
    const uint8_t *ql = blk + offsetof(block_q6_K, ql) + 64 * h, *qh = blk + offsetof(block_q6_K, qh) + 32 * h;
    const uint8x16_t l[2][2] = { { vld1q_u8(ql), vld1q_u8(ql + 16) }, { vld1q_u8(ql + 32), vld1q_u8(ql + 48) } };
    const uint8x16_t hb[2] = { vld1q_u8(qh), vld1q_u8(qh + 16) };
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++)
#pragma GCC unroll 2
        for (int i = 0; i < 2; i++)
            c[2 * k + i] = kern_arm_q6_K_codes(l[k & 1][i], hb[i], k);
}

/* The 16 sub-blocks' code . x[j] dots for j < nj as four vectors each: dots[j][v] lane k = sub-block 4v + k's.
 * A half's codes are decoded once for the nj activations. */
KERN_ARM_INLINE void kern_arm_q6_K_dots(const uint8_t *blk, const int8_t *const x[], const int nj,
                                        kern_arm_dot16_fn dot16, int32x4_t dots[][4])
{
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        int8x16_t c[8];
        kern_arm_q6_K_half_codes(blk, h, c);
#pragma GCC unroll 4
        for (int j = 0; j < nj; j++) {
            int32x4_t s[8];
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++)
                s[i] = dot16(vdupq_n_s32(0), c[i], vld1q_s8(x[j] + 128 * h + 16 * i));
            dots[j][2 * h] = kern_arm_tree4(s);
            dots[j][2 * h + 1] = kern_arm_tree4(s + 4);
        }
    }
}

/* The float step of block blk (one row) against one activation block, from its sub-block dots (as
 * kern_arm_q6_K_dots lays them out, however they were summed): lane k of the integer part is the sum over v < 4
 * of scale 4v + k x (dot 4v + k - 32 x bsums 4v + k), exact in int32 before its conversion; added at d x dx. */
KERN_ARM_INLINE float32x4_t kern_arm_q6_K_fold(float32x4_t acc, const uint8_t *blk, const int32x4_t dots[4],
                                               const int16x8_t bs[2], float dx)
{
    int8x16_t sc8 = vld1q_s8((const int8_t *)(blk + offsetof(block_q6_K, scales)));
    int16x8_t sc16[2] = { vmovl_s8(vget_low_s8(sc8)), vmovl_high_s8(sc8) };
    int32x4_t isum = vmulq_s32(dots[0], vmovl_s16(vget_low_s16(sc16[0])));
    isum = vmlaq_s32(isum, dots[1], vmovl_high_s16(sc16[0]));
    isum = vmlaq_s32(isum, dots[2], vmovl_s16(vget_low_s16(sc16[1])));
    isum = vmlaq_s32(isum, dots[3], vmovl_high_s16(sc16[1]));
    /* the codes' +32: lane k = sum over v < 4 of scale 4v + k x bsums 4v + k, as the dots' lanes, times 32 */
    int32x4_t off = vmlal_high_s16(vmull_s16(vget_low_s16(sc16[0]), vget_low_s16(bs[0])), sc16[0], bs[0]);
    off = vmlal_high_s16(vmlal_s16(off, vget_low_s16(sc16[1]), vget_low_s16(bs[1])), sc16[1], bs[1]);
    isum = vsubq_s32(isum, vshlq_n_s32(off, 5));
    kern_half d = kern_arm_half_at(blk + offsetof(block_q6_K, d));
    float32x4_t dd = vmulq_n_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(d))), dx); /* FCVTL: exact */
    return vfmaq_laneq_f32(acc, vcvtq_f32_s32(isum), dd, 0);
}

KERN_ARM_INLINE void kern_arm_kq_step_q6_K(float32x4_t acc[], const uint8_t *blk, const int8_t *const x[],
                                           const int16x8_t *bs, const float dx[], const int nj, kern_arm_dot16_fn dot16)
{
    int32x4_t dots[KERN_ARM_PAIRS][4];
    kern_arm_q6_K_dots(blk, x, nj, dot16, dots);
#pragma GCC unroll 4
    for (int j = 0; j < nj; j++)
        acc[j] = kern_arm_q6_K_fold(acc[j], blk, dots[j], bs + 2 * j, dx[j]);
}

/* ---- the tile both formats share (kern_arm.h's tiles: nr rows rs bytes apart, activations m0 .. m0 + nj - 1,
 * pair (r, j)'s result into y[r x ys + j x ldy]) ---- */

KERN_ARM_INLINE void kern_arm_kq_tile(const uint8_t *w, size_t rs, const int nr, const kern_act *a, size_t m0,
                                      const int nj, float *y, size_t ys, size_t ldy, size_t block_bytes,
                                      kern_arm_kq_step_fn step, kern_arm_dot16_fn dot16)
{
    kern_q8_K_row x[KERN_ARM_PAIRS];
    float32x4_t acc[KERN_ARM_PAIRS];
#pragma GCC unroll 4
    for (int j = 0; j < nj; j++)
        x[j] = kern_q8_K_row_of(a, m0 + (size_t)j);
#pragma GCC unroll 4
    for (int p = 0; p < nr * nj; p++)
        acc[p] = vdupq_n_f32(0.0f);
    for (size_t b = 0; b < x[0].nb; b++) {
        int16x8_t bs[2 * KERN_ARM_PAIRS];
        const int8_t *xq[KERN_ARM_PAIRS];
        float dx[KERN_ARM_PAIRS];
#pragma GCC unroll 4
        for (int j = 0; j < nj; j++) {
            kern_arm_kq_bsums(&x[j], b, bs + 2 * j);
            xq[j] = x[j].qs + b * QK_K;
            dx[j] = x[j].d[b];
        }
        /* Rolled on purpose: unrolled, GCC interleaves the four rows' steps, runs out of the 32 vector registers
         * and spills (llvm-mca's cycles: docs/kernels.md, K-quants). The activation's vectors stay hoisted out of
         * it, and the four rows still stream together, one block each per iteration of b. */
#pragma GCC unroll 1
        for (int r = 0; r < nr; r++)
            step(acc + r * nj, w + (size_t)r * rs + b * block_bytes, xq, bs, dx, nj, dot16);
    }
    kern_arm_tile_out(acc, nr, nj, y, ys, ldy);
}

/* tile_<format>, pass_<format> and rows_<format> of one K-quant with a 16-element dot. */
#define KERN_ARM_KQ_PASS(name, dot16)                                                                         \
    KERN_ARM_INLINE void tile_##name(const char *w, size_t rs, const int nr, const kern_act *a, size_t m0,     \
                                     const int nj, float *y, size_t ys, size_t ldy)                           \
    {                                                                                                         \
        /* the weights' bytes: char and uint8_t are both character types, so the same bytes are read */       \
        kern_arm_kq_tile((const uint8_t *)w, rs, nr, a, m0, nj, y, ys, ldy, sizeof(block_##name),             \
                         kern_arm_kq_step_##name, dot16);                                                     \
    }                                                                                                         \
    KERN_ARM_PASS_OF(name)

/* Both K-quants' rows with one dot, and their rows[] entries. */
#define KERN_ARM_KQ_ROWS_ALL(dot16) KERN_ARM_KQ_PASS(q4_K, dot16) KERN_ARM_KQ_PASS(q6_K, dot16)
#define KERN_ARM_KQ_ROWS_LIST [KERN_Q4_K] = rows_q4_K, [KERN_Q6_K] = rows_q6_K

/* The batch[] entries of the six quantized formats' batch_<format> (kern_dotprod.c's tiles, kern_i8mm.c's). */
#define KERN_ARM_BATCH_LIST                                                                                   \
    [KERN_Q8_0] = batch_q8_0, [KERN_Q4_0] = batch_q4_0, [KERN_Q1_0] = batch_q1_0, [KERN_TQ2_0] = batch_tq2_0, \
    [KERN_Q4_K] = batch_q4_K, [KERN_Q6_K] = batch_q6_K

#endif
