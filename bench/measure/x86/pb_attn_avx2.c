/* pb_attn_avx2.c — attention's inner loops with AVX2 + FMA + F16C (pb_attn_forms.h's recipes, lane for lane the
 * scalar forms': the same bits). The dot products take head widths that are multiples of 16, the weighted sums
 * multiples of 8 (pb_attn.c sends other widths to the scalar forms). A weighted sum keeps 64 outputs in registers
 * while it walks the chunk's positions, so each cache line of V is read once per chunk and no output is stored
 * between positions. */
#include "pb_attn_forms.h"

#include <immintrin.h>
#include <stdbool.h>

static inline __m256 ld_f16(const kern_half *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p));
}

/* A block's scale: F16C's conversion, exact like kern_half_to_float's, without its branches. */
static inline float ld_scale(kern_half h)
{
    return _cvtsh_ss(h);
}

static inline __m256 ld_i8(const int8_t *p)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p)));
}

/* pb_attn_fold on the lanes acc0 (0-7) and acc1 (8-15). */
static inline float fold(__m256 acc0, __m256 acc1)
{
    __m256 v = _mm256_add_ps(acc0, acc1);
    __m128 a = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    __m128 b = _mm_add_ps(a, _mm_movehl_ps(a, a));
    return _mm_cvtss_f32(_mm_add_ss(b, _mm_shuffle_ps(b, b, 1)));
}

/* Four positions at a time (eight independent accumulator chains hide the fma latency that one position's two
 * chains would wait on); each position's lanes and fold are exactly the one-position form's. */
#define PB_ATTN_ROWS 4

/* The cache is streamed once from memory (a group's other query heads find it in L2): what a thread reads is
 * asked for PB_ATTN_PF_BYTES ahead (8 f16 positions at head_dim 128), since the out-of-order window alone keeps
 * only a few lines in flight (1 thread read the cache at half the read floor without it). Into L1 and L2
 * (locality 3): the group's next head reads the same lines. The address is an integer: a prefetch past the
 * cache's end never faults, and no pointer past its object is formed. */
#define PB_ATTN_PF_BYTES 2048u

static inline void pf_ahead(const unsigned char *p, size_t bytes)
{
    uintptr_t a = (uintptr_t)p + PB_ATTN_PF_BYTES;
    for (uintptr_t l = a & ~(uintptr_t)63; l < a + bytes; l += 64)
        __builtin_prefetch((const void *)l, 0, 3);
}

void pb_attn_scores_f16_avx2(const unsigned char *k, size_t row_bytes, size_t n, const float *q, size_t d, float *s)
{
    size_t t = 0;
    for (; t + PB_ATTN_ROWS <= n; t += PB_ATTN_ROWS) {
        pf_ahead(k + t * row_bytes, PB_ATTN_ROWS * row_bytes);
        const kern_half *r0 = (const kern_half *)(const void *)(k + t * row_bytes);
        const kern_half *r1 = (const kern_half *)(const void *)(k + (t + 1) * row_bytes);
        const kern_half *r2 = (const kern_half *)(const void *)(k + (t + 2) * row_bytes);
        const kern_half *r3 = (const kern_half *)(const void *)(k + (t + 3) * row_bytes);
        __m256 a0 = _mm256_setzero_ps(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0;
        for (size_t j = 0; j < d; j += 16) {
            __m256 qa = _mm256_loadu_ps(q + j), qb = _mm256_loadu_ps(q + j + 8);
            a0 = _mm256_fmadd_ps(qa, ld_f16(r0 + j), a0);
            b0 = _mm256_fmadd_ps(qb, ld_f16(r0 + j + 8), b0);
            a1 = _mm256_fmadd_ps(qa, ld_f16(r1 + j), a1);
            b1 = _mm256_fmadd_ps(qb, ld_f16(r1 + j + 8), b1);
            a2 = _mm256_fmadd_ps(qa, ld_f16(r2 + j), a2);
            b2 = _mm256_fmadd_ps(qb, ld_f16(r2 + j + 8), b2);
            a3 = _mm256_fmadd_ps(qa, ld_f16(r3 + j), a3);
            b3 = _mm256_fmadd_ps(qb, ld_f16(r3 + j + 8), b3);
        }
        s[t] = fold(a0, b0);
        s[t + 1] = fold(a1, b1);
        s[t + 2] = fold(a2, b2);
        s[t + 3] = fold(a3, b3);
    }
    for (; t < n; t++) {
        const kern_half *row = (const kern_half *)(const void *)(k + t * row_bytes);
        __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
        for (size_t j = 0; j < d; j += 16) {
            acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + j), ld_f16(row + j), acc0);
            acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + j + 8), ld_f16(row + j + 8), acc1);
        }
        s[t] = fold(acc0, acc1);
    }
}

