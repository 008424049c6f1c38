/* kern_int256.h — the 256-bit kernels of the integer formats (q8_0, q1_0, q4_0, tq2_0): written once and compiled
 * twice, by kern_avx2.c (KERN_ISA_AVX2) and kern_avxvnni.c (KERN_ISA_AVXVNNI), which differ only in how bytes are
 * multiplied and summed (KERN256_DOT) and how a bit field leaves its byte (kern256_field), both in kern_avx2.h.
 * Each includer gets its own static rows_* functions for its own table. Included only by files compiled with the
 * AVX2 flags (and -mavxvnni -mgfni for the second); not public.
 *
 * Same shape as kern_avx512.c: passes of KERN256_ROWS rows share each activation load, every row has its own
 * accumulators and a fixed instruction sequence, so a row gives the same bits in a pass or alone.
 *
 * Integer products: on AVX2, vpmaddubsw (unsigned x signed bytes -> saturating int16 pairs), the pairs of several
 * products added as int16, then one vpmaddwd with ones; with AVX-VNNI, vpdpbusd (the VEX form), which multiplies,
 * sums four bytes and adds into int32 lanes in one instruction. Both are exact, so both give the same bits: the
 * AVX2 side never saturates because the unsigned side is kept small: q8_0 multiplies |w| (0..128) by the activation
 * with w's sign applied (|x| <= 127, kern_act's guarantee): 2 * 128 * 127 < 32767, exact even for w = -128. q4_0
 * (0..15), q1_0 (0 or 1) and tq2_0 (0..2) codes are small by construction; their offsets are taken back out with
 * the activation sums (seedt, nsumb). */
#ifndef KERN_INT256_H
#define KERN_INT256_H

#include "kern_avx2.h"
#include "kern_impl.h"
#include "kern_kquant.h"

#include <immintrin.h>
#include <string.h>



/* ---- q8_0: one block a step ---- */

/* pf: whether the pass prefetches its streams (pass_q8_0: streaming; pass_q8_0_cached: weights in cache, the
 * same arithmetic and bits). */
INLINE void pass_q8_0_pf(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys,
                         const int pf)
{
    const int8_t *xq = kern_act_qs(a, m);
    const float *dx = kern_act_scale(a, m);
    size_t nb = a->cols / QK8_0;
    __m256 acc[KERN256_ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc[r] = _mm256_setzero_ps();
    for (size_t b = 0; b < nb; b++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(xq + b * QK8_0));
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++) {
            const block_q8_0 *blk = (const block_q8_0 *)kern_row_ptr(w, rs, r) + b;
            if (pf)
                kern_prefetch_stream(blk);
            __m256i q = _mm256_loadu_si256((const __m256i *)blk->qs);
            kern256_dot p = KERN256_DOT(KERN256_DOT_ZERO, _mm256_abs_epi8(q), _mm256_sign_epi8(x, q));
            __m256 d = _mm256_set1_ps(_cvtsh_ss(blk->d) * dx[b]);
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(KERN256_DOT_SUM(p)), d, acc[r]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = hsum8(acc[r]);
}
INLINE void pass_q8_0(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    pass_q8_0_pf(w, rs, nr, a, m, y, ys, 1);
}
INLINE void pass_q8_0_cached(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y,
                             size_t ys)
{
    pass_q8_0_pf(w, rs, nr, a, m, y, ys, 0);
}
KERN256_ROWS_FN(q8_0)
KERN256_ROWS_FN(q8_0_cached)


/* ---- two 18-byte blocks (q1_0 and q4_0 share the shape: a half d, then 16 bytes) at once ---- */

/* The payloads of nb blocks (nb <= 2; zero for an absent second) at p side by side and their scales as 8 floats
 * (lanes 4i..4i+3: block i's d, 0 for an absent one). Bytes, not structs: the two formats' blocks alike. */
INLINE __m256i blk18_pair(const char *p, const int nb, __m256 *dw)
{
    kern_half d0, d1 = 0;
    memcpy(&d0, p, sizeof d0);
    if (nb > 1)
        memcpy(&d1, p + 18, sizeof d1);
    __m128i lo = _mm_loadu_si128((const __m128i *)(p + 2));
    __m128i hi = nb > 1 ? _mm_loadu_si128((const __m128i *)(p + 20)) : _mm_setzero_si128();
    uint32_t d = (uint32_t)d0 | (uint32_t)d1 << 16;
    __m256 d2 = _mm256_castps128_ps256(_mm_cvtph_ps(_mm_cvtsi32_si128((int)d))); /* the halves' bits as an int */
    *dw = _mm256_permutevar8x32_ps(d2, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

/* ---- q1_0: 256 weights (two blocks) a step, by bit planes as in kern_subbyte512.h: lane j of a step's sums is
 * activation block j. Byte 4j + t of the step's 32 bytes of bits holds elements 32j + 8t + s in its bits s,
 * and kern_act's transposed quants (qt, in 512-value chunks: this step is half h of one) hold their quants at
 * byte 32h + 4j + t of group s. vpmaddubsw of (bits >> s) & 1 against group s gives int16 pairs of at most
 * 2 x 127; the 8 groups add up to 2032 at most, then one vpmaddwd makes lane j the sum of activation block
 * j's quants under set bits. x = +-d: the block's dot is twice that minus all its quants' (nsumb), exact. ---- */

/* Lane j: the sum of the quants of activation block j whose bit is set; xt: the step's first group. */
INLINE __m256i q1_0_sums(__m256i bits, const int8_t *xt)
{
    const __m256i one = _mm256_set1_epi8(1);
    kern256_dot p = KERN256_DOT(KERN256_DOT_ZERO, _mm256_and_si256(bits, one), _mm256_loadu_si256((const __m256i *)xt));
#pragma GCC unroll 7
    for (int s = 1; s < 8; s++) { /* a 16-bit shift: the mask keeps each byte's own bit s */
        __m256i codes = kern256_field(bits, s, 1);
        p = KERN256_DOT(p, codes, _mm256_loadu_si256((const __m256i *)(xt + 64 * s)));
    }
    return KERN256_DOT_SUM(p);
}

/* Blocks b and (nb = 2) b + 1 of nr rows into their accumulators. */
INLINE void q1_0_step(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, size_t b, const int nb,
                      __m256 acc[KERN256_ROWS])
{
    const int8_t *xt = a->qt + m * kern_act_qt_cols(a->cols) + b / 4 * 512 + b % 4 * 16;
    const __m256i lanes = nb > 1 ? _mm256_set1_epi32(-1) : _mm256_setr_epi32(-1, -1, -1, -1, 0, 0, 0, 0);
    __m256i seed = _mm256_maskload_epi32(kern_act_nsumb(a, m) + 4 * b, lanes);
    __m256 dx = _mm256_maskload_ps(kern_act_scale(a, m) + 4 * b, lanes);
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++) {
        __m256 dw;
        __m256i bits = blk18_pair(kern_row_ptr(w, rs, r) + b * sizeof(block_q1_0), nb, &dw);
        __m256i dot = _mm256_add_epi32(_mm256_slli_epi32(q1_0_sums(bits, xt), 1), seed);
        acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_mul_ps(dw, dx), acc[r]);
    }
}

INLINE void pass_q1_0(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    kern256_pass2(w, rs, nr, a, m, y, ys, a->cols / QK1_0, q1_0_step);
}
KERN256_ROWS_FN(q1_0)

/* ---- q4_0: two blocks (64 weights) a step: 128-bit lane i of the sums is block i ----
 * As kern_subbyte512.h's q4_0, on half of one of kern_act's qt groups: the two blocks' nibbles side by side, the low
 * ones against block i's first 16 quants at 16i, the high ones against its last 16; every int32 lane gathers 8
 * products of one block (int16 pairs of at most 2 x 15 x 127, two added: no saturation), so one float step
 * covers both blocks. seedt takes the nibbles' 8s back out: exact. No software prefetch: this pass is
 * compute-bound (kern_impl.h). */

/* Blocks b and (nb = 2) b + 1 of nr rows into their accumulators. */
INLINE void q4_0_step(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, size_t b, const int nb,
                      __m256 acc[KERN256_ROWS])
{
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    size_t qc = kern_act_qt_cols(a->cols), lane = m * (qc / 8) + b * 4; /* group b / 4, half b % 4 / 2 */
    const int8_t *xt = a->qt + m * qc + b / 4 * 128 + b % 4 * 16;
    __m256i lo = _mm256_loadu_si256((const __m256i *)xt), hi = _mm256_loadu_si256((const __m256i *)(xt + 64));
    __m256i seed = _mm256_loadu_si256((const __m256i *)(a->seedt + lane));
    __m256 dx = _mm256_loadu_ps(a->dxt + lane);
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++) {
        __m256 dw;
        __m256i q = blk18_pair(kern_row_ptr(w, rs, r) + b * sizeof(block_q4_0), nb, &dw);
        kern256_dot p = KERN256_DOT(KERN256_DOT_ZERO, _mm256_and_si256(q, low4), lo);
        p = KERN256_DOT(p, kern256_field(q, 4, 4), hi);
        __m256i s = _mm256_add_epi32(KERN256_DOT_SUM(p), seed);
        acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_mul_ps(dw, dx), acc[r]);
    }
}

