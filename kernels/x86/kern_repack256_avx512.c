/* kern_repack256_avx512.c — the repacked layouts' group kernels on AVX-512 (VNNI) for the 256-value blocks:
 * tq2_0_r16's, q4_K_r16's and q6_K_r16's (kern_repack.h lays each out; what they share with the 32-value blocks'
 * kernels is kern_repack512.h), and q4_K_r16's and q6_K_r16's GEMMs. Compiled with the AVX-512 flags; only called
 * after kern_job_check saw the CPU has them. */
#include "kern_repack512.h"

/* ---- tq2_0_r16 (kern_repack.h): chunk j of a group's block is 16 dwords, dword r row r's code bytes 4j..4j+3, and
 * bit field f (bits 2f, 2f + 1) of those bytes holds the row's weights 128 (j / 8) + 32 f + 4 (j % 8) .. + 3 as
 * q + 1 (q in -1..1): four quants of the activation, broadcast. The field is not shifted down: v & (3 << 2f) is
 * 4^f (q + 1), an unsigned byte vpdpbusd takes, so field f's chain sums 4^f times its products, exactly (at most
 * 192 x 127 x 64 in a lane), and an arithmetic shift by 2f at the block's end takes the factor out, exact. A chunk
 * costs four ands and four vpdpbusd for 256 weights; the file's kernels spend a GFNI or shift step per field and
 * gather and sum each row across lanes. The activation block's sum, negated (nsumb), seeds the sum for the q + 1;
 * then the reference's float steps, multiply then add in block order, every row bit for bit the scalar reference's.
 * ---- */

/* Chunk j of the n groups' blocks at w, stride bytes apart, against the activation block x: field f of every row's
 * bytes into sums[r][f]. The groups take turns, each line's prefetch beside its load, as r16_chunk. */
INLINE void tq2_chunk(const char *w, size_t stride, const int n, int j, const int8_t *x, __m512i sums[4][4],
                      const kern_stream s)
{
    __m512i xf[4];
#pragma GCC unroll 4
    for (int f = 0; f < 4; f++)
        xf[f] = quads_at(x + 128 * (j / 8) + 32 * f + 4 * (j % 8));
#pragma GCC unroll 4
    for (int r = 0; r < n; r++) {
        const char *g = w + (size_t)r * stride;
        group_prefetch(g + 64 * j, s);
        __m512i v = _mm512_loadu_si512(g + 2 * KERN_R16 + 64 * j);
#pragma GCC unroll 4
        for (int f = 0; f < 4; f++)
            sums[r][f] = _mm512_dpbusd_epi32(sums[r][f], _mm512_and_si512(v, _mm512_set1_epi8((char)(3 << 2 * f))),
                                             xf[f]);
    }
}

/* n groups (n <= 4) stride bytes apart, in step. y: n x 16. */
INLINE void tq2_groups_pass(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                            const kern_stream s)
{
    const int8_t *x = kern_act_qs(a, m);
    const int32_t *nsumb = kern_act_nsumb(a, m);
    const float *dx = kern_act_scale(a, m);
    const size_t nb = a->cols / QK_K;
    __m512 acc[4];
    r16_acc_zero(acc, n);
    for (size_t b = 0; b < nb; b++, w += KERN_R16_TQ2_BLOCK_BYTES, x += QK_K) {
        __m512i sums[4][4];
#pragma GCC unroll 4
        for (int r = 0; r < n; r++)
            sums[r][0] = sums[r][1] = sums[r][2] = sums[r][3] = _mm512_setzero_si512();
#pragma GCC unroll 16
        for (int j = 0; j < 16; j++)
            tq2_chunk(w, stride, n, j, x, sums, s);
        __m512i seed = _mm512_set1_epi32(nsumb[b]);
        __m512 xd = _mm512_set1_ps(dx[b]);
#pragma GCC unroll 4
        for (int r = 0; r < n; r++) {
            const char *g = w + (size_t)r * stride;
            group_prefetch(g + 64 * 16, s); /* the block's last line, which its head pushed over */
            __m512i lo = _mm512_add_epi32(_mm512_add_epi32(seed, sums[r][0]), _mm512_srai_epi32(sums[r][1], 2));
            __m512i hi = _mm512_add_epi32(_mm512_srai_epi32(sums[r][2], 4), _mm512_srai_epi32(sums[r][3], 6));
            __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)g));
            __m512 p = _mm512_cvtepi32_ps(_mm512_add_epi32(lo, hi));
            acc[r] = _mm512_add_ps(acc[r], _mm512_mul_ps(p, _mm512_mul_ps(dw, xd)));
        }
    }
    r16_acc_store(acc, n, y);
}

