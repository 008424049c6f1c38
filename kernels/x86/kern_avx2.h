/* kern_avx2.h — what the AVX2 kernel files share (kern_avx2.c, kern_kquant_avx2.c): rows per pass and the two
 * reductions every pass ends with. Included only by files compiled with the AVX2 flags. Not public. */
#ifndef KERN_AVX2_H
#define KERN_AVX2_H

#include <immintrin.h>

#define KERN256_ROWS 4

/* The sum of 8 floats, in one fixed order. */
static inline __attribute__((always_inline)) float hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* Pairs of int16 summed into int32 lanes: lane i holds bytes 4i..4i+3's products. */
static inline __attribute__((always_inline)) __m256i madd_pairs(__m256i p16)
{
    return _mm256_madd_epi16(p16, _mm256_set1_epi16(1));
}

#endif
