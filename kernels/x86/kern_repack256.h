/* kern_repack256.h — the repacked layouts' group kernels on 256 bits (q4_0_r16, q8_0_r16, tq2_0_r16, q4_K_r16;
 * q1_0_r32lut's look-ups are kern_lut256.h) and the GEMM tiles of q4_0_r16 and q8_0_r16:
 * written once and compiled twice, by kern_repack_avx2.c and kern_repack_avxvnni.c, which differ in how bytes are
 * multiplied and summed (KERN256_DOT, kern_avx2.h) and in the suffix of the kernels' names (KERN256_ISA). The
 * layouts are kern_repack.h's, the same bytes the AVX-512 kernels read; a ymm holds 8 of a group's 16 rows (a 64-byte
 * chunk is two loads), one row a 32-bit lane.
 *
 * Each four activation quants are broadcast to every lane, so one product step makes four weights of eight rows
 * with no sum across lanes. On AVX2 the products are vpmaddubsw's int16 pairs, added as int16 across the block and
 * widened once: q4_0's codes are 0..15 against |x| <= 127, so 8 steps (a block's 4 chunks, low and high nibbles)
 * reach at most 8 x 2 x 15 x 127 = 30480 < 32767, exact. q8_0_r16's codes are q + 128 (up to 255), which would
 * saturate vpmaddubsw's pairs: AVX2 turns them back into q and multiplies |q| by the activation with q's sign
 * (pairs at most 2 x 128 x 127 = 32512, exact), widening every product step (r16_q8_dot256). The codes' offset is
 * taken back out with the activation block's sum (nsumb x 8 or x 128; none for AVX2's q8_0, which never added it),
 * exact in int32; then the reference's float steps, multiply then add in block order, so every row is bit for bit
 * the scalar reference's. Not public. */
#ifndef KERN_REPACK256_H
#define KERN_REPACK256_H

#include <string.h>

#include "kern_avx2.h"
#include "kern_group.h"
#include "kern_lut256.h"

/* The four quants at p (one dword, any alignment) in every dword lane. */
INLINE __m256i quads256_at(const int8_t *p) { return _mm256_set1_epi32(group_quads(p)); }

/* A group's block into its float sums acc (rows 0-7, 8-15): seed plus each half's int32 sums s, converted, times
 * the rows' d (the block's 16 halves at g) times the activation's xd; the reference's steps, multiply then add. */
INLINE void r16_acc_add256(__m256 acc[2], const char *g, __m256i seed, __m256i s0, __m256i s1, __m256 xd)
{
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        __m256 d = _mm256_mul_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(g + 16 * h))), xd);
        __m256i i = _mm256_add_epi32(seed, h ? s1 : s0);
        acc[h] = _mm256_add_ps(acc[h], _mm256_mul_ps(_mm256_cvtepi32_ps(i), d));
    }
}

/* The float sums of n groups, zeroed. */
INLINE void r16_acc_zero256(__m256 acc[4][2], const int n)
{
#pragma GCC unroll 4
    for (int r = 0; r < n; r++)
        acc[r][0] = acc[r][1] = _mm256_setzero_ps();
}

/* The float sums of n groups to y (n x 16). */
INLINE void r16_acc_store256(__m256 acc[4][2], const int n, float *y)
{
#pragma GCC unroll 4
    for (int r = 0; r < n; r++) {
        _mm256_storeu_ps(y + KERN_R16 * r, acc[r][0]);
        _mm256_storeu_ps(y + KERN_R16 * r + 8, acc[r][1]);
    }
}

/* q8_0_r16's codes v (q + 128) against broadcast quants xq, added to int32 sums p. AVX-VNNI: vpdpbusd, the offset
 * left for the seed. AVX2: q = v ^ 0x80, and |q| against xq with q's sign, each step's int16 pairs widened at once
 * (two would not fit). GCC computes |q| and q once for all the activation rows a chunk meets. */