void kern_group_tq2_0_r16_avx512(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(tq2_groups_pass, KERN_R16, true, w, stride, n, a, m, y);
}

/* ---- q4_K_r16 (kern_repack.h): a group's block is the 16 rows' d, then their dmin (64 bytes), 3 chunks of their
 * packed scales (dword r of chunk k: row r's scales[4k .. 4k + 3]), then 32 chunks of codes (dword r of chunk 3 + k:
 * row r's qs[4k .. 4k + 3]). Code chunk k's low nibbles are weights 64 (k / 8) + 4 (k % 8) .. + 3 of sub-block
 * 2 (k / 8), its high ones the same + 32 of sub-block 2 (k / 8) + 1: two vpdpbusd on broadcast quants, as
 * q4_0_r16's. Each sub-block's sum (at most 15 x 127 x 32) times its 6-bit scale, by vpmulld in the lanes, adds to
 * the row's integer sum, and the mins come from the scale bytes as they are: an activation sub-block's sum S (its
 * two bsums, |S| <= 4064) is 256 H + L with H in -16..15 and L in 0..255, so one vpdpbusd of the mins (unsigned)
 * against the four H (signed) and one of the four L (unsigned) against the mins (signed: at most 63) give the sum
 * of m x S exactly. Then the reference's two float steps, every row bit for bit the scalar reference's. ---- */

/* A q4_K activation block's mins side: bytes H_j (lo: j < 4, hi: j >= 4) and L_j of the sub-block sums. */
typedef struct q4k_xm {
    __m512i h_lo, h_hi, l_lo, l_hi;
} q4k_xm;

INLINE q4k_xm q4k_mins_prep(const block_q8_K *xb)
{
    int32_t w[4];
    q4k_mins_words(xb, w);
    return (q4k_xm){ _mm512_set1_epi32(w[0]), _mm512_set1_epi32(w[1]), _mm512_set1_epi32(w[2]),
                     _mm512_set1_epi32(w[3]) };
}

/* A group's state through a block: the integer sum so far, the open pair of sub-block chains, the scale bytes. */
typedef struct q4k_row {
    __m512i sumi, s_lo, s_hi, sc_lo, sc_hi;
} q4k_row;

/* Byte j % 4 of every lane of sc (sub-block j's scale), times the chain s, into sumi. */
INLINE __m512i q4k_scaled(__m512i sumi, __m512i s, __m512i sc, int j)
{
    __m512i scj = _mm512_and_si512(_mm512_srli_epi32(sc, 8 * (j % 4)), _mm512_set1_epi32(0xFF));
    return _mm512_add_epi32(sumi, _mm512_mullo_epi32(s, scj));
}

/* A group's block at g, its packed scale bytes unpacked in the lanes (kern_q4_K_scale_min: j < 4 the low 6 bits of
 * bytes 0-3 and 4-7; j >= 4 the nibbles of bytes 8-11 with the top 2 bits of bytes 0-3 (scales) and 4-7 (mins) as
 * their bits 4-5): the sub-blocks' scales (lo: j < 4, hi: j >= 4) and mins. */
typedef struct q4k_unpacked {
    __m512i sc_lo, sc_hi, m_lo, m_hi;
} q4k_unpacked;

INLINE q4k_unpacked q4k_unpack(const char *g)
{
    const __m512i m6 = _mm512_set1_epi8(0x3F), m4 = _mm512_set1_epi8(0x0F), top = _mm512_set1_epi8(0x30);
    __m512i s0 = _mm512_loadu_si512(g + 64), s1 = _mm512_loadu_si512(g + 128), s2 = _mm512_loadu_si512(g + 192);
    return (q4k_unpacked){
        .sc_lo = _mm512_and_si512(s0, m6),
        .sc_hi = _mm512_or_si512(_mm512_and_si512(s2, m4), _mm512_and_si512(_mm512_srli_epi32(s0, 2), top)),
        .m_lo = _mm512_and_si512(s1, m6),
        .m_hi = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(s2, 4), m4),
                                _mm512_and_si512(_mm512_srli_epi32(s1, 2), top)),
    };
}

