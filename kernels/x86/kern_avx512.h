/* kern_avx512.h — what the AVX-512 kernel files share (kern_avx512.c, kern_subbyte512.h and its two files,
 * kern_kquant_avx512.c): the rows a pass takes, folding several blocks' integer sums into one vector, and their
 * scales beside them, so one conversion and one fused multiply-add serve several blocks; and the rows of the
 * formats kern_subbyte512.h holds, for kern_avx512.c's and kern_subbyte_avx512gfni.c's tables. Included only by
 * files compiled with the AVX-512 flags. Not public. */
#ifndef KERN_AVX512_H
#define KERN_AVX512_H

#include <immintrin.h>
#include <string.h>

#include "kern.h"
#include "kern_impl.h"

#define KERN512_ROWS 4 /* weight rows a pass, each activation step loaded once for all of them */
#define INLINE static inline __attribute__((always_inline))
#define KERN512_ROWS_FN(name) KERN_QUARTER_ROWS_FN(name, KERN512_ROWS) /* kern_impl.h */

/* kern_subbyte512.h, compiled by kern_subbyte_avx512.c (ISA avx512) and kern_subbyte_avx512gfni.c (avx512gfni):
 * q1_0, q4_0 and tq2_0 (kern_rows_fn and kern_batch_fn's shapes, kern_impl.h); _cached: without the streaming
 * prefetch (kern_table.rows_cached). */
#define KERN512_SUBBYTE_DECLS(isa)                                                                               \
    void kern_rows_q1_0_##isa(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y);        \
    void kern_rows_q1_0_cached_##isa(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y); \
    void kern_rows_q4_0_##isa(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y);        \
    void kern_rows_q4_0_cached_##isa(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y); \
    void kern_rows_tq2_0_##isa(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y);       \
    void kern_rows_tq2_0_cached_##isa(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y); \
    void kern_batch_q4_0_##isa(const void *w, size_t rb, size_t n, const kern_act *a, size_t m0, size_t nm,      \
                               float *y, size_t ldy);
KERN512_SUBBYTE_DECLS(avx512)
KERN512_SUBBYTE_DECLS(avx512gfni)

/* Those formats' entries of an ISA's kern_table: the streaming rows, the cached rows (kern_table.rows_cached) and
 * q4_0's matmul, the lists avx512's and avx512gfni's tables share. */
#define KERN512_SUBBYTE_ROWS(isa)                                                                                \
    [KERN_Q4_0] = kern_rows_q4_0_##isa, [KERN_Q1_0] = kern_rows_q1_0_##isa, [KERN_TQ2_0] = kern_rows_tq2_0_##isa
#define KERN512_SUBBYTE_ROWS_CACHED(isa)                                                                         \
    [KERN_Q4_0] = kern_rows_q4_0_cached_##isa, [KERN_Q1_0] = kern_rows_q1_0_cached_##isa,                         \
    [KERN_TQ2_0] = kern_rows_tq2_0_cached_##isa

/* Pastes an ISA's name onto a function's (KERN512_NAME(kern_batch_q4_0_, avx512)), expanding a macro argument
 * such as KERN512_ISA first. */
#define KERN512_PASTE(a, b) a##b
#define KERN512_NAME(a, b) KERN512_PASTE(a, b)

/* Four 16-lane sums in one: lane 4L + t holds the sum of lanes 4L..4L+3 (128-bit lane L) of v[t]. */
static inline __attribute__((always_inline)) __m512i kern512_fold4(const __m512i v[4])
{
    __m512i u = _mm512_add_epi32(_mm512_unpacklo_epi32(v[0], v[1]), _mm512_unpackhi_epi32(v[0], v[1]));
    __m512i w = _mm512_add_epi32(_mm512_unpacklo_epi32(v[2], v[3]), _mm512_unpackhi_epi32(v[2], v[3]));
    return _mm512_add_epi32(_mm512_unpacklo_epi64(u, w), _mm512_unpackhi_epi64(u, w));
}

/* The halves at p, p + stride, .. (n <= 4 of them) as floats in lanes 4L + t of every 128-bit lane L, the lanes
 * of kern512_fold4's blocks; 0 past n. */