INLINE __m256i r16_q8_dot256(__m256i p, __m256i v, __m256i xq)
{
#if defined(__AVXVNNI__)
    return KERN256_DOT(p, v, xq);
#else
    __m256i q = _mm256_xor_si256(v, _mm256_set1_epi8((char)0x80));
    __m256i pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(q), _mm256_sign_epi8(xq, q));
    return _mm256_add_epi32(p, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
#endif
}

/* q8_0's chains a GEMM row: vpdpbusd's latency wants two (40-47% of the roof with one, on Zen 5); AVX2's
 * products end in a one-cycle add, and a second chain's four registers would spill. */
#if defined(__AVXVNNI__)
#define R16_Q8_CHAINS 2
#else
#define R16_Q8_CHAINS 1
#endif

/* What the block's integer sums start from: the codes' offset (r16_seed), or none for AVX2's q8_0 products. */
INLINE int32_t r16_seed256(const int bits, int32_t nsumb)
{
#if !defined(__AVXVNNI__)
    if (bits == 8)
        return 0;
#endif
    return r16_seed(bits, nsumb);
}

/* A half's integer sums as int32 lanes: q4_0's int16 pairs widened (KERN256_DOT_SUM); q8_0's already are. */
INLINE __m256i r16_sum256(kern256_dot p, const int bits) { return bits == 8 ? p : KERN256_DOT_SUM(p); }

/* Half h (rows 8h..8h+7) of chunk c of one group's block at g into p: q4_0's nibbles (bits 4), low against quants
 * 4c.., high against 16+4c..; q8_0's bytes (bits 8) against 4c... */
INLINE kern256_dot r16_half256(const char *g, int c, int h, const __m256i xq[8], kern256_dot p, const int bits)
{
    __m256i v = _mm256_loadu_si256((const __m256i *)(g + 2 * KERN_R16 + 64 * c + 32 * h));
    if (bits == 8)
        return r16_q8_dot256(p, v, xq[c]);
    p = KERN256_DOT(p, kern256_field(v, 0, 4), xq[c]);
    return KERN256_DOT(p, kern256_field(v, 4, 4), xq[4 + c]);
}

/* n groups (n <= 4) stride bytes apart, in step, each group whole before the next; bits 4 (q4_0_r16) or 8
 * (q8_0_r16), a constant once inlined. y: n x 16. */
INLINE void r16_groups_pass256(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                               const int bits, const kern_stream s)
{
    const int8_t *x = kern_act_qs(a, m);
    const int32_t *nsumb = kern_act_nsumb(a, m);
    const float *dx = kern_act_scale(a, m);
    const size_t nb = a->cols / QK8_0, block = r16_block_bytes(bits);
    const int chunks = r16_chunks(bits);
    __m256 acc[4][2];
    r16_acc_zero256(acc, n);
    for (size_t b = 0; b < nb; b++, w += block, x += QK8_0) {
        __m256i xq[8];
#pragma GCC unroll 8
        for (int c = 0; c < 8; c++)
            xq[c] = quads256_at(x + 4 * c);
        const __m256i seed = _mm256_set1_epi32(r16_seed256(bits, nsumb[b]));
        const __m256 xd = _mm256_set1_ps(dx[b]);
#pragma GCC unroll 4
        for (int r = 0; r < n; r++) {
            const char *g = w + (size_t)r * stride;
            kern256_dot p[2] = { KERN256_DOT_ZERO, KERN256_DOT_ZERO };
#pragma GCC unroll 8
            for (int c = 0; c < chunks; c++) {
                group_prefetch(g + 64 * c, s);
                p[0] = r16_half256(g, c, 0, xq, p[0], bits);
                p[1] = r16_half256(g, c, 1, xq, p[1], bits);
            }
            group_prefetch(g + 64 * chunks, s); /* the block's last line, which its head pushed over */
            r16_acc_add256(acc[r], g, seed, r16_sum256(p[0], bits), r16_sum256(p[1], bits), xd);
        }
    }
    r16_acc_store256(acc, n, y);
}

