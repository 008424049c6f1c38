/* pb_glue.h — the serial work between a decode token's matvecs: RMSNorm of the hidden state, SiLU(gate)·up,
 * residual adds. Plain scalar loops on the calling thread, in a fixed order, so a token's bits never depend
 * on how its matvecs were split over threads. tests/test_glue.c checks them against a double-precision
 * reference. */
#ifndef PB_GLUE_H
#define PB_GLUE_H

#include <stddef.h>

#define PB_RMS_EPS 1e-6f /* Qwen3's and Llama 3's rms_norm_eps */

/* y[i] = x[i] / sqrt(mean(x²) + eps) * gamma[i], i < n. y may be x. n > 0. */
void pb_rmsnorm(float *y, const float *x, const float *gamma, size_t n, float eps);
/* y[i] = silu(g[i]) * u[i] with silu(g) = g / (1 + e^-g). y may be g or u. */
void pb_silu_mul(float *y, const float *g, const float *u, size_t n);
/* x[i] += d[i]: a residual add. */
void pb_residual_add(float *x, const float *d, size_t n);

#endif
