/* kern_kquant256.h — q4_K and q6_K x q8_K on 256 bits: written once and compiled twice, by kern_kquant_avx2.c (the
 * AVX2 table's rows for them) and kern_avxvnni.c, which differ in how int16 pairs are scaled into int32 sums
 * (KERN256_MADD_ADD: vpmaddwd and an add, or AVX-VNNI's vpdpwssd) and how q4_K's high nibbles leave their bytes
 * (kern256_field), both in kern_avx2.h. Each includer gets its own static rows_q4_K and rows_q6_K, the matmul
 * passes bpass_q4_K and bpass_q6_K (kq_bpass: a block's codes made once for up to KERN_BATCH_STEP activation rows),
 * which the AVX2 table exports as its batch kernels, and q6_K_r1's (kern_repack.h) rows and group kernel, which
 * both export for kern_repack.c. Same shape as kern_int256.h:
 * passes of KERN256_ROWS rows, a quarter of the call apart; each row has its own accumulator and a fixed
 * instruction sequence, so it gives the same bits in a pass or alone. Included only by files compiled with the
 * AVX2 flags; not public.
 *
 * The integer part of a block is exact: vpmaddubsw multiplies the unsigned codes (q4_K 0..15, q6_K 0..63) by
 * the activation's signed quants (|x| <= 127) into int16 pairs (at most 2 x 63 x 127 = 16002: no
 * saturation), and vpmaddwd (or vpdpwssd) by the sub-block's scale, broadcast to the lanes its elements land in,
 * sums them into int32. What the codes' offsets take away comes from the activation's bsums (sums of 16 quants):
 * q4_K's mins (m_j times the sums of sub-block j, kept apart: they are scaled by dmin, not d), q6_K's 32
 * (32 x scale_g x sum of sub-block g). */
#ifndef KERN_KQUANT256_H
#define KERN_KQUANT256_H

#include "kern_avx2.h"
#include "kern_impl.h"
#include "kern_kquant.h"

#include <immintrin.h>


/* vpshufb control: in each 128-bit lane, every int16 lane takes 16-bit lane k0 (low lane) or k1 (high lane). */
INLINE __m256i pick16(int k0, int k1)
{
    return _mm256_setr_m128i(_mm_set1_epi16((short)(2 * k0 | (2 * k0 + 1) << 8)),
                             _mm_set1_epi16((short)(2 * k1 | (2 * k1 + 1) << 8)));
}

/* The float step of a block: acc + isum x (dw x dx). */
INLINE __m256 fold(__m256 acc, __m256i isum, float dwx)
{
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_set1_ps(dwx), acc);
}

/* ---- the pass both formats share: nr rows (rs bytes apart) against activation row m ---- */

/* One row's step over block b: acc plus the block's dot; x the activation block's quants, bsums its sums of 16,
 * dx its scale. */
typedef __m256 (*kq_step_fn)(__m256 acc, const char *blk, const int8_t *x, __m256i bsums, float dx);

INLINE void kq_pass(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys,
                    size_t block_bytes, kq_step_fn step)
{
    const kern_q8_K_row x = kern_q8_K_row_of(a, m);
    __m256 acc[KERN256_ROWS];
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        acc[r] = _mm256_setzero_ps();
    for (size_t b = 0; b < x.nb; b++) {
        __m256i bsums = _mm256_loadu_si256((const __m256i *)x.blk[b].bsums);
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++)
            acc[r] = step(acc[r], kern_row_ptr(w, rs, r) + b * block_bytes, x.qs + b * QK_K, bsums, x.d[b]);
    }
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = hsum8(acc[r]);
}

/* A matmul pass (kern_bpass_fn's shape): one row against na (<= KERN_BATCH_STEP) activation rows from m0, block by
 * block through the format's step, each row's float sum in block order as kq_pass's, so a matmul row is the
 * matvec's bits where the step's sums and float steps are the matvec's. */
typedef void (*kq_bstep_fn)(__m256 acc[], const char *blk, int na, const kern_q8_K_row x[], size_t b);