INLINE void r16_groups_pass256_q4_0(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                                    const kern_stream s)
{
    r16_groups_pass256(w, stride, n, a, m, y, 4, s);
}

INLINE void r16_groups_pass256_q8_0(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                                    const kern_stream s)
{
    r16_groups_pass256(w, stride, n, a, m, y, 8, s);
}

/* ---- tq2_0_r16 (kern_repack.h): chunk j of a group's block is 16 dwords, dword r row r's code bytes 4j..4j+3, and
 * bit field f of those bytes holds the row's weights 128 (j / 8) + 32 f + 4 (j % 8) .. + 3 as q + 1 (0..2). Each
 * field is taken down to its byte (kern256_field: a shift and a mask, or one GFNI step) and meets four broadcast
 * quants, into one chain per half. On AVX2 that chain is int16 pairs, widened to int32 every 8 chunks (32 steps):
 * codes reach 3 (ggml's quantizer writes 0..2, but a file may hold 3, weight +2), so a chunk's pairs add up to at most
 * 2 x 2 x 3 x 127 + 2 x 2 x 12 x 127 / 4 = 3048, 8 chunks' to 24384 < 32767, exact; a block's 16 would not be. The
 * activation block's sum, negated (nsumb), takes the + 1 back out. ---- */

/* Half h of chunk j of one group's block at g, its four fields against xf: into p, and on AVX2 fields 1 and 3 into
 * q. AVX2 leaves those two four times over in place (a mask, no shift: one shift for fields 2 and 3), so q's pairs
 * are multiples of 4 (at most 2 x 2 x 12 x 127 = 6096 a half chunk), taken back down into p by one exact
 * arithmetic shift every TQ2_Q_CHUNKS chunks: 13.5 instructions a half chunk where 14 were. */
#define TQ2_Q_CHUNKS 4 /* 4 x 6096 = 24384 < 32767 */
INLINE kern256_dot tq2_half256(const char *g, int j, int h, const __m256i xf[4], kern256_dot p, __m256i *q)
{
    __m256i v = _mm256_loadu_si256((const __m256i *)(g + 2 * KERN_R16 + 64 * j + 32 * h));
#if defined(__AVXVNNI__)
    (void)q;
#pragma GCC unroll 4
    for (int f = 0; f < 4; f++)
        p = KERN256_DOT(p, kern256_field(v, 2 * f, 2), xf[f]);
    return p;
#else
    const __m256i low2 = _mm256_set1_epi8(0x03), next2 = _mm256_set1_epi8(0x0C);
    __m256i w = _mm256_srli_epi16(v, 4); /* fields 2 and 3 at bits 0-3 of each byte */
    *q = _mm256_add_epi16(*q, _mm256_maddubs_epi16(_mm256_and_si256(v, next2), xf[1]));
    *q = _mm256_add_epi16(*q, _mm256_maddubs_epi16(_mm256_and_si256(w, next2), xf[3]));
    p = KERN256_DOT(p, _mm256_and_si256(v, low2), xf[0]);
    p = KERN256_DOT(p, _mm256_and_si256(w, low2), xf[2]);
    if (j % TQ2_Q_CHUNKS == TQ2_Q_CHUNKS - 1) {
        p = _mm256_add_epi16(p, _mm256_srai_epi16(*q, 2));
        *q = _mm256_setzero_si256();
    }
    return p;
#endif
}

