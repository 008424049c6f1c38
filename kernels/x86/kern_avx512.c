/* kern_avx512.c — AVX-512 (F/BW/VL/DQ) + VNNI kernels. Compiled with the AVX-512 flags; only called after
 * kern_job_check saw the CPU features (kern_isa.c). Only 512-bit vpdpbusd is used (EVEX, AVX512-VNNI): the 256-bit
 * form would be encoded as AVX-VNNI, which some AVX-512 cores lack (docs/kernels.md, the ISA seam).
 *
 * Shape shared by every format: a pass handles KERN512_ROWS weight rows against one activation row; the
 * activation pieces of a step are loaded once and reused for every row of the pass. Each row has its own
 * accumulators and its own fixed instruction sequence, so a row computed in a pass of 4 and a row computed
 * alone (the remainder) give identical bits.
 *
 * Integer trick (quantized formats): vpdpbusd multiplies unsigned bytes by signed bytes. Weights are made
 * unsigned by an offset (q8_0: x ^ 0x80 = q + 128; q4_0: the nibble = q + 8; q1_0: the bit, 2 x bit - 1 = +-1;
 * tq2_0: the 2-bit code = q + 1) and -offset * (sum of the activation quants) of the lanes (kern_act's seed4,
 * seedt, nsumb) takes it back out, so every lane ends holding the exact signed dot product.
 *
 * Where a step's sums would leave 8 or 16 int32 lanes per activation block to convert and scale one block at a
 * time (q4_0, q1_0, tq2_0), the kernels gather several blocks' sums into one vector first (weights and
 * activation laid out to match, kern_act's qt), so one conversion and one fused multiply-add serve 4 to 16
 * blocks: the float work per block was as large as the integer work. q1_0, q4_0 and tq2_0 (codes that are bit
 * fields of a byte) are in kern_subbyte512.h, compiled here by kern_subbyte_avx512.c, q4_K and q6_K in
 * kern_kquant_avx512.c; this file holds f32, f16, q8_0 and the table. */
#include "kern_avx512.h"
#include "kern_impl.h"
#include "kern_kquant.h"

#include <immintrin.h>
#include <stdbool.h>
#include <string.h>


/* The halves h0 (lanes 0-7) and h1 (lanes 8-15) as floats: a block pair's scales. */
INLINE __m512 half_pair(kern_half h0, kern_half h1)
{
    __m256i h = _mm256_mask_set1_epi16(_mm256_set1_epi16((short)h0), 0xFF00, (short)h1);
    return _mm512_cvtph_ps(h);
}

/* Lanes 0..left-1 of a 16-lane tail. */
INLINE __mmask16 tail16(size_t left)
{
    return left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
}

/* ---- f32, f16: two accumulators per row, 32 values a step, masked loads for the last < 32 ----
 * The streaming passes (rows) prefetch every line of each row's step KERN_PREFETCH_BYTES ahead (kern_impl.h;
 * f16 reads one line a step, f32 two), as q8_0 does (without it f16 fell short of the floor at DRAM size:
 * docs/history/kernels.md). The cached ones (rows_cached) do not. Same arithmetic, so the same bits. */

/* Sixteen weights from p (lanes k), a row's floats (f16 false) or halves (f16 true) as bytes: p points into such
 * a row, so reading it as that type reads the values written there. */
INLINE __m512 load16(const char *p, __mmask16 k, const bool f16)
{
    return f16 ? _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, (const kern_half *)p))
               : _mm512_maskz_loadu_ps(k, (const float *)p);
}

/* The pass of both float formats (f16: halves, else floats; pf: the streaming prefetch), inlined with both
 * constant, so each of the four passes below compiles to its own loop. */
