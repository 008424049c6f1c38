/* kern_avx2.h — what the 256-bit kernel files share (kern_int256.h, kern_kquant256.h, and the files that compile
 * them: kern_avx2.c, kern_kquant_avx2.c, kern_avxvnni.c): rows per pass, a bit field out of every byte, the two
 * reductions every pass ends with, and the pass of the formats read two blocks a step. Included only by files
 * compiled with the AVX2 flags. Not public. */
#ifndef KERN_AVX2_H
#define KERN_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#include "kern.h"

#define KERN256_ROWS 4
#define INLINE static inline __attribute__((always_inline))

/* The sum of 8 floats, in one fixed order. */
INLINE float hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* Bits shift..shift+bits-1 of every byte, moved to bit 0 (the rest zero). With GFNI one vgf2p8affineqb: row 7 - i
 * of its 8x8 bit matrix (byte 7 - i of the qword) picks input bit shift + i for output bit i; else a 16-bit shift
 * and a mask (the mask keeps each byte's own bits). */
#if defined(__GFNI__)
INLINE __m256i kern256_field(__m256i v, int shift, int bits)
{
    if (shift == 0)
        return _mm256_and_si256(v, _mm256_set1_epi8((char)((1 << bits) - 1)));
    uint64_t m = 0;
    for (int i = 0; i < bits; i++)
        m |= (uint64_t)(1u << (shift + i)) << (8 * (7 - i));
    return _mm256_gf2p8affine_epi64_epi8(v, _mm256_set1_epi64x((long long)m), 0); /* m's bits as the signed type */
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
