/* pb_attn_forms.h — attention's inner loops by ISA (chosen in pb_attn.c): pb_attn_scalar.c (any CPU) and
 * x86/pb_attn_avx2.c (AVX2 + FMA + F16C), for both cache types. Every form runs the same operations in the same
 * order, lane for lane (fused multiply-adds where these say fma: C's fmaf and the FMA instruction both round
 * once; f16 to f32 and int8 to f32 conversions are exact), so a score, a probability and an output's bits never
 * depend on the ISA, the thread or the chunk's neighbours: the recipes below are the contract. Not a public
 * header: pb_attn.h is.
 *
 * Dot product q . k of one head (D values, D a multiple of 16 for the vector forms; the scalar form takes any D):
 * PB_ATTN_LANES accumulators, lane l takes j = l, l + 16, ... in increasing j:
 *   f16 cache:  acc[l] = fma(q[j], k[j], acc[l])
 *   q8_0 cache: per block of 32 (scale d): blk[l] = q[j] * k[j], then blk[l] = fma(q[j + 16], k[j + 16], blk[l])
 *               (j = 32b + l), then acc[l] = fma(blk[l], d, acc[l])
 * then the lanes fold as v[i] = acc[i] + acc[i + 8], a[i] = v[i] + v[i + 4], b[i] = a[i] + a[i + 2], b[0] + b[1].
 * Weighted sum of V over positions t in increasing order, per output j:
 *   f16 cache:  o[j] = fma(p[t], v_t[j], o[j])
 *   q8_0 cache: pd = p[t] * d (the block's scale), o[j] = fma(pd, v_t[j], o[j])
 * Exponential (softmax's e^(s - max), always of x <= 0): pb_attn_exp's recipe below. */
#ifndef PB_ATTN_FORMS_H
#define PB_ATTN_FORMS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kern.h"
#include "kern_isa.h"

#define PB_ATTN_LANES 16

/* e^x for x <= 0 as 2^(x log2 e): t = x log2e rounded, n = round(t), f = (t - n) + the product's rounding error
 * (one fma recovers it exactly, a second adds x times log2e's own tail), so f is good to a few 1e-9 even where
 * |t| is 100; 2^f by its Taylor polynomial to f^7 on [-0.5, 0.5] (coefficients ln2^k / k!, within 6e-9 of 2^f),
 * times 2^n built from its exponent bits. x is clamped at PB_ATTN_EXP_LO, where n = -126 is still a normal
 * float's exponent: a probability below 1e-37 of the largest is as good as 0 beside it. */
#define PB_ATTN_EXP_LO (-87.0f)
#define PB_ATTN_LOG2E 1.44269502162933349609375f /* log2 e rounded to float */
#define PB_ATTN_LOG2E_LO 1.925963033500e-8f     /* log2 e - PB_ATTN_LOG2E */
#define PB_ATTN_P7 1.5252733804059841e-5f
#define PB_ATTN_P6 1.5403530393381609e-4f
#define PB_ATTN_P5 1.3333558146428443e-3f
#define PB_ATTN_P4 9.6181291076284772e-3f
#define PB_ATTN_P3 5.5504108664821580e-2f
#define PB_ATTN_P2 2.4022650695910071e-1f
#define PB_ATTN_P1 6.9314718055994531e-1f

