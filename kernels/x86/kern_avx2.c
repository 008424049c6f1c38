/* kern_avx2.c — AVX2 + FMA + F16C kernels (Haswell / Zen 1 and later). Compiled with -mavx2 -mfma -mf16c;
 * only called after kern_job_check saw the CPU features (kern_isa.c).
 *
 * Same shape as kern_avx512.c: passes of KERN256_ROWS rows share each activation load, every row has its
 * own accumulators and a fixed instruction sequence, so a row gives the same bits in a pass or alone.
 *
 * Integer products use vpmaddubsw (unsigned x signed bytes -> saturating int16 pairs) then vpmaddwd with
 * ones. Saturation is avoided by keeping the unsigned side small: q8_0 multiplies |w| (0..128) by the
 * activation with w's sign applied (|x| <= 127, kern_act's guarantee): 2 * 128 * 127 < 32767, exact even for
 * w = -128. q4_0 (0..15), q1_0 (0 or 2) and tq2_0 (0..2) codes are small by construction; their offsets are
 * taken back out with the activation sums (seed4, nsumb). */
#include "kern_avx2.h"
#include "kern_impl.h"
#include "kern_kquant.h"

#include <immintrin.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

#define KERN256_ROWS_FN(name) KERN_QUARTER_ROWS_FN(name, KERN256_ROWS) /* kern_impl.h */

/* ---- f32, f16: two accumulators per row, 16 values a step; the last < 16 through a zero-padded copy ---- */

INLINE __m256 load8_f32(const float *p)
{
    return _mm256_loadu_ps(p);
}

INLINE __m256 load8_f16(const kern_half *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}

#define FLOAT_PASS(name, wtype, load8)                                                                        \
    INLINE void pass_##name(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y,     \
                            size_t ys)                                                                    \
    {                                                                                                         \
        const float *x = kern_act_f32(a, m);                                                                  \
        size_t cols = a->cols;                                                                                \
        __m256 acc0[KERN256_ROWS], acc1[KERN256_ROWS];                                                        \
        _Pragma("GCC unroll 4") for (int r = 0; r < nr; r++) acc0[r] = acc1[r] = _mm256_setzero_ps();         \
        size_t i = 0;                                                                                         \
        for (; i + 16 <= cols; i += 16) {                                                                     \
            __m256 x0 = _mm256_loadu_ps(x + i), x1 = _mm256_loadu_ps(x + i + 8);                             \
            _Pragma("GCC unroll 4") for (int r = 0; r < nr; r++)                                              \
            {                                                                                                 \
                const wtype *wp = (const wtype *)kern_row_ptr(w, rs, r) + i;                                       \
                acc0[r] = _mm256_fmadd_ps(load8(wp), x0, acc0[r]);                                            \
                acc1[r] = _mm256_fmadd_ps(load8(wp + 8), x1, acc1[r]);                                        \
            }                                                                                                 \
        }                                                                                                     \
        if (i < cols) {                                                                                       \
            size_t left = cols - i;                                                                           \
            float xt[16] = { 0 };                                                                             \
            memcpy(xt, x + i, left * sizeof(float));                                                          \
            __m256 x0 = _mm256_loadu_ps(xt), x1 = _mm256_loadu_ps(xt + 8);                                   \
            _Pragma("GCC unroll 4") for (int r = 0; r < nr; r++)                                              \
            {                                                                                                 \
                wtype wt[16] = { 0 };                                                                         \
                memcpy(wt, (const wtype *)kern_row_ptr(w, rs, r) + i, left * sizeof(wtype));                       \
                acc0[r] = _mm256_fmadd_ps(load8(wt), x0, acc0[r]);                                            \
                acc1[r] = _mm256_fmadd_ps(load8(wt + 8), x1, acc1[r]);                                        \
            }                                                                                                 \
        }                                                                                                     \
        _Pragma("GCC unroll 4") for (int r = 0; r < nr; r++) y[r * ys] = hsum8(_mm256_add_ps(acc0[r], acc1[r]));   \
    }