/* One block of n groups (n <= 2) stride bytes apart, at w, against activation block x, into their float sums acc. */
INLINE void tq2_block256(const char *w, size_t stride, const int n, const int8_t *x, int32_t nsumb, float dx,
                         __m256 acc[4][2], const kern_stream s)
{
    kern256_dot p[4][2];
    __m256i sum[4][2], q[4][2]; /* the first 8 chunks' chains, widened; fields 1 and 3 (AVX2) */
#pragma GCC unroll 4
    for (int r = 0; r < n; r++) {
        p[r][0] = p[r][1] = KERN256_DOT_ZERO;
        q[r][0] = q[r][1] = _mm256_setzero_si256();
    }
#pragma GCC unroll 1
    for (int u = 0; u < 2; u++) { /* a block's halves: 8 chunks of 128 columns each */
#pragma GCC unroll 8
        for (int j = 8 * u; j < 8 * u + 8; j++) {
            __m256i xf[4];
#pragma GCC unroll 4
            for (int f = 0; f < 4; f++)
                xf[f] = quads256_at(x + 128 * u + 32 * f + 4 * (j % 8));
#pragma GCC unroll 4
            for (int r = 0; r < n; r++) {
                const char *g = w + (size_t)r * stride;
                group_prefetch(g + 64 * j, s);
                p[r][0] = tq2_half256(g, j, 0, xf, p[r][0], &q[r][0]);
                p[r][1] = tq2_half256(g, j, 1, xf, p[r][1], &q[r][1]);
            }
        }
        if (u == 0)
#pragma GCC unroll 4
            for (int r = 0; r < n; r++) {
                sum[r][0] = KERN256_DOT_SUM(p[r][0]);
                sum[r][1] = KERN256_DOT_SUM(p[r][1]);
                p[r][0] = p[r][1] = KERN256_DOT_ZERO;
            }
    }
    const __m256i seed = _mm256_set1_epi32(nsumb);
    const __m256 xd = _mm256_set1_ps(dx);
#pragma GCC unroll 4
    for (int r = 0; r < n; r++) {
        const char *g = w + (size_t)r * stride;
        group_prefetch(g + 64 * 16, s); /* the block's last line, which its head pushed over */
        r16_acc_add256(acc[r], g, seed, _mm256_add_epi32(sum[r][0], KERN256_DOT_SUM(p[r][0])),
                       _mm256_add_epi32(sum[r][1], KERN256_DOT_SUM(p[r][1])), xd);
    }
}

/* ---- q4_K_r16 (kern_repack.h): the 16 rows' d and dmin, 3 chunks of packed scales (dword r of chunk k: row r's
 * scales[4k .. 4k + 3]), then 32 chunks of codes, code chunk k's low nibbles weights 64 (k / 8) + 4 (k % 8) .. + 3
 * of sub-block 2 (k / 8), its high ones those + 32 of the next sub-block. As the AVX-512 kernel: a sub-block's
 * chain (on AVX2 int16 pairs, at most 8 x 2 x 15 x 127 = 30480, exact) widened and times its 6-bit scale by
 * vpmulld; the mins against the activation sub-block sums S = 256 H + L (|S| <= 4064): each of the four byte
 * products (mins x H: at most 2 x 63 x 16 a pair; L x mins: 2 x 255 x 63 = 32130) widened on its own, exact on
 * AVX2 too. Then the reference's two float steps. ---- */

/* A q4_K activation block's mins side: bytes H_j (lo: j < 4, hi: j >= 4) and L_j of the sub-block sums. */
typedef struct q4k_xm256 {
    __m256i h_lo, h_hi, l_lo, l_hi;
} q4k_xm256;

INLINE q4k_xm256 q4k_mins_prep256(const block_q8_K *xb)
{
    int32_t w[4];
    q4k_mins_words(xb, w);
    return (q4k_xm256){ _mm256_set1_epi32(w[0]), _mm256_set1_epi32(w[1]), _mm256_set1_epi32(w[2]),
                        _mm256_set1_epi32(w[3]) };
}

/* u x s (four byte products a lane), widened to int32 on its own. */
INLINE __m256i q4k_dot256(__m256i u, __m256i s) { return KERN256_DOT_SUM(KERN256_DOT(KERN256_DOT_ZERO, u, s)); }