static inline float pb_attn_exp(float x)
{
    x = x < PB_ATTN_EXP_LO ? PB_ATTN_EXP_LO : x;
    float t = x * PB_ATTN_LOG2E;
    float n = rintf(t); /* to nearest even, as the vector round does */
    float lo = fmaf(x, PB_ATTN_LOG2E, -t);
    lo = fmaf(x, PB_ATTN_LOG2E_LO, lo);
    float f = (t - n) + lo;
    float p = fmaf(PB_ATTN_P7, f, PB_ATTN_P6);
    p = fmaf(p, f, PB_ATTN_P5);
    p = fmaf(p, f, PB_ATTN_P4);
    p = fmaf(p, f, PB_ATTN_P3);
    p = fmaf(p, f, PB_ATTN_P2);
    p = fmaf(p, f, PB_ATTN_P1);
    p = fmaf(p, f, 1.0f);
    uint32_t bits = (uint32_t)((int)n + 127) << 23; /* n in -126..0 after the clamp */
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* The lanes' fixed fold (see the top). */
static inline float pb_attn_fold(const float acc[PB_ATTN_LANES])
{
    float v[8], a[4];
    for (int i = 0; i < 8; i++)
        v[i] = acc[i] + acc[i + 8];
    for (int i = 0; i < 4; i++)
        a[i] = v[i] + v[i + 4];
    return (a[0] + a[2]) + (a[1] + a[3]);
}

/* One ISA's forms for one cache type. Rows of a head's cache are row_bytes apart, position after position. */
typedef struct pb_attn_ops {
    /* s[t] = q . k_t for t < n */
    void (*scores)(const unsigned char *k, size_t row_bytes, size_t n, const float *q, size_t d, float *s);
    /* o[j] += sum over t < n of p[t] v_t[j], t in order */
    void (*weigh)(const unsigned char *v, size_t row_bytes, size_t n, const float *p, size_t d, float *o);
    /* x[i] = pb_attn_exp(x[i] - m) */
    void (*exp_sub)(float *x, size_t n, float m);
    /* one cache row from d floats: f16 rounds to nearest even, q8_0 is ggml's quantizer (the token's append) */
    void (*store)(unsigned char *row, const float *x, size_t d);
    /* scores and weigh for nq queries at once (a prompt's rows and heads that share a key/value head), each query's
     * figures bit for bit those of scores and weigh alone: a row of the cache is loaded and converted once for all
     * of them. s[i], o[i]: query i's. NULL: scores and weigh once per query. */
    void (*scores_n)(const unsigned char *k, size_t row_bytes, size_t n, const float *const *q, int nq, size_t d,
                     float *const *s);
    void (*weigh_n)(const unsigned char *v, size_t row_bytes, size_t n, const float *const *p, int nq, size_t d,
                    float *const *o);
} pb_attn_ops;

void pb_attn_scores_f16_scalar(const unsigned char *k, size_t row_bytes, size_t n, const float *q, size_t d,
                               float *s);
void pb_attn_scores_q8_scalar(const unsigned char *k, size_t row_bytes, size_t n, const float *q, size_t d, float *s);
void pb_attn_weigh_f16_scalar(const unsigned char *v, size_t row_bytes, size_t n, const float *p, size_t d, float *o);
void pb_attn_weigh_q8_scalar(const unsigned char *v, size_t row_bytes, size_t n, const float *p, size_t d, float *o);
void pb_attn_exp_sub_scalar(float *x, size_t n, float m);
void pb_attn_store_f16_scalar(unsigned char *row, const float *x, size_t d);
void pb_attn_store_q8_scalar(unsigned char *row, const float *x, size_t d);
#if defined(__x86_64__)
void pb_attn_scores_f16_avx2(const unsigned char *k, size_t row_bytes, size_t n, const float *q, size_t d, float *s);
void pb_attn_scores_q8_avx2(const unsigned char *k, size_t row_bytes, size_t n, const float *q, size_t d, float *s);
void pb_attn_weigh_f16_avx2(const unsigned char *v, size_t row_bytes, size_t n, const float *p, size_t d, float *o);
void pb_attn_weigh_q8_avx2(const unsigned char *v, size_t row_bytes, size_t n, const float *p, size_t d, float *o);
void pb_attn_exp_sub_avx2(float *x, size_t n, float m);
void pb_attn_store_f16_avx2(unsigned char *row, const float *x, size_t d);
void pb_attn_scores_n_f16_avx2(const unsigned char *k, size_t row_bytes, size_t n, const float *const *q, int nq,
                               size_t d, float *const *s);
void pb_attn_weigh_n_f16_avx2(const unsigned char *v, size_t row_bytes, size_t n, const float *const *p, int nq,
                              size_t d, float *const *o);
#endif

#endif