INLINE void pass_float(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys,
                       const bool f16, const bool pf)
{
    const size_t es = f16 ? sizeof(kern_half) : sizeof(float);
    const float *x = kern_act_f32(a, m);
    size_t cols = a->cols;
    __m512 acc0[KERN512_ROWS], acc1[KERN512_ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc0[r] = acc1[r] = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 32 <= cols; i += 32) {
        __m512 x0 = _mm512_loadu_ps(x + i), x1 = _mm512_loadu_ps(x + i + 16);
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++) {
            const char *wp = kern_row_ptr(w, rs, r) + i * es;
            for (size_t l = 0; pf && l < 32 * es; l += 64)
                kern_prefetch_stream(wp + l);
            acc0[r] = _mm512_fmadd_ps(load16(wp, 0xFFFF, f16), x0, acc0[r]);
            acc1[r] = _mm512_fmadd_ps(load16(wp + 16 * es, 0xFFFF, f16), x1, acc1[r]);
        }
    }
    if (i < cols) {
        __mmask16 k0 = tail16(cols - i), k1 = cols - i > 16 ? tail16(cols - i - 16) : 0;
        __m512 x0 = _mm512_maskz_loadu_ps(k0, x + i), x1 = _mm512_maskz_loadu_ps(k1, x + i + 16);
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++) {
            const char *wp = kern_row_ptr(w, rs, r) + i * es;
            acc0[r] = _mm512_fmadd_ps(load16(wp, k0, f16), x0, acc0[r]);
            acc1[r] = _mm512_fmadd_ps(load16(wp + 16 * es, k1, f16), x1, acc1[r]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = _mm512_reduce_add_ps(_mm512_add_ps(acc0[r], acc1[r]));
}

#define KERN_FLOAT_ROWS KERN512_ROWS
#include "kern_float_rows.h"
#undef KERN_FLOAT_ROWS

/* ---- q8_0: two blocks (64 quants) a step ----
 * The activation side of a step is three loads (quants, seeds, lane scales) from kern_act's lane arrays;
 * an odd last block uses the lower half, the upper lanes seeing zero weights, activations and seeds. */

/* Lanes 0-7 of a zmm load only: the odd block. */
#define LOWER8 ((__mmask16)0x00FF)

/* The quants of blocks b[0] and b[1] (b[1] absent when two == 0: zero lanes) plus 128, unsigned. */
INLINE __m512i q8_0_codes(const block_q8_0 *b, int two)
{
    __m256i lo = _mm256_loadu_si256((const __m256i *)b[0].qs);
    __m512i q = two ? _mm512_inserti64x4(_mm512_castsi256_si512(lo), _mm256_loadu_si256((const __m256i *)b[1].qs), 1)
                    : _mm512_zextsi256_si512(lo);
    return _mm512_xor_si512(q, _mm512_set1_epi8((char)0x80)); /* q ^ 0x80 = q + 128 as an unsigned byte */
}

/* One row's step: codes x activation from the seeds (-offset x sums: exact signed products), then the two
 * block scales (dw, the weight scales per lane, x the activation's) and one fused multiply-add into the
 * row's accumulator. */
INLINE __m512 pair_step(__m512i codes, __m512 dw, __m512i x, __m512i seed, __m512 dx, __m512 acc)
{
    __m512i s = _mm512_dpbusd_epi32(seed, codes, x);
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), _mm512_mul_ps(dw, dx), acc);
}