/* The mins' integer sum against the activation's sub-block sums (xm: S = 256 H + L). */
INLINE __m512i q4k_mins(const q4k_unpacked *u, const q4k_xm *xm)
{
    __m512i h = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), u->m_lo, xm->h_lo), u->m_hi, xm->h_hi);
    __m512i l = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), xm->l_lo, u->m_lo), xm->l_hi, u->m_hi);
    return _mm512_add_epi32(_mm512_slli_epi32(h, 8), l);
}

/* The n groups' scale chunks at w (a block): their scales into st, the mins' integer sums returned in ms. */
INLINE void q4k_heads(const char *w, size_t stride, const int n, const q4k_xm *xm, q4k_row st[4], __m512i ms[4],
                      const kern_stream s)
{
#pragma GCC unroll 4
    for (int r = 0; r < n; r++) {
        const char *g = w + (size_t)r * stride;
        group_prefetch(g, s);
        group_prefetch(g + 64, s);
        group_prefetch(g + 128, s);
        group_prefetch(g + 192, s);
        q4k_unpacked u = q4k_unpack(g);
        st[r].sc_lo = u.sc_lo;
        st[r].sc_hi = u.sc_hi;
        ms[r] = q4k_mins(&u, xm);
        st[r].sumi = st[r].s_lo = st[r].s_hi = _mm512_setzero_si512();
    }
}

/* Code chunk k of the n groups against the activation block x, each group's line prefetched beside its load; at
 * the end of a sub-block pair, its chains scaled into sumi. */
INLINE void q4k_chunk(const char *w, size_t stride, const int n, int k, const int8_t *x, q4k_row st[4],
                      const kern_stream s)
{
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    __m512i xl = quads_at(x + 64 * (k / 8) + 4 * (k % 8)), xh = quads_at(x + 64 * (k / 8) + 32 + 4 * (k % 8));
#pragma GCC unroll 4
    for (int r = 0; r < n; r++) {
        const char *g = w + (size_t)r * stride + 256 + 64 * k;
        group_prefetch(g, s);
        __m512i v = _mm512_loadu_si512(g);
        st[r].s_lo = _mm512_dpbusd_epi32(st[r].s_lo, _mm512_and_si512(v, low4), xl);
        st[r].s_hi = _mm512_dpbusd_epi32(st[r].s_hi, _mm512_and_si512(_mm512_srli_epi16(v, 4), low4), xh);
        if (k % 8 == 7) {
            int j = 2 * (k / 8);
            __m512i sc = j < 4 ? st[r].sc_lo : st[r].sc_hi;
            st[r].sumi = q4k_scaled(q4k_scaled(st[r].sumi, st[r].s_lo, sc, j), st[r].s_hi, sc, j + 1);
            st[r].s_lo = st[r].s_hi = _mm512_setzero_si512();
        }
    }
}

/* n groups (n <= 4) stride bytes apart, in step. y: n x 16. */
INLINE void q4k_groups_pass(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                            const kern_stream s)
{
    const int8_t *x = kern_act_qs(a, m);
    const block_q8_K *xb = kern_act_q8k(a, m);
    const float *dx = kern_act_scale(a, m);
    const size_t nb = a->cols / QK_K;
    __m512 acc[4];
    r16_acc_zero(acc, n);
    for (size_t b = 0; b < nb; b++, w += KERN_R16_Q4K_BLOCK_BYTES, x += QK_K) {
        q4k_xm xm = q4k_mins_prep(xb + b);
        q4k_row st[4];
        __m512i ms[4];
        q4k_heads(w, stride, n, &xm, st, ms, s);
#pragma GCC unroll 32
        for (int k = 0; k < 32; k++)
            q4k_chunk(w, stride, n, k, x, st, s);
        __m512 xd = _mm512_set1_ps(dx[b]);
#pragma GCC unroll 4
        for (int r = 0; r < n; r++) {
            const char *g = w + (size_t)r * stride;
            __m512 d = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)g));
            __m512 dmin = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(g + 32)));
            acc[r] = _mm512_add_ps(acc[r], _mm512_mul_ps(_mm512_cvtepi32_ps(st[r].sumi), _mm512_mul_ps(d, xd)));
            acc[r] = _mm512_sub_ps(acc[r], _mm512_mul_ps(_mm512_cvtepi32_ps(ms[r]), _mm512_mul_ps(dmin, xd)));
        }
    }
    r16_acc_store(acc, n, y);
}

