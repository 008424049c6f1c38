/* kern_repack_avx512.c — the repacked layouts' group kernels on AVX-512 for the 32-value blocks: q1_0_r32lut's
 * (BW's vpermw), q4_0_r16's and q8_0_r16's (VNNI), and q1_0_r32lut's activation tables; the 256-value blocks' are
 * kern_repack256_avx512.c, what both share kern_repack512.h. Compiled with the AVX-512 flags; only called after
 * kern_job_check saw the CPU has them.
 *
 * A 64-byte chunk of a group (kern_repack.h) is 32 words, one per row, each the row's next 16 weights; nibble k of
 * a word is 4 weights, and one vpermw looks all 32 nibbles up in the activation's 16-entry table of those 4
 * values (broadcast to both 256-bit halves, so the index's fifth bit, the next nibble's first, picks the same
 * entry). A chunk costs 4 look-ups, 3 shifts and 4 int16 adds for 512 weights, where the file's kernels spend 16
 * vector instructions on 512 weights of one row. The int16 sums of an activation block (32 weights, 8 look-ups of
 * at most 508) are exact; they widen to int32 (even words: rows 0-15, odd: 16-31) and go through the reference's
 * float steps, multiply then add in block order, so every row is bit for bit the scalar reference's. */
#include "kern_repack512.h"

/* The 4 tables (16 words each, both halves) at t. */
typedef struct tables4 {
    __m512i t[4];
} tables4;

INLINE tables4 tables_at(const int16_t *t)
{
    tables4 r;
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++)
        r.t[i] = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(t + 16 * i)));
    return r;
}

/* The int16 sums of the 16 weights of every row in chunk c against the tables t. */
INLINE __m512i chunk_sums(const char *c, const tables4 *t)
{
    __m512i v = _mm512_loadu_si512(c);
    __m512i a = _mm512_add_epi16(_mm512_permutexvar_epi16(v, t->t[0]),
                                 _mm512_permutexvar_epi16(_mm512_srli_epi16(v, 4), t->t[1]));
    __m512i b = _mm512_add_epi16(_mm512_permutexvar_epi16(_mm512_srli_epi16(v, 8), t->t[2]),
                                 _mm512_permutexvar_epi16(_mm512_srli_epi16(v, 12), t->t[3]));
    return _mm512_add_epi16(a, b);
}

/* n groups (n <= 4) stride bytes apart, in step: each block's tables are loaded once for all of them, and the
 * groups are n streams a quarter of the call apart, as the file's passes read their rows (kern_impl.h). A group's
 * rows get the same instructions whatever n is. y: n x 32. */
INLINE void r32_groups_pass(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                            const kern_stream s)
{
    const int16_t *lut = a->lut + m * a->cols * 4;
    const float *dx = kern_act_scale(a, m);
    size_t nb = a->cols / QK1_0;
    __m512 s0[4], s1[4];
#pragma GCC unroll 4
    for (int r = 0; r < n; r++)
        s0[r] = s1[r] = _mm512_setzero_ps();
    for (size_t b = 0; b < nb; b++, w += KERN_R32_BLOCK_BYTES, lut += 16 * (QK1_0 / 4)) {
        __m512 d0[4], d1[4];
#pragma GCC unroll 4
        for (int r = 0; r < n; r++) {
            const char *g = w + (size_t)r * stride;
#pragma GCC unroll 9
            for (int l = 0; l < KERN_R32_BLOCK_BYTES; l += 64) /* a file pass's distance: farther, the four streams'
                                                                  * lines crowd the look-up tables out of L1 */
                group_prefetch(g + l, s);
            d0[r] = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)g));
            d1[r] = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(g + 32)));
        }
#pragma GCC unroll 4
        for (int k = 0; k < QK1_0 / QK8_0; k++) {
            tables4 ta = tables_at(lut + 128 * k), tb = tables_at(lut + 128 * k + 64);
            __m512 x = _mm512_set1_ps(dx[4 * b + (size_t)k]);
#pragma GCC unroll 4
            for (int r = 0; r < n; r++) {
                const char *g = w + (size_t)r * stride;
                __m512i sum = _mm512_add_epi16(chunk_sums(g + 64 + 128 * k, &ta), chunk_sums(g + 128 + 128 * k, &tb));
                /* even words (rows 0-15) and odd (16-31) to int32 by vpmaddwd against 1 and 1 << 16: exact */
                __m512i lo = _mm512_madd_epi16(sum, _mm512_set1_epi32(1));
                __m512i hi = _mm512_madd_epi16(sum, _mm512_set1_epi32(1 << 16));
                s0[r] = _mm512_add_ps(s0[r], _mm512_mul_ps(_mm512_cvtepi32_ps(lo), _mm512_mul_ps(d0[r], x)));
                s1[r] = _mm512_add_ps(s1[r], _mm512_mul_ps(_mm512_cvtepi32_ps(hi), _mm512_mul_ps(d1[r], x)));
            }
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < n; r++) {
        _mm512_storeu_ps(y + 32 * r, s0[r]);
        _mm512_storeu_ps(y + 32 * r + 16, s1[r]);
    }
}

/* One copy, not one per setting: the per-setting copies were faster in L2 but slower from memory, where a decode
 * reads. */
void kern_group_q1_0_r32lut_avx512(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(r32_groups_pass, KERN_R32, false, w, stride, n, a, m, y);
}