INLINE void kq_bpass(const char *row, const int na, const kern_act *a, size_t m0, float *y, size_t ldy,
                     size_t block_bytes, kq_bstep_fn bstep)
{
    kern_q8_K_row x[KERN_BATCH_STEP];
    __m256 acc[KERN_BATCH_STEP];
#pragma GCC unroll 4
    for (int j = 0; j < na; j++) {
        x[j] = kern_q8_K_row_of(a, m0 + (size_t)j);
        acc[j] = _mm256_setzero_ps();
    }
    for (size_t b = 0; b < x[0].nb; b++)
        bstep(acc, row + b * block_bytes, na, x, b);
#pragma GCC unroll 4
    for (int j = 0; j < na; j++)
        y[(size_t)j * ldy] = hsum8(acc[j]);
}

/* ---- q4_K: chunk c of 32 bytes holds sub-blocks 2c (low nibbles) and 2c + 1 (high) ---- */

/* The block's 8 scales (bytes 0-7) and 8 mins (bytes 8-15), 0..63, from its 16-byte head (d, dmin, the 12 packed
 * bytes) by kern_q4_K_unpack's rule on dwords 1-3 (w0, w1, w2): dword 0 = w0 & 0x3f.., 1 = (w2 & 0x0f..) | (w0 >> 2
 * & 0x30..), 2 = w1 & 0x3f.., 3 = (w2 >> 4 & 0x0f..) | (w1 >> 2 & 0x30..). Vector instructions, not the scalar
 * unpack: on Intel the integer ALUs share ports 0, 1 and 5 with the vector units (docs/kernels.md, why these
 * instructions). */
INLINE __m128i q4_K_scales_mins(__m128i head)
{
    __m128i x = _mm_shuffle_epi32(head, 1 | 3 << 2 | 2 << 4 | 3 << 6); /* dwords w0, w2, w1, w2 */
    __m128i y = _mm_shuffle_epi32(head, 1 | 1 << 2 | 2 << 4 | 2 << 6); /* w0, w0, w1, w1 */
    __m128i low = _mm_and_si128(_mm_srlv_epi32(x, _mm_setr_epi32(0, 0, 0, 4)),
                                _mm_setr_epi32(0x3f3f3f3f, 0x0f0f0f0f, 0x3f3f3f3f, 0x0f0f0f0f));
    return _mm_or_si128(low, _mm_and_si128(_mm_srli_epi32(y, 2), _mm_setr_epi32(0, 0x30303030, 0, 0x30303030)));
}

/* Sum over the 8 sub-blocks of sc_j x (codes . x), in 8 int32 lanes, for na activation blocks at once (xs[j], the
 * block's 256 quants, into isum[j]); sm: the scales (bytes 0-7). The codes and scale shuffles are made once for all
 * of them; integer sums are exact in any order, so each j's is what it would be alone. */
INLINE void q4_K_dots_n(const block_q4_K *blk, __m128i sm, const int na, const int8_t *const xs[], __m256i isum[])
{
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    /* the 8 scales as int16, in both 128-bit lanes */
    __m256i s16 = _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(sm));
#pragma GCC unroll 4
    for (int j = 0; j < na; j++)
        isum[j] = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) {
        __m256i q = _mm256_loadu_si256((const __m256i *)(blk->qs + 32 * c));
        __m256i lo = _mm256_and_si256(q, low4), hi = kern256_field(q, 4, 4);
        __m256i slo = _mm256_shuffle_epi8(s16, pick16(2 * c, 2 * c));
        __m256i shi = _mm256_shuffle_epi8(s16, pick16(2 * c + 1, 2 * c + 1));
#pragma GCC unroll 4
        for (int j = 0; j < na; j++) {
            __m256i plo = _mm256_maddubs_epi16(lo, _mm256_loadu_si256((const __m256i *)(xs[j] + 64 * c)));
            __m256i phi = _mm256_maddubs_epi16(hi, _mm256_loadu_si256((const __m256i *)(xs[j] + 64 * c + 32)));
            isum[j] = KERN256_MADD_ADD(isum[j], plo, slo);
            isum[j] = KERN256_MADD_ADD(isum[j], phi, shi);
        }
    }
}

