/* kern_kquant_avx512.c — q4_K and q6_K x q8_K with AVX-512 (BW, VNNI): the AVX-512 table's rows for them
 * (kern_avx512.c). A pass takes KQ512_ROWS rows a quarter of the call apart and loads each activation block
 * once for all of them; each row has its own accumulators and a fixed instruction sequence, so it gives the
 * same bits in a pass or alone.
 *
 * Per 64 weights: the codes (unsigned: q4_K 0..15, q6_K 0..63) times the activation's quants into int16
 * pairs (vpmaddubsw; at most 2 x 63 x 127 = 16002, no saturation), then vpdpwssd multiplies each pair by its
 * sub-block's scale (a vpermw of the block's scales puts it in the lanes its elements land in) and adds it
 * into the row's int32 sum: exact. q6_K's offset (codes are q + 32) is taken out by seeding that sum with
 * -32 x scale_g x bsums_g; q4_K's mins (m_j x the sums of sub-block j) are scaled by dmin, not d, so they
 * are summed apart and folded with their own factor. Only 512-bit VNNI forms are used (Zen 4 lacks
 * AVX-VNNI). */
#include "kern_impl.h"
#include "kern_kquant.h"

#include <immintrin.h>

#define KQ512_ROWS 4
#define INLINE static inline __attribute__((always_inline))

/* vpermw indices: every int16 lane of 128-bit lane k takes lane s[k] of the source. */
INLINE __m512i lanes_of(int s0, int s1, int s2, int s3)
{
    __m256i lo = _mm256_setr_m128i(_mm_set1_epi16((short)s0), _mm_set1_epi16((short)s1));
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo),
                              _mm256_setr_m128i(_mm_set1_epi16((short)s2), _mm_set1_epi16((short)s3)), 1);
}

/* acc + float(isum) x f. */
INLINE __m512 fold(__m512 acc, __m512i isum, float f)
{
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum), _mm512_set1_ps(f), acc);
}

/* isum + (codes . x) pairs x the scales in s (int16 lanes) that idx puts beside them. */
INLINE __m512i scaled_dot(__m512i isum, __m512i codes, __m512i x, __m512i s, __m512i idx)
{
    return _mm512_dpwssd_epi32(isum, _mm512_maddubs_epi16(codes, x), _mm512_permutexvar_epi16(idx, s));
}

/* ---- the pass both formats share: nr rows (rs bytes apart) against activation row m ---- */

/* An activation block as a format's rows read it: four 64-quant vectors and one more of the format's (built
 * once per block for every row of the pass). */
typedef struct kq_x {
    __m512i x[4];
    __m512i aux;
} kq_x;

typedef kq_x (*kq_prep_fn)(const int8_t *x, const block_q8_K *xb);
/* One row's step: acc plus block blk's dot with the prepared activation, whose scale is dx. */
typedef __m512 (*kq_step_fn)(__m512 acc, const char *blk, const kq_x *xv, float dx);

INLINE void kq_pass(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys,
                    size_t block_bytes, kq_prep_fn prep, kq_step_fn step)
{
    const int8_t *xq = kern_act_qs(a, m);
    const block_q8_K *xb = kern_act_q8k(a, m);
    const float *dx = kern_act_scale(a, m);
    size_t nb = a->cols / QK_K;
    __m512 acc[KQ512_ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc[r] = _mm512_setzero_ps();
    for (size_t b = 0; b < nb; b++) {
        kq_x xv = prep(xq + b * QK_K, &xb[b]);
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++)
            acc[r] = step(acc[r], kern_row_ptr(w, rs, r) + b * block_bytes, &xv, dx[b]);
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = _mm512_reduce_add_ps(acc[r]);
}

/* ---- q4_K: 64 bytes of nibbles hold, low, elements 0-31 and 64-95 (sub-blocks 0, 2), high, 32-63 and
 * 96-127 (1, 3); the next 64 bytes the same for 128..255 (4, 6 and 5, 7). ---- */

/* The activation block's quants in that order (xs[0]: elements 0-31 and 64-95, xs[1]: 32-63 and 96-127,
 * xs[2], xs[3]: the same + 128), built once per block for every row of the pass. */
INLINE void q4_K_x(const int8_t *x, __m512i xs[4])
{
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        __m512i a = _mm512_loadu_si512(x + 128 * h), b = _mm512_loadu_si512(x + 128 * h + 64);
        xs[2 * h] = _mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(1, 0, 1, 0));
        xs[2 * h + 1] = _mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(3, 2, 3, 2));
    }
}

/* Sum over the sub-blocks of sc_j x (codes . x) (16 int32 lanes), the scales sc as 8 bytes. */
INLINE __m512i q4_K_dots(const block_q4_K *blk, uint64_t sc, const __m512i xs[4])
{
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    /* the 8 scales as int16 lanes 0-7 (the cast keeps sc's 64 bits: the intrinsic's type) */
    __m512i s = _mm512_zextsi128_si512(_mm_cvtepu8_epi16(_mm_cvtsi64_si128((long long)sc)));
    __m512i isum = _mm512_setzero_si512();
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        __m512i q = _mm512_loadu_si512(blk->qs + 64 * h);
        __m512i lo = _mm512_and_si512(q, low4), hi = _mm512_and_si512(_mm512_srli_epi16(q, 4), low4);
        isum = scaled_dot(isum, lo, xs[2 * h], s, lanes_of(4 * h, 4 * h, 4 * h + 2, 4 * h + 2));
        isum = scaled_dot(isum, hi, xs[2 * h + 1], s, lanes_of(4 * h + 1, 4 * h + 1, 4 * h + 3, 4 * h + 3));
    }
    return isum;
}

