/* pb_glue.c — see pb_glue.h. */
#include "pb_glue.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "pb_glue_impl.h"

double pb_sumsq_scalar(const float *x, size_t n)
{
    double lane[PB_SS_LANES] = { 0 };
    for (size_t i = 0; i < n; i++)
        lane[i % PB_SS_LANES] += (double)x[i] * x[i];
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

/* Whether the AVX2 + FMA forms run here. */
static bool pb_glue_avx2(void)
{
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

void pb_rmsnorm(float *y, const float *x, const float *gamma, size_t n, float eps)
{
    /* The sum of squares in double: a 14336-wide row of values near 1 loses ~4 digits in a float sum. */
#if defined(__x86_64__)
    double ss = pb_glue_avx2() ? pb_sumsq_avx2(x, n) : pb_sumsq_scalar(x, n);
#else
    double ss = pb_sumsq_scalar(x, n);
#endif
    float inv = (float)(1.0 / sqrt(ss / (double)n + eps));
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] * inv * gamma[i];
}

/* e^t, pb_glue_impl.h's recipe. */
static float pb_exp(float t)
{
    t = t < PB_EXP_LO ? PB_EXP_LO : t;
    t = t > PB_EXP_HI ? PB_EXP_HI : t;
    float n = rintf(t * PB_LOG2E); /* round to nearest even, as the vector round does */
    float r = fmaf(n, -PB_LN2_HI, t);
    r = fmaf(n, -PB_LN2_LO, r);
    float p = fmaf(PB_EXP_C7, r, PB_EXP_C6);
    p = fmaf(p, r, PB_EXP_C5);
    p = fmaf(p, r, PB_EXP_C4);
    p = fmaf(p, r, PB_EXP_C3);
    p = fmaf(p, r, PB_EXP_C2);
    p = fmaf(p, r, 1.0f);
    p = fmaf(p, r, 1.0f);
    /* 2^n from its bits: n + 127 is in 1..254 after the clamp, a normal float's biased exponent. */
    unsigned bits = (unsigned)((int)n + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

void pb_silu_mul_scalar(float *y, const float *g, const float *u, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = g[i] / (1.0f + pb_exp(-g[i])) * u[i];
}

void pb_silu_mul(float *y, const float *g, const float *u, size_t n)
{
#if defined(__x86_64__)
    /* glibc's expf is ~3.5 ns a value here, half of a layer's serial glue in qwen3-0.6b; 8 lanes take ~1/5. */
    if (pb_glue_avx2()) {
        pb_silu_mul_avx2(y, g, u, n);
        return;
    }
#endif
    pb_silu_mul_scalar(y, g, u, n);
}

void pb_residual_add(float *x, const float *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] += d[i];
}