/* m_j x (bsums 2j + 2j + 1) in lane j: each min (bytes 8-15 of sm) twice (int16 lanes 2j, 2j + 1) against
 * bsums. */
INLINE __m256i q4_K_mins(__m128i sm, __m256i bsums)
{
    return _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_unpackhi_epi8(sm, sm)), bsums);
}

/* A block's float step: acc + dots x (d dx) - mins x (dmin dx). d and dmin, the head's first two halves, converted by
 * one vcvtph2ps (lanes 0 and 1) and scaled by dx: the same float products as two scalar conversions, each of which
 * was a move into a vector register and a vcvtph2ps of its own. */
INLINE __m256 q4_K_fold(__m256 acc, __m128i head, __m256i dots, __m256i mins, float dx)
{
    __m128 ddx = _mm_mul_ps(_mm_cvtph_ps(head), _mm_set1_ps(dx));
    acc = fold(acc, dots, _mm_cvtss_f32(ddx));
    return fold(acc, mins, -_mm_cvtss_f32(_mm_movehdup_ps(ddx)));
}

INLINE __m256 step_q4_K(__m256 acc, const char *w, const int8_t *x, __m256i bsums, float dx)
{
    const block_q4_K *blk = (const block_q4_K *)w; /* the block's bytes, as kern_row_ptr found them */
    __m128i head = _mm_loadu_si128((const __m128i *)w);
    __m128i sm = q4_K_scales_mins(head);
    __m256i dots;
    q4_K_dots_n(blk, sm, 1, &x, &dots);
    return q4_K_fold(acc, head, dots, q4_K_mins(sm, bsums), dx);
}

INLINE void pass_q4_K(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    kq_pass(w, rs, nr, a, m, y, ys, sizeof(block_q4_K), step_q4_K);
}
KERN256_ROWS_FN(q4_K)

/* q4_K's block step of a matmul pass (kq_bstep_fn): the block's codes, scales and mins made once for the na
 * activation rows; every pair's sums and float steps are step_q4_K's. */
INLINE void bstep_q4_K(__m256 acc[], const char *w, const int na, const kern_q8_K_row x[], size_t b)
{
    const block_q4_K *blk = (const block_q4_K *)w; /* the block's bytes, as kq_bpass found them */
    __m128i head = _mm_loadu_si128((const __m128i *)w);
    __m128i sm = q4_K_scales_mins(head);
    const int8_t *xs[KERN_BATCH_STEP];
    __m256i dots[KERN_BATCH_STEP];
#pragma GCC unroll 4
    for (int j = 0; j < na; j++)
        xs[j] = x[j].qs + b * QK_K;
    q4_K_dots_n(blk, sm, na, xs, dots);
#pragma GCC unroll 4
    for (int j = 0; j < na; j++) {
        __m256i bsums = _mm256_loadu_si256((const __m256i *)x[j].blk[b].bsums);
        acc[j] = q4_K_fold(acc[j], head, dots[j], q4_K_mins(sm, bsums), x[j].d[b]);
    }
}

INLINE void bpass_q4_K(const char *row, const int na, const kern_act *a, size_t m0, float *y, size_t ldy)
{
    kq_bpass(row, na, a, m0, y, ldy, sizeof(block_q4_K), bstep_q4_K);
}


/* ---- q6_K: half h's 32 bytes of qh, and its ql bytes 0-31 and 32-63, make four chunks of 32 codes ---- */

/* The codes of elements 128h + 32k .. + 31 (k < 4), ql the half's bytes 0-31 for even k, 32-63 for odd: ql's
 * nibble (low for k < 2), qh's bits 2k, 2k + 1 as bits 4-5 (17 instructions the four chunks). A 16-bit shift moves
 * bits across the bytes of a lane; the masks keep only each byte's own. */