/* q8_0's pass; pf: whether it prefetches its streams (kern_impl.h); the arithmetic is the same either way. */
INLINE void pass_q8_0_pf(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys,
                         const bool pf)
{
    const int8_t *xq = kern_act_qs(a, m);
    const int32_t *seed = a->seed4 + m * (a->cols / 4);
    const float *dx = a->dx4 + m * (a->cols / 4);
    size_t nb = a->cols / 32;
    __m512 acc[KERN512_ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc[r] = _mm512_setzero_ps();
    size_t b = 0;
    for (; b + 2 <= nb; b += 2) {
        __m512i x = _mm512_loadu_si512(xq + b * 32), s = _mm512_loadu_si512(seed + b * 8);
        __m512 d = _mm512_loadu_ps(dx + b * 8);
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++) {
            /* the row's bytes are q8_0 blocks (row_bytes is a whole number of them) */
            const block_q8_0 *blk = (const block_q8_0 *)kern_row_ptr(w, rs, r) + b;
            if (pf)
                kern_prefetch_stream(blk);
            __m512 dw = half_pair(blk[0].d, blk[1].d);
            acc[r] = pair_step(q8_0_codes(blk, 1), dw, x, s, d, acc[r]);
        }
    }
    if (b < nb) {
        __m512i x = _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)(xq + b * 32)));
        __m512i s = _mm512_maskz_loadu_epi32(LOWER8, seed + b * 8);
        __m512 d = _mm512_maskz_loadu_ps(LOWER8, dx + b * 8);
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++) {
            const block_q8_0 *blk = (const block_q8_0 *)kern_row_ptr(w, rs, r) + b;
            acc[r] = pair_step(q8_0_codes(blk, 0), half_pair(blk[0].d, 0), x, s, d, acc[r]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = _mm512_reduce_add_ps(acc[r]);
}

INLINE void pass_q8_0(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    pass_q8_0_pf(w, rs, nr, a, m, y, ys, true);
}

INLINE void pass_q8_0_cached(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    pass_q8_0_pf(w, rs, nr, a, m, y, ys, false);
}

/* Matmul: one weight row against na activation rows, its codes and scales decoded once per step for all
 * of them; each (row, activation) pair goes through pair_step exactly as in the matvec pass. */
INLINE void bpass_q8_0(const char *row, const int na, const kern_act *a, size_t m0, float *y, size_t ldy)
{
    size_t nb = a->cols / 32, n4 = a->cols / 4;
    const block_q8_0 *blk = (const block_q8_0 *)row; /* a row of q8_0 blocks, as in the pass */
    __m512 acc[KERN_BATCH_STEP];
#pragma GCC unroll 4
    for (int j = 0; j < na; j++)
        acc[j] = _mm512_setzero_ps();
    size_t b = 0;
    for (; b + 2 <= nb; b += 2) {
        __m512i c = q8_0_codes(blk + b, 1);
        __m512 dw = half_pair(blk[b].d, blk[b + 1].d);
#pragma GCC unroll 4
        for (int j = 0; j < na; j++) {
            size_t m = m0 + (size_t)j;
            acc[j] = pair_step(c, dw, _mm512_loadu_si512(a->qs + m * a->cols + b * 32),
                               _mm512_loadu_si512(a->seed4 + m * n4 + b * 8), _mm512_loadu_ps(a->dx4 + m * n4 + b * 8),
                               acc[j]);
        }
    }
    if (b < nb) {
        __m512i c = q8_0_codes(blk + b, 0);
        __m512 dw = half_pair(blk[b].d, 0);
#pragma GCC unroll 4
        for (int j = 0; j < na; j++) {
            size_t m = m0 + (size_t)j;
            const __m256i *xp = (const __m256i *)(a->qs + m * a->cols + b * 32);
            __m512i x = _mm512_zextsi256_si512(_mm256_loadu_si256(xp));
            acc[j] = pair_step(c, dw, x, _mm512_maskz_loadu_epi32(LOWER8, a->seed4 + m * n4 + b * 8),
                               _mm512_maskz_loadu_ps(LOWER8, a->dx4 + m * n4 + b * 8), acc[j]);
        }
    }
#pragma GCC unroll 4
    for (int j = 0; j < na; j++)
        y[(size_t)j * ldy] = _mm512_reduce_add_ps(acc[j]);
}

static void batch_q8_0(const void *w, size_t rb, size_t n, const kern_act *a, size_t m0, size_t nm, float *y,
                       size_t ldy)
{
    kern_batch_in_steps(bpass_q8_0, w, rb, n, a, m0, nm, y, ldy);
}

KERN512_ROWS_FN(q8_0)
KERN512_ROWS_FN(q8_0_cached)

const kern_table kern_table_avx512 = {
    .isa = KERN_ISA_AVX512,
    .rows = { [KERN_F32] = rows_f32, [KERN_F16] = rows_f16, [KERN_Q8_0] = rows_q8_0, KERN512_SUBBYTE_ROWS(avx512),
              [KERN_Q4_K] = kern_rows_q4_K_avx512, [KERN_Q6_K] = kern_rows_q6_K_avx512 },
    .rows_cached = { [KERN_F32] = rows_f32_cached, [KERN_F16] = rows_f16_cached, [KERN_Q8_0] = rows_q8_0_cached,
                     KERN512_SUBBYTE_ROWS_CACHED(avx512), [KERN_Q4_K] = kern_rows_q4_K_cached_avx512,
                     [KERN_Q6_K] = kern_rows_q6_K_cached_avx512 },
    .batch = { [KERN_Q8_0] = batch_q8_0, [KERN_Q4_0] = kern_batch_q4_0_avx512 },
    .rows_per_pass = KERN512_ROWS,
};
