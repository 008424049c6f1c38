/* pb_glue.h — the serial work between a decode token's matvecs: RMSNorm of the hidden state, SiLU(gate)·up,
 * residual adds. Loops on the calling thread, in a fixed order, so a token's bits never depend on how its
 * matvecs were split over threads; the chosen ISA's forms (kern_isa_chosen: POOLBENCH_ISA, else the best
 * this CPU runs; scalar under POOLBENCH_ISA=scalar) or the best below it, every form giving the scalar
 * form's bits. tests/measure/test_glue.c checks them against a double-precision reference. */
#ifndef PB_GLUE_H
#define PB_GLUE_H

#include <stddef.h>

#include "kern_isa.h"

#define PB_RMS_EPS 1e-6f /* Qwen3's and Llama 3's rms_norm_eps */

/* y[i] = x[i] / sqrt(mean(x²) + eps) * gamma[i], i < n. y may be x. n > 0. */
void pb_rmsnorm(float *y, const float *x, const float *gamma, size_t n, float eps);
/* y[i] = silu(g[i]) * u[i] with silu(g) = g / (1 + e^-g). y may be g or u. */
void pb_silu_mul(float *y, const float *g, const float *u, size_t n);
/* x[i] += d[i]: a residual add. */
void pb_residual_add(float *x, const float *d, size_t n);
/* The ISA whose glue forms run when want is asked for: want, or the best below it with glue forms (avx512
 * runs avx2's); KERN_ISA_COUNT when want cannot run here. pb_glue_isa(kern_isa_chosen()) is what runs. */
kern_isa pb_glue_isa(kern_isa want);

#endif