INLINE __m256i q6_K_codes(__m256i ql, __m256i qh, int k)
{
    const __m256i low4 = _mm256_set1_epi8(0x0F), bits45 = _mm256_set1_epi8(0x30);
    __m256i lo = _mm256_and_si256(k < 2 ? ql : _mm256_srli_epi16(ql, 4), low4);
    __m256i hi = k == 2 ? qh : k < 2 ? _mm256_slli_epi16(qh, 4 - 2 * k) : _mm256_srli_epi16(qh, 2);
    return _mm256_or_si256(lo, _mm256_and_si256(hi, bits45));
}

/* Sum over the 16 sub-blocks of scale_g x (codes . x) - 32 x scale_g x bsums_g, in 8 int32 lanes, for na activation
 * blocks at once (xs[j], bsums[j] into isum[j]): the codes and their scales made once for all of them. Integer sums
 * are exact in any order, so each j's is what it would be alone. */
INLINE void q6_K_dots_n(const block_q6_K *blk, const int na, const int8_t *const xs[], const __m256i bsums[],
                        __m256i isum[])
{
    __m256i s16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)blk->scales));
#pragma GCC unroll 4
    for (int j = 0; j < na; j++)
        isum[j] = _mm256_setzero_si256();
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        /* scales 8h .. 8h + 7 in both 128-bit lanes: chunk k's first 16 codes take 2k, the next 16 2k + 1 */
        /* Two literal immediates, not one chosen by ?: — without optimisation (-O1 under ASan) the intrinsic is
         * a real function whose last argument must be a constant. */
        __m256i sh = h ? _mm256_permute4x64_epi64(s16, _MM_SHUFFLE(3, 2, 3, 2))
                       : _mm256_permute4x64_epi64(s16, _MM_SHUFFLE(1, 0, 1, 0));
        __m256i ql0 = _mm256_loadu_si256((const __m256i *)(blk->ql + 64 * h));
        __m256i ql1 = _mm256_loadu_si256((const __m256i *)(blk->ql + 64 * h + 32));
        __m256i qh = _mm256_loadu_si256((const __m256i *)(blk->qh + 32 * h));
#pragma GCC unroll 4
        for (int k = 0; k < 4; k++) {
            __m256i codes = q6_K_codes(k & 1 ? ql1 : ql0, qh, k);
            __m256i sc = _mm256_shuffle_epi8(sh, pick16(2 * k, 2 * k + 1));
#pragma GCC unroll 4
            for (int j = 0; j < na; j++) {
                __m256i xv = _mm256_loadu_si256((const __m256i *)(xs[j] + 128 * h + 32 * k));
                isum[j] = KERN256_MADD_ADD(isum[j], _mm256_maddubs_epi16(codes, xv), sc);
            }
        }
    }
#pragma GCC unroll 4
    for (int j = 0; j < na; j++)
        isum[j] = _mm256_sub_epi32(isum[j], _mm256_slli_epi32(_mm256_madd_epi16(s16, bsums[j]), 5));
}

/* The same for one activation block x. */
INLINE __m256i q6_K_dots(const block_q6_K *blk, const int8_t *x, __m256i bsums)
{
    __m256i isum;
    q6_K_dots_n(blk, 1, &x, &bsums, &isum);
    return isum;
}

INLINE __m256 step_q6_K(__m256 acc, const char *w, const int8_t *x, __m256i bsums, float dx)
{
    const block_q6_K *blk = (const block_q6_K *)w; /* the block's bytes, as kern_row_ptr found them */
    return fold(acc, q6_K_dots(blk, x, bsums), _cvtsh_ss(blk->d) * dx);
}

INLINE void pass_q6_K(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    kq_pass(w, rs, nr, a, m, y, ys, sizeof(block_q6_K), step_q6_K);
}
KERN256_ROWS_FN(q6_K)

/* ---- q6_K_r1 (kern_repack.h): in each half, 32-bit lane i of every code chunk holds four codes of sub-block 8h + i
 * (chunk k: its elements 4k .. 4k + 3), against kern_act.q6r1_qs's quants laid out the same way. So one scale
 * vector serves a half's four chunks, and two chunks' int16 pairs (each at most 2 x 63 x 128 = 16128) add up
 * before one vpmaddwd scales and widens them: 25 instructions a half where the file's order took 30. ---- */

