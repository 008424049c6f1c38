/* kern_repack_avx512.c — q1_0_r32lut's group kernel on AVX-512 (BW's vpermw). Compiled with the AVX-512 flags;
 * only called after kern_job_check saw the CPU has them.
 *
 * A 64-byte chunk of a group (kern_repack.h) is 32 words, one per row, each the row's next 16 weights; nibble k of
 * a word is 4 weights, and one vpermw looks all 32 nibbles up in the activation's 16-entry table of those 4
 * values (broadcast to both 256-bit halves, so the index's fifth bit, the next nibble's first, picks the same
 * entry). A chunk costs 4 look-ups, 3 shifts and 4 int16 adds for 512 weights, where the file's kernels spend 16
 * vector instructions on 512 weights of one row. The int16 sums of an activation block (32 weights, 8 look-ups of
 * at most 508) are exact; they widen to int32 (even words: rows 0-15, odd: 16-31) and go through the reference's
 * float steps, multiply then add in block order, so every row is bit for bit the scalar reference's. */
#include <immintrin.h>

#include "kern_impl.h"
#include "kern_repack_impl.h"

#define INLINE static inline __attribute__((always_inline))

/* The line mult x kern_prefetch_ahead past p, with the process's hint (kern_prefetch_stream's rule). */
INLINE void kern_prefetch_stream_at(const char *p, unsigned mult)
{
    const void *ahead = (const void *)((uintptr_t)p + mult * kern_prefetch_ahead);
    if (kern_prefetch_temporal)
        __builtin_prefetch(ahead, 0, 1);
    else
        __builtin_prefetch(ahead, 0, 0);
}

/* The int16 sums of the 16 weights of every row in chunk c against the tables t (4 tables of 16 words). */
INLINE __m512i chunk_sums(const char *c, const int16_t *t)
{
    __m512i v = _mm512_loadu_si512(c);
    __m512i t0 = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)t));
    __m512i t1 = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(t + 16)));
    __m512i t2 = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(t + 32)));
    __m512i t3 = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(t + 48)));
    __m512i a = _mm512_add_epi16(_mm512_permutexvar_epi16(v, t0),
                                 _mm512_permutexvar_epi16(_mm512_srli_epi16(v, 4), t1));
    __m512i b = _mm512_add_epi16(_mm512_permutexvar_epi16(_mm512_srli_epi16(v, 8), t2),
                                 _mm512_permutexvar_epi16(_mm512_srli_epi16(v, 12), t3));
    return _mm512_add_epi16(a, b);
}

void kern_group_q1_0_r32lut_avx512(const char *w, const kern_act *a, size_t m, float *y)
{
    const int16_t *lut = a->lut + m * a->cols * 4;
    const float *dx = kern_act_scale(a, m);
    size_t nb = a->cols / QK1_0;
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    for (size_t b = 0; b < nb; b++, w += KERN_R32_BLOCK_BYTES, lut += 16 * (QK1_0 / 4)) {
#pragma GCC unroll 9
        for (int l = 0; l < KERN_R32_BLOCK_BYTES; l += 64) /* one stream: four times a file pass's distance ahead */
            kern_prefetch_stream_at(w + l, 4);
        __m512 d0 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)w));
        __m512 d1 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(w + 32)));
#pragma GCC unroll 4
        for (int k = 0; k < QK1_0 / QK8_0; k++) {
            __m512i sum = _mm512_add_epi16(chunk_sums(w + 64 + 128 * k, lut + 128 * k),
                                           chunk_sums(w + 128 + 128 * k, lut + 128 * k + 64));
            __m512i lo = _mm512_srai_epi32(_mm512_slli_epi32(sum, 16), 16), hi = _mm512_srai_epi32(sum, 16);
            __m512 x = _mm512_set1_ps(dx[4 * b + (size_t)k]);
            s0 = _mm512_add_ps(s0, _mm512_mul_ps(_mm512_cvtepi32_ps(lo), _mm512_mul_ps(d0, x)));
            s1 = _mm512_add_ps(s1, _mm512_mul_ps(_mm512_cvtepi32_ps(hi), _mm512_mul_ps(d1, x)));
        }
    }
    _mm512_storeu_ps(y, s0);
    _mm512_storeu_ps(y + 16, s1);
}