/* Byte j % 4 of every lane of sc (sub-block j's scale), times the chain p widened, into sumi. AVX2's int16 pairs
 * meet the scale in both words of their lane (one vpshufb: byte j % 4 to bytes 0 and 2, zeros above), so one
 * vpmaddwd widens and scales them (at most 2 x 30480 x 63); AVX-VNNI's int32 sums take vpmulld. */
INLINE __m256i q4k_scaled256(__m256i sumi, kern256_dot p, __m256i sc, int j)
{
#if defined(__AVXVNNI__)
    __m256i scj = _mm256_and_si256(_mm256_srli_epi32(sc, 8 * (j % 4)), _mm256_set1_epi32(0xFF));
    return _mm256_add_epi32(sumi, _mm256_mullo_epi32(KERN256_DOT_SUM(p), scj));
#else
    const int b = j % 4, z = -128; /* z: a zero byte */
    __m256i pick = _mm256_setr_epi8(b, z, b, z, 4 + b, z, 4 + b, z, 8 + b, z, 8 + b, z, 12 + b, z, 12 + b, z, b, z, b,
                                    z, 4 + b, z, 4 + b, z, 8 + b, z, 8 + b, z, 12 + b, z, 12 + b, z);
    return _mm256_add_epi32(sumi, _mm256_madd_epi16(p, _mm256_shuffle_epi8(sc, pick)));
#endif
}

/* Half h of one group's block at g, its head: the scales of sub-blocks 0-3 (sc[0]) and 4-7 (sc[1]), one a byte of
 * each lane, and the integer sum of its mins times the activation's sub-block sums (returned). */
INLINE __m256i q4k_head256(const char *g, int h, const q4k_xm256 *xm, __m256i sc[2])
{
    const __m256i m6 = _mm256_set1_epi8(0x3F), m4 = _mm256_set1_epi8(0x0F), top = _mm256_set1_epi8(0x30);
    __m256i s0 = _mm256_loadu_si256((const __m256i *)(g + 64 + 32 * h));
    __m256i s1 = _mm256_loadu_si256((const __m256i *)(g + 128 + 32 * h));
    __m256i s2 = _mm256_loadu_si256((const __m256i *)(g + 192 + 32 * h));
    /* kern_q4_K_scale_min in the lanes, as the AVX-512 kernel */
    __m256i m_lo = _mm256_and_si256(s1, m6);
    __m256i m_hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(s2, 4), m4),
                                   _mm256_and_si256(_mm256_srli_epi32(s1, 2), top));
    sc[0] = _mm256_and_si256(s0, m6);
    sc[1] = _mm256_or_si256(_mm256_and_si256(s2, m4), _mm256_and_si256(_mm256_srli_epi32(s0, 2), top));
    __m256i hs = _mm256_add_epi32(q4k_dot256(m_lo, xm->h_lo), q4k_dot256(m_hi, xm->h_hi));
    __m256i ls = _mm256_add_epi32(q4k_dot256(xm->l_lo, m_lo), q4k_dot256(xm->l_hi, m_hi));
    return _mm256_add_epi32(_mm256_slli_epi32(hs, 8), ls);
}

/* Sub-blocks j and j + 1 (j even) of both halves of one group's block at g, their codes times their scales (sc[h])
 * into sumi[h]; each code line prefetched beside its first load. */
INLINE void q4k_pair256(const char *g, int j, const int8_t *x, __m256i sc[2][2], __m256i sumi[2], const kern_stream s)
{
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        kern256_dot lo = KERN256_DOT_ZERO, hi = KERN256_DOT_ZERO;
#pragma GCC unroll 8
        for (int k = 4 * j; k < 4 * j + 8; k++) {
            if (h == 0)
                group_prefetch(g + 256 + 64 * k, s);
            __m256i v = _mm256_loadu_si256((const __m256i *)(g + 256 + 64 * k + 32 * h));
            lo = KERN256_DOT(lo, kern256_field(v, 0, 4), quads256_at(x + 64 * (k / 8) + 4 * (k % 8)));
            hi = KERN256_DOT(hi, kern256_field(v, 4, 4), quads256_at(x + 64 * (k / 8) + 32 + 4 * (k % 8)));
        }
        __m256i scj = j < 4 ? sc[h][0] : sc[h][1];
        sumi[h] = q4k_scaled256(q4k_scaled256(sumi[h], lo, scj, j), hi, scj, j + 1);
    }
}

