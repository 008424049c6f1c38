/* kern_act_avx2.c — activation quantization (q8_0, q8_K) with AVX2, 8 values a step. Same bytes as the
 * reference (kern_act.c): the scale arithmetic (kern_impl.h) and the row drivers (kern_act_impl.h) are shared
 * code, and each value goes through the steps of kern_round_clamp (clamp, truncate, +-1 on a fraction of at
 * least one half) lane for lane. */
#include "kern_act_impl.h"

#include <immintrin.h>

static inline __m256 scaled(const float *x, kern_inv s)
{
    __m256 v = _mm256_loadu_ps(x);
    return s.divide ? _mm256_div_ps(v, _mm256_set1_ps(s.d)) : _mm256_mul_ps(v, _mm256_set1_ps(s.id));
}

/* kern_round_clamp(v, -127, 127) of 8 values. max_ps returns its second operand for a NaN, like the
 * reference's "not >= lo". */
static inline __m256i round_clamp8(__m256 v)
{
    v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(-127.0f)), _mm256_set1_ps(127.0f));
    __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m256 frac = _mm256_sub_ps(v, t);
    __m256i q = _mm256_cvttps_epi32(t);
    __m256i up = _mm256_castps_si256(_mm256_cmp_ps(frac, _mm256_set1_ps(0.5f), _CMP_GE_OQ));
    __m256i down = _mm256_castps_si256(_mm256_cmp_ps(frac, _mm256_set1_ps(-0.5f), _CMP_LE_OQ));
    return _mm256_add_epi32(_mm256_sub_epi32(q, up), down); /* a true compare is -1 */
}

static float amax_of(const float *x, int n)
{
    const __m256 abs = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 m = _mm256_setzero_ps();
    for (int j = 0; j < n; j += 8)
        m = _mm256_max_ps(m, _mm256_and_ps(_mm256_loadu_ps(x + j), abs));
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_movehdup_ps(h));
    return _mm_cvtss_f32(h);
}

