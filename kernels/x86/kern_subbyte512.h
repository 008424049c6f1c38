/* kern_subbyte512.h — the AVX-512 (BW, VNNI) kernels of the formats whose codes are bit fields of a byte: q1_0 and
 * q4_0 (18-byte blocks: a half d, then 16 bytes of codes, four blocks read at once by blk18_chunk) and tq2_0
 * (2-bit codes). Written once and compiled twice, by the two files that include it:
 * kern_subbyte_avx512.c (KERN_ISA_AVX512) and kern_subbyte_avx512gfni.c (KERN_ISA_AVX512GFNI), which differ only
 * in KERN512_FIELD_AT(v, shift, bits, to), how a code is taken out of its byte (bits shift..shift+bits-1 of every
 * byte, moved to bit to), and in the ISA their exported functions are named after
 * (KERN512_ISA). Every kernel here spends as many instructions taking codes out of bytes as multiplying them: with
 * a shift and a mask that is two instructions a field, the shift on one vector port (vpsrlw zmm issues once
 * a cycle where vpdpbusd zmm issues twice), with GFNI's vgf2p8affineqb one (docs/kernels.md, why these instructions).
 * The rows fit kern_avx512.c's table shape (its header comment says what every pass shares and the
 * unsigned-offset trick): q1_0 and q4_0 read kern_act's transposed quants (qt) and gather four blocks' sums into
 * one float step; tq2_0 folds four blocks' sums into one vector. Included only by files compiled with the AVX-512
 * flags, after defining KERN512_FIELD_AT and KERN512_ISA; not public. */
#ifndef KERN_SUBBYTE512_H
#define KERN_SUBBYTE512_H

#include "kern_avx512.h"
#include "kern_impl.h"

#include <immintrin.h>
#include <stddef.h>

#if !defined(KERN512_FIELD_AT) || !defined(KERN512_ISA)
#error "define KERN512_FIELD_AT(v, shift, bits, to) and KERN512_ISA before including kern_subbyte512.h"
#endif

/* A field's value (moved to bit 0). */
#define KERN512_FIELD(v, shift, bits) KERN512_FIELD_AT(v, shift, bits, 0)

/* ---- four 18-byte blocks (q1_0 and q4_0 share the shape: a half d, then 16 bytes) at once ----
 * Word 2j + u of the payloads (j < 16, u < 2) is word 9 (j / 4) + 1 + 2 (j % 4) + u of the 72 bytes of 4 blocks
 * (block i's payload starts at byte 18i + 2); word 4i + k (k < 4) of the scales is block i's d, word 9i. */
static const uint16_t blk18_payload_words[32] = { 1,  2,  3,  4,  5,  6,  7,  8,  10, 11, 12, 13, 14, 15, 16, 17,
                                                  19, 20, 21, 22, 23, 24, 25, 26, 28, 29, 30, 31, 32, 33, 34, 35 };
static const uint16_t blk18_d_words[32] = { 0, 0, 0, 0, 9, 9, 9, 9, 18, 18, 18, 18, 27, 27, 27, 27 };

/* The payloads of nb blocks (nb <= 4; zero for the rest) side by side (block i's at bytes 16i..16i+15) and their
 * scales as 16 floats (lanes 4i..4i+3: block i's d, 0 for the rest), from the 18 x nb bytes at p, never reading a
 * byte past them. Four whole blocks (every step but a row's last) take their payloads with four 16-byte loads,
 * three of them inserted into lanes 1-3 (a load and one uop on either vector port each): the gather across the
 * two 64-byte halves, vpermt2w, takes two cycles of port 5, which vpermw and the scales' conversion also need.
 * The inserts go as a tree, two deep (the same count): q1_0's row-step is a long dependent path (loads, inserts,
 * eight field extractions into two vpdpbusd chains, conversion, fma), and when the core's other hyperthread is
 * busy the smaller share of the out-of-order window stops hiding a chain (both measured: docs/history/kernels.md). A
 * partial step reads under masks. */
/* No masked vpermb over two overlapping loads (AVX512-VBMI), though it gathers faster in L2: at DRAM size the
 * second, overlapping 64-byte load halves the stream on Zen 5. */