/* n groups (n <= 4) stride bytes apart, in step a sub-block pair at a time (512 bytes of each group's codes), so
 * that the n streams advance together; each group's scales and sums kept between steps. y: n x 16. */
INLINE void q4k_groups_pass256(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                               const kern_stream s)
{
    const int8_t *x = kern_act_qs(a, m);
    const block_q8_K *xb = kern_act_q8k(a, m);
    const float *dx = kern_act_scale(a, m);
    const size_t nb = a->cols / QK_K;
    __m256 acc[4][2];
    r16_acc_zero256(acc, n);
    for (size_t b = 0; b < nb; b++, w += KERN_R16_Q4K_BLOCK_BYTES, x += QK_K) {
        const q4k_xm256 xm = q4k_mins_prep256(xb + b);
        const __m256 xd = _mm256_set1_ps(dx[b]);
        __m256i sc[4][2][2], ms[4][2], sumi[4][2];
#pragma GCC unroll 1
        for (int r = 0; r < n; r++) {
            const char *g = w + (size_t)r * stride;
#pragma GCC unroll 4
            for (int l = 0; l < 256; l += 64) /* the halves, the scales */
                group_prefetch(g + l, s);
#pragma GCC unroll 2
            for (int h = 0; h < 2; h++) {
                ms[r][h] = q4k_head256(g, h, &xm, sc[r][h]);
                sumi[r][h] = _mm256_setzero_si256();
            }
        }
        /* the pairs of sub-blocks unrolled, the groups not: each group loads its broadcast quants again (one load
         * each) where unrolled copies would share them, spilling them */
#pragma GCC unroll 4
        for (int j = 0; j < 8; j += 2)
#pragma GCC unroll 1
            for (int r = 0; r < n; r++)
                q4k_pair256(w + (size_t)r * stride, j, x, sc[r], sumi[r], s);
#pragma GCC unroll 1
        for (int r = 0; r < n; r++) {
            const char *g = w + (size_t)r * stride;
#pragma GCC unroll 2
            for (int h = 0; h < 2; h++) {
                __m256 d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(g + 16 * h)));
                __m256 dmin = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(g + 32 + 16 * h)));
                acc[r][h] = _mm256_add_ps(acc[r][h], _mm256_mul_ps(_mm256_cvtepi32_ps(sumi[r][h]), _mm256_mul_ps(d, xd)));
                acc[r][h] = _mm256_sub_ps(acc[r][h], _mm256_mul_ps(_mm256_cvtepi32_ps(ms[r][h]), _mm256_mul_ps(dmin, xd)));
            }
        }
    }
    r16_acc_store256(acc, n, y);
}

/* ---- GEMM tiles (kern_gemm_fn) of q4_0_r16 and q8_0_r16: half h of a group (8 rows) against up to
 * KERN256_GEMM_ROWS activation rows, each 32-byte half chunk loaded (and split) once for all of them; a row's integer
 * sum and float steps are the group kernel's (r16_half256, r16_acc_add256), so the outputs are its bits. ---- */
#define KERN256_GEMM_ROWS 4 /* 4 rows x (a sum and a float accumulator) + the chunk's two halves: 16 ymm at most */

