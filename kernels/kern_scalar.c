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

static float dot_q8_0(const void *w, const kern_act *a, size_t m)
{
    const block_q8_0 *wb = w, *xb = kern_act_q8(a, m);
    const float *dx = kern_act_scale(a, m);
    float sum = 0.0f;
    for (size_t b = 0; b < a->cols / QK8_0; b++) {
        int sumi = 0;
        for (int j = 0; j < QK8_0; j++)
            sumi += wb[b].qs[j] * xb[b].qs[j];
        sum += (float)sumi * (kern_h2f(wb[b].d) * dx[b]);
    }
    return sum;
}

static float dot_q4_0(const void *w, const kern_act *a, size_t m)
{
    const block_q4_0 *wb = w;
    const block_q8_0 *xb = kern_act_q8(a, m);
    const float *dx = kern_act_scale(a, m);
    float sum = 0.0f;
    for (size_t b = 0; b < a->cols / QK4_0; b++) {
        int sumi = 0;
        for (int j = 0; j < QK4_0 / 2; j++) {
            sumi += ((wb[b].qs[j] & 15) - 8) * xb[b].qs[j];
            sumi += ((wb[b].qs[j] >> 4) - 8) * xb[b].qs[j + QK4_0 / 2];
        }
        sum += (float)sumi * (kern_h2f(wb[b].d) * dx[b]);
    }
    return sum;
}

/* A q1_0 block spans four q8_0 activation blocks, each with its own scale. */
static float dot_q1_0(const void *w, const kern_act *a, size_t m)
{
    const block_q1_0 *wb = w;
    const block_q8_0 *xb = kern_act_q8(a, m);
    const float *dx = kern_act_scale(a, m);
    float sum = 0.0f;
    for (size_t b = 0; b < a->cols / QK1_0; b++) {
        float dw = kern_h2f(wb[b].d);
        for (int k = 0; k < QK1_0 / QK8_0; k++) {
            const block_q8_0 *x = &xb[b * (QK1_0 / QK8_0) + k];
            int sumi = 0;
            for (int j = 0; j < QK8_0; j++) {
                int e = k * QK8_0 + j;
                sumi += (wb[b].qs[e / 8] >> (e % 8)) & 1 ? x->qs[j] : -x->qs[j];
            }
            sum += (float)sumi * (dw * dx[b * (QK1_0 / QK8_0) + k]);
        }
    }
    return sum;
}

static float dot_tq2_0(const void *w, const kern_act *a, size_t m)
{
    const block_tq2_0 *wb = w;
    const block_q8_K *xb = kern_act_q8k(a, m);
    float sum = 0.0f;
    for (size_t b = 0; b < a->cols / QK_K; b++) {
        int sumi = 0;
        for (int e = 0; e < QK_K; e++) {
            int q = (wb[b].qs[32 * (e / 128) + e % 32] >> (2 * ((e % 128) / 32))) & 3;
            sumi += (q - 1) * xb[b].qs[e];
        }
        sum += (float)sumi * (kern_h2f(wb[b].d) * xb[b].d);
    }
    return sum;
}

/* q4_K: per sub-block j of 32, sc_j x (codes . x) and m_j x (sum of x, bsums 2j and 2j + 1) are exact
 * integers; the block adds d x dx times the first and subtracts dmin x dx times the second. */
static float dot_q4_K(const void *w, const kern_act *a, size_t m)
{
    const block_q4_K *wb = w;
    const block_q8_K *xb = kern_act_q8k(a, m);
    float sum = 0.0f;
    for (size_t b = 0; b < a->cols / QK_K; b++) {
        int sumi = 0, summ = 0;
        for (int j = 0; j < QK_K / 32; j++) {
            int sc, mn, dot = 0;
            kern_q4_K_scale_min(wb[b].scales, j, &sc, &mn);
            for (int l = 0; l < 32; l++)
                dot += kern_q4_K_code(&wb[b], 32 * j + l) * xb[b].qs[32 * j + l];
            sumi += sc * dot;
            summ += mn * (xb[b].bsums[2 * j] + xb[b].bsums[2 * j + 1]);
        }
        sum += (float)sumi * (kern_h2f(wb[b].d) * xb[b].d);
        sum -= (float)summ * (kern_h2f(wb[b].dmin) * xb[b].d);
    }
    return sum;
}

/* q6_K: per sub-block of 16, scale x ((code - 32) . x), exact. */
static float dot_q6_K(const void *w, const kern_act *a, size_t m)
{
    const block_q6_K *wb = w;
    const block_q8_K *xb = kern_act_q8k(a, m);
    float sum = 0.0f;
    for (size_t b = 0; b < a->cols / QK_K; b++) {
        int sumi = 0;
        for (int g = 0; g < QK_K / 16; g++) {
            int dot = 0;
            for (int l = 0; l < 16; l++)
                dot += (kern_q6_K_code(&wb[b], 16 * g + l) - 32) * xb[b].qs[16 * g + l];
            sumi += wb[b].scales[g] * dot;
        }
        sum += (float)sumi * (kern_h2f(wb[b].d) * xb[b].d);
    }
    return sum;
}

/* One rows function per format, each a loop over its dot. */
#define SCALAR_ROWS(name)                                                                                     \
    static void rows_##name(const void *w, size_t row_bytes, size_t n, const kern_act *a, size_t m, float *y) \
    {                                                                                                         \
        for (size_t i = 0; i < n; i++)                                                                        \
            y[i] = dot_##name((const char *)w + i * row_bytes, a, m);                                         \
    }
SCALAR_ROWS(f32)
SCALAR_ROWS(f16)
SCALAR_ROWS(q8_0)
SCALAR_ROWS(q4_0)
SCALAR_ROWS(q1_0)
SCALAR_ROWS(tq2_0)
SCALAR_ROWS(q4_K)
SCALAR_ROWS(q6_K)

const kern_table kern_table_scalar = {
    .isa = KERN_ISA_SCALAR,
    .rows = { KERN_ROWS_FIRST_SIX, [KERN_Q4_K] = rows_q4_K, [KERN_Q6_K] = rows_q6_K }, /* kern_impl.h */
    .rows_per_pass = 1,
};
