/* pb_glue.c — see pb_glue.h: the glue's forms by ISA, and the public functions, which run the chosen ISA's
 * form (kern_isa_chosen) or the best one below it. The forms live in pb_glue_scalar.c, x86/pb_glue_avx2.c and
 * arm/pb_glue_neon.c; this file only chooses among them. */
#include "pb_glue.h"

#include <math.h>

#include "pb_glue_forms.h"

/* A row per ISA that has glue forms; an ISA without one (avx512, dotprod, i8mm) runs the best one below it. */
static const pb_glue_ops pb_glue_table[KERN_ISA_COUNT] = {
    [KERN_ISA_SCALAR] = { .sumsq = pb_sumsq_scalar, .silu_mul = pb_silu_mul_scalar },
#if defined(__x86_64__)
    /* glibc's expf dominates a layer's serial glue; 8 lanes at once cut it. */
    [KERN_ISA_AVX2] = { .sumsq = pb_sumsq_avx2, .silu_mul = pb_silu_mul_avx2 },
#endif
#if defined(__aarch64__) /* dotprod and i8mm add nothing to float glue: they run NEON's */
    [KERN_ISA_NEON] = { .sumsq = pb_sumsq_neon, .silu_mul = pb_silu_mul_neon },
#endif
};

/* The ISA whose forms run for want (supported), down want's chain; scalar has them all. */
static kern_isa glue_pick(kern_isa want)
{
    /* The usual case is the first test, want's own forms: it runs for every slice of a fused matvec. */
    while ((unsigned)want < KERN_ISA_COUNT && !pb_glue_table[want].sumsq)
        want = kern_isa_below(want);
    return want;
}

kern_isa pb_glue_isa(kern_isa want)
{
    return kern_isa_supported(want) ? glue_pick(want) : KERN_ISA_COUNT;
}

const pb_glue_ops *pb_glue_ops_of(kern_isa isa)
{
    return kern_isa_supported(isa) ? &pb_glue_table[glue_pick(isa)] : NULL;
}

/* kern_isa_chosen is supported, so this is never NULL. */
const pb_glue_ops *pb_glue_ops_running(void)
{
    return &pb_glue_table[glue_pick(kern_isa_chosen())];
}

void pb_rmsnorm(float *y, const float *x, const float *gamma, size_t n, float eps)
{
    /* The sum of squares in double: a 14336-wide row of values near 1 loses ~4 digits in a float sum. */
    double ss = pb_glue_ops_running()->sumsq(x, n);
    float inv = (float)(1.0 / sqrt(ss / (double)n + eps));
    /* omp simd: GCC's -O2 does not vectorize a loop it cannot prove free of overlap (y may be x); each element
     * is read before it is written, so it is, and lanes run the same two multiplies: the same bits. */
#pragma omp simd
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] * inv * gamma[i];
}

void pb_silu_mul(float *y, const float *g, const float *u, size_t n)
{
    pb_glue_ops_running()->silu_mul(y, g, u, n);
}

void pb_residual_add(float *x, const float *d, size_t n)
{
#pragma omp simd /* as pb_rmsnorm's: one add per element, the same bits */
    for (size_t i = 0; i < n; i++)
        x[i] += d[i];
}
