/* kern_avx2.h — what the 256-bit kernel files share (kern_int256.h, kern_kquant256.h, and the files that compile
 * them: kern_avx2.c, kern_kquant_avx2.c, kern_avxvnni.c): rows per pass, a bit field out of every byte, the two
 * reductions every pass ends with, and the pass of the formats read two blocks a step. Included only by files
 * compiled with the AVX2 flags. Not public. */
#ifndef KERN_AVX2_H
#define KERN_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#include "kern.h"
#include "kern_impl.h"

#define KERN256_ROWS 4
#define INLINE static inline __attribute__((always_inline))
#define KERN256_ROWS_FN(name) KERN_QUARTER_ROWS_FN(name, KERN256_ROWS) /* kern_impl.h */

/* The sum of 8 floats, in one fixed order. */
INLINE float hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* ---- what the two builds of kern_int256.h and kern_kquant256.h differ in: plain AVX2 (kern_avx2.c,
 * kern_kquant_avx2.c) or with AVX-VNNI and GFNI (kern_avxvnni.c, -mavxvnni -mgfni). Exact both ways. ---- */

/* Bits shift..shift+bits-1 of every byte, moved to bit 0 (the rest zero): with GFNI one vgf2p8affineqb
 * (kern_gf2_field_matrix); else a 16-bit shift and a mask (the mask keeps each byte's own bits). */
#if defined(__GFNI__)
INLINE __m256i kern256_field(__m256i v, int shift, int bits)
{
    if (shift == 0)
        return _mm256_and_si256(v, _mm256_set1_epi8((char)((1 << bits) - 1)));
    /* the matrix in every qword; its bits as the intrinsic's signed type */
    return _mm256_gf2p8affine_epi64_epi8(v, _mm256_set1_epi64x((long long)kern_gf2_field_matrix(shift, bits, 0)), 0);
}
#else
INLINE __m256i kern256_field(__m256i v, int shift, int bits)
{
    __m256i mask = _mm256_set1_epi8((char)((1 << bits) - 1));
    return _mm256_and_si256(shift ? _mm256_srli_epi16(v, shift) : v, mask);
}
#endif

/* Pairs of int16 summed into int32 lanes: lane i holds bytes 4i..4i+3's products. */
INLINE __m256i madd_pairs(__m256i p16)
{
    return _mm256_madd_epi16(p16, _mm256_set1_epi16(1));
}

/* A sum of byte products in the making: KERN256_DOT(p, u, s) adds the products of unsigned bytes u and signed
 * bytes s (four to an int32 lane, in lane order) to p; KERN256_DOT_SUM(p) is the int32 lanes. */
#if defined(__AVXVNNI__)
typedef __m256i kern256_dot; /* int32 lanes */
#define KERN256_DOT_ZERO _mm256_setzero_si256()
#define KERN256_DOT(p, u, s) _mm256_dpbusd_avx_epi32(p, u, s)
#define KERN256_DOT_SUM(p) (p)
#else
typedef __m256i kern256_dot; /* int16 pairs, widened once at the end (callers keep them from saturating) */
#define KERN256_DOT_ZERO _mm256_setzero_si256()
#define KERN256_DOT(p, u, s) _mm256_add_epi16(p, _mm256_maddubs_epi16(u, s))
#define KERN256_DOT_SUM(p) madd_pairs(p)
#endif

/* acc + the int16 pairs p times the int16 pairs s, each pair summed into its int32 lane: exact either way. */
#if defined(__AVXVNNI__)
#define KERN256_MADD_ADD(acc, p, s) _mm256_dpwssd_avx_epi32(acc, p, s)
#else
#define KERN256_MADD_ADD(acc, p, s) _mm256_add_epi32(acc, _mm256_madd_epi16(p, s))
#endif

/* A step of a format read two blocks a step: blocks b .. b + nb - 1 (nb <= 2) of nr rows (rs bytes apart)
 * against activation row m, into the rows' accumulators. */
typedef void (*kern256_step_fn)(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, size_t b,
                                const int nb, __m256 acc[KERN256_ROWS]);

/* The pass such formats share (q1_0, q4_0): the whole steps over a row's nblocks, the odd last block, then each
 * row's sum into y (ys apart). Inlined with step a constant, so the call to it is direct and inlined too. */
INLINE void kern256_pass2(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys,
                          size_t nblocks, kern256_step_fn step)
{
    __m256 acc[KERN256_ROWS];
    size_t b = 0;
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc[r] = _mm256_setzero_ps();
    for (; b + 2 <= nblocks; b += 2)
        step(w, rs, nr, a, m, b, 2, acc);
    if (b < nblocks)
        step(w, rs, nr, a, m, b, 1, acc);
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = hsum8(acc[r]);
}

#endif
