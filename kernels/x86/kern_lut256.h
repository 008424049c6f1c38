/* kern_lut256.h — q1_0_r32lut's group kernel on 256 bits (AVX2 and AVX-VNNI alike: no product instruction), part
 * of kern_repack256.h. The layout and the activation's tables are kern_repack.h's, those the AVX-512 kernel reads.
 *
 * AVX2 has no 16-bit table look-up (vpermw); vpshufb looks bytes up in a 16-byte table per 128-bit lane. So each
 * 16-entry int16 table T (|T| <= 508) is split into byte planes by T = L + 32 (H - 16): L = T & 31 and H = (T >> 5)
 * + 16, both 0..31 (kern_act.lut256). A chunk's two ymm of row words (16 rows each, a nibble a table) are turned
 * into two ymm of row bytes (32 rows each, the words' low bytes: nibbles 0 and 1; their high bytes: 2 and 3), so
 * one look-up serves 32 rows. A 32-weight activation block is 8 look-ups a row, each plane's summed in bytes, at
 * most 8 x 31 = 248: exact. Once a block the two sums are interleaved into words (unpacking restores the words'
 * order) and joined by vpmaddubsw, L + 32 H (at most 8184, no saturation), less 8 x 16 x 32 = 4096: the block's
 * exact sum (at most 8 x 508). It widens to int32 (even words: rows 0-7 or 8-15, odd: 16-23 or 24-31) and goes
 * through the reference's float steps, multiply then add in block order, so every row is bit for bit the scalar
 * reference's. Not public. */
#ifndef KERN_LUT256_H
#define KERN_LUT256_H

#include "kern_group.h"

#define LUT256_SPAN 8 /* blocks whose planes (kern_act.lut256) each group of a pass reads in turn: 8 KiB */

/* The L and H entries of tables p[0] (low nibbles) and p[1] (high nibbles) (32 bytes each: L's plane, H's)
 * picked by the nibbles of the 32 row bytes r, added to the byte sums l and h. */
INLINE void lut256_bytes(__m256i r, const int8_t *p, __m256i *l, __m256i *h)
{
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    const __m256i idx[2] = { _mm256_and_si256(r, low4), _mm256_and_si256(_mm256_srli_epi16(r, 4), low4) };
#pragma GCC unroll 2
    for (int i = 0; i < 2; i++) {
        const __m128i *t = (const __m128i *)(p + 32 * i); /* its two planes; vector types may alias anything */
        *l = _mm256_add_epi8(*l, _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128(t)), idx[i]));
        *h = _mm256_add_epi8(*h, _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_loadu_si128(t + 1)), idx[i]));
    }
}

/* The row bytes of a chunk's words v0 (the first 16) and v1 (the last 16), per 128-bit lane those of v0 then v1:
 * b[0] the words' low bytes (nibbles 0 and 1), b[1] their high bytes (2 and 3). One shuffle a word vector sorts its
 * lanes' bytes into low then high; unpacking qwords pairs them. */
INLINE void lut256_row_bytes(__m256i v0, __m256i v1, __m256i b[2])
{
    const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10,
                                           12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    __m256i s0 = _mm256_shuffle_epi8(v0, split), s1 = _mm256_shuffle_epi8(v1, split);
    b[0] = _mm256_unpacklo_epi64(s0, s1);
    b[1] = _mm256_unpackhi_epi64(s0, s1);
}

/* The int16 sums L + 32 (H - 16 x 8) of the byte sums l and h, in the words' order of the first (lo = true) or last
 * 16. */
INLINE __m256i lut256_join(__m256i l, __m256i h, bool lo)
{
    __m256i lh = lo ? _mm256_unpacklo_epi8(l, h) : _mm256_unpackhi_epi8(l, h);
    __m256i s = _mm256_maddubs_epi16(lh, _mm256_set1_epi16(32 << 8 | 1));
    return _mm256_sub_epi16(s, _mm256_set1_epi16(8 * 16 * 32));
}

/* Block b of one group at g (its 32 d, then 8 chunks) against the planes of the activation's tables of that block
 * (32 x 32 bytes) and its 4 scales dx: each 32-weight quarter's sums, joined and widened, through the reference's
 * float step into f (rows 0-7, 8-15, 16-23, 24-31). sorted: the chunks hold row bytes already (q1_0_r32lut256,
 * whose rows lie where lut256_row_bytes puts q1_0_r32lut's), else words. */