/* One q8_0 block of one position into its lanes (the recipe's blk, then acc += blk x d). */
static inline void q8_block(const block_q8_0 *blk, const float *qb, __m256 *acc0, __m256 *acc1)
{
    __m256 dk = _mm256_set1_ps(ld_scale(blk->d));
    __m256 blk0 = _mm256_mul_ps(_mm256_loadu_ps(qb), ld_i8(blk->qs));
    __m256 blk1 = _mm256_mul_ps(_mm256_loadu_ps(qb + 8), ld_i8(blk->qs + 8));
    blk0 = _mm256_fmadd_ps(_mm256_loadu_ps(qb + 16), ld_i8(blk->qs + 16), blk0);
    blk1 = _mm256_fmadd_ps(_mm256_loadu_ps(qb + 24), ld_i8(blk->qs + 24), blk1);
    *acc0 = _mm256_fmadd_ps(blk0, dk, *acc0);
    *acc1 = _mm256_fmadd_ps(blk1, dk, *acc1);
}

void pb_attn_scores_q8_avx2(const unsigned char *k, size_t row_bytes, size_t n, const float *q, size_t d, float *s)
{
    size_t t = 0;
    for (; t + 2 <= n; t += 2) {
        pf_ahead(k + t * row_bytes, 2 * row_bytes);
        const block_q8_0 *r0 = (const block_q8_0 *)(const void *)(k + t * row_bytes);
        const block_q8_0 *r1 = (const block_q8_0 *)(const void *)(k + (t + 1) * row_bytes);
        __m256 a0 = _mm256_setzero_ps(), b0 = a0, a1 = a0, b1 = a0;
        for (size_t b = 0; b < d / QK8_0; b++) {
            q8_block(r0 + b, q + b * QK8_0, &a0, &b0);
            q8_block(r1 + b, q + b * QK8_0, &a1, &b1);
        }
        s[t] = fold(a0, b0);
        s[t + 1] = fold(a1, b1);
    }
    for (; t < n; t++) {
        const block_q8_0 *row = (const block_q8_0 *)(const void *)(k + t * row_bytes);
        __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
        for (size_t b = 0; b < d / QK8_0; b++)
            q8_block(row + b, q + b * QK8_0, &acc0, &acc1);
        s[t] = fold(acc0, acc1);
    }
}

/* The 64 outputs a weighted sum kept in registers, stored back. */
static inline void st64(float *o, __m256 o0, __m256 o1, __m256 o2, __m256 o3, __m256 o4, __m256 o5, __m256 o6,
                        __m256 o7)
{
    _mm256_storeu_ps(o, o0);
    _mm256_storeu_ps(o + 8, o1);
    _mm256_storeu_ps(o + 16, o2);
    _mm256_storeu_ps(o + 24, o3);
    _mm256_storeu_ps(o + 32, o4);
    _mm256_storeu_ps(o + 40, o5);
    _mm256_storeu_ps(o + 48, o6);
    _mm256_storeu_ps(o + 56, o7);
}

/* Outputs j0..j0+63 over every position: eight independent chains (each o[j] summed over t in order) keep two
 * fmas a cycle busy, named so that they stay in registers; one row's 64 outputs are a whole cache line of f16. */
