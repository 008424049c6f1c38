/* pb_glue_avx2.c — SiLU(g)·u and RMSNorm's sum of squares, 8 values a step (pb_glue_forms.h's recipes, lane
 * for lane the scalar forms'). */
#include "pb_glue_forms.h"

#include <immintrin.h>

static inline __m256 pb_exp8(__m256 t)
{
    t = _mm256_min_ps(_mm256_max_ps(t, _mm256_set1_ps(PB_EXP_LO)), _mm256_set1_ps(PB_EXP_HI));
    __m256 n = _mm256_round_ps(_mm256_mul_ps(t, _mm256_set1_ps(PB_LOG2E)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fmadd_ps(n, _mm256_set1_ps(-PB_LN2_HI), t);
    r = _mm256_fmadd_ps(n, _mm256_set1_ps(-PB_LN2_LO), r);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(PB_EXP_C7), r, _mm256_set1_ps(PB_EXP_C6));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(PB_EXP_C5));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(PB_EXP_C4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(PB_EXP_C3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(PB_EXP_C2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    /* n is integral and in -126..127 after the clamp: its biased exponent fits, so 2^n is normal. */
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

/* y[0..7] = silu(g[0..7]) * u[0..7]. */
static inline __attribute__((always_inline)) void pb_silu_mul8(float *y, const float *g, const float *u)
{
    __m256 gv = _mm256_loadu_ps(g);
    __m256 e = pb_exp8(_mm256_sub_ps(_mm256_setzero_ps(), gv));
    __m256 s = _mm256_div_ps(gv, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
    _mm256_storeu_ps(y, _mm256_mul_ps(s, _mm256_loadu_ps(u)));
}

void pb_silu_mul_avx2(float *y, const float *g, const float *u, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        pb_silu_mul8(y + i, g + i, u + i);
    pb_silu_mul_scalar(y + i, g + i, u + i, n - i); /* the tail, same bits */
}

double pb_sumsq_avx2(const float *x, size_t n)
{
    __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd(); /* lanes 0-3 and 4-7 */
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256d a = _mm256_cvtps_pd(_mm256_castps256_ps128(v)), b = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
        /* the square is exact in double, so the fused add rounds exactly as the scalar's add does */
        lo = _mm256_fmadd_pd(a, a, lo);
        hi = _mm256_fmadd_pd(b, b, hi);
    }
    double lane[PB_SS_LANES];
    _mm256_storeu_pd(lane, lo);
    _mm256_storeu_pd(lane + 4, hi);
    return pb_sumsq_finish(lane, x, i, n); /* i is a multiple of 8 here */
}
