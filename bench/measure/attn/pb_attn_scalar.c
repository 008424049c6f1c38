/* pb_attn_scalar.c — attention's scalar forms (pb_attn_forms.h's recipes, lane for lane the vector forms'): any
 * CPU, POOLBENCH_ISA=scalar, and any head width the vector forms do not take. */
#include "pb_attn_forms.h"

void pb_attn_scores_f16_scalar(const unsigned char *k, size_t row_bytes, size_t n, const float *q, size_t d,
                               float *s)
{
    for (size_t t = 0; t < n; t++) {
        const kern_half *row = (const kern_half *)(const void *)(k + t * row_bytes);
        float acc[PB_ATTN_LANES] = { 0 };
        for (size_t j = 0; j < d; j++)
            acc[j % PB_ATTN_LANES] = fmaf(q[j], kern_half_to_float(row[j]), acc[j % PB_ATTN_LANES]);
        s[t] = pb_attn_fold(acc);
    }
}

void pb_attn_scores_q8_scalar(const unsigned char *k, size_t row_bytes, size_t n, const float *q, size_t d, float *s)
{
    for (size_t t = 0; t < n; t++) {
        const block_q8_0 *row = (const block_q8_0 *)(const void *)(k + t * row_bytes);
        float acc[PB_ATTN_LANES] = { 0 };
        for (size_t b = 0; b < d / QK8_0; b++) {
            float dk = kern_half_to_float(row[b].d);
            const float *qb = q + b * QK8_0;
            for (int l = 0; l < PB_ATTN_LANES; l++) {
                float blk = qb[l] * (float)row[b].qs[l];
                blk = fmaf(qb[l + 16], (float)row[b].qs[l + 16], blk);
                acc[l] = fmaf(blk, dk, acc[l]);
            }
        }
        s[t] = pb_attn_fold(acc);
    }
}

void pb_attn_weigh_f16_scalar(const unsigned char *v, size_t row_bytes, size_t n, const float *p, size_t d, float *o)
{
    for (size_t t = 0; t < n; t++) {
        const kern_half *row = (const kern_half *)(const void *)(v + t * row_bytes);
        for (size_t j = 0; j < d; j++)
            o[j] = fmaf(p[t], kern_half_to_float(row[j]), o[j]);
    }
}

void pb_attn_weigh_q8_scalar(const unsigned char *v, size_t row_bytes, size_t n, const float *p, size_t d, float *o)
{
    for (size_t t = 0; t < n; t++) {
        const block_q8_0 *row = (const block_q8_0 *)(const void *)(v + t * row_bytes);
        for (size_t b = 0; b < d / QK8_0; b++) {
            float pd = p[t] * kern_half_to_float(row[b].d);
            for (int j = 0; j < QK8_0; j++)
                o[b * QK8_0 + j] = fmaf(pd, (float)row[b].qs[j], o[b * QK8_0 + j]);
        }
    }
}

void pb_attn_exp_sub_scalar(float *x, size_t n, float m)
{
    for (size_t i = 0; i < n; i++)
        x[i] = pb_attn_exp(x[i] - m);
}

void pb_attn_store_f16_scalar(unsigned char *row, const float *x, size_t d)
{
    kern_half *h = (kern_half *)(void *)row; /* a cache row of halves: kv_row_bytes sized and aligned it so */
    for (size_t j = 0; j < d; j++)
        h[j] = kern_float_to_half(x[j]);
}

void pb_attn_store_q8_scalar(unsigned char *row, const float *x, size_t d)
{
    kern_quantize_row(KERN_Q8_0, x, row, d);
}