INLINE __m512i blk18_chunk(const char *p, int nb, __m512 *dw)
{
    if (nb == 4) { /* bytes 0..71: lo is 0..63, the last payload 56..71 */
        __m512i lo = _mm512_loadu_si512(p);
        __m512i d = _mm512_permutexvar_epi16(_mm512_loadu_si512(blk18_d_words), lo);
        *dw = _mm512_cvtph_ps(_mm512_castsi512_si256(d));
        /* a tree (two 256-bit halves, then the halves): two inserts deep where a chain was three */
        __m256i q01 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p + 2))),
                                              _mm_loadu_si128((const __m128i *)(p + 20)), 1);
        __m256i q23 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p + 38))),
                                              _mm_loadu_si128((const __m128i *)(p + 56)), 1);
        return _mm512_inserti64x4(_mm512_castsi256_si512(q01), q23, 1);
    }
    unsigned n = 18u * (unsigned)nb;
    __m512i lo = _mm512_maskz_loadu_epi8(n >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << n) - 1, p);
    __m512i hi = _mm512_maskz_loadu_epi8(n > 64 ? ((__mmask64)1 << (n - 64)) - 1 : 0, p + 64);
    __m512i d = _mm512_permutexvar_epi16(_mm512_loadu_si512(blk18_d_words), lo);
    *dw = _mm512_cvtph_ps(_mm512_castsi512_si256(d));
    return _mm512_permutex2var_epi16(lo, _mm512_loadu_si512(blk18_payload_words), hi);
}

/* ---- q1_0: 512 weights (four blocks) a step, by bit planes: lane j of a step's sums is activation block j ----
 * Byte 4j + t of the step's 64 bytes of bits (block j / 4's byte 4(j % 4) + t) holds elements 32j + 8t + s in
 * its bits s, and kern_act's transposed quants (qt) hold those elements' quants at byte 4j + t of group s. So
 * vpdpbusd of (bits >> s) & 1 against group s adds the quants of 4 elements whose bit is 1 into lane j, and
 * after the 8 groups lane j holds the sum of activation block j's quants under set bits: one float step for
 * 16 activation blocks, where a vpdpbusd per 64 weights in element order leaves 8 lanes of each block to
 * convert and scale. x = +-d, so the block's dot is twice that sum minus all its quants' (nsumb): exact. The
 * bits are taken out as 2 x bit (moved to bit 1: the same one instruction), so the sums start from nsumb and end as
 * the dot, with no doubling and no add after them. */

/* Lane j: activation block j's dot with the bits, sum over elements of (2 x bit - 1) x quant (xs: the chunk's 8
 * groups of qt; seed: each lane's nsumb). Two chains of four vpdpbusd (even and odd planes), added at the end:
 * one chain of eight waited ~8 x 5 cycles of latency a row-step, more than the out-of-order window hides behind
 * its ~12 cycles of issue (integer adds: the same sum, the same bits); four chains gain nothing over two
 * (docs/history/kernels.md).
 *
 * What bounds it: two vector instructions per 64 weights (a plane out of its byte, a vpdpbusd), 16 a row-step, and
 * 8 more a row-step for the gather, the scales and the float step (one lane per 32 weights, as q8_0's activation
 * blocks demand): 24 on the two 512-bit ports, 12 cycles for 72 bytes: about one core's read floor. Taking the
 * planes through mask registers instead (the mask selects the quants, so a plane costs no vector instruction) is
 * slower, each way tried: stored and read back by kmovq (store forwarding from a zmm store to qword loads stalls),
 * through general registers, or vpshufbitqmb's masks with zero-masked loads. AMX multiplies bytes, so each 64
 * weights' bits would first become 64 bytes in memory, already more work than this kernel's plane and vpdpbusd.
 * Fewer than two vector instructions per 64 weights needs the weights re-laid (the repacked layout, kern_repack.h).
 * docs/history/kernels.md has the figures. */
INLINE __m512i q1_0_dots(__m512i bits, const __m512i xs[8], __m512i seed)
{
    __m512i even = seed, odd = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int s = 0; s < 8; s += 2) {
        even = _mm512_dpbusd_epi32(even, KERN512_FIELD_AT(bits, s, 1, 1), xs[s]);
        odd = _mm512_dpbusd_epi32(odd, KERN512_FIELD_AT(bits, s + 1, 1, 1), xs[s + 1]);
    }
    return _mm512_add_epi32(even, odd);
}

