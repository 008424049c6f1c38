/* kern_quant.c — reference quantize / dequantize for every format and the activation formats (q8_0, q8_K).
 * The algorithms are ggml's (so a row quantized here matches llama.cpp's bytes), plus two guards ggml lacks:
 * a scale too large for a half saturates at 65504 instead of becoming inf, and a scale so small that 1/d
 * overflows divides instead of multiplying by inf. */
#include "kern_impl.h"
#include "kern_kquant.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* v clamped to [lo, hi] before the conversion to int (a float outside int's range must never be converted;
 * NaN gives lo), truncated toward zero. */
static int clamp_to_int(float v, int lo, int hi)
{
    if (!(v >= (float)lo))
        return lo;
    return v > (float)hi ? hi : (int)v;
}

/* ---- f32, f16 ---- */

static void quantize_f32(const float *x, void *w, size_t n)
{
    memcpy(w, x, n * sizeof(float));
}

static void dequantize_f32(const void *w, float *x, size_t n)
{
    memcpy(x, w, n * sizeof(float));
}

static void quantize_f16(const float *x, void *w, size_t n)
{
    kern_half *h = w;
    for (size_t i = 0; i < n; i++)
        h[i] = kern_float_to_half(x[i]);
}

static void dequantize_f16(const void *w, float *x, size_t n)
{
    const kern_half *h = w;
    for (size_t i = 0; i < n; i++)
        x[i] = kern_half_to_float(h[i]);
}

/* ---- q8_0: d = amax / 127, q = round(x / d) ---- */

void kern_quantize_row_q8_0(const float *x, block_q8_0 *y, size_t n)
{
    for (size_t b = 0; b < n / QK8_0; b++, x += QK8_0) {
        kern_inv s = kern_q8_0_scale(kern_amax(x, QK8_0));
        y[b].d = kern_float_to_half(s.d);
        for (int j = 0; j < QK8_0; j++)
            y[b].qs[j] = (int8_t)kern_round_clamp(kern_inv_apply(s, x[j]), -127, 127);
    }
}

static void quantize_q8_0(const float *x, void *w, size_t n)
{
    kern_quantize_row_q8_0(x, w, n);
}

static void dequantize_q8_0(const void *w, float *x, size_t n)
{
    const block_q8_0 *y = w;
    for (size_t b = 0; b < n / QK8_0; b++) {
        float d = kern_half_to_float(y[b].d);
        for (int j = 0; j < QK8_0; j++)
            *x++ = (float)y[b].qs[j] * d;
    }
}

/* ---- q4_0: d = (the value of largest magnitude) / -8, q = x / d + 8 truncated after +0.5, at most 15 ---- */

static void quantize_q4_0(const float *x, void *w, size_t n)
{
    block_q4_0 *y = w;
    for (size_t b = 0; b < n / QK4_0; b++, x += QK4_0) {
        float amax = 0.0f, max = 0.0f;
        for (int j = 0; j < QK4_0; j++) {
            if (fabsf(x[j]) > amax) {
                amax = fabsf(x[j]);
                max = x[j];
            }
        }
        float d = max / -8.0f;
        kern_inv s = kern_inv_of(copysignf(kern_fmin(fabsf(d), KERN_HALF_MAX), d));
        y[b].d = kern_float_to_half(s.d);
        for (int j = 0; j < QK4_0 / 2; j++) {
            /* x / d lies in [-8, 8], so + 8.5 is never negative and the cast truncates like floor */
            int lo = clamp_to_int(kern_inv_apply(s, x[j]) + 8.5f, 0, 15);
            int hi = clamp_to_int(kern_inv_apply(s, x[j + QK4_0 / 2]) + 8.5f, 0, 15);
            y[b].qs[j] = (uint8_t)(lo | (hi << 4));
        }
    }
}

static void dequantize_q4_0(const void *w, float *x, size_t n)
{
    const block_q4_0 *y = w;
    for (size_t b = 0; b < n / QK4_0; b++, x += QK4_0) {
        float d = kern_half_to_float(y[b].d);
        for (int j = 0; j < QK4_0 / 2; j++) {
            x[j] = (float)((y[b].qs[j] & 15) - 8) * d;
            x[j + QK4_0 / 2] = (float)((y[b].qs[j] >> 4) - 8) * d;
        }
    }
}

/* ---- q1_0: d = mean |x|, bit = x >= 0 ---- */

static void quantize_q1_0(const float *x, void *w, size_t n)
{
    block_q1_0 *y = w;
    for (size_t b = 0; b < n / QK1_0; b++, x += QK1_0) {
        float sum = 0.0f;
        for (int j = 0; j < QK1_0; j++)
            sum += fabsf(x[j]);
        y[b].d = kern_float_to_half(kern_fmin(sum / (float)QK1_0, KERN_HALF_MAX));
        memset(y[b].qs, 0, sizeof y[b].qs);
        for (int j = 0; j < QK1_0; j++)
            if (x[j] >= 0.0f)
                y[b].qs[j / 8] |= (uint8_t)(1u << (j % 8));
    }
}