INLINE void lut256_block(const char *g, const int8_t *planes, const float *dx, __m256 f[4], const kern_stream s,
                         const bool sorted)
{
#pragma GCC unroll 9
    for (int l = 0; l < KERN_R32_BLOCK_BYTES; l += 64)
        group_prefetch(g + l, s);
    __m256 d[4];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++)
        d[i] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(g + 16 * i)));
#pragma GCC unroll 4
    for (int k = 0; k < QK1_0 / QK8_0; k++) {
        __m256i l = _mm256_setzero_si256(), h = _mm256_setzero_si256();
#pragma GCC unroll 2
        for (int j = 2 * k; j < 2 * k + 2; j++) {
            __m256i v0 = _mm256_loadu_si256((const __m256i *)(g + 64 + 64 * j));
            __m256i v1 = _mm256_loadu_si256((const __m256i *)(g + 64 + 64 * j + 32));
            __m256i b[2] = { v0, v1 };
            if (!sorted)
                lut256_row_bytes(v0, v1, b);
            lut256_bytes(b[0], planes + 32 * 4 * j, &l, &h);
            lut256_bytes(b[1], planes + 32 * (4 * j + 2), &l, &h);
        }
        __m256 x = _mm256_set1_ps(dx[k]);
#pragma GCC unroll 2
        for (int hf = 0; hf < 2; hf++) { /* words 16hf .. 16hf + 15: rows 8hf .. 8hf + 7 (even), 16 + 8hf .. (odd) */
            __m256i acc = lut256_join(l, h, hf == 0);
            __m256i ev = _mm256_madd_epi16(acc, _mm256_set1_epi32(1));
            __m256i od = _mm256_madd_epi16(acc, _mm256_set1_epi32(1 << 16));
            f[hf] = _mm256_add_ps(f[hf], _mm256_mul_ps(_mm256_cvtepi32_ps(ev), _mm256_mul_ps(d[hf], x)));
            f[2 + hf] = _mm256_add_ps(f[2 + hf], _mm256_mul_ps(_mm256_cvtepi32_ps(od), _mm256_mul_ps(d[2 + hf], x)));
        }
    }
}

/* n groups (n <= 4) stride bytes apart, LUT256_SPAN blocks at a time, each group over those blocks, its float sums
 * kept in y (n x 32) between spans; sorted as lut256_block's. */
INLINE void lut256_groups_pass_as(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                                  const kern_stream s, const bool sorted)
{
    const int8_t *planes = a->lut256 + m * a->cols * 8;
    const float *dx = kern_act_scale(a, m);
    size_t nb = a->cols / QK1_0, block_planes = 32 * (QK1_0 / 4);
    memset(y, 0, sizeof(float) * KERN_R32 * (size_t)n);
    for (size_t b0 = 0; b0 < nb; b0 += LUT256_SPAN) {
        size_t b1 = b0 + LUT256_SPAN < nb ? b0 + LUT256_SPAN : nb;
        for (int r = 0; r < n; r++) {
            __m256 f[4];
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++)
                f[i] = _mm256_loadu_ps(y + KERN_R32 * r + 8 * i);
            for (size_t b = b0; b < b1; b++)
                lut256_block(w + (size_t)r * stride + b * KERN_R32_BLOCK_BYTES, planes + b * block_planes, dx + 4 * b,
                             f, s, sorted);
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++)
                _mm256_storeu_ps(y + KERN_R32 * r + 8 * i, f[i]);
        }
    }
}

/* q1_0_r32lut's pass (row words) and q1_0_r32lut256's (row bytes), as groups_in_step takes them. */
INLINE void lut256_groups_pass(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                               const kern_stream s)
{
    lut256_groups_pass_as(w, stride, n, a, m, y, s, false);
}
INLINE void lut256_groups_pass_sorted(const char *w, size_t stride, const int n, const kern_act *a, size_t m,
                                      float *y, const kern_stream s)
{
    lut256_groups_pass_as(w, stride, n, a, m, y, s, true);
}

#endif