static void weigh_f16_64(const unsigned char *v, size_t row_bytes, size_t n, const float *p, float *o, bool pf)
{
    __m256 o0 = _mm256_loadu_ps(o), o1 = _mm256_loadu_ps(o + 8), o2 = _mm256_loadu_ps(o + 16);
    __m256 o3 = _mm256_loadu_ps(o + 24), o4 = _mm256_loadu_ps(o + 32), o5 = _mm256_loadu_ps(o + 40);
    __m256 o6 = _mm256_loadu_ps(o + 48), o7 = _mm256_loadu_ps(o + 56);
    for (size_t t = 0; t < n; t++) {
        if (pf) /* the first pass brings whole rows; the next passes find them in L2 */
            pf_ahead(v + t * row_bytes, row_bytes);
        const kern_half *row = (const kern_half *)(const void *)(v + t * row_bytes);
        __m256 pt = _mm256_set1_ps(p[t]);
        o0 = _mm256_fmadd_ps(pt, ld_f16(row), o0);
        o1 = _mm256_fmadd_ps(pt, ld_f16(row + 8), o1);
        o2 = _mm256_fmadd_ps(pt, ld_f16(row + 16), o2);
        o3 = _mm256_fmadd_ps(pt, ld_f16(row + 24), o3);
        o4 = _mm256_fmadd_ps(pt, ld_f16(row + 32), o4);
        o5 = _mm256_fmadd_ps(pt, ld_f16(row + 40), o5);
        o6 = _mm256_fmadd_ps(pt, ld_f16(row + 48), o6);
        o7 = _mm256_fmadd_ps(pt, ld_f16(row + 56), o7);
    }
    st64(o, o0, o1, o2, o3, o4, o5, o6, o7);
}

void pb_attn_weigh_f16_avx2(const unsigned char *v, size_t row_bytes, size_t n, const float *p, size_t d, float *o)
{
    size_t j = 0;
    for (; j + 64 <= d; j += 64)
        weigh_f16_64(v + j * sizeof(kern_half), row_bytes, n, p, o + j, j == 0);
    for (; j < d; j += 8) {
        __m256 acc = _mm256_loadu_ps(o + j);
        for (size_t t = 0; t < n; t++)
            acc = _mm256_fmadd_ps(_mm256_set1_ps(p[t]),
                                  ld_f16((const kern_half *)(const void *)(v + t * row_bytes) + j), acc);
        _mm256_storeu_ps(o + j, acc);
    }
}

/* One q8_0 block (32 outputs) of one position into its four chains. */
static inline void weigh_q8_block(const block_q8_0 *blk, float p, __m256 *a, __m256 *b, __m256 *c, __m256 *e)
{
    __m256 pd = _mm256_set1_ps(p * ld_scale(blk->d));
    *a = _mm256_fmadd_ps(pd, ld_i8(blk->qs), *a);
    *b = _mm256_fmadd_ps(pd, ld_i8(blk->qs + 8), *b);
    *c = _mm256_fmadd_ps(pd, ld_i8(blk->qs + 16), *c);
    *e = _mm256_fmadd_ps(pd, ld_i8(blk->qs + 24), *e);
}

/* Two blocks (64 outputs) per pass, for the same reason as weigh_f16_64; an odd last block alone. */
void pb_attn_weigh_q8_avx2(const unsigned char *v, size_t row_bytes, size_t n, const float *p, size_t d, float *o)
{
    size_t nb = d / QK8_0, b = 0;
    for (; b + 2 <= nb; b += 2) {
        float *ob = o + b * QK8_0;
        __m256 o0 = _mm256_loadu_ps(ob), o1 = _mm256_loadu_ps(ob + 8), o2 = _mm256_loadu_ps(ob + 16);
        __m256 o3 = _mm256_loadu_ps(ob + 24), o4 = _mm256_loadu_ps(ob + 32), o5 = _mm256_loadu_ps(ob + 40);
        __m256 o6 = _mm256_loadu_ps(ob + 48), o7 = _mm256_loadu_ps(ob + 56);
        for (size_t t = 0; t < n; t++) {
            if (b == 0) /* the first pass brings whole rows; the next passes find them in L2 */
                pf_ahead(v + t * row_bytes, row_bytes);
            const block_q8_0 *blk = (const block_q8_0 *)(const void *)(v + t * row_bytes) + b;
            weigh_q8_block(blk, p[t], &o0, &o1, &o2, &o3);
            weigh_q8_block(blk + 1, p[t], &o4, &o5, &o6, &o7);
        }
        st64(ob, o0, o1, o2, o3, o4, o5, o6, o7);
    }
    if (b < nb) {
        float *ob = o + b * QK8_0;
        __m256 o0 = _mm256_loadu_ps(ob), o1 = _mm256_loadu_ps(ob + 8), o2 = _mm256_loadu_ps(ob + 16);
        __m256 o3 = _mm256_loadu_ps(ob + 24);
        for (size_t t = 0; t < n; t++)
            weigh_q8_block((const block_q8_0 *)(const void *)(v + t * row_bytes) + b, p[t], &o0, &o1, &o2, &o3);
        _mm256_storeu_ps(ob, o0);
        _mm256_storeu_ps(ob + 8, o1);
        _mm256_storeu_ps(ob + 16, o2);
        _mm256_storeu_ps(ob + 24, o3);
    }
}

