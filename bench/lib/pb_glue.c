/* pb_glue.c — see pb_glue.h. */
#include "pb_glue.h"

#include <math.h>

void pb_rmsnorm(float *y, const float *x, const float *gamma, size_t n, float eps)
{
    /* The sum of squares in double: a 14336-wide row of values near 1 loses ~4 digits in a float sum. */
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (double)x[i] * x[i];
    float inv = (float)(1.0 / sqrt(ss / (double)n + eps));
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] * inv * gamma[i];
}

void pb_silu_mul(float *y, const float *g, const float *u, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = g[i] / (1.0f + expf(-g[i])) * u[i];
}

void pb_residual_add(float *x, const float *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] += d[i];
}