/* Blocks b .. b + nb - 1 (nb <= 4) of nr rows into their accumulators. */
INLINE void q1_0_step(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, size_t b, const int nb,
                      const int pf, __m512 acc[KERN512_ROWS])
{
    const int8_t *xt = a->qt + m * kern_act_qt_cols(a->cols) + b * QK1_0;
    __mmask16 lanes = nb == 4 ? (__mmask16)0xFFFF : (__mmask16)((1u << (4 * nb)) - 1u);
    __m512i seed = _mm512_maskz_loadu_epi32(lanes, kern_act_nsumb(a, m) + 4 * b);
    __m512 dx = _mm512_maskz_loadu_ps(lanes, kern_act_scale(a, m) + 4 * b);
    __m512i xs[8];
#pragma GCC unroll 8
    for (int s = 0; s < 8; s++)
        xs[s] = _mm512_loadu_si512(xt + 64 * s);
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++) {
        __m512 dw;
        const char *p = kern_row_ptr(w, rs, r) + b * sizeof(block_q1_0);
        if (pf)
            kern512_prefetch_span(p, 4 * sizeof(block_q1_0));
        __m512i bits = blk18_chunk(p, nb, &dw);
        __m512i dot = q1_0_dots(bits, xs, seed);
        acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_mul_ps(dw, dx), acc[r]);
    }
}

KERN512_STEP_PASSES(q1_0, QK1_0)
KERN512_EXPORT_ROWS_ISA(q1_0, KERN512_ISA)

/* ---- q4_0: four blocks (128 weights) a step: 128-bit lane i of the sums is block i ----
 * The four blocks' nibbles side by side (blk18_chunk), the low nibbles against the first 64 bytes of the
 * activation's qt group and the high ones against the next 64 (kern.h: block i's first and last 16 quants at
 * 16i): every int32 lane gathers 8 products of one block, so the 4 lanes of a 128-bit lane share one scale
 * product and one float step covers four blocks (two blocks a step used to convert and scale each block's 8
 * lanes). The nibbles are q + 8; seedt (-8 x each lane's quants) takes the 8s back out: exact. */

/* A group of 4 activation blocks as the step reads it (kern.h's qt, seedt, dxt). */
typedef struct q4_0_x {
    __m512i lo, hi, seed;
    __m512 dx;
} q4_0_x;

/* Group g (blocks 4g..4g+3) of activation row m; past the row everything is zero (kern.h). */
INLINE q4_0_x q4_0_act(const kern_act *a, size_t m, size_t g)
{
    size_t qc = kern_act_qt_cols(a->cols);
    const int8_t *x = a->qt + m * qc + 128 * g;
    size_t lane = m * (qc / 8) + 16 * g;
    return (q4_0_x){ .lo = _mm512_loadu_si512(x), .hi = _mm512_loadu_si512(x + 64),
                     .seed = _mm512_loadu_si512(a->seedt + lane), .dx = _mm512_loadu_ps(a->dxt + lane) };
}

/* acc + one row's dot with the group, its nibbles q and scales dw already loaded. */
INLINE __m512 q4_0_dot(__m512 acc, __m512i q, __m512 dw, const q4_0_x *x)
{
    __m512i s = _mm512_dpbusd_epi32(x->seed, KERN512_FIELD(q, 0, 4), x->lo);
    s = _mm512_dpbusd_epi32(s, KERN512_FIELD(q, 4, 4), x->hi);
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), _mm512_mul_ps(dw, x->dx), acc);
}

/* Blocks b .. b + nb - 1 (b a multiple of 4: group b / 4) of nr rows into their accumulators; pf: the streaming
 * pass's prefetch (two lines a step: a step reads 72 bytes). */
INLINE void q4_0_step(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, size_t b, const int nb,
                      const int pf, __m512 acc[KERN512_ROWS])
{
    q4_0_x x = q4_0_act(a, m, b / 4);
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++) {
        const char *p = kern_row_ptr(w, rs, r) + b * sizeof(block_q4_0);
        if (pf) {
            kern_prefetch_stream(p);
            kern_prefetch_stream(p + 64);
        }
        __m512 dw;
        __m512i q = blk18_chunk(p, nb, &dw);
        acc[r] = q4_0_dot(acc[r], q, dw, &x);
    }
}

KERN512_STEP_PASSES(q4_0, QK4_0)
KERN512_EXPORT_ROWS_ISA(q4_0, KERN512_ISA)

/* Matmul: one weight row against na activation rows, each group's nibbles and scales loaded once for all of
 * them; every (row, activation) pair goes through q4_0_dot as in the matvec pass. */
