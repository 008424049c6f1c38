/* kern_scalar.c — the scalar reference dot products: plain C for baseline x86-64 (or any CPU), the oracle
 * every SIMD variant is tested against. One float accumulator, blocks in order; the integer part of each
 * block is exact. */
#include "kern_impl.h"

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

const kern_table kern_table_scalar = {
    .isa = KERN_ISA_SCALAR,
    .rows = KERN_ROWS_EVERY_FORMAT, /* kern_impl.h */
    .rows_per_pass = 1,
};