void kern_group_q4_K_r16_avx512(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(q4k_groups_pass, KERN_R16, true, w, stride, n, a, m, y);
}

/* q4_K_r16's GEMM tile (kern_gemm_fn): one group against Q4K_TILE activation rows, each block's scales unpacked and
 * each code chunk's nibbles split once for all of them; a row's chains, scaling, mins and float steps are the group
 * kernel's (q4k_heads, q4k_chunk, q4k_groups_pass): its bits. */
#define Q4K_TILE 4 /* 4 rows x (2 chains, a sum, the mins' sum, a float sum) + the scales and nibbles: 25 zmm */

INLINE void q4k_gemm(const char *g, const kern_act *a, size_t m0, const int nm, float *y)
{
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    __m512 acc[Q4K_TILE];
    r16_acc_zero(acc, nm);
    for (size_t b = 0; b < a->cols / QK_K; b++, g += KERN_R16_Q4K_BLOCK_BYTES) {
        q4k_unpacked u = q4k_unpack(g);
        __m512i ms[Q4K_TILE], sumi[Q4K_TILE], s_lo[Q4K_TILE], s_hi[Q4K_TILE];
#pragma GCC unroll 4
        for (int m = 0; m < nm; m++) {
            q4k_xm xm = q4k_mins_prep(kern_act_q8k(a, m0 + (size_t)m) + b);
            ms[m] = q4k_mins(&u, &xm);
            sumi[m] = s_lo[m] = s_hi[m] = _mm512_setzero_si512();
        }
#pragma GCC unroll 32
        for (int k = 0; k < 32; k++) {
            __m512i v = _mm512_loadu_si512(g + 256 + 64 * k);
            __m512i lo = _mm512_and_si512(v, low4), hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), low4);
#pragma GCC unroll 4
            for (int m = 0; m < nm; m++) {
                const int8_t *x = kern_act_qs(a, m0 + (size_t)m) + b * QK_K + 64 * (k / 8) + 4 * (k % 8);
                s_lo[m] = _mm512_dpbusd_epi32(s_lo[m], lo, quads_at(x));
                s_hi[m] = _mm512_dpbusd_epi32(s_hi[m], hi, quads_at(x + 32));
                if (k % 8 == 7) {
                    int j = 2 * (k / 8);
                    __m512i sc = j < 4 ? u.sc_lo : u.sc_hi;
                    sumi[m] = q4k_scaled(q4k_scaled(sumi[m], s_lo[m], sc, j), s_hi[m], sc, j + 1);
                    s_lo[m] = s_hi[m] = _mm512_setzero_si512();
                }
            }
        }
        __m512 d = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)g));
        __m512 dmin = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(g + 32)));
#pragma GCC unroll 4
        for (int m = 0; m < nm; m++) {
            __m512 xd = _mm512_set1_ps(kern_act_scale(a, m0 + (size_t)m)[b]);
            acc[m] = _mm512_add_ps(acc[m], _mm512_mul_ps(_mm512_cvtepi32_ps(sumi[m]), _mm512_mul_ps(d, xd)));
            acc[m] = _mm512_sub_ps(acc[m], _mm512_mul_ps(_mm512_cvtepi32_ps(ms[m]), _mm512_mul_ps(dmin, xd)));
        }
    }
    r16_acc_store(acc, nm, y);
}

void kern_gemm_q4_K_r16_avx512(const char *g, const kern_act *a, size_t m0, size_t nm, float *y)
{
    gemm_in_tiles(q4k_gemm, Q4K_TILE, g, a, m0, nm, y);
}

