/* kern_act_neon.c — activation quantization (q8_0, q8_K) with ARMv8.0 Advanced SIMD, 16 values a step. Same
 * bytes as the reference (kern_act.c): the scale arithmetic (kern_impl.h) and the row driver
 * (kern_act_impl.h) are shared code, and each value goes through the steps of kern_round_clamp (clamp,
 * truncate, +-1 on a fraction of at least one half) lane for lane. dotprod and i8mm add nothing here and
 * use these (kern_act.c's table falls back down their chain). */
#include <arm_neon.h>

#include "kern_act_impl.h"

static inline float32x4_t scaled(const float *x, kern_inv s)
{
    float32x4_t v = vld1q_f32(x);
    return s.divide ? vdivq_f32(v, vdupq_n_f32(s.d)) : vmulq_f32(v, vdupq_n_f32(s.id));
}

/* kern_round_clamp(v, -127, 127) of 4 values. FMAXNM returns the number when the other operand is NaN, so NaN
 * gives -127 like the reference's "not >= lo"; FRINTZ truncates; a true compare is -1. */
static inline int32x4_t round_clamp4(float32x4_t v)
{
    v = vminnmq_f32(vmaxnmq_f32(v, vdupq_n_f32(-127.0f)), vdupq_n_f32(127.0f));
    float32x4_t t = vrndq_f32(v);
    float32x4_t frac = vsubq_f32(v, t);
    int32x4_t q = vcvtq_s32_f32(t);
    int32x4_t up = vreinterpretq_s32_u32(vcgeq_f32(frac, vdupq_n_f32(0.5f)));
    int32x4_t down = vreinterpretq_s32_u32(vcleq_f32(frac, vdupq_n_f32(-0.5f)));
    return vaddq_s32(vsubq_s32(q, up), down);
}

/* FMAXNM skips a NaN, as the reference's amax does; the largest of the others does not depend on the order. */
static float amax_of(const float *x, int n)
{
    float32x4_t m = vdupq_n_f32(0.0f);
    for (int j = 0; j < n; j += 4)
        m = vmaxnmq_f32(m, vabsq_f32(vld1q_f32(x + j)));
    return vmaxnmvq_f32(m);
}

/* Quantizes n values (a multiple of 32) into q, their minus sums of 4 into nsum4; returns minus their sum.
 * The quants are within [-127, 127], so the saturating narrows are exact. */
static int32_t quant_block(const float *x, int n, kern_inv s, int8_t *q, int32_t *nsum4)
{
    int32x4_t total = vdupq_n_s32(0);
    for (int j = 0; j < n; j += 16) {
        int32x4_t a = round_clamp4(scaled(x + j, s)), b = round_clamp4(scaled(x + j + 4, s));
        int32x4_t c = round_clamp4(scaled(x + j + 8, s)), d = round_clamp4(scaled(x + j + 12, s));
        int16x8_t ab = vcombine_s16(vqmovn_s32(a), vqmovn_s32(b)), cd = vcombine_s16(vqmovn_s32(c), vqmovn_s32(d));
        vst1q_s8(q + j, vcombine_s8(vqmovn_s16(ab), vqmovn_s16(cd)));
        /* lane i: the sum of a, b, c or d's four quants */
        int32x4_t sums = vnegq_s32(vpaddq_s32(vpaddq_s32(a, b), vpaddq_s32(c, d)));
        vst1q_s32(nsum4 + j / 4, sums);
        total = vaddq_s32(total, sums);
    }
    return vaddvq_s32(total);
}

/* The row driver (kern_act_impl.h) with this file's steps. */
KERN_ACT_QUANTIZERS(neon)
