/* kern_scalar.c — the scalar reference dot products: plain C for baseline x86-64 (or any CPU), the oracle
 * every SIMD variant is tested against. One float accumulator, blocks in order; the integer part of each
 * block is exact. */
#include "kern_impl.h"
#include "kern_kquant.h"

static float dot_f32(const void *w, const kern_act *a, size_t m)
{
    const float *wr = w, *x = kern_act_f32(a, m);
    float sum = 0.0f;
    for (size_t i = 0; i < a->cols; i++)
        sum += wr[i] * x[i];
    return sum;
}

static float dot_f16(const void *w, const kern_act *a, size_t m)
{
    const kern_half *wr = w;
    const float *x = kern_act_f32(a, m);
    float sum = 0.0f;
    for (size_t i = 0; i < a->cols; i++)
        sum += kern_h2f(wr[i]) * x[i];
    return sum;
}

/* Inlined into each format's rows (their format a constant there), and kept out of line for kern_scalar_steps. */
#define INLINE static inline __attribute__((always_inline))

/* The block formats' steps (kern_impl.h's kern_scalar_step_fn): block b of a row, at blk, against activation row
 * m, applied to the row's running sum. */
INLINE float step_q8_0(const void *blk, const kern_act *a, size_t m, size_t b, float sum)
{
    const block_q8_0 *w = blk, *x = kern_act_q8(a, m) + b;
    int sumi = 0;
    for (int j = 0; j < QK8_0; j++)
        sumi += w->qs[j] * x->qs[j];
    return sum + (float)sumi * (kern_h2f(w->d) * kern_act_scale(a, m)[b]);
}

INLINE float step_q4_0(const void *blk, const kern_act *a, size_t m, size_t b, float sum)
{
    const block_q4_0 *w = blk;
    const block_q8_0 *x = kern_act_q8(a, m) + b;
    int sumi = 0;
    for (int j = 0; j < QK4_0 / 2; j++) {
        sumi += ((w->qs[j] & 15) - 8) * x->qs[j];
        sumi += ((w->qs[j] >> 4) - 8) * x->qs[j + QK4_0 / 2];
    }
    return sum + (float)sumi * (kern_h2f(w->d) * kern_act_scale(a, m)[b]);
}

/* A q1_0 block spans four q8_0 activation blocks, each with its own scale: four float steps. */
INLINE float step_q1_0(const void *blk, const kern_act *a, size_t m, size_t b, float sum)
{
    const block_q1_0 *w = blk;
    const block_q8_0 *xb = kern_act_q8(a, m);
    const float *dx = kern_act_scale(a, m);
    float dw = kern_h2f(w->d);
    for (int k = 0; k < QK1_0 / QK8_0; k++) {
        const block_q8_0 *x = &xb[b * (QK1_0 / QK8_0) + k];
        int sumi = 0;
        for (int j = 0; j < QK8_0; j++) {
            int e = k * QK8_0 + j;
            sumi += (w->qs[e / 8] >> (e % 8)) & 1 ? x->qs[j] : -x->qs[j];
        }
        sum += (float)sumi * (dw * dx[b * (QK1_0 / QK8_0) + k]);
    }
    return sum;
}

INLINE float step_tq2_0(const void *blk, const kern_act *a, size_t m, size_t b, float sum)
{
    const block_tq2_0 *w = blk;
    const block_q8_K *x = kern_act_q8k(a, m) + b;
    int sumi = 0;
    for (int e = 0; e < QK_K; e++) {
        int q = (w->qs[32 * (e / 128) + e % 32] >> (2 * ((e % 128) / 32))) & 3;
        sumi += (q - 1) * x->qs[e];
    }
    return sum + (float)sumi * (kern_h2f(w->d) * x->d);
}

/* q4_K: per sub-block j of 32, sc_j x (codes . x) and m_j x (sum of x, bsums 2j and 2j + 1) are exact
 * integers; the block adds d x dx times the first and subtracts dmin x dx times the second. */