/* Quantizes n values (a multiple of 32) into q, their minus sums of 4 into nsum4; returns minus their sum. */
static int32_t quant_block(const float *x, int n, kern_inv s, int8_t *q, int32_t *nsum4)
{
    __m256i total = _mm256_setzero_si256();
    for (int j = 0; j < n; j += 32) {
        __m256i a = round_clamp8(scaled(x + j, s)), b = round_clamp8(scaled(x + j + 8, s));
        __m256i c = round_clamp8(scaled(x + j + 16, s)), d = round_clamp8(scaled(x + j + 24, s));
        /* the packs interleave 128-bit lanes; the permute puts the 32 bytes back in order */
        __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
        bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256((__m256i *)(q + j), bytes);
        __m256i pairs = _mm256_maddubs_epi16(_mm256_set1_epi8(1), bytes);
        __m256i sums = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
        _mm256_storeu_si256((__m256i *)(nsum4 + j / 4), sums);
        total = _mm256_add_epi32(total, sums);
    }
    __m128i t = _mm_add_epi32(_mm256_castsi256_si128(total), _mm256_extracti128_si256(total, 1));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, _MM_SHUFFLE(1, 0, 3, 2)));
    t = _mm_add_epi32(t, _mm_shuffle_epi32(t, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(t);
}

/* The row driver (kern_act_impl.h) with this file's steps. */
KERN_ACT_QUANTIZERS(avx2)

/* Tables g0..g1 of activation row m: entry n = sum of 2 x bit i of n x quant i over the 4 quants (vpmaddubsw's
 * pairs, at most 2 x 2 x 127: exact, then vphaddw's sums of pairs) plus minus their sum (kern_act.nsum4): the
 * signed sums, at most 508, exact in int16. The sign bytes go in as entries 0-3 and 8-11 against 4-7 and 12-15, so
 * that vphaddw, which sums within 128-bit lanes, leaves the 16 entries in order. */
void kern_act_tables_avx2(kern_act *a, size_t m, size_t g0, size_t g1)
{
    const int8_t *q = kern_act_qs(a, m);
    const int32_t *nsum4 = kern_act_nsum4(a, m);
    int16_t *t = a->lut + m * a->cols * 4;
    const uint8_t *sb = kern_act_sign_bytes;
    __m256i s03 = _mm256_loadu2_m128i((const __m128i *)(sb + 32), (const __m128i *)sb);
    __m256i s47 = _mm256_loadu2_m128i((const __m128i *)(sb + 48), (const __m128i *)(sb + 16));
    for (size_t g = g0; g < g1; g++) {
        int32_t quads;
        memcpy(&quads, q + 4 * g, 4);
        __m256i x = _mm256_set1_epi32(quads);
        __m256i e = _mm256_hadd_epi16(_mm256_maddubs_epi16(s03, x), _mm256_maddubs_epi16(s47, x));
        _mm256_storeu_si256((__m256i *)(t + 16 * g), _mm256_add_epi16(e, _mm256_set1_epi16((short)nsum4[g])));
    }
}

/* q1_0's transposed quants of blocks b0..b1 of row m (kern.h), four blocks a step: a block's 32 quants (8 t + s)
 * become 8 dwords (s: quants s, 8 + s, 16 + s, 24 + s) by one vpshufb within each 128-bit half (the words s: quants
 * s and 8 + s) and two word unpacks across the halves; four blocks' dwords, transposed, put each s's 16 bytes
 * (4 j .. 4 j + 15 of its 64) in one store. Blocks outside whole fours: the reference's loop. The int8 rows are
 * read and written through vector pointers by loadu and storeu: any alignment, and vector types may alias anything. */
void kern_act_transposed_avx2(kern_act *a, size_t m, size_t b0, size_t b1)
{
    const int8_t *qs = a->qs + m * a->cols;
    int8_t *qt = a->qt + m * kern_act_qt_cols(a->cols);
    const __m256i pick = _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 0, 8, 1, 9, 2, 10, 3,
                                          11, 4, 12, 5, 13, 6, 14, 7, 15);
    size_t b = b0;
    for (; b < b1 && b % 4; b++)
        kern_act_transpose_block(qs, qt, b);
    for (; b + 4 <= b1; b += 4) {
        __m128i d[2][4]; /* [s / 4][block]: the dwords of s = 4 (s / 4) .. + 3 */
        for (int i = 0; i < 4; i++) {
            __m256i v = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(qs + (b + i) * QK8_0)), pick);
            __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
            d[0][i] = _mm_unpacklo_epi16(lo, hi);
            d[1][i] = _mm_unpackhi_epi16(lo, hi);
        }
        int8_t *to = qt + b / 16 * 512 + 4 * (b % 16);
        for (int h = 0; h < 2; h++) {
            __m128i t0 = _mm_unpacklo_epi32(d[h][0], d[h][1]), t1 = _mm_unpacklo_epi32(d[h][2], d[h][3]);
            __m128i t2 = _mm_unpackhi_epi32(d[h][0], d[h][1]), t3 = _mm_unpackhi_epi32(d[h][2], d[h][3]);
            _mm_storeu_si128((__m128i *)(to + 64 * (4 * h)), _mm_unpacklo_epi64(t0, t1));
            _mm_storeu_si128((__m128i *)(to + 64 * (4 * h + 1)), _mm_unpackhi_epi64(t0, t1));
            _mm_storeu_si128((__m128i *)(to + 64 * (4 * h + 2)), _mm_unpacklo_epi64(t2, t3));
            _mm_storeu_si128((__m128i *)(to + 64 * (4 * h + 3)), _mm_unpackhi_epi64(t2, t3));
        }
    }
    for (; b < b1; b++)
        kern_act_transpose_block(qs, qt, b);
}

/* Each table's 16 entries T (|T| <= 508) as L = T & 31 then H = (T >> 5) + 16 (0..31), 16 bytes each: a signed pack
 * puts each 128-bit lane's half of both planes side by side, one qword permute puts each plane's halves together. */
void kern_act_planes_avx2(kern_act *a, size_t m, size_t g0, size_t g1)
{
    const int16_t *t = a->lut + m * a->cols * 4;
    int8_t *p = a->lut256 + m * a->cols * 8;
    for (size_t g = g0; g < g1; g++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(t + 16 * g));
        __m256i h = _mm256_add_epi16(_mm256_srai_epi16(v, 5), _mm256_set1_epi16(16));
        __m256i lh = _mm256_packs_epi16(_mm256_and_si256(v, _mm256_set1_epi16(31)), h);
        _mm256_storeu_si256((__m256i *)(p + 32 * g), _mm256_permute4x64_epi64(lh, _MM_SHUFFLE(3, 1, 2, 0)));
    }
}
