/* kern_avx2.c — AVX2 + FMA + F16C kernels (which cores have them: docs/kernels.md). Compiled with -mavx2 -mfma
 * -mf16c; only called after kern_job_check saw the CPU features (kern_isa.c).
 *
 * Same shape as kern_avx512.c: passes of KERN256_ROWS rows share each activation load, every row has its
 * own accumulators and a fixed instruction sequence, so a row gives the same bits in a pass or alone. Here: f32
 * and f16; the integer formats' kernels (q8_0, q1_0, q4_0, tq2_0) are kern_int256.h's, which kern_avxvnni.c
 * compiles again with AVX-VNNI; the K-quants' are kern_kquant_avx2.c's. */
#include "kern_avx2.h"
#include "kern_impl.h"
#include "kern_kquant.h"

#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

/* ---- f32, f16: two accumulators per row, 16 values a step; the last < 16 through a zero-padded copy ----
 * The streaming passes (rows) prefetch the line KERN_PREFETCH_BYTES ahead of each step (kern_impl.h; f16 asks
 * for each line twice, f32 once), the cached ones (rows_cached) do not: as kern_avx512.c's. */

/* Eight weights from p, a row's floats (f16 false) or halves (f16 true) as bytes: p points into such a row, so
 * reading it as that type reads the values written there. */
INLINE __m256 load8(const char *p, const bool f16)
{
    return f16 ? _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)) : _mm256_loadu_ps((const float *)p);
}

/* The pass of both float formats (f16: halves, else floats; pf: the streaming prefetch), inlined with both
 * constant, so each of the four passes below compiles to its own loop. */
INLINE void pass_float(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys,
                       const bool f16, const bool pf)
{
    const size_t es = f16 ? sizeof(kern_half) : sizeof(float);
    const float *x = kern_act_f32(a, m);
    size_t cols = a->cols;
    __m256 acc0[KERN256_ROWS], acc1[KERN256_ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc0[r] = acc1[r] = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= cols; i += 16) {
        __m256 x0 = _mm256_loadu_ps(x + i), x1 = _mm256_loadu_ps(x + i + 8);
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++) {
            const char *wp = kern_row_ptr(w, rs, r) + i * es;
            if (pf)
                kern_prefetch_stream(wp);
            acc0[r] = _mm256_fmadd_ps(load8(wp, f16), x0, acc0[r]);
            acc1[r] = _mm256_fmadd_ps(load8(wp + 8 * es, f16), x1, acc1[r]);
        }
    }
    if (i < cols) {
        size_t left = cols - i;
        float xt[16] = { 0 };
        memcpy(xt, x + i, left * sizeof(float));
        __m256 x0 = _mm256_loadu_ps(xt), x1 = _mm256_loadu_ps(xt + 8);
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++) {
            float wt[16] = { 0 }; /* room for 16 floats or 16 halves, zero past the row */
            memcpy(wt, kern_row_ptr(w, rs, r) + i * es, left * es);
            acc0[r] = _mm256_fmadd_ps(load8((const char *)wt, f16), x0, acc0[r]);
            acc1[r] = _mm256_fmadd_ps(load8((const char *)wt + 8 * es, f16), x1, acc1[r]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = hsum8(_mm256_add_ps(acc0[r], acc1[r]));
}

#define KERN_FLOAT_ROWS KERN256_ROWS
#include "kern_float_rows.h"
#undef KERN_FLOAT_ROWS

#include "kern_int256.h"

const kern_table kern_table_avx2 = {
    .isa = KERN_ISA_AVX2,
    .rows = { KERN_ROWS_FIRST_SIX, [KERN_Q4_K] = kern_rows_q4_K_avx2, [KERN_Q6_K] = kern_rows_q6_K_avx2 },
    .rows_cached = { [KERN_F32] = rows_f32_cached, [KERN_F16] = rows_f16_cached, [KERN_Q8_0] = rows_q8_0_cached },
    .batch = { [KERN_Q4_K] = kern_batch_q4_K_avx2, [KERN_Q6_K] = kern_batch_q6_K_avx2 },
    .rows_per_pass = KERN256_ROWS,
};