void pb_attn_exp_sub_avx2(float *x, size_t n, float m)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_sub_ps(_mm256_loadu_ps(x + i), _mm256_set1_ps(m));
        v = _mm256_max_ps(v, _mm256_set1_ps(PB_ATTN_EXP_LO));
        __m256 t = _mm256_mul_ps(v, _mm256_set1_ps(PB_ATTN_LOG2E));
        __m256 nn = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m256 lo = _mm256_fmsub_ps(v, _mm256_set1_ps(PB_ATTN_LOG2E), t);
        lo = _mm256_fmadd_ps(v, _mm256_set1_ps(PB_ATTN_LOG2E_LO), lo);
        __m256 f = _mm256_add_ps(_mm256_sub_ps(t, nn), lo);
        __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(PB_ATTN_P7), f, _mm256_set1_ps(PB_ATTN_P6));
        p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(PB_ATTN_P5));
        p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(PB_ATTN_P4));
        p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(PB_ATTN_P3));
        p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(PB_ATTN_P2));
        p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(PB_ATTN_P1));
        p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.0f));
        __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(nn), _mm256_set1_epi32(127)), 23);
        _mm256_storeu_ps(x + i, _mm256_mul_ps(p, _mm256_castsi256_ps(e)));
    }
    pb_attn_exp_sub_scalar(x + i, n - i, m);
}

/* F16C's vcvtps2ph with round to nearest even: the same bits as kern_float_to_half (kern_half.c, whose tests hold
 * it to the hardware), 8 values an instruction where the scalar form branches per value, which was most of
 * attention's time at a shallow context. d is a multiple of 16. */
void pb_attn_store_f16_avx2(unsigned char *row, const float *x, size_t d)
{
    for (size_t j = 0; j < d; j += 8)
        _mm_storeu_si128((__m128i *)(void *)(row + 2 * j),
                         _mm256_cvtps_ph(_mm256_loadu_ps(x + j), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

/* Four queries at a time (a shorter last group repeats its last query, whose figures are written again with the
 * same bits): each cache row is converted once for the four, and every query keeps the one-query form's two lanes
 * of accumulators, j in order, and its fold. */
#define PB_ATTN_NQ 4

/* Query i of nq, the last one past nq: its input and its output. */
static inline const float *nth_in(const float *const *x, int nq, int i)
{
    return x[i < nq ? i : nq - 1];
}

static inline float *nth_out(float *const *x, int nq, int i)
{
    return x[i < nq ? i : nq - 1];
}

void pb_attn_scores_n_f16_avx2(const unsigned char *k, size_t row_bytes, size_t n, const float *const *q, int nq,
                               size_t d, float *const *s)
{
    for (int qi = 0; qi < nq; qi += PB_ATTN_NQ) {
        const float *q0 = nth_in(q, nq, qi), *q1 = nth_in(q, nq, qi + 1), *q2 = nth_in(q, nq, qi + 2);
        const float *q3 = nth_in(q, nq, qi + 3);
        float *s0 = nth_out(s, nq, qi), *s1 = nth_out(s, nq, qi + 1), *s2 = nth_out(s, nq, qi + 2);
        float *s3 = nth_out(s, nq, qi + 3);
        for (size_t t = 0; t < n; t++) {
            const kern_half *row = (const kern_half *)(const void *)(k + t * row_bytes);
            __m256 a0 = _mm256_setzero_ps(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0;
            for (size_t j = 0; j < d; j += 16) {
                __m256 kx = ld_f16(row + j), ky = ld_f16(row + j + 8);
                a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q0 + j), kx, a0);
                b0 = _mm256_fmadd_ps(_mm256_loadu_ps(q0 + j + 8), ky, b0);
                a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q1 + j), kx, a1);
                b1 = _mm256_fmadd_ps(_mm256_loadu_ps(q1 + j + 8), ky, b1);
                a2 = _mm256_fmadd_ps(_mm256_loadu_ps(q2 + j), kx, a2);
                b2 = _mm256_fmadd_ps(_mm256_loadu_ps(q2 + j + 8), ky, b2);
                a3 = _mm256_fmadd_ps(_mm256_loadu_ps(q3 + j), kx, a3);
                b3 = _mm256_fmadd_ps(_mm256_loadu_ps(q3 + j + 8), ky, b3);
            }
            s0[t] = fold(a0, b0);
            s1[t] = fold(a1, b1);
            s2[t] = fold(a2, b2);
            s3[t] = fold(a3, b3);
        }
    }
}