INLINE void r16_gemm_half256(const char *g, int h, const kern_act *a, size_t m0, const int nm, float *y,
                             const int bits)
{
    const size_t nb = a->cols / QK8_0, block = r16_block_bytes(bits);
    const int chunks = r16_chunks(bits);
    const int8_t *x = kern_act_qs(a, m0); /* rows one stride apart, as kern_act keeps them */
    const int32_t *nsumb = kern_act_nsumb(a, m0);
    const float *dx = kern_act_scale(a, m0);
    const size_t sx = a->cols, sb = kern_act_blocks(a);
    __m256 acc[KERN256_GEMM_ROWS];
#pragma GCC unroll 4
    for (int m = 0; m < nm; m++)
        acc[m] = _mm256_setzero_ps();
    for (size_t b = 0; b < nb; b++, g += block, x += QK8_0) {
        /* two chains a row (q4_0: low and high nibbles; q8_0: even and odd chunks): vpdpbusd's latency needs
         * more chains in flight than four rows give (40-47% of the roof with one, on Zen 5) */
        kern256_dot p0[KERN256_GEMM_ROWS], p1[KERN256_GEMM_ROWS];
#pragma GCC unroll 4
        for (int m = 0; m < nm; m++)
            p0[m] = p1[m] = KERN256_DOT_ZERO;
#pragma GCC unroll 8
        for (int c = 0; c < chunks; c++) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(g + 2 * KERN_R16 + 64 * c + 32 * h));
            __m256i lo = bits == 4 ? kern256_field(v, 0, 4) : v, hi = bits == 4 ? kern256_field(v, 4, 4) : v;
#pragma GCC unroll 4
            for (int m = 0; m < nm; m++) {
                const int8_t *xm = x + sx * (size_t)m;
                if (bits == 4) {
                    p0[m] = KERN256_DOT(p0[m], lo, quads256_at(xm + 4 * c));
                    p1[m] = KERN256_DOT(p1[m], hi, quads256_at(xm + 16 + 4 * c));
                } else if (c % R16_Q8_CHAINS == 0) {
                    p0[m] = r16_q8_dot256(p0[m], v, quads256_at(xm + 4 * c));
                } else {
                    p1[m] = r16_q8_dot256(p1[m], v, quads256_at(xm + 4 * c));
                }
            }
        }
        __m256 d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(g + 16 * h)));
#pragma GCC unroll 4
        for (int m = 0; m < nm; m++) {
            __m256i seed = _mm256_set1_epi32(r16_seed256(bits, nsumb[sb * (size_t)m + b]));
            __m256 dm = _mm256_mul_ps(d, _mm256_set1_ps(dx[sb * (size_t)m + b]));
            __m256i i = _mm256_add_epi32(_mm256_add_epi32(seed, r16_sum256(p0[m], bits)), r16_sum256(p1[m], bits));
            acc[m] = _mm256_add_ps(acc[m], _mm256_mul_ps(_mm256_cvtepi32_ps(i), dm));
        }
    }
#pragma GCC unroll 4
    for (int m = 0; m < nm; m++)
        _mm256_storeu_ps(y + KERN_R16 * m + 8 * h, acc[m]);
}

/* Both halves of a group against activation rows m0 .. m0 + nm - 1; bits 4 (q4_0_r16) or 8 (q8_0_r16). */
INLINE void r16_gemm_tile256(const char *g, const kern_act *a, size_t m0, const int nm, float *y, const int bits)
{
    r16_gemm_half256(g, 0, a, m0, nm, y, bits);
    r16_gemm_half256(g, 1, a, m0, nm, y, bits);
}

/* r16_gemm_tile256 for each layout, its bits a constant (gemm_in_tiles' tile: kern_gemm_fn's rows in tiles of
 * KERN256_GEMM_ROWS). */
INLINE void r16_gemm_tile256_q4_0(const char *g, const kern_act *a, size_t m0, const int nm, float *y)
{
    r16_gemm_tile256(g, a, m0, nm, y, 4);
}

INLINE void r16_gemm_tile256_q8_0(const char *g, const kern_act *a, size_t m0, const int nm, float *y)
{
    r16_gemm_tile256(g, a, m0, nm, y, 8);
}