/* ---- q6_K_r16 (kern_repack.h): after the 16 d, chunks 0-3 hold the rows' 16 scales (dword r of chunk c: row r's
 * scales[4c .. 4c + 3]), then quarter u of the block (half n = u / 2, elements 16 (u % 2) .. + 15 of each 32, so
 * field f < 4 of the qh bytes is sub-block j = 8 n + 2 f + u % 2) is 4 x 3 chunks: its qh chunk, then the ql chunks
 * of the even fields' and the odd fields' low bits. A field's 6-bit codes are made in the lanes (its qh bits
 * shifted to bits 4-5, one bit select against the nibble) and meet four broadcast quants in one vpdpbusd; each
 * sub-block has its own chain, seeded with -32 x its activation sum (the codes are q + 32), so a chain ends as
 * the reference's dot of the sub-block, exact (at most 32 x 127 x 16 + 63 x 127 x 16 in a lane), and one vpmulld
 * by its sign-extended scale adds it to the row's sum. Then the reference's float step. ---- */

/* The codes of field f (0-3) of a quarter's dword: low 4 bits from ql (the high nibble for f >= 2), top 2 from
 * bits 2f, 2f + 1 of qh. 16-bit shifts carry bits between bytes; the masks drop them. */
INLINE __m512i q6k_codes(__m512i ql, __m512i qh, const int f)
{
    __m512i lo = f >= 2 ? _mm512_srli_epi16(ql, 4) : ql;
    __m512i hi = f == 0 ? _mm512_slli_epi16(qh, 4)
                 : f == 1 ? _mm512_slli_epi16(qh, 2)
                 : f == 2 ? qh
                          : _mm512_srli_epi16(qh, 2);
    hi = _mm512_and_si512(hi, _mm512_set1_epi8(0x30));
    return _mm512_ternarylogic_epi32(lo, hi, _mm512_set1_epi8(0x0F), 0xE4); /* the third's bits pick the first's */
}

/* Byte k of every dword lane of sc, sign-extended: a row's int8 scale. */
INLINE __m512i q6k_scale(__m512i sc, const int k)
{
    return _mm512_srai_epi32(_mm512_slli_epi32(sc, 24 - 8 * k), 24);
}

/* Quarter u of the n groups' blocks at w against the activation block x (bsums: its sums of 16): its four
 * sub-blocks' chains, each scaled into sumi. The groups take turns, each line's prefetch beside its load. */