static void dequantize_q1_0(const void *w, float *x, size_t n)
{
    const block_q1_0 *y = w;
    for (size_t b = 0; b < n / QK1_0; b++) {
        float d = kern_half_to_float(y[b].d);
        for (int j = 0; j < QK1_0; j++)
            *x++ = (y[b].qs[j / 8] >> (j % 8)) & 1 ? d : -d;
    }
}

/* ---- tq2_0: d = amax, q = round(x / d) + 1 in {0, 1, 2} ---- */

/* Where element e of a tq2_0 block lives: byte 32*(e/128) + e%32, bits 2*((e%128)/32). */
static int tq2_byte(int e)
{
    return 32 * (e / 128) + e % 32;
}

static int tq2_shift(int e)
{
    return 2 * ((e % 128) / 32);
}

static void quantize_tq2_0(const float *x, void *w, size_t n)
{
    block_tq2_0 *y = w;
    for (size_t b = 0; b < n / QK_K; b++, x += QK_K) {
        kern_inv s = kern_inv_of(kern_fmin(kern_amax(x, QK_K), KERN_HALF_MAX));
        y[b].d = kern_float_to_half(s.d);
        memset(y[b].qs, 0, sizeof y[b].qs);
        for (int e = 0; e < QK_K; e++) {
            int q = kern_round_clamp(kern_inv_apply(s, x[e]), -1, 1) + 1;
            y[b].qs[tq2_byte(e)] |= (uint8_t)(q << tq2_shift(e));
        }
    }
}

static void dequantize_tq2_0(const void *w, float *x, size_t n)
{
    const block_tq2_0 *y = w;
    for (size_t b = 0; b < n / QK_K; b++, x += QK_K) {
        float d = kern_half_to_float(y[b].d);
        for (int e = 0; e < QK_K; e++)
            x[e] = (float)(((y[b].qs[tq2_byte(e)] >> tq2_shift(e)) & 3) - 1) * d;
    }
}

/* ---- q8_K (activation of tq2_0): d = amax / 127 as a float, q = round(x / d) ---- */

void kern_quantize_row_q8_K(const float *x, block_q8_K *y, size_t n)
{
    for (size_t b = 0; b < n / QK_K; b++, x += QK_K) {
        kern_inv s = kern_q8_K_scale(kern_amax(x, QK_K));
        y[b].d = s.d;
        for (int j = 0; j < QK_K; j++)
            y[b].qs[j] = (int8_t)kern_round_clamp(kern_inv_apply(s, x[j]), -127, 127);
        for (int i = 0; i < QK_K / 16; i++) {
            int sum = 0;
            for (int j = 0; j < 16; j++)
                sum += y[b].qs[16 * i + j];
            y[b].bsums[i] = (int16_t)sum;
        }
    }
}

void kern_dequantize_row_q8_K(const block_q8_K *y, float *x, size_t n)
{
    for (size_t b = 0; b < n / QK_K; b++)
        for (int j = 0; j < QK_K; j++)
            *x++ = (float)y[b].qs[j] * y[b].d;
}

/* ---- the format traits ---- */

#define KERN_ACT_ROW(id, name, block, bytes, act) [KERN_##id] = KERN_ACT_OF_##act,
const kern_act_kind kern_format_act[KERN_FORMAT_COUNT] = { KERN_FORMATS(KERN_ACT_ROW) };
#undef KERN_ACT_ROW

const kern_traits kern_traits_table[KERN_FORMAT_COUNT] = {
    [KERN_F32] = { .quantize = quantize_f32, .dequantize = dequantize_f32 },
    [KERN_F16] = { .quantize = quantize_f16, .dequantize = dequantize_f16 },
    [KERN_Q8_0] = { .quantize = quantize_q8_0, .dequantize = dequantize_q8_0, .offset = 128 },
    [KERN_Q4_0] = { .quantize = quantize_q4_0, .dequantize = dequantize_q4_0, .offset = 8 },
    [KERN_Q1_0] = { .quantize = quantize_q1_0, .dequantize = dequantize_q1_0, .offset = 1 },
    [KERN_TQ2_0] = { .quantize = quantize_tq2_0, .dequantize = dequantize_tq2_0, .offset = 1 },
    /* kern_quant_k.c */
    [KERN_Q4_K] = { .quantize = kern_quantize_q4_K, .dequantize = kern_dequantize_q4_K },
    [KERN_Q6_K] = { .quantize = kern_quantize_q6_K, .dequantize = kern_dequantize_q6_K },
};

/* Whether a row of n values of format f can be (de)quantized: a known format, n whole blocks. -1 with EINVAL
 * when not. */
static int row_fits(kern_format f, size_t n)
{
    if (!kern_format_whole_blocks(f, n)) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

int kern_quantize_row(kern_format f, const float *x, void *w, size_t n)
{
    if (row_fits(f, n) != 0)
        return -1;
    kern_traits_table[f].quantize(x, w, n);
    return 0;
}

int kern_dequantize_row(kern_format f, const void *w, float *x, size_t n)
{
    if (row_fits(f, n) != 0)
        return -1;
    kern_traits_table[f].dequantize(w, x, n);
    return 0;
}
