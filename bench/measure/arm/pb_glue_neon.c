/* pb_glue_neon.c — SiLU(g)·u and RMSNorm's sum of squares with ARMv8.0 Advanced SIMD, 4 values a step
 * (pb_glue_forms.h's recipes, lane for lane the scalar forms': FMLA rounds once as fmaf does, FRINTN rounds to
 * nearest even as rintf does, FDIV is IEEE division, and FMAX/FMIN keep a NaN as the scalar compares do). */
#include "pb_glue_forms.h"

#if defined(__aarch64__)
#include <arm_neon.h>

static inline float32x4_t pb_exp4(float32x4_t t)
{
    t = vminq_f32(vmaxq_f32(t, vdupq_n_f32(PB_EXP_LO)), vdupq_n_f32(PB_EXP_HI));
    float32x4_t n = vrndnq_f32(vmulq_f32(t, vdupq_n_f32(PB_LOG2E)));
    float32x4_t r = vfmaq_f32(t, n, vdupq_n_f32(-PB_LN2_HI)); /* vfmaq_f32(a, b, c) = fmaf(b, c, a) */
    r = vfmaq_f32(r, n, vdupq_n_f32(-PB_LN2_LO));
    float32x4_t p = vfmaq_f32(vdupq_n_f32(PB_EXP_C6), vdupq_n_f32(PB_EXP_C7), r);
    p = vfmaq_f32(vdupq_n_f32(PB_EXP_C5), p, r);
    p = vfmaq_f32(vdupq_n_f32(PB_EXP_C4), p, r);
    p = vfmaq_f32(vdupq_n_f32(PB_EXP_C3), p, r);
    p = vfmaq_f32(vdupq_n_f32(PB_EXP_C2), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    /* n is integral and in -126..127 after the clamp: its biased exponent fits, so 2^n is normal. */
    int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
    return vmulq_f32(p, vreinterpretq_f32_s32(e));
}

/* y[0..3] = silu(g[0..3]) * u[0..3]. */
static inline __attribute__((always_inline)) void pb_silu_mul4(float *y, const float *g, const float *u)
{
    float32x4_t gv = vld1q_f32(g);
    float32x4_t s = vdivq_f32(gv, vaddq_f32(vdupq_n_f32(1.0f), pb_exp4(vnegq_f32(gv))));
    vst1q_f32(y, vmulq_f32(s, vld1q_f32(u)));
}

void pb_silu_mul_neon(float *y, const float *g, const float *u, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        pb_silu_mul4(y + i, g + i, u + i);
    pb_silu_mul_scalar(y + i, g + i, u + i, n - i); /* the tail, same bits */
}

/* Lanes 0-1, 2-3, 4-5, 6-7 of the scalar form's eight in four double vectors. */
double pb_sumsq_neon(const float *x, size_t n)
{
    float64x2_t l[4] = { vdupq_n_f64(0.0), vdupq_n_f64(0.0), vdupq_n_f64(0.0), vdupq_n_f64(0.0) };
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        float32x4_t a = vld1q_f32(x + i), b = vld1q_f32(x + i + 4);
        float64x2_t d[4] = { vcvt_f64_f32(vget_low_f32(a)), vcvt_high_f64_f32(a), vcvt_f64_f32(vget_low_f32(b)),
                             vcvt_high_f64_f32(b) };
        /* the square is exact in double, so the fused add rounds exactly as the scalar's add does */
#pragma GCC unroll 4
        for (int k = 0; k < 4; k++)
            l[k] = vfmaq_f64(l[k], d[k], d[k]);
    }
    double lane[PB_SS_LANES];
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++)
        vst1q_f64(lane + 2 * k, l[k]);
    return pb_sumsq_finish(lane, x, i, n); /* i is a multiple of 8 here */
}

#else
typedef int pb_glue_neon_not_arm64; /* ISO C wants a translation unit to declare something */
#endif