INLINE void q6k_quarter(const char *w, size_t stride, const int n, const int u, const int8_t *x,
                        const int16_t *bsums, __m512i sumi[4], const kern_stream s)
{
    const int half = u / 2, h = u % 2;
    __m512i c[4][4];
#pragma GCC unroll 4
    for (int f = 0; f < 4; f++) {
        __m512i seed = _mm512_set1_epi32(-32 * bsums[8 * half + 2 * f + h]);
#pragma GCC unroll 4
        for (int r = 0; r < n; r++)
            c[r][f] = seed;
    }
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        __m512i xq[4];
#pragma GCC unroll 4
        for (int f = 0; f < 4; f++)
            xq[f] = quads_at(x + 128 * half + 32 * f + 16 * h + 4 * i);
#pragma GCC unroll 4
        for (int r = 0; r < n; r++) {
            const char *g = w + (size_t)r * stride + 2 * KERN_R16 + 64 * (4 + 12 * u + 3 * i);
            group_prefetch(g, s);
            group_prefetch(g + 64, s);
            group_prefetch(g + 128, s);
            __m512i qh = _mm512_loadu_si512(g), qa = _mm512_loadu_si512(g + 64), qb = _mm512_loadu_si512(g + 128);
            c[r][0] = _mm512_dpbusd_epi32(c[r][0], q6k_codes(qa, qh, 0), xq[0]);
            c[r][1] = _mm512_dpbusd_epi32(c[r][1], q6k_codes(qb, qh, 1), xq[1]);
            c[r][2] = _mm512_dpbusd_epi32(c[r][2], q6k_codes(qa, qh, 2), xq[2]);
            c[r][3] = _mm512_dpbusd_epi32(c[r][3], q6k_codes(qb, qh, 3), xq[3]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < n; r++) {
        const char *g = w + (size_t)r * stride + 2 * KERN_R16;
        __m512i s_even = _mm512_loadu_si512(g + 64 * (2 * half)), s_odd = _mm512_loadu_si512(g + 64 * (2 * half + 1));
#pragma GCC unroll 4
        for (int f = 0; f < 4; f++) /* sub-block 8 half + 2 f + h: chunk 2 half + f / 2, byte 2 (f % 2) + h */
            sumi[r] = _mm512_add_epi32(sumi[r],
                                       _mm512_mullo_epi32(c[r][f], q6k_scale(f < 2 ? s_even : s_odd, 2 * (f % 2) + h)));
    }
}

/* Block b of the n groups (their group blocks at w) against the activation block x (bsums: its sums of 16): each
 * group's integer sum into sumi. */
INLINE void q6k_block(const char *w, size_t stride, const int n, const int8_t *x, const int16_t *bsums,
                      __m512i sumi[4], const kern_stream s)
{
#pragma GCC unroll 4
    for (int r = 0; r < n; r++) {
        const char *g = w + (size_t)r * stride;
        group_prefetch(g, s); /* the head and the scales, read at each quarter's end */
        group_prefetch(g + 64 * 2, s);
        group_prefetch(g + 64 * 4, s);
        group_prefetch(g + 64 * 52, s); /* the block's last line, which its head pushed over */
        sumi[r] = _mm512_setzero_si512();
    }
#pragma GCC unroll 4
    for (int u = 0; u < 4; u++)
        q6k_quarter(w, stride, n, u, x, bsums, sumi, s);
}

/* n groups (n <= 4) stride bytes apart, in step, block by block: each block's sums through the reference's float
 * step. y: n x 16. */
INLINE void q6k_groups_pass(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                            const kern_stream s)
{
    const block_q8_K *xb = kern_act_q8k(a, m);
    __m512 acc[4];
    r16_acc_zero(acc, n);
    for (size_t b = 0; b < a->cols / QK_K; b++) {
        const char *blk = w + b * KERN_R16_Q6K_BLOCK_BYTES;
        __m512i sumi[4];
        q6k_block(blk, stride, n, kern_act_qs(a, m) + b * QK_K, xb[b].bsums, sumi, s);
        __m512 xd = _mm512_set1_ps(kern_act_scale(a, m)[b]);
#pragma GCC unroll 4
        for (int r = 0; r < n; r++) {
            __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(blk + (size_t)r * stride)));
            acc[r] = _mm512_add_ps(acc[r], _mm512_mul_ps(_mm512_cvtepi32_ps(sumi[r]), _mm512_mul_ps(dw, xd)));
        }
    }
    r16_acc_store(acc, n, y);
}

/* One copy, not one per setting: four groups' sixteen chains, the broadcast quants and the codes' masks want more
 * than 32 zmm registers, so the per-setting copies spill and read slower in L2 and from memory. */
void kern_group_q6_K_r16_avx512(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(q6k_groups_pass, KERN_R16, false, w, stride, n, a, m, y);
}

/* ---- q6_K_r16's GEMM (kern_gemm_fn): block by block, the group's 64 code vectors and 16 scales made once (q6k_codes:
 * the costly part) into a scratch that every activation row then reads, tile by tile; each row's chains, scaling
 * and float step the group kernel's (q6k_quarter, q6k_groups_pass), integer sums being exact in any order: its
 * bits, exactly. ---- */
#define Q6K_TILE 8 /* rows whose chains and sums stay in registers while a code vector is loaded once for them */

/* A block of one group, unpacked in the activation's order: sub-block j (quants 16 j .. 16 j + 15) has its four code
 * vectors (quants 16 j + 4 i .. + 3 of every row) and its rows' scales, sign-extended. */
typedef struct {
    __m512i code[16][4];
    __m512i scale[16];
} q6k_unpacked;