INLINE void pass_q4_0(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    kern256_pass2(w, rs, nr, a, m, y, ys, a->cols / QK4_0, q4_0_step);
}
KERN256_ROWS_FN(q4_0)

/* ---- tq2_0 x q8_K: one block a step; bytes 32h + i hold elements 128h + 32l + i in bits 2l, 2l+1 ---- */

INLINE void pass_tq2_0(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    size_t nb = a->cols / QK_K;
    const int8_t *xq = kern_act_qs(a, m);
    const int32_t *ns = kern_act_nsumb(a, m);
    const float *dx = kern_act_scale(a, m);
    __m256 acc[KERN256_ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc[r] = _mm256_setzero_ps();
    for (size_t b = 0; b < nb; b++) {
        const int8_t *x = xq + b * QK_K;
        /* codes are q + 1: the block's -sum in lane 0 takes the 1 back out */
        __m256i seed = _mm256_setr_epi32(ns[b], 0, 0, 0, 0, 0, 0, 0);
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++) {
            const block_tq2_0 *blk = (const block_tq2_0 *)kern_row_ptr(w, rs, r) + b;
            /* int16 pair sums stay small (8 steps x 2 x 2 x 127 < 32767), so they add before widening */
            kern256_dot p = KERN256_DOT_ZERO;
            for (int h = 0; h < 2; h++) {
                __m256i q = _mm256_loadu_si256((const __m256i *)(blk->qs + 32 * h));
#pragma GCC unroll 4
                for (int l = 0; l < 4; l++) {
                    __m256i u = kern256_field(q, 2 * l, 2);
                    __m256i xv = _mm256_loadu_si256((const __m256i *)(x + 128 * h + 32 * l));
                    p = KERN256_DOT(p, u, xv);
                }
            }
            __m256i s = _mm256_add_epi32(KERN256_DOT_SUM(p), seed);
            __m256 d = _mm256_set1_ps(_cvtsh_ss(blk->d) * dx[b]);
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), d, acc[r]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = hsum8(acc[r]);
}
KERN256_ROWS_FN(tq2_0)

#endif
