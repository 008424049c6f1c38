/* kern_act_avx512.c — activation quantization (q8_0, q8_K) with AVX-512, 16 values a step. Same bytes as the
 * reference (kern_act.c): the scale arithmetic (kern_impl.h) and the row drivers (kern_act_impl.h) are shared
 * code, and each value goes through the steps of kern_round_clamp (clamp, truncate, +-1 on a fraction of at
 * least one half) lane for lane. */
#include "kern_act_impl.h"

#include <immintrin.h>

static inline __m512 scaled(const float *x, kern_inv s)
{
    __m512 v = _mm512_loadu_ps(x);
    return s.divide ? _mm512_div_ps(v, _mm512_set1_ps(s.d)) : _mm512_mul_ps(v, _mm512_set1_ps(s.id));
}

/* kern_round_clamp(v, -127, 127) of 16 values. max_ps returns its second operand for a NaN, like the
 * reference's "not >= lo". */
static inline __m512i round_clamp16(__m512 v)
{
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(-127.0f)), _mm512_set1_ps(127.0f));
    __m512 t = _mm512_roundscale_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m512 frac = _mm512_sub_ps(v, t);
    __m512i q = _mm512_cvttps_epi32(t);
    __mmask16 up = _mm512_cmp_ps_mask(frac, _mm512_set1_ps(0.5f), _CMP_GE_OQ);
    __mmask16 down = _mm512_cmp_ps_mask(frac, _mm512_set1_ps(-0.5f), _CMP_LE_OQ);
    q = _mm512_mask_add_epi32(q, up, q, _mm512_set1_epi32(1));
    return _mm512_mask_sub_epi32(q, down, q, _mm512_set1_epi32(1));
}

static float amax_of(const float *x, int n)
{
    __m512 m = _mm512_setzero_ps();
    for (int j = 0; j < n; j += 16)
        m = _mm512_max_ps(m, _mm512_abs_ps(_mm512_loadu_ps(x + j)));
    return _mm512_reduce_max_ps(m);
}

/* Quantizes n values (a multiple of 32) into q, their minus sums of 4 into nsum4; returns minus their sum. */
static int32_t quant_block(const float *x, int n, kern_inv s, int8_t *q, int32_t *nsum4)
{
    for (int j = 0; j < n; j += 16)
        _mm_storeu_si128((__m128i *)(q + j), _mm512_cvtepi32_epi8(round_clamp16(scaled(x + j, s))));
    __m512i total = _mm512_setzero_si512();
    for (int j = 0; j < n; j += 32) { /* each int32 lane: a group of 4 quants times 1 */
        __m512i bytes = _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)(q + j)));
        __m512i sums = _mm512_sub_epi32(_mm512_setzero_si512(),
                                        _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(1), bytes));
        _mm256_storeu_si256((__m256i *)(nsum4 + j / 4), _mm512_castsi512_si256(sums));
        total = _mm512_add_epi32(total, sums);
    }
    return _mm512_reduce_add_epi32(total);
}

/* The row driver (kern_act_impl.h) with this file's steps. */
KERN_ACT_QUANTIZERS(avx512)

/* The four quants at p (one dword, any alignment) as one int32. */
static inline int32_t quad_at(const int8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Tables g0..g1 of activation row m: entry n = sum of 2 x bit i of n x quant i over the 4 quants, seeded with
 * minus their sum (kern_act.nsum4), so sum over i of +-quant i exactly; one vpdpbusd and a narrowing store each. */
void kern_act_tables_avx512(kern_act *a, size_t m, size_t g0, size_t g1)
{
    const int8_t *q = kern_act_qs(a, m);
    const int32_t *nsum4 = kern_act_nsum4(a, m);
    int16_t *t = a->lut + m * a->cols * 4;
    __m512i signs = _mm512_loadu_si512(kern_act_sign_bytes);
    for (size_t g = g0; g < g1; g++) {
        __m512i e = _mm512_dpbusd_epi32(_mm512_set1_epi32(nsum4[g]), signs, _mm512_set1_epi32(quad_at(q + 4 * g)));
        _mm256_storeu_si256((__m256i *)(t + 16 * g), _mm512_cvtepi32_epi16(e));
    }
}
