/* pb_glue_scalar.c — the glue's scalar forms (pb_glue_forms.h's recipes): any CPU, and the tails of the vector
 * forms, which call them for the last values so that a value's bits never depend on the form. */
#include <math.h>
#include <string.h>

#include "pb_glue_forms.h"

double pb_sumsq_scalar(const float *x, size_t n)
{
    double lane[PB_SS_LANES] = { 0 };
    return pb_sumsq_finish(lane, x, 0, n);
}

/* e^t, pb_glue_forms.h's recipe. */
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
