/* pb_glue_forms.h — the glue's forms by ISA (chosen in pb_glue.c) and the SiLU's exponential they share:
 * pb_glue_scalar.c (scalar), x86/pb_glue_avx2.c (8 lanes) and arm/pb_glue_neon.c (4 lanes), the vector forms'
 * tails through the scalar forms. All run the same operations in the same order (fused multiply-adds where
 * these say fma: C's fmaf, the FMA instruction and FMLA all round once), so a value's bits never depend on
 * which path, or which slice of a row, computed it. Not a public header: pb_glue.h is. */
#ifndef PB_GLUE_FORMS_H
#define PB_GLUE_FORMS_H

#include <stddef.h>

#include "kern_isa.h"

/* e^t for t clamped to [PB_EXP_LO, PB_EXP_HI]: n = round(t log2 e) stays in -126..127, so 2^n is a normal
 * float built from its exponent bits and e^t never overflows (silu(-100) is then -100 / (1 + e^88), finite).
 * t - n ln 2 is taken in two fma steps (Cody and Waite's split of ln 2: the high part has 16 significant bits,
 * so n x its high part is exact), leaving |r| <= 0.347, where the Taylor polynomial to r^7 is within 2e-8 of
 * e^r (r^8/8! at the ends) before rounding. */
#define PB_EXP_LO (-87.0f)
#define PB_EXP_HI 88.0f
#define PB_LOG2E 1.44269504088896341f
#define PB_LN2_HI 0.693145751953125f
#define PB_LN2_LO 1.42860682030941723e-6f
#define PB_EXP_C7 (1.0f / 5040.0f)
#define PB_EXP_C6 (1.0f / 720.0f)
#define PB_EXP_C5 (1.0f / 120.0f)
#define PB_EXP_C4 (1.0f / 24.0f)
#define PB_EXP_C3 (1.0f / 6.0f)
#define PB_EXP_C2 0.5f

/* RMSNorm's sum of squares in double over 8 lanes: lane i % 8 adds x[i]^2 (exact in double: 24-bit
 * significands), in index order, and the lanes combine as ((0+1)+(2+3))+((4+5)+(6+7)). A fixed order, so the
 * scalar form and 8-wide AVX2 (two 4-double accumulators) give the same bits; 8 chains instead of one also
 * make it ~8x faster than a plain loop, whose every add waited for the last. */
#define PB_SS_LANES 8
double pb_sumsq_scalar(const float *x, size_t n);
#if defined(__x86_64__)
double pb_sumsq_avx2(const float *x, size_t n);
#endif
#if defined(__aarch64__)
double pb_sumsq_neon(const float *x, size_t n);
#endif

/* The end every form of the sum of squares shares: elements i..n-1 (i a multiple of PB_SS_LANES, lane[]
 * holding the squares of 0..i-1) added one by one, then the lanes combined in the fixed order. */
static inline double pb_sumsq_finish(double lane[PB_SS_LANES], const float *x, size_t i, size_t n)
{
    for (; i < n; i++)
        lane[i % PB_SS_LANES] += (double)x[i] * x[i];
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

/* y[i] = silu(g[i]) * u[i] for i < n, the scalar form (any n). */
void pb_silu_mul_scalar(float *y, const float *g, const float *u, size_t n);

#if defined(__x86_64__)
/* The same with AVX2 + FMA, 8 values a step, the tail through the scalar form: same bits. */
void pb_silu_mul_avx2(float *y, const float *g, const float *u, size_t n);
#endif
#if defined(__aarch64__)
/* The same with Advanced SIMD, 4 values a step, the tail through the scalar form: same bits. */
void pb_silu_mul_neon(float *y, const float *g, const float *u, size_t n);
#endif

/* One ISA's forms: what pb_rmsnorm and pb_silu_mul call. */
typedef struct pb_glue_ops {
    double (*sumsq)(const float *x, size_t n);
    void (*silu_mul)(float *y, const float *g, const float *u, size_t n);
} pb_glue_ops;

/* The forms that run when isa is asked for (pb_glue_isa's); NULL when isa cannot run here. For tests. */
const pb_glue_ops *pb_glue_ops_of(kern_isa isa);
/* The forms pb_rmsnorm and pb_silu_mul call: the chosen ISA's (kern_isa_chosen), or the best below it. */
const pb_glue_ops *pb_glue_ops_running(void);

#endif