INLINE void q6k_unpack(const char *blk, q6k_unpacked *k)
{
    const char *sc = blk + 2 * KERN_R16;
#pragma GCC unroll 4
    for (int u = 0; u < 4; u++) {
        const int half = u / 2, h = u % 2;
        __m512i s_even = _mm512_loadu_si512(sc + 64 * (2 * half)), s_odd = _mm512_loadu_si512(sc + 64 * (2 * half + 1));
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
            const char *q = sc + 64 * (4 + 12 * u + 3 * i);
            __m512i qh = _mm512_loadu_si512(q), qa = _mm512_loadu_si512(q + 64), qb = _mm512_loadu_si512(q + 128);
#pragma GCC unroll 4
            for (int f = 0; f < 4; f++)
                k->code[8 * half + 2 * f + h][i] = q6k_codes(f % 2 ? qb : qa, qh, f);
        }
#pragma GCC unroll 4
        for (int f = 0; f < 4; f++) /* sub-block 8 half + 2 f + h: chunk 2 half + f / 2, byte 2 (f % 2) + h */
            k->scale[8 * half + 2 * f + h] = q6k_scale(f < 2 ? s_even : s_odd, 2 * (f % 2) + h);
    }
}

/* Block b's unpacked codes k against nm activation rows from m0: each sub-block's chains, seeded with -32 x its
 * activation sum and scaled as q6k_quarter does, into the row's sum; then the float step into acc (nm entries).
 * The seeds are made into a table first, so that the loop holds one pointer per row (its quants), not two. */
INLINE void q6k_gemm_rows(const q6k_unpacked *k, const kern_act *a, size_t m0, const int nm, size_t b, __m512 dw,
                          __m512 *acc)
{
    int32_t seed[Q6K_TILE][16] __attribute__((aligned(64)));
    __m512i sumi[Q6K_TILE];
#pragma GCC unroll 8
    for (int m = 0; m < nm; m++) {
        __m256i bsums = _mm256_loadu_si256((const __m256i *)kern_act_q8k(a, m0 + (size_t)m)[b].bsums);
        _mm512_store_si512(seed[m], _mm512_mullo_epi32(_mm512_cvtepi16_epi32(bsums), _mm512_set1_epi32(-32)));
        sumi[m] = _mm512_setzero_si512();
    }
    const int8_t *x = kern_act_qs(a, m0) + b * QK_K;
    for (int j = 0; j < 16; j++) {
        __m512i c[Q6K_TILE];
#pragma GCC unroll 8
        for (int m = 0; m < nm; m++)
            c[m] = _mm512_set1_epi32(seed[m][j]);
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
            __m512i code = _mm512_load_si512(&k->code[j][i]);
#pragma GCC unroll 8
            for (int m = 0; m < nm; m++)
                c[m] = _mm512_dpbusd_epi32(c[m], code, quads_at(x + (size_t)m * a->cols + 16 * j + 4 * i));
        }
#pragma GCC unroll 8
        for (int m = 0; m < nm; m++)
            sumi[m] = _mm512_add_epi32(sumi[m], _mm512_mullo_epi32(c[m], k->scale[j]));
    }
#pragma GCC unroll 8
    for (int m = 0; m < nm; m++) {
        __m512 xd = _mm512_set1_ps(kern_act_scale(a, m0 + (size_t)m)[b]);
        acc[m] = _mm512_add_ps(acc[m], _mm512_mul_ps(_mm512_cvtepi32_ps(sumi[m]), _mm512_mul_ps(dw, xd)));
    }
}

void kern_gemm_q6_K_r16_avx512(const char *g, const kern_act *a, size_t m0, size_t nm, float *y)
{
    __m512 acc[KERN_GEMM_TILE];
    for (size_t m = 0; m < nm; m++)
        acc[m] = _mm512_setzero_ps();
    q6k_unpacked k;
    for (size_t b = 0; b < a->cols / QK_K; b++) {
        const char *blk = g + b * KERN_R16_Q6K_BLOCK_BYTES;
        q6k_unpack(blk, &k);
        __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)blk));
        size_t m = 0;
        for (; m + Q6K_TILE <= nm; m += Q6K_TILE)
            q6k_gemm_rows(&k, a, m0 + m, Q6K_TILE, b, dw, acc + m);
        for (; m < nm; m++)
            q6k_gemm_rows(&k, a, m0 + m, 1, b, dw, acc + m);
    }
    for (size_t m = 0; m < nm; m++)
        _mm512_storeu_ps(y + KERN_R16 * m, acc[m]);
}
