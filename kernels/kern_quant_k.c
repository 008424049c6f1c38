/* kern_quant_k.c — reference quantize / dequantize of the K-quants (q4_K, q6_K) in ggml's byte layout
 * (kern.h). The dequantization is the layout's definition; the quantizers are simpler than ggml's (no search
 * for the scales that minimise the error): each sub-block's scale and min are rounded UP to the 6- or 8-bit
 * grid of the block's scale, so the sub-block's values always fit the range its codes can express, and every
 * value then goes to the nearest code. So the bytes differ from llama.cpp's for the same floats (its
 * search lowers the error a little); the format, and so any file's bytes, read the same. Like kern_quant.c,
 * a scale too large for a half saturates at 65504 and a scale whose inverse overflows divides. */
#include <math.h>

#include "kern_impl.h"
#include "kern_kquant.h"

#define Q4K_SUBS 8  /* sub-blocks of 32 */
#define Q6K_SUBS 16 /* sub-blocks of 16 */

/* ceil(v) clamped to [0, hi]; a v that is not positive (NaN included) gives 0. */
static int ceil_clamp(float v, int hi)
{
    if (!(v > 0.0f))
        return 0;
    if (v >= (float)hi)
        return hi;
    int t = (int)v;
    return t + ((float)t < v);
}

/* A scale stored as a half (saturated), and its value as the kernels read it. */
static float half_scale(float s, kern_half *h)
{
    *h = kern_float_to_half(kern_fmin(s, KERN_HALF_MAX));
    return kern_h2f(*h);
}

/* The least multiple k of step that reaches v, at most hi (the scale's grid); 0 when step is 0. */
static int steps_up(float v, float step, int hi)
{
    return step > 0.0f ? ceil_clamp(v / step, hi) : 0;
}

/* n values (whole blocks of bytes bytes) through a format's block quantizer or dequantizer; w as bytes, to
 * step from block to block. */
static void quantize_blocks(const float *x, void *w, size_t n, size_t bytes, void (*block)(const float *, void *))
{
    for (size_t b = 0; b < n / QK_K; b++)
        block(x + b * QK_K, (char *)w + b * bytes);
}

static void dequantize_blocks(const void *w, float *x, size_t n, size_t bytes,
                              void (*block)(const void *, float *))
{
    for (size_t b = 0; b < n / QK_K; b++)
        block((const char *)w + b * bytes, x + b * QK_K);
}

/* ---- q4_K: x ~ d * sc * q - dmin * m per sub-block of 32 ---- */

/* Sub-block j's min (as a value >= 0 to subtract) and max. */
static void q4_K_range(const float *x, float *lo, float *hi)
{
    float mn = 0.0f, mx = x[0];
    for (int l = 0; l < 32; l++) {
        mn = x[l] < mn ? x[l] : mn;
        mx = x[l] > mx ? x[l] : mx;
    }
    *lo = -mn;
    *hi = mx;
}

/* The packed scales (kern.h's layout, the inverse of kern_q4_K_scale_min). */
static void q4_K_pack(uint8_t packed[12], const int sc[Q4K_SUBS], const int m[Q4K_SUBS])
{
    for (int j = 0; j < 4; j++) {
        packed[j] = (uint8_t)(sc[j] | (sc[j + 4] >> 4) << 6);
        packed[j + 4] = (uint8_t)(m[j] | (m[j + 4] >> 4) << 6);
        packed[j + 8] = (uint8_t)((sc[j + 4] & 15) | (m[j + 4] & 15) << 4);
    }
}

