/* kern_test_util.h — helpers shared by the kernel tests: a seeded generator, matrices built through the
 * reference quantizers, and the double-precision oracle. Static functions only (one copy per test file). */
#ifndef KERN_TEST_UTIL_H
#define KERN_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern.h"

/* splitmix64: deterministic, seeded per test so a failure reproduces. */
typedef struct kt_rng {
    uint64_t s;
} kt_rng;

static inline uint64_t kt_next(kt_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static inline float kt_uniform(kt_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)((kt_next(r) >> 40) * 0x1p-24);
}

static inline void kt_fill(kt_rng *r, float *x, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        x[i] = kt_uniform(r, lo, hi);
}

/* Row bytes of a format at cols (cols a multiple of the block). */
static inline size_t kt_row_bytes(kern_format f, size_t cols)
{
    return (size_t)kern_format_matrix_bytes(f, 1, cols);
}

/* rows x cols weights quantized from uniform [-1, 1) floats, in an allocation of exactly the matrix's size
 * (so ASan sees any read past its end). */
static inline void *kt_weights(kt_rng *r, kern_format f, size_t rows, size_t cols)
{
    size_t rb = kt_row_bytes(f, cols);
    char *w = malloc(rows * rb > 0 ? rows * rb : 1);
    float *x = malloc(cols * sizeof(float));
    for (size_t i = 0; i < rows; i++) {
        kt_fill(r, x, cols, -1.0f, 1.0f);
        kern_quantize_row(f, x, w + i * rb, cols);
    }
    free(x);
    return w;
}

static inline float *kt_floats(kt_rng *r, size_t n, float lo, float hi)
{
    float *x = malloc(n * sizeof(float));
    kt_fill(r, x, n, lo, hi);
    return x;
}

/* The activation row m as the kernels see it (dequantized q8_0 / q8_K, or the floats). */
static inline void kt_act_values(const kern_act *a, size_t m, float *out)
{
    size_t cols = a->cols;
    if (a->f32)
        memcpy(out, a->f32 + m * cols, cols * sizeof(float));
    else if (a->q8)
        kern_dequantize_row(KERN_Q8_0, a->q8 + m * (cols / QK8_0), out, cols);
    else
        kern_dequantize_row_q8_K(a->q8k + m * (cols / QK_K), out, cols);
}

/* The exact dot of dequantized weights row and activation row m, in double, and sum |w_i x_i| (the scale
 * the tolerance is relative to). */
static inline double kt_oracle(kern_format f, const void *wrow, const kern_act *a, size_t m, double *abs_sum)
{
    size_t cols = a->cols;
    float *w = malloc(cols * sizeof(float)), *x = malloc(cols * sizeof(float));
    kern_dequantize_row(f, wrow, w, cols);
    kt_act_values(a, m, x);
    double dot = 0.0, mag = 0.0;
    for (size_t i = 0; i < cols; i++) {
        dot += (double)w[i] * (double)x[i];
        mag += fabs((double)w[i] * (double)x[i]);
    }
    free(w);
    free(x);
    *abs_sum = mag;
    return dot;
}

/* An ISA this CPU cannot run, for the tests of that error: there is always one, since every build lacks the
 * other architecture's (x86-64: neon; arm64: avx2). */
static inline kern_isa kt_isa_lacking(void)
{
    for (int i = 0; i < KERN_ISA_COUNT; i++)
        if (!kern_isa_supported((kern_isa)i))
            return (kern_isa)i;
    return KERN_ISA_COUNT;
}

/* The stated tolerance of a float-accumulated dot against the exact one: 2^-16 of sum |w_i x_i|. Float
 * accumulation over at most a few thousand terms (or a few hundred block sums) stays well inside it; the
 * integer parts of the quantized dots are exact, so only that accumulation differs between variants. */
#define KT_DOT_REL_TOL 0x1p-16

#endif