/* ---- The kernels kern_repack_impl.h declares, named for the including file's ISA: KERN256_ISA (avx2, avxvnni),
 * defined before the include, makes kern_group_q4_0_r16_avx2, kern_gemm_q4_0_r16_avxvnni and so on. ---- */
#if !defined(KERN256_ISA)
#error "kern_repack256.h: define KERN256_ISA (the suffix of the kernels' names) before including it"
#endif
#define KERN256_PASTE(f, isa) f##_##isa
#define KERN256_NAMED(f, isa) KERN256_PASTE(f, isa) /* isa expanded first */
#define KERN256_FN(f) KERN256_NAMED(f, KERN256_ISA)

void KERN256_FN(kern_group_q4_0_r16)(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(r16_groups_pass256_q4_0, KERN_R16, true, w, stride, n, a, m, y);
}

void KERN256_FN(kern_group_q1_0_r32lut)(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(lut256_groups_pass, KERN_R32, false, w, stride, n, a, m, y);
}

void KERN256_FN(kern_group_q1_0_r32lut256)(const char *w, size_t stride, int n, const kern_act *a, size_t m,
                                           float *y)
{
    groups_in_step(lut256_groups_pass_sorted, KERN_R32, false, w, stride, n, a, m, y);
}

/* n groups stride bytes apart (4, or 1 as groups_in_step calls it), four as two pairs in step: from memory two
 * streams at once kept pace better than four, and a pair's chains spill less. One copy of a pair's block a turn
 * of the loop: two (blocks unrolled by 2) outgrow Zen 3's op cache and run slower at every width. Both pairs'
 * blocks run in one loop: on Zen 3 a loop over blocks costs a fixed time each time it ends (the cause is not
 * visible from a guest without counters), so a loop a pair paid it twice a call. */
INLINE void tq2_groups_pass256(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                               const kern_stream s)
{
    const int8_t *x = kern_act_qs(a, m);
    const int32_t *nsumb = kern_act_nsumb(a, m);
    const float *dx = kern_act_scale(a, m);
    const size_t nb = a->cols / QK_K;
    const int step = n == 4 ? 2 : 1; /* groups in step: a pair, or the one group */
    __m256 acc[4][2];
    r16_acc_zero256(acc, step);
    const char *wb = w;
    const int8_t *xb = x;
    size_t b = 0;
    for (size_t t = 0; t < (size_t)(n / step) * nb; t++) {
        tq2_block256(wb, stride, step, xb, nsumb[b], dx[b], acc, s);
        wb += KERN_R16_TQ2_BLOCK_BYTES;
        xb += QK_K;
        if (++b == nb) { /* a row's end: its sums out, the next pair's blocks from 0 */
            r16_acc_store256(acc, step, y);
            r16_acc_zero256(acc, step);
            y += step * KERN_R16;
            w += (size_t)step * stride;
            wb = w;
            xb = x;
            b = 0;
        }
    }
}

void KERN256_FN(kern_group_tq2_0_r16)(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(tq2_groups_pass256, KERN_R16, true, w, stride, n, a, m, y);
}

void KERN256_FN(kern_group_q4_K_r16)(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(q4k_groups_pass256, KERN_R16, true, w, stride, n, a, m, y);
}

void KERN256_FN(kern_gemm_q4_0_r16)(const char *g, const kern_act *a, size_t m0, size_t nm, float *y)
{
    gemm_in_tiles(r16_gemm_tile256_q4_0, KERN256_GEMM_ROWS, g, a, m0, nm, y);
}

void KERN256_FN(kern_group_q8_0_r16)(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(r16_groups_pass256_q8_0, KERN_R16, true, w, stride, n, a, m, y);
}

void KERN256_FN(kern_gemm_q8_0_r16)(const char *g, const kern_act *a, size_t m0, size_t nm, float *y)
{
    gemm_in_tiles(r16_gemm_tile256_q8_0, KERN256_GEMM_ROWS, g, a, m0, nm, y);
}

#endif