static inline __attribute__((always_inline)) __m512 kern512_halves4(const char *p, size_t stride, const int n)
{
    uint64_t h = 0;
    for (int t = 0; t < n; t++) {
        kern_half d;
        memcpy(&d, p + (size_t)t * stride, sizeof d);
        h |= (uint64_t)d << 16 * t;
    }
    return _mm512_broadcast_f32x4(_mm_cvtph_ps(_mm_cvtsi64_si128((long long)h))); /* the halves' bits */
}

/* The streaming passes' prefetch (kern.h) of every line of the n bytes a step reads at p. */
static inline __attribute__((always_inline)) void kern512_prefetch_span(const char *p, size_t n)
{
    for (size_t l = 0; l < n; l += 64)
        kern_prefetch_stream(p + l);
}

/* n (<= 4) activation block scales from dx in the same lanes; 0 past n. */
static inline __attribute__((always_inline)) __m512 kern512_scales4(const float *dx, const int n)
{
    return _mm512_broadcast_f32x4(_mm_maskz_loadu_ps((__mmask8)((1u << n) - 1u), dx));
}

/* A step of a format that reads four blocks a float step: blocks b .. b + nb - 1 (nb <= 4) of nr rows (rs bytes
 * apart) against activation row m, into the rows' accumulators; pf: the streaming pass's prefetch. */
typedef void (*kern512_step_fn)(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, size_t b,
                                const int nb, const int pf, __m512 acc[KERN512_ROWS]);

/* The pass such formats share (q1_0, q4_0, tq2_0, q4_K, q6_K): the whole steps over a row's nblocks, the last
 * partial one, then each row's sum into y (ys apart). Inlined with step a constant, so the call to it is direct
 * and inlined as well: one loop per format, as when each wrote its own. */
INLINE void kern512_pass4(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys,
                          size_t nblocks, kern512_step_fn step, const int pf)
{
    __m512 acc[KERN512_ROWS];
    size_t b = 0;
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc[r] = _mm512_setzero_ps();
    for (; b + 4 <= nblocks; b += 4)
        step(w, rs, nr, a, m, b, 4, pf, acc);
    if (b < nblocks)
        step(w, rs, nr, a, m, b, (int)(nblocks - b), pf, acc);
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = _mm512_reduce_add_ps(acc[r]);
}

/* A four-blocks-a-step format's passes from its step NAME_step and its block's weights QK: pass_NAME streams
 * (prefetch on), pass_NAME_cached reads weights already in cache (prefetch off, the same arithmetic and bits),
 * and their rows functions rows_NAME and rows_NAME_cached (KERN512_ROWS_FN). */
#define KERN512_STEP_PASSES(name, QK)                                                                           \
    INLINE void pass_##name(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y,      \
                            size_t ys)                                                                      \
    {                                                                                                       \
        kern512_pass4(w, rs, nr, a, m, y, ys, a->cols / (QK), name##_step, 1);                              \
    }                                                                                                       \
    INLINE void pass_##name##_cached(const char *w, size_t rs, const int nr, const kern_act *a, size_t m,     \
                                     float *y, size_t ys)                                                   \
    {                                                                                                       \
        kern512_pass4(w, rs, nr, a, m, y, ys, a->cols / (QK), name##_step, 0);                              \
    }                                                                                                       \
    KERN512_ROWS_FN(name)                                                                                   \
    KERN512_ROWS_FN(name##_cached)

/* kern_rows_NAME_ISA and kern_rows_NAME_cached_ISA: NAME's rows functions (KERN512_STEP_PASSES) for ISA's table,
 * from the file that holds the format (declared above or in kern_kquant.h). ISA may be a macro (KERN512_ISA). */
#define KERN512_EXPORT_ROWS_ISA(name, isa)                                                                      \
    void KERN512_NAME(kern_rows_##name##_, isa)(const void *w, size_t rb, size_t n, const kern_act *a, size_t m,  \
                                                float *y)                                                   \
    {                                                                                                       \
        rows_##name(w, rb, n, a, m, y);                                                                     \
    }                                                                                                       \
    void KERN512_NAME(kern_rows_##name##_cached_, isa)(const void *w, size_t rb, size_t n, const kern_act *a,     \
                                                       size_t m, float *y)                                  \
    {                                                                                                       \
        rows_##name##_cached(w, rb, n, a, m, y);                                                            \
    }
#define KERN512_EXPORT_ROWS(name) KERN512_EXPORT_ROWS_ISA(name, avx512)

#endif