/* Chunk k (k < 4) of a half from its three code vectors: chunks 0 and 1 the low 6 bits of a and b, 2 and 3 a nibble
 * of c (low for 2) with the top 2 bits of a or b as bits 4-5 (11 instructions the four chunks). */
INLINE __m256i q6_K_r1_codes(__m256i a, __m256i b, __m256i c, int k)
{
    const __m256i low4 = _mm256_set1_epi8(0x0F), bits45 = _mm256_set1_epi8(0x30);
    if (k < 2)
        return _mm256_and_si256(k ? b : a, _mm256_set1_epi8(0x3F));
    return _mm256_or_si256(_mm256_and_si256(k == 2 ? c : _mm256_srli_epi16(c, 4), low4),
                           _mm256_and_si256(_mm256_srli_epi16(k == 2 ? a : b, 2), bits45));
}

/* A q6_K_r1 block's integer sum against activation block x (q6r1_qs's) in 8 int32 lanes, its scales (stored
 * sub-blocks 0-3, 8-11, 4-7, 12-15) widened once: unpacklo of them gives half 0's eight, a scale a 32-bit lane,
 * unpackhi half 1's; bsums in that order (q6_K_r1_bsums). */
INLINE __m256i q6_K_r1_dots(const block_q6_K *blk, const int8_t *x, __m256i bsums)
{
    __m256i s16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)blk->scales));
    __m256i isum = _mm256_setzero_si256();
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(blk->ql + 64 * h));
        __m256i b = _mm256_loadu_si256((const __m256i *)(blk->ql + 64 * h + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(blk->qh + 32 * h));
        __m256i sc = h ? _mm256_unpackhi_epi16(s16, s16) : _mm256_unpacklo_epi16(s16, s16);
#pragma GCC unroll 2
        for (int k = 0; k < 2; k++) { /* chunks k and k + 2 */
            __m256i x0 = _mm256_loadu_si256((const __m256i *)(x + 128 * h + 32 * k));
            __m256i x1 = _mm256_loadu_si256((const __m256i *)(x + 128 * h + 32 * (k + 2)));
            __m256i t = _mm256_add_epi16(_mm256_maddubs_epi16(q6_K_r1_codes(a, b, c, k), x0),
                                         _mm256_maddubs_epi16(q6_K_r1_codes(a, b, c, k + 2), x1));
            isum = KERN256_MADD_ADD(isum, t, sc);
        }
    }
    return _mm256_sub_epi32(isum, _mm256_slli_epi32(_mm256_madd_epi16(s16, bsums), 5));
}

/* The activation block's sums of 16 in q6_K_r1's order of scales: sub-blocks 0-3, 8-11, 4-7, 12-15. */
INLINE __m256i q6_K_r1_bsums(__m256i b)
{
    return _mm256_permute4x64_epi64(b, _MM_SHUFFLE(3, 1, 2, 0));
}