/* m_j x (bsums 2j + 2j + 1) in lane j < 8 (lanes 8-15 zero): each min twice against the bsums' pairs. */
INLINE __m512i q4_K_mins(uint64_t mn, __m256i bsums)
{
    __m128i m8 = _mm_cvtsi64_si128((long long)mn); /* the 8 mins' bits, as the intrinsic takes them */
    return _mm512_zextsi256_si512(_mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_unpacklo_epi8(m8, m8)), bsums));
}

/* q4_K's activation: the quants in the nibbles' order, the bsums in the low 256 bits. */
INLINE kq_x prep_q4_K(const int8_t *x, const block_q8_K *xb)
{
    kq_x v;
    q4_K_x(x, v.x);
    v.aux = _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)xb->bsums));
    return v;
}

INLINE __m512 step_q4_K(__m512 acc, const char *w, const kq_x *xv, float dx)
{
    const block_q4_K *blk = (const block_q4_K *)w; /* the block's bytes, as kern_row_ptr found them */
    uint64_t sc, mn;
    kern_q4_K_unpack(blk->scales, &sc, &mn);
    acc = fold(acc, q4_K_dots(blk, sc, xv->x), _cvtsh_ss(blk->d) * dx);
    return fold(acc, q4_K_mins(mn, _mm512_castsi512_si256(xv->aux)), -(_cvtsh_ss(blk->dmin) * dx));
}

INLINE void pass_q4_K(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    kq_pass(w, rs, nr, a, m, y, ys, sizeof(block_q4_K), prep_q4_K, step_q4_K);
}
KERN_QUARTER_ROWS_FN(q4_K, KQ512_ROWS) /* kern_impl.h */

void kern_rows_q4_K_avx512(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y)
{
    rows_q4_K(w, rb, n, a, m, y);
}

/* ---- q6_K: 64 codes of elements 64z .. 64z + 63 from ql's 64 bytes of half z / 2 (low nibbles for even
 * z, high for odd) and qh's 32 bytes of that half in both 256-bit halves (kern.h's layout) ---- */

/* Chunk z's codes: ql's nibble, then bits 4-5 from qh shifted per 256-bit half (even z: bits 0-1 and 2-3 of
 * qh up to 4-5; odd z: bits 4-5 stay, 6-7 come down). A 16-bit shift moves bits across the bytes of a lane:
 * the masks keep each byte's own. */
INLINE __m512i q6_K_codes(__m512i ql, __m512i qh, int odd)
{
    const __m512i low4 = _mm512_set1_epi8(0x0F), bits45 = _mm512_set1_epi8(0x30);
    const __m512i up = _mm512_inserti64x4(_mm512_set1_epi16(4), _mm256_set1_epi16(2), 1);
    const __m512i down = _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_set1_epi16(2), 1);
    __m512i hi = _mm512_and_si512(odd ? _mm512_srlv_epi16(qh, down) : _mm512_sllv_epi16(qh, up), bits45);
    /* (ql & 0x0F) | hi: ternary-logic truth table 0xEA = (A & B) | C */
    return _mm512_ternarylogic_epi32(odd ? _mm512_srli_epi16(ql, 4) : ql, low4, hi, 0xEA);
}

/* Sum over the 16 sub-blocks of scale_g x ((codes - 32) . x) in 16 int32 lanes; x: the block's four 64-quant
 * loads, nb: -16 x bsums in both 256-bit halves. */
INLINE __m512i q6_K_dots(const block_q6_K *blk, const __m512i x[4], __m512i nb)
{
    /* the 16 scales as int16, twice: lanes 0-15 for vpermw, and all 32 against nb: -32 x scale_g x bsums_g */
    __m512i s = _mm512_cvtepi8_epi16(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)blk->scales)));
    __m512i isum = _mm512_dpwssd_epi32(_mm512_setzero_si512(), s, nb);
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        __m512i ql = _mm512_loadu_si512(blk->ql + 64 * h);
        __m512i qh = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(blk->qh + 32 * h)));
#pragma GCC unroll 2
        for (int o = 0; o < 2; o++) {
            int z = 2 * h + o;
            isum = scaled_dot(isum, q6_K_codes(ql, qh, o), x[z], s, lanes_of(4 * z, 4 * z + 1, 4 * z + 2, 4 * z + 3));
        }
    }
    return isum;
}

/* q6_K's activation: the quants in order, and -16 x bsums in both 256-bit halves (it fits int16: |bsums| <=
 * 16 x 127; against the scales twice, it takes out the codes' 32). */
INLINE kq_x prep_q6_K(const int8_t *x, const block_q8_K *xb)
{
    kq_x v;
#pragma GCC unroll 4
    for (int k = 0; k < 4; k++)
        v.x[k] = _mm512_loadu_si512(x + 64 * k);
    __m256i bsums = _mm256_loadu_si256((const __m256i *)xb->bsums);
    v.aux = _mm512_broadcast_i64x4(_mm256_sub_epi16(_mm256_setzero_si256(), _mm256_slli_epi16(bsums, 4)));
    return v;
}

INLINE __m512 step_q6_K(__m512 acc, const char *w, const kq_x *xv, float dx)
{
    const block_q6_K *blk = (const block_q6_K *)w; /* the block's bytes, as kern_row_ptr found them */
    return fold(acc, q6_K_dots(blk, xv->x, xv->aux), _cvtsh_ss(blk->d) * dx);
}

INLINE void pass_q6_K(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    kq_pass(w, rs, nr, a, m, y, ys, sizeof(block_q6_K), prep_q6_K, step_q6_K);
}
KERN_QUARTER_ROWS_FN(q6_K, KQ512_ROWS)

void kern_rows_q6_K_avx512(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y)
{
    rows_q6_K(w, rb, n, a, m, y);
}