FLOAT_PASS(f32, float, load8_f32)
FLOAT_PASS(f16, kern_half, load8_f16)
KERN256_ROWS_FN(f32)
KERN256_ROWS_FN(f16)

/* ---- q8_0: one block a step ---- */

INLINE void pass_q8_0(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    const int8_t *xq = kern_act_qs(a, m);
    const float *dx = kern_act_scale(a, m);
    size_t nb = a->cols / QK8_0;
    __m256 acc[KERN256_ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc[r] = _mm256_setzero_ps();
    for (size_t b = 0; b < nb; b++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(xq + b * QK8_0));
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++) {
            const block_q8_0 *blk = (const block_q8_0 *)kern_row_ptr(w, rs, r) + b;
            kern_prefetch_stream(blk);
            __m256i q = _mm256_loadu_si256((const __m256i *)blk->qs);
            __m256i p = _mm256_maddubs_epi16(_mm256_abs_epi8(q), _mm256_sign_epi8(x, q));
            __m256 d = _mm256_set1_ps(_cvtsh_ss(blk->d) * dx[b]);
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(madd_pairs(p)), d, acc[r]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = hsum8(acc[r]);
}
KERN256_ROWS_FN(q8_0)

/* ---- q4_0: one block a step; nibbles are q + 8 ----
 * No software prefetch here (kern_impl.h): this pass is compute-bound (≈ 15 GB/s of weights on Zen 5, half
 * the read floor), and a prefetch every 18-byte step only adds instructions to it. */

INLINE void pass_q4_0(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    const int8_t *xq = kern_act_qs(a, m);
    const int32_t *seed = a->seed4 + m * (a->cols / 4);
    const float *dx = kern_act_scale(a, m);
    size_t nb = a->cols / QK4_0;
    const __m128i low4 = _mm_set1_epi8(0x0F);
    __m256 acc[KERN256_ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc[r] = _mm256_setzero_ps();
    for (size_t b = 0; b < nb; b++) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(xq + b * QK4_0));
        __m256i s8 = _mm256_loadu_si256((const __m256i *)(seed + b * (QK4_0 / 4))); /* -8 x sums */
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++) {
            const block_q4_0 *blk = (const block_q4_0 *)kern_row_ptr(w, rs, r) + b;
            __m128i v = _mm_loadu_si128((const __m128i *)blk->qs);
            __m256i u = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_and_si128(v, low4)),
                                                _mm_and_si128(_mm_srli_epi16(v, 4), low4), 1);
            __m256i s = _mm256_add_epi32(madd_pairs(_mm256_maddubs_epi16(u, x)), s8);
            __m256 d = _mm256_set1_ps(_cvtsh_ss(blk->d) * dx[b]);
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), d, acc[r]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = hsum8(acc[r]);
}
KERN256_ROWS_FN(q4_0)

/* ---- q1_0: one block (four activation blocks of 32) a step ---- */

/* 32 bits -> 32 bytes, 2 where the bit is 1 and 0 where it is 0 (bit j of the word is element j). */
INLINE __m256i q1_0_codes(const uint8_t *bits4)
{
    uint32_t bits;
    memcpy(&bits, bits4, sizeof bits);
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2,
                                            2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i select = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int)bits), spread);
    __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(v, select), select);
    return _mm256_and_si256(set, _mm256_set1_epi8(2));
}