/* ---- q4_0_r16 and q8_0_r16 (kern_repack.h): a 64-byte chunk c of a group's block is 16 dwords, dword r row r's
 * bytes 4c..4c+3. q4_0's low nibbles meet the activation's quants 4c..4c+3 and its high ones 16+4c..16+4c+3; q8_0's
 * bytes meet quants 4c..4c+3. Each four quants are broadcast to every lane, so one vpdpbusd makes four weights of
 * sixteen rows, and one float step serves them all, in the lanes y takes them from. A row's file kernel gathers
 * its blocks' payloads and scales across lanes and sums across them: q4_0_r16 takes 17 of the instructions that
 * take a multiply or shuffle port per 288 bytes where the file's q4_0 kernel takes 11 per 72, q8_0_r16 13 per 544.
 * The codes are unsigned: q4_0's nibbles are q + 8 and q8_0_r16 stores q + 128, so the activation block's sum
 * times -8 or -128 (nsumb) seeds the first chain, exact (at most 255 x 127 x 32 in a lane); then the reference's
 * float steps, multiply then add in block order, every row bit for bit the scalar reference's. ---- */

/* Chunk c of the n groups' blocks at w, stride bytes apart, into their chains: q4_0's nibbles (bits 4) low into
 * s0, high into s1; q8_0's bytes (bits 8) into s0 for even chunks, s1 for odd ones. The groups take turns line by
 * line, each line's prefetch just before its load: a group's whole block at a time, its prefetches in one burst,
 * streamed slower from memory. */
INLINE void r16_chunk(const char *w, size_t stride, const int n, int c, const __m512i xq[8], __m512i s0[4],
                      __m512i s1[4], const int bits, const kern_stream s)
{
    const __m512i low4 = _mm512_set1_epi8(0x0F);
#pragma GCC unroll 4
    for (int r = 0; r < n; r++) {
        const char *g = w + (size_t)r * stride;
        group_prefetch(g + 64 * c, s);
        __m512i v = _mm512_loadu_si512(g + 2 * KERN_R16 + 64 * c);
        if (bits == 4) {
            s0[r] = _mm512_dpbusd_epi32(s0[r], _mm512_and_si512(v, low4), xq[c]);
            s1[r] = _mm512_dpbusd_epi32(s1[r], _mm512_and_si512(_mm512_srli_epi16(v, 4), low4), xq[4 + c]);
        } else if (c % 2 == 0) {
            s0[r] = _mm512_dpbusd_epi32(s0[r], v, xq[c]);
        } else {
            s1[r] = _mm512_dpbusd_epi32(s1[r], v, xq[c]);
        }
    }
}

/* n groups (n <= 4) stride bytes apart, in step, as r32_groups_pass reads its groups; bits 4 (q4_0_r16) or 8
 * (q8_0_r16), a constant once inlined. The codes' chains are seeded (q4_0's nibbles are q + 8, q8_0_r16's bytes
 * q + 128: the activation block's sum times -8 or -128). y: n x 16. */
INLINE void r16_groups_pass(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                            const int bits, const kern_stream s)
{
    const int8_t *x = kern_act_qs(a, m);
    const int32_t *nsumb = kern_act_nsumb(a, m);
    const float *dx = kern_act_scale(a, m);
    const size_t nb = a->cols / QK8_0, block = r16_block_bytes(bits);
    const int chunks = r16_chunks(bits);
    __m512 acc[4];
    r16_acc_zero(acc, n);
    for (size_t b = 0; b < nb; b++, w += block, x += QK8_0) {
        __m512i xq[8], s0[4], s1[4];
#pragma GCC unroll 8
        for (int c = 0; c < 8; c++)
            xq[c] = quads_at(x + 4 * c);
        __m512i seed = _mm512_set1_epi32(r16_seed(bits, nsumb[b]));
        __m512 xd = _mm512_set1_ps(dx[b]);
#pragma GCC unroll 4
        for (int r = 0; r < n; r++) {
            s0[r] = seed;
            s1[r] = _mm512_setzero_si512();
        }
#pragma GCC unroll 8
        for (int c = 0; c < chunks; c++)
            r16_chunk(w, stride, n, c, xq, s0, s1, bits, s);
#pragma GCC unroll 4
        for (int r = 0; r < n; r++) {
            const char *g = w + (size_t)r * stride;
            group_prefetch(g + 64 * chunks, s); /* the block's last line, which its head pushed over */
            __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)g));
            __m512 p = _mm512_cvtepi32_ps(_mm512_add_epi32(s0[r], s1[r]));
            acc[r] = _mm512_add_ps(acc[r], _mm512_mul_ps(p, _mm512_mul_ps(dw, xd)));
        }
    }
    r16_acc_store(acc, n, y);
}

/* r16_groups_pass for each layout, its bits a constant. */
INLINE void r16_groups_pass_q4_0(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                                 const kern_stream s)
{
    r16_groups_pass(w, stride, n, a, m, y, 4, s);
}

INLINE void r16_groups_pass_q8_0(const char *w, size_t stride, const int n, const kern_act *a, size_t m, float *y,
                                 const kern_stream s)
{
    r16_groups_pass(w, stride, n, a, m, y, 8, s);
}

void kern_group_q4_0_r16_avx512(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(r16_groups_pass_q4_0, KERN_R16, true, w, stride, n, a, m, y);
}

void kern_group_q8_0_r16_avx512(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(r16_groups_pass_q8_0, KERN_R16, true, w, stride, n, a, m, y);
}