/* Row r's block sum (lane r) of the 8-lane sums s[0..3], or of s[0] alone (nr 1): integers, exact in any order. */
INLINE __m128i q6_K_r1_row_sums(const __m256i s[], const int nr)
{
    __m256i t = s[0];
    if (nr == KERN256_ROWS) {
        __m256i a = _mm256_add_epi32(_mm256_unpacklo_epi32(s[0], s[1]), _mm256_unpackhi_epi32(s[0], s[1]));
        __m256i b = _mm256_add_epi32(_mm256_unpacklo_epi32(s[2], s[3]), _mm256_unpackhi_epi32(s[2], s[3]));
        t = _mm256_add_epi32(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
    }
    __m128i h = _mm_add_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
    if (nr == KERN256_ROWS)
        return h;
    h = _mm_add_epi32(h, _mm_unpackhi_epi64(h, h));
    return _mm_add_epi32(h, _mm_shuffle_epi32(h, _MM_SHUFFLE(1, 1, 1, 1)));
}

/* d with word r (a constant where inlined) set to h: the intrinsic's lane must be a literal. */
INLINE __m128i q6_K_r1_insert_d(__m128i d, kern_half h, const int r)
{
    switch (r) {
    case 0: return _mm_insert_epi16(d, h, 0);
    case 1: return _mm_insert_epi16(d, h, 1);
    case 2: return _mm_insert_epi16(d, h, 2);
    default: return _mm_insert_epi16(d, h, 3);
    }
}

/* q6_K_r1's pass: nr (1 or 4) rows rs bytes apart against activation row m, each row's float sum in one lane by
 * the scalar reference's steps (its block's integer sum, times d x dx, then added, in block order), so every row is
 * its bits: a repacked layout's contract (kern_repack.h), where the file's kernel keeps 8 lanes a row. */
INLINE void pass_q6_K_r1(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, float *y, size_t ys)
{
    const kern_q8_K_row x = kern_q8_K_row_of(a, m);
    const int8_t *xq = kern_act_q6r1_qs(a, m);
    __m128 acc = _mm_setzero_ps();
    for (size_t b = 0; b < x.nb; b++) {
        __m256i bsums = q6_K_r1_bsums(_mm256_loadu_si256((const __m256i *)x.blk[b].bsums)), s[KERN256_ROWS];
        __m128i d = _mm_setzero_si128(); /* word r: row r's d */
#pragma GCC unroll 4
        for (int r = 0; r < nr; r++) {
            const block_q6_K *blk = (const block_q6_K *)(kern_row_ptr(w, rs, r) + b * sizeof(block_q6_K));
            s[r] = q6_K_r1_dots(blk, xq + b * QK_K, bsums);
            d = q6_K_r1_insert_d(d, blk->d, r);
        }
        __m128 dwx = _mm_mul_ps(_mm_cvtph_ps(d), _mm_set1_ps(x.d[b]));
        acc = _mm_add_ps(acc, _mm_mul_ps(_mm_cvtepi32_ps(q6_K_r1_row_sums(s, nr)), dwx));
    }
    float out[4];
    _mm_storeu_ps(out, acc);
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++)
        y[r * ys] = out[r];
}

KERN256_ROWS_FN(q6_K_r1)

/* q6_K_r1's group kernel (kern_repack_impl.h's type): n (1 or 4) rows stride bytes apart, as the file's passes
 * read them, y[r] row r's dot. */
INLINE void group_q6_K_r1(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    if (n == KERN256_ROWS)
        pass_q6_K_r1(w, stride, KERN256_ROWS, a, m, y, 1);
    else
        for (int r = 0; r < n; r++)
            pass_q6_K_r1(w + (size_t)r * stride, stride, 1, a, m, y + r, 1);
}

/* q6_K's block step of a matmul pass (kq_bstep_fn): the block's codes made once for the na activation rows; every
 * pair's integer sum and float step are step_q6_K's. */
INLINE void bstep_q6_K(__m256 acc[], const char *w, const int na, const kern_q8_K_row x[], size_t b)
{
    const block_q6_K *blk = (const block_q6_K *)w; /* the block's bytes, as kq_bpass found them */
    const int8_t *xs[KERN_BATCH_STEP];
    __m256i bsums[KERN_BATCH_STEP], isum[KERN_BATCH_STEP];
#pragma GCC unroll 4
    for (int j = 0; j < na; j++) {
        xs[j] = x[j].qs + b * QK_K;
        bsums[j] = _mm256_loadu_si256((const __m256i *)x[j].blk[b].bsums);
    }
    q6_K_dots_n(blk, na, xs, bsums, isum);
    const float d = _cvtsh_ss(blk->d);
#pragma GCC unroll 4
    for (int j = 0; j < na; j++)
        acc[j] = fold(acc[j], isum[j], d * x[j].d[b]);
}

INLINE void bpass_q6_K(const char *row, const int na, const kern_act *a, size_t m0, float *y, size_t ldy)
{
    kq_bpass(row, na, a, m0, y, ldy, sizeof(block_q6_K), bstep_q6_K);
}

#endif