INLINE void pass_q1_0(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    const int8_t *xq = kern_act_qs(a, m);
    const int32_t *ns = a->seed4 + m * (a->cols / 4); /* -1 x sums */
    const float *dx = kern_act_scale(a, m);
    size_t nb = a->cols / QK1_0;
    __m256 acc0[KERN256_ROWS], acc1[KERN256_ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc0[r] = acc1[r] = _mm256_setzero_ps();
    for (size_t b = 0; b < nb; b++) {
        for (int k = 0; k < QK1_0 / QK8_0; k += 2) {
            size_t e = b * QK1_0 + (size_t)k * QK8_0; /* first element of activation blocks k, k + 1 */
            __m256i x0 = _mm256_loadu_si256((const __m256i *)(xq + e));
            __m256i x1 = _mm256_loadu_si256((const __m256i *)(xq + e + 32));
            __m256i s0 = _mm256_loadu_si256((const __m256i *)(ns + e / 4));
            __m256i s1 = _mm256_loadu_si256((const __m256i *)(ns + e / 4 + 8));
            float dx0 = dx[e / QK8_0], dx1 = dx[e / QK8_0 + 1];
#pragma GCC unroll 4
            for (int r = 0; r < nr; r++) {
                const block_q1_0 *blk = (const block_q1_0 *)kern_row_ptr(w, rs, r) + b;
                float dw = _cvtsh_ss(blk->d);
                __m256i p0 = _mm256_add_epi32(madd_pairs(_mm256_maddubs_epi16(q1_0_codes(blk->qs + 4 * k), x0)), s0);
                __m256i p1 =
                    _mm256_add_epi32(madd_pairs(_mm256_maddubs_epi16(q1_0_codes(blk->qs + 4 * k + 4), x1)), s1);
                acc0[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p0), _mm256_set1_ps(dw * dx0), acc0[r]);
                acc1[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p1), _mm256_set1_ps(dw * dx1), acc1[r]);
            }
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = hsum8(_mm256_add_ps(acc0[r], acc1[r]));
}
KERN256_ROWS_FN(q1_0)

/* ---- tq2_0 x q8_K: one block a step; bytes 32h + i hold elements 128h + 32l + i in bits 2l, 2l+1 ---- */

INLINE void pass_tq2_0(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    const int8_t *xq = kern_act_qs(a, m);
    const int32_t *ns = kern_act_nsumb(a, m);
    const float *dx = kern_act_scale(a, m);
    size_t nb = a->cols / QK_K;
    const __m256i three = _mm256_set1_epi8(3);
    __m256 acc[KERN256_ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc[r] = _mm256_setzero_ps();
    for (size_t b = 0; b < nb; b++) {
        const int8_t *x = xq + b * QK_K;
        /* codes are q + 1: the block's -sum in lane 0 takes the 1 back out */
        __m256i seed = _mm256_setr_epi32(ns[b], 0, 0, 0, 0, 0, 0, 0);
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++) {
            const block_tq2_0 *blk = (const block_tq2_0 *)kern_row_ptr(w, rs, r) + b;
            /* int16 pair sums stay small (8 steps x 2 x 2 x 127 < 32767), so they add before widening */
            __m256i p16 = _mm256_setzero_si256();
            for (int h = 0; h < 2; h++) {
                __m256i q = _mm256_loadu_si256((const __m256i *)(blk->qs + 32 * h));
#pragma GCC unroll 4
                for (int l = 0; l < 4; l++) {
                    __m256i u = _mm256_and_si256(_mm256_srli_epi16(q, 2 * l), three);
                    __m256i xv = _mm256_loadu_si256((const __m256i *)(x + 128 * h + 32 * l));
                    p16 = _mm256_add_epi16(p16, _mm256_maddubs_epi16(u, xv));
                }
            }
            __m256i s = _mm256_add_epi32(madd_pairs(p16), seed);
            __m256 d = _mm256_set1_ps(_cvtsh_ss(blk->d) * dx[b]);
            acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), d, acc[r]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = hsum8(acc[r]);
}
KERN256_ROWS_FN(tq2_0)

const kern_table kern_table_avx2 = {
    .isa = KERN_ISA_AVX2,
    .rows = { KERN_ROWS_FIRST_SIX, [KERN_Q4_K] = kern_rows_q4_K_avx2, [KERN_Q6_K] = kern_rows_q6_K_avx2 },
    .rows_per_pass = KERN256_ROWS,
};