INLINE float step_q4_K(const void *blk, const kern_act *a, size_t m, size_t b, float sum)
{
    const block_q4_K *w = blk;
    const block_q8_K *x = kern_act_q8k(a, m) + b;
    int sumi = 0, summ = 0;
    for (int j = 0; j < QK_K / 32; j++) {
        int sc, mn, dot = 0;
        kern_q4_K_scale_min(w->scales, j, &sc, &mn);
        for (int l = 0; l < 32; l++)
            dot += kern_q4_K_code(w, 32 * j + l) * x->qs[32 * j + l];
        sumi += sc * dot;
        summ += mn * (x->bsums[2 * j] + x->bsums[2 * j + 1]);
    }
    sum += (float)sumi * (kern_h2f(w->d) * x->d);
    return sum - (float)summ * (kern_h2f(w->dmin) * x->d);
}

/* q6_K: per sub-block of 16, scale x ((code - 32) . x), exact. */
INLINE float step_q6_K(const void *blk, const kern_act *a, size_t m, size_t b, float sum)
{
    const block_q6_K *w = blk;
    const block_q8_K *x = kern_act_q8k(a, m) + b;
    int sumi = 0;
    for (int g = 0; g < QK_K / 16; g++) {
        int dot = 0;
        for (int l = 0; l < 16; l++)
            dot += (kern_q6_K_code(w, 16 * g + l) - 32) * x->qs[16 * g + l];
        sumi += w->scales[g] * dot;
    }
    return sum + (float)sumi * (kern_h2f(w->d) * x->d);
}

const kern_scalar_step_fn kern_scalar_steps[KERN_FORMAT_COUNT] = {
    [KERN_Q8_0] = step_q8_0, [KERN_Q4_0] = step_q4_0, [KERN_Q1_0] = step_q1_0,
    [KERN_TQ2_0] = step_tq2_0, [KERN_Q4_K] = step_q4_K, [KERN_Q6_K] = step_q6_K,
};

/* Format f's dot of the row at w: f32's and f16's element by element, a block format's its step over the row's
 * blocks, in order, from 0. */
INLINE float dot(kern_format f, const void *w, const kern_act *a, size_t m)
{
    if (f == KERN_F32)
        return dot_f32(w, a, m);
    if (f == KERN_F16)
        return dot_f16(w, a, m);
    const kern_format_info *fi = kern_format_get(f);
    float sum = 0.0f;
    for (size_t b = 0; b < a->cols / (size_t)fi->block; b++)
        sum = kern_scalar_steps[f]((const char *)w + b * (size_t)fi->block_bytes, a, m, b, sum);
    return sum;
}

/* One rows function per format, each a loop over its dot. */
#define SCALAR_ROWS(name, id)                                                                                 \
    static void rows_##name(const void *w, size_t row_bytes, size_t n, const kern_act *a, size_t m, float *y) \
    {                                                                                                         \
        for (size_t i = 0; i < n; i++)                                                                        \
            y[i] = dot(id, (const char *)w + i * row_bytes, a, m);                                            \
    }
SCALAR_ROWS(f32, KERN_F32)
SCALAR_ROWS(f16, KERN_F16)
SCALAR_ROWS(q8_0, KERN_Q8_0)
SCALAR_ROWS(q4_0, KERN_Q4_0)
SCALAR_ROWS(q1_0, KERN_Q1_0)
SCALAR_ROWS(tq2_0, KERN_TQ2_0)
SCALAR_ROWS(q4_K, KERN_Q4_K)
SCALAR_ROWS(q6_K, KERN_Q6_K)

const kern_table kern_table_scalar = {
    .isa = KERN_ISA_SCALAR,
    .rows = { KERN_ROWS_FIRST_SIX, [KERN_Q4_K] = rows_q4_K, [KERN_Q6_K] = rows_q6_K }, /* kern_impl.h */
    .rows_per_pass = 1,
};
