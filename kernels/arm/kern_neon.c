/* kern_neon.c — ARMv8.0 Advanced SIMD kernels, every format (built with -march=armv8-a; chosen where the CPU
 * has HWCAP_ASIMD, kern_isa.c). The quantized formats are kern_arm.h's pass with SMULL/SADALP integer dots,
 * the K-quants kern_kquant_arm.h's with the same dots 16 elements at a time; f32 and f16 are float passes
 * here, which dotprod and i8mm fall back to (they add nothing for floats). */
#include "kern_arm.h"
#include "kern_kquant_arm.h"

/* ---- f32, f16: four accumulators per row, 16 values a step; the last < 16 through zero-padded copies ---- */

typedef float32x4_t (*load4_fn)(const uint8_t *p);

/* Four weights as floats: f32 as they are, f16 through FCVTL (exact). Byte loads, reinterpreted as lanes. */
KERN_ARM_INLINE float32x4_t load4_f32(const uint8_t *p)
{
    return vreinterpretq_f32_u8(vld1q_u8(p));
}

KERN_ARM_INLINE float32x4_t load4_f16(const uint8_t *p)
{
    return vcvt_f32_f16(vreinterpret_f16_u8(vld1_u8(p)));
}

/* 16 values of nr rows (rs bytes apart; es bytes a weight) times x[0..15]: lane j of acc[r][k] takes value
 * 4k + j. */
KERN_ARM_INLINE void float_step(const uint8_t *w, size_t rs, const int nr, const float *x, size_t es, load4_fn load4,
                                float32x4_t acc[KERN_ARM_ROWS][4])
{
    float32x4_t xv[4] = { vld1q_f32(x), vld1q_f32(x + 4), vld1q_f32(x + 8), vld1q_f32(x + 12) };
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
#pragma GCC unroll 4
        for (int k = 0; k < 4; k++)
            acc[r][k] = vfmaq_f32(acc[r][k], load4(w + (size_t)r * rs + 4 * (size_t)k * es), xv[k]);
}

KERN_ARM_INLINE void float_pass(const uint8_t *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y,
                                size_t ys, size_t es, load4_fn load4)
{
    const float *x = kern_act_f32(a, m);
    size_t cols = a->cols, i = 0;
    float32x4_t acc[KERN_ARM_ROWS][4];
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc[r][0] = acc[r][1] = acc[r][2] = acc[r][3] = vdupq_n_f32(0.0f);
    for (; i + 16 <= cols; i += 16)
        float_step(w + i * es, rs, nr, x + i, es, load4, acc);
    if (i < cols) { /* a zero weight times a zero value adds +0: a row's bits do not depend on its pass */
        uint8_t wt[KERN_ARM_ROWS][16 * sizeof(float)] = { { 0 } };
        float xt[16] = { 0 };
        memcpy(xt, x + i, (cols - i) * sizeof(float));
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++)
            memcpy(wt[r], w + (size_t)r * rs + i * es, (cols - i) * es);
        float_step(wt[0], sizeof wt[0], nr, xt, es, load4, acc);
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[(size_t)r * ys] = vaddvq_f32(vaddq_f32(vaddq_f32(acc[r][0], acc[r][1]), vaddq_f32(acc[r][2], acc[r][3])));
}

/* The weights' bytes: char and uint8_t are both character types, so the casts read the same bytes. */
KERN_ARM_INLINE void pass_f32(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    float_pass((const uint8_t *)w, rs, nr, a, m, y, ys, sizeof(float), load4_f32);
}

KERN_ARM_INLINE void pass_f16(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    float_pass((const uint8_t *)w, rs, nr, a, m, y, ys, sizeof(kern_half), load4_f16);
}

KERN_QUARTER_ROWS_FN(f32, KERN_ARM_ROWS) /* kern_impl.h */
KERN_QUARTER_ROWS_FN(f16, KERN_ARM_ROWS)

/* ---- q8_0, q4_0, q1_0, tq2_0: kern_arm.h's passes with the ARMv8.0 dot ---- */

KERN_ARM_QROWS_ALL(kern_arm_dot_smull)
KERN_ARM_KQ_ROWS_ALL(kern_arm_dot16_smull) /* q4_K, q6_K */

const kern_table kern_table_neon = {
    .isa = KERN_ISA_NEON,
    .rows = { KERN_ROWS_FIRST_SIX, KERN_ARM_KQ_ROWS_LIST }, /* kern_impl.h, kern_kquant_arm.h */
    .rows_per_pass = KERN_ARM_ROWS,
};
