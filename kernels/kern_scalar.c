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

/* The formats whose weights are one code per element and one scale per weight block (q8_0, q4_0, q1_0, tq2_0):
 * per activation block (32 values for q8_0 activations, 256 for q8_K), the exact integer sum of code x quant,
 * then one float step by the weight block's scale times the activation block's. code(w, e) is element e's code
 * (signed, offset removed) and scale(w, e) the scale of the weight block holding it; a weight block may span
 * several activation blocks (q1_0: 128 weights, four q8_0 blocks), never the other way round. */
typedef struct scalar_codes {
    int (*code)(const void *w, size_t e);
    float (*scale)(const void *w, size_t e);
} scalar_codes;

static float dot_codes(const void *w, const kern_act *a, size_t m, scalar_codes f)
{
    const int8_t *x = kern_act_qs(a, m);
    const float *dx = kern_act_scale(a, m);
    size_t per = a->cols / kern_act_blocks(a); /* values per activation block */
    float sum = 0.0f;
    for (size_t b = 0; b < kern_act_blocks(a); b++) {
        int sumi = 0;
        for (size_t e = b * per; e < (b + 1) * per; e++)
            sumi += f.code(w, e) * x[e];
        sum += (float)sumi * (f.scale(w, b * per) * dx[b]);
    }
    return sum;
}

static int code_q8_0(const void *w, size_t e)
{
    return ((const block_q8_0 *)w)[e / QK8_0].qs[e % QK8_0];
}

static float scale_q8_0(const void *w, size_t e)
{
    return kern_h2f(((const block_q8_0 *)w)[e / QK8_0].d);
}

/* Byte j of a block: element j in its low nibble, element j + 16 in its high one; codes q + 8. */
static int code_q4_0(const void *w, size_t e)
{
    uint8_t q = ((const block_q4_0 *)w)[e / QK4_0].qs[e % (QK4_0 / 2)];
    return (e % QK4_0 < QK4_0 / 2 ? q & 15 : q >> 4) - 8;
}

static float scale_q4_0(const void *w, size_t e)
{
    return kern_h2f(((const block_q4_0 *)w)[e / QK4_0].d);
}

/* Bit e % 8 of byte (e % 128) / 8: 1 is +1, 0 is -1. */
static int code_q1_0(const void *w, size_t e)
{
    const block_q1_0 *b = (const block_q1_0 *)w + e / QK1_0;
    return (b->qs[e % QK1_0 / 8] >> (e % 8)) & 1 ? 1 : -1;
}

static float scale_q1_0(const void *w, size_t e)
{
    return kern_h2f(((const block_q1_0 *)w)[e / QK1_0].d);
}

/* Element e of a 256-weight block: byte 32 (e / 128) + e % 32, bits 2 ((e % 128) / 32); codes q + 1. */
static int code_tq2_0(const void *w, size_t e)
{
    const block_tq2_0 *b = (const block_tq2_0 *)w + e / QK_K;
    size_t i = e % QK_K;
    return ((b->qs[32 * (i / 128) + i % 32] >> (2 * ((i % 128) / 32))) & 3) - 1;
}

static float scale_tq2_0(const void *w, size_t e)
{
    return kern_h2f(((const block_tq2_0 *)w)[e / QK_K].d);
}

static float dot_q8_0(const void *w, const kern_act *a, size_t m)
{
    return dot_codes(w, a, m, (scalar_codes){ code_q8_0, scale_q8_0 });
}

static float dot_q4_0(const void *w, const kern_act *a, size_t m)
{
    return dot_codes(w, a, m, (scalar_codes){ code_q4_0, scale_q4_0 });
}

static float dot_q1_0(const void *w, const kern_act *a, size_t m)
{
    return dot_codes(w, a, m, (scalar_codes){ code_q1_0, scale_q1_0 });
}

static float dot_tq2_0(const void *w, const kern_act *a, size_t m)
{
    return dot_codes(w, a, m, (scalar_codes){ code_tq2_0, scale_tq2_0 });
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