static void q4_K_block(const float *x, void *out)
{
    block_q4_K *y = out; /* one block's bytes (quantize_blocks) */
    float lo[Q4K_SUBS], hi[Q4K_SUBS], lo_max = 0.0f, scale_max = 0.0f, scale[Q4K_SUBS];
    int sc[Q4K_SUBS], m[Q4K_SUBS];
    for (int j = 0; j < Q4K_SUBS; j++) {
        q4_K_range(x + 32 * j, &lo[j], &hi[j]);
        lo_max = lo[j] > lo_max ? lo[j] : lo_max;
    }
    float dmin = half_scale(lo_max / 63.0f, &y->dmin);
    for (int j = 0; j < Q4K_SUBS; j++) {
        m[j] = steps_up(lo[j], dmin, 63);
        float span = hi[j] + dmin * (float)m[j]; /* what the 16 codes must cover above -dmin x m */
        scale[j] = span > 0.0f ? span / 15.0f : 0.0f;
        scale_max = scale[j] > scale_max ? scale[j] : scale_max;
    }
    float d = half_scale(scale_max / 63.0f, &y->d);
    for (int j = 0; j < Q4K_SUBS; j++)
        sc[j] = steps_up(scale[j], d, 63);
    q4_K_pack(y->scales, sc, m);
    memset(y->qs, 0, sizeof y->qs);
    for (int e = 0; e < QK_K; e++) {
        int j = e / 32;
        kern_inv s = kern_inv_of(d * (float)sc[j]);
        int q = kern_round_clamp(kern_inv_apply(s, x[e] + dmin * (float)m[j]), 0, 15);
        y->qs[32 * (e / 64) + e % 32] |= (uint8_t)(q << 4 * (e / 32 % 2));
    }
}

static void q4_K_values(const void *in, float *x)
{
    const block_q4_K *y = in; /* one block's bytes (dequantize_blocks) */
    float d = kern_half_to_float(y->d), dmin = kern_half_to_float(y->dmin);
    for (int j = 0; j < Q4K_SUBS; j++) {
        int sc, m;
        kern_q4_K_scale_min(y->scales, j, &sc, &m);
        float dj = d * (float)sc, mj = dmin * (float)m;
        for (int l = 0; l < 32; l++)
            x[32 * j + l] = dj * (float)kern_q4_K_code(y, 32 * j + l) - mj;
    }
}

void kern_quantize_q4_K(const float *x, void *w, size_t n)
{
    quantize_blocks(x, w, n, sizeof(block_q4_K), q4_K_block);
}

void kern_dequantize_q4_K(const void *w, float *x, size_t n)
{
    dequantize_blocks(w, x, n, sizeof(block_q4_K), q4_K_values);
}

/* ---- q6_K: x ~ d * sc * (code - 32) per sub-block of 16 ---- */

/* The value of largest magnitude among n (its sign kept), as q4_0's quantizer picks it. */
static float signed_max(const float *x, int n)
{
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < n; j++)
        if (fabsf(x[j]) > amax) {
            amax = fabsf(x[j]);
            max = x[j];
        }
    return max;
}

static void q6_K_block(const float *x, void *out)
{
    block_q6_K *y = out; /* one block's bytes (quantize_blocks) */
    float want[Q6K_SUBS], top = 0.0f;
    for (int g = 0; g < Q6K_SUBS; g++) { /* the extreme value becomes code 0 (q = -32): the widest side */
        want[g] = signed_max(x + 16 * g, 16) / -32.0f;
        top = fabsf(want[g]) > top ? fabsf(want[g]) : top;
    }
    float d = half_scale(top / 127.0f, &y->d);
    memset(y->ql, 0, sizeof y->ql);
    memset(y->qh, 0, sizeof y->qh);
    for (int g = 0; g < Q6K_SUBS; g++) {
        int k = steps_up(fabsf(want[g]), d, 127);
        y->scales[g] = (int8_t)(want[g] < 0.0f ? -k : k);
    }
    for (int e = 0; e < QK_K; e++) {
        kern_inv s = kern_inv_of(d * (float)y->scales[e / 16]);
        kern_q6_K_set_code(y, e, kern_round_clamp(kern_inv_apply(s, x[e]), -32, 31) + 32);
    }
}

static void q6_K_values(const void *in, float *x)
{
    const block_q6_K *y = in; /* one block's bytes (dequantize_blocks) */
    float d = kern_half_to_float(y->d);
    for (int e = 0; e < QK_K; e++)
        x[e] = d * (float)y->scales[e / 16] * (float)(kern_q6_K_code(y, e) - 32);
}

void kern_quantize_q6_K(const float *x, void *w, size_t n)
{
    quantize_blocks(x, w, n, sizeof(block_q6_K), q6_K_block);
}

void kern_dequantize_q6_K(const void *w, float *x, size_t n)
{
    dequantize_blocks(w, x, n, sizeof(block_q6_K), q6_K_values);
}