INLINE void q4_0_bpass(const char *row, const int na, const kern_act *a, size_t m0, float *y, size_t ldy)
{
    size_t nb = a->cols / QK4_0;
    __m512 acc[KERN_BATCH_STEP];
#pragma GCC unroll 4
    for (int j = 0; j < na; j++)
        acc[j] = _mm512_setzero_ps();
    for (size_t g = 0; 4 * g < nb; g++) {
        __m512 dw;
        __m512i q = blk18_chunk(row + 4 * g * sizeof(block_q4_0), nb - 4 * g < 4 ? (int)(nb - 4 * g) : 4, &dw);
#pragma GCC unroll 4
        for (int j = 0; j < na; j++) {
            q4_0_x x = q4_0_act(a, m0 + (size_t)j, g);
            acc[j] = q4_0_dot(acc[j], q, dw, &x);
        }
    }
#pragma GCC unroll 4
    for (int j = 0; j < na; j++)
        y[(size_t)j * ldy] = _mm512_reduce_add_ps(acc[j]);
}

void KERN512_NAME(kern_batch_q4_0_, KERN512_ISA)(const void *w, size_t rb, size_t n, const kern_act *a, size_t m0,
                                                 size_t nm, float *y, size_t ldy)
{
    kern_batch_in_steps(q4_0_bpass, w, rb, n, a, m0, nm, y, ldy);
}

/* ---- tq2_0 x q8_K: four blocks (1024 weights) a float step ----
 * Byte i of a block's 64 holds elements 32l + i (i < 32) or 128 + 32l + i - 32 (i >= 32) in bits 2l..2l+1, so
 * (qs >> 2l) & 3 pairs with the 64-byte group l of kern_act's reordered quants (qsp): four vpdpbusd make a
 * block's 16-lane sum. Four blocks' sums are then folded into one vector (kern512_fold4, kern_avx512.h), so one
 * conversion and one fused multiply-add serve four blocks, where one block a step converted, scaled (its d
 * broadcast) and added each block apart. The codes are q + 1: each block's minus sum of quants (nsumb) takes
 * the 1s back out. */

/* Block blk's 16-lane sum of codes x quants; x: its 256 reordered quants. */
INLINE __m512i tq2_0_sum(const block_tq2_0 *blk, const int8_t *x)
{
    __m512i q = _mm512_loadu_si512(blk->qs);
    __m512i s = _mm512_dpbusd_epi32(_mm512_setzero_si512(), KERN512_FIELD(q, 0, 2), _mm512_loadu_si512(x));
#pragma GCC unroll 3
    for (int l = 1; l < 4; l++)
        s = _mm512_dpbusd_epi32(s, KERN512_FIELD(q, 2 * l, 2), _mm512_loadu_si512(x + 64 * l));
    return s;
}

/* Blocks b .. b + nb - 1 (nb <= 4) of nr rows into their accumulators. */
INLINE void tq2_0_step(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, size_t b, const int nb,
                       const int pf, __m512 acc[KERN512_ROWS])
{
    const int8_t *x = a->qsp + m * a->cols + b * QK_K;
    /* each block's sum into lane t < nb of 128-bit lane 0: added once per block */
    __m512i seed = _mm512_maskz_loadu_epi32((__mmask16)((1u << nb) - 1u), kern_act_nsumb(a, m) + b);
    __m512 dx = kern512_scales4(kern_act_scale(a, m) + b, nb);
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++) {
        const block_tq2_0 *blk = (const block_tq2_0 *)kern_row_ptr(w, rs, r) + b;
        if (pf)
            kern512_prefetch_span((const char *)blk, 4 * sizeof(block_tq2_0)); /* the blocks' bytes */
        __m512i s[4];
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++)
            s[t] = t < nb ? tq2_0_sum(blk + t, x + (size_t)t * QK_K) : _mm512_setzero_si512();
        __m512i dot = _mm512_add_epi32(kern512_fold4(s), seed);
        __m512 dw = kern512_halves4((const char *)blk + offsetof(block_tq2_0, d), sizeof(block_tq2_0), nb);
        acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_mul_ps(dw, dx), acc[r]);
    }
}

KERN512_STEP_PASSES(tq2_0, QK_K)
KERN512_EXPORT_ROWS_ISA(tq2_0, KERN512_ISA)

#endif
