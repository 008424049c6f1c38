/* kern_lut256.h — q1_0_r32lut's group kernel on 256 bits (AVX2 and AVX-VNNI alike: no product instruction), part
 * of kern_repack256.h. The layout and the activation's tables are kern_repack.h's, those the AVX-512 kernel reads.
 *
 * AVX2 has no 16-bit table look-up (vpermw); vpshufb looks bytes up in a 16-byte table per 128-bit lane. So each
 * 16-entry int16 table is split into its byte planes (low bytes, high bytes: an entry is low + 256 x high), and a
 * row's word of a chunk (its 16 weights, one nibble a table) has nibble q's index copied into both of its bytes:
 * one look-up in each plane and a byte blend rebuild the int16 entry in the word's lane, which adds into the rows'
 * int16 sums. A ymm is 16 of a chunk's 32 words; a 32-weight activation block (two chunks) sums at most 8 entries
 * of at most 508 a row: exact. Its sums widen to int32 (even words: rows 0-7 or 8-15, odd: 16-23 or 24-31) and go
 * through the reference's float steps, multiply then add in block order, so every row is bit for bit the scalar
 * reference's. Not public. */
#ifndef KERN_LUT256_H
#define KERN_LUT256_H

#include "kern_group.h"

#define LUT256_SPAN 8 /* blocks whose split tables lut256_planes_span lays out at a time: 8 KiB */

/* The 16 int16 entries at t as byte planes: the low bytes in lane 0, the high bytes in lane 1 (one shuffle within
 * the lanes gathers each half's planes, one qword permute puts the halves' planes together). */
INLINE __m256i lut256_planes(const int16_t *t)
{
    const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10,
                                           12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    __m256i v = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)t), split);
    return _mm256_permute4x64_epi64(v, _MM_SHUFFLE(3, 1, 2, 0));
}

/* The split tables of blocks b .. b + nb - 1 of activation row m (32 a block) into planes, in order. */
INLINE void lut256_planes_span(const kern_act *a, size_t m, size_t b, size_t nb, __m256i *planes)
{
    const int16_t *t = a->lut + m * a->cols * 4 + b * 16 * (QK1_0 / 4);
    for (size_t i = 0; i < nb * (QK1_0 / 4); i++)
        _mm256_store_si256(planes + i, lut256_planes(t + 16 * i));
}

/* The int16 entries of the four tables at planes (groups 4j .. 4j + 3 of a block) picked by the nibbles of v's 16
 * words (chunk j's, 16 rows), added to acc. lh[0] holds nibbles 0 and 2 of a word in its two bytes, lh[1] 1 and 3;
 * a shuffle copies one of them into both bytes, the index of both planes' look-ups. */
INLINE __m256i lut256_words(__m256i v, const __m256i *planes, __m256i acc)
{
    const __m256i low4 = _mm256_set1_epi8(0x0F), high = _mm256_set1_epi16((short)0xFF00);
    const __m256i even = _mm256_setr_epi8(0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14, 0, 0, 2, 2, 4, 4, 6, 6,
                                          8, 8, 10, 10, 12, 12, 14, 14);
    const __m256i odd = _mm256_add_epi8(even, _mm256_set1_epi8(1));
    __m256i lh[2] = { _mm256_and_si256(v, low4), _mm256_and_si256(_mm256_srli_epi16(v, 4), low4) };
#pragma GCC unroll 4
    for (int q = 0; q < 4; q++) { /* nibble q: byte q / 2 of the word, its low (q even) or high half */
        __m256i idx = _mm256_shuffle_epi8(lh[q % 2], q < 2 ? even : odd);
        const __m128i *p = (const __m128i *)(planes + q); /* its two planes; vector types may alias anything */
        __m256i lo = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_load_si128(p)), idx);
        __m256i hi = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_load_si128(p + 1)), idx);
        acc = _mm256_add_epi16(acc, _mm256_blendv_epi8(lo, hi, high));
    }
    return acc;
}

/* Block b of one group at g (its 32 d, then 8 chunks) against the activation's split tables of that block (planes)
 * and its 4 scales dx: each 32-weight quarter's int16 sums, widened, through the reference's float step into f
 * (rows 0-7, 8-15, 16-23, 24-31). */
INLINE void lut256_block(const char *g, const __m256i *planes, const float *dx, __m256 f[4], const kern_stream s)
{
#pragma GCC unroll 9
    for (int l = 0; l < KERN_R32_BLOCK_BYTES; l += 64)
        group_prefetch(g + l, s);
    __m256 d[4];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++)
        d[i] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(g + 16 * i)));
    for (int k = 0; k < QK1_0 / QK8_0; k++) {
        __m256 x = _mm256_set1_ps(dx[k]);
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) { /* words 16h .. 16h + 15: rows 8h .. 8h + 7 (even) and 16 + 8h .. (odd) */
            __m256i acc = _mm256_setzero_si256();
#pragma GCC unroll 2
            for (int j = 2 * k; j < 2 * k + 2; j++)
                acc = lut256_words(_mm256_loadu_si256((const __m256i *)(g + 64 + 64 * j + 32 * h)), planes + 4 * j,
                                   acc);
            __m256i lo = _mm256_madd_epi16(acc, _mm256_set1_epi32(1));
            __m256i hi = _mm256_madd_epi16(acc, _mm256_set1_epi32(1 << 16));
            f[h] = _mm256_add_ps(f[h], _mm256_mul_ps(_mm256_cvtepi32_ps(lo), _mm256_mul_ps(d[h], x)));
            f[2 + h] = _mm256_add_ps(f[2 + h], _mm256_mul_ps(_mm256_cvtepi32_ps(hi), _mm256_mul_ps(d[2 + h], x)));
        }
    }
}

/* n groups (n <= 4) stride bytes apart: the activation's tables split for LUT256_SPAN blocks at a time, then each
 * group over those blocks, its float sums kept in y (n x 32) between spans. */
INLINE void lut256_groups_pass(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                               const kern_stream s)
{
    __m256i planes[LUT256_SPAN * (QK1_0 / 4)] __attribute__((aligned(32)));
    const float *dx = kern_act_scale(a, m);
    size_t nb = a->cols / QK1_0;
    memset(y, 0, sizeof(float) * KERN_R32 * (size_t)n);
    for (size_t b0 = 0; b0 < nb; b0 += LUT256_SPAN) {
        size_t b1 = b0 + LUT256_SPAN < nb ? b0 + LUT256_SPAN : nb;
        lut256_planes_span(a, m, b0, b1 - b0, planes);
        for (int r = 0; r < n; r++) {
            __m256 f[4];
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++)
                f[i] = _mm256_loadu_ps(y + KERN_R32 * r + 8 * i);
            for (size_t b = b0; b < b1; b++)
                lut256_block(w + (size_t)r * stride + b * KERN_R32_BLOCK_BYTES, planes + (b - b0) * (QK1_0 / 4),
                             dx + 4 * b, f, s);
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++)
                _mm256_storeu_ps(y + KERN_R32 * r + 8 * i, f[i]);
        }
    }
}

#endif