void pb_attn_weigh_n_f16_avx2(const unsigned char *v, size_t row_bytes, size_t n, const float *const *p, int nq,
                              size_t d, float *const *o)
{
    for (int qi = 0; qi < nq; qi += PB_ATTN_NQ) {
        const float *p0 = nth_in(p, nq, qi), *p1 = nth_in(p, nq, qi + 1), *p2 = nth_in(p, nq, qi + 2);
        const float *p3 = nth_in(p, nq, qi + 3);
        /* a repeated last query sums into its own outputs once: its copies are not stored */
        int live = nq - qi < PB_ATTN_NQ ? nq - qi : PB_ATTN_NQ;
        for (size_t j = 0; j < d; j += 16) {
            float *out[PB_ATTN_NQ];
            for (int i = 0; i < PB_ATTN_NQ; i++)
                out[i] = nth_out(o, nq, qi + i) + j;
            __m256 a0 = _mm256_loadu_ps(out[0]), b0 = _mm256_loadu_ps(out[0] + 8), a1 = _mm256_loadu_ps(out[1]);
            __m256 b1 = _mm256_loadu_ps(out[1] + 8), a2 = _mm256_loadu_ps(out[2]), b2 = _mm256_loadu_ps(out[2] + 8);
            __m256 a3 = _mm256_loadu_ps(out[3]), b3 = _mm256_loadu_ps(out[3] + 8);
            for (size_t t = 0; t < n; t++) {
                const kern_half *row = (const kern_half *)(const void *)(v + t * row_bytes) + j;
                __m256 vx = ld_f16(row), vy = ld_f16(row + 8);
                __m256 w0 = _mm256_set1_ps(p0[t]), w1 = _mm256_set1_ps(p1[t]);
                __m256 w2 = _mm256_set1_ps(p2[t]), w3 = _mm256_set1_ps(p3[t]);
                a0 = _mm256_fmadd_ps(w0, vx, a0);
                b0 = _mm256_fmadd_ps(w0, vy, b0);
                a1 = _mm256_fmadd_ps(w1, vx, a1);
                b1 = _mm256_fmadd_ps(w1, vy, b1);
                a2 = _mm256_fmadd_ps(w2, vx, a2);
                b2 = _mm256_fmadd_ps(w2, vy, b2);
                a3 = _mm256_fmadd_ps(w3, vx, a3);
                b3 = _mm256_fmadd_ps(w3, vy, b3);
            }
            const __m256 acc[2 * PB_ATTN_NQ] = { a0, b0, a1, b1, a2, b2, a3, b3 };
            for (int i = 0; i < live; i++) {
                _mm256_storeu_ps(out[i], acc[2 * i]);
                _mm256_storeu_ps(out[i] + 8, acc[2 * i + 1]);
            }
        }
    }
}
