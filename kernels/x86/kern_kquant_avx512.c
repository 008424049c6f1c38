/* kern_kquant_avx512.c — q4_K and q6_K x q8_K with AVX-512 (BW, VNNI): the AVX-512 table's rows for them
 * (kern_avx512.c). A pass takes KERN512_ROWS rows a quarter of the call apart and loads each activation block
 * once for all of them; each row has its own accumulators and a fixed instruction sequence, so it gives the
 * same bits in a pass or alone.
 *
 * Per 128 weights: the codes (unsigned: q4_K 0..15, q6_K 0..63) times the activation's quants, four products to
 * an int32 lane of one sub-block by vpdpbusd (at most 4 x 63 x 128 = 32256: an int16), two such vectors packed to
 * words (vpackssdw, exact) and multiplied by their sub-blocks' scales, placed in the same words by one shuffle, in
 * one vpdpwssd that adds them into the row's int32 sum: exact. q6_K's offset (codes are q + 32) is taken out by
 * seeding that sum with -32 x scale_g x bsums_g; q4_K's mins (m_j x the sums of sub-block j) are scaled by dmin,
 * not d, so they are summed apart and folded with their own factor. Only 512-bit VNNI forms are used (some AVX-512
 * cores lack AVX-VNNI). */
#include "kern_avx512.h"
#include "kern_impl.h"
#include "kern_kquant.h"

#include <immintrin.h>

/* vpshufb control: in 128-bit lane k, words 0-3 take byte lo[k] of that lane, words 4-7 byte hi[k], zero-extended
 * (an index with bit 7 set writes a zero byte): q4_K's unpacked scales are bytes (q4_K_scales_mins4). */
INLINE int byte_zx_pair(int b) /* two int16 lanes (b, zero): the 32 bits as the intrinsic's int (GCC: modulo 2^32) */
{
    return (int)(0x80008000u | (unsigned)b * 0x10001u);
}

INLINE __m512i byte_pairs(int l0, int h0, int l1, int h1, int l2, int h2, int l3, int h3)
{
    return _mm512_set_epi32(byte_zx_pair(h3), byte_zx_pair(h3), byte_zx_pair(l3), byte_zx_pair(l3), byte_zx_pair(h2),
                            byte_zx_pair(h2), byte_zx_pair(l2), byte_zx_pair(l2), byte_zx_pair(h1), byte_zx_pair(h1),
                            byte_zx_pair(l1), byte_zx_pair(l1), byte_zx_pair(h0), byte_zx_pair(h0), byte_zx_pair(l0),
                            byte_zx_pair(l0));
}

/* ---- the pass both formats share: nr rows (rs bytes apart) against activation row m, four blocks a float
 * step: each block's integer sums (16 lanes, scaled by its d; q4_K's mins apart, by its dmin) folded four into
 * one vector (kern_avx512.h), so one conversion and one fused multiply-add serve four blocks ---- */

/* An activation block as a format's rows read it: four 64-quant vectors and one more of the format's (built
 * once per block for every row of the pass). */
typedef struct kq_x {
    __m512i x[4];
    __m512i aux;
} kq_x;

typedef kq_x (*kq_prep_fn)(const int8_t *x, const block_q8_K *xb);

/* What a row's step needs of its nb (<= 4) blocks' heads, read once for the four: their d and dmin as floats in
 * kern512_fold4's lanes (4L + t: block t; 0 past nb), and a format's own vector (q4_K: the unpacked scales and
 * mins, block t's in 128-bit lane t). */
typedef struct kq_head {
    __m512 d, dmin;
    __m512i v;
} kq_head;
typedef kq_head (*kq_head_fn)(const char *p, int nb);

/* Block t of a row's step at blk against its prepared activation: the sums its d scales. */
typedef __m512i (*kq_sum_fn)(const char *blk, const kq_x *xv, const kq_head *h, int t);

/* A format's block: its bytes, and whether it has mins (a dmin). */
typedef struct kq_shape {
    size_t bytes;
    int mins;
} kq_shape;

/* The sums the dmin of a row's four blocks takes away, in kern512_fold4's lanes (lane 4L + t: block t), from
 * the row's heads and what kq_mins_prep made of the activation's four blocks (NULL for a format without mins). */
typedef struct kq_xm {
    __m512i v[2];
} kq_xm;
typedef kq_xm (*kq_mins_prep_fn)(const kq_x xv[4]);
typedef __m512i (*kq_mins_fn)(const kq_head *h, const kq_xm *xm);

/* Blocks b .. b + nb - 1 (nb <= 4) of nr rows into their accumulators. */
INLINE void kq_group(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, size_t b, const int nb,
                     kq_shape sh, kq_prep_fn prep, kq_head_fn head, kq_sum_fn sum, kq_mins_prep_fn mins_prep,
                     kq_mins_fn mins, const int pf, __m512 acc[KERN512_ROWS])
{
    kq_x xv[4];
#pragma GCC unroll 4
    for (int t = 0; t < 4; t++) /* past nb: zero (nb is 4 but in a row's last group) */
        xv[t] = t < nb ? prep(kern_act_qs(a, m) + (b + (size_t)t) * QK_K, kern_act_q8k(a, m) + b + t) : (kq_x){ 0 };
    kq_xm xm = sh.mins ? mins_prep(xv) : (kq_xm){ 0 };
    __m512 dx = kern512_scales4(kern_act_scale(a, m) + b, nb);
#pragma GCC unroll 4
    for (int r = 0; r < nr; r++) {
        const char *p = kern_row_ptr(w, rs, r) + b * sh.bytes;
        if (pf)
            kern512_prefetch_span(p, 4 * sh.bytes);
        kq_head h = head(p, nb);
        __m512i s[4];
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++)
            s[t] = t < nb ? sum(p + (size_t)t * sh.bytes, &xv[t], &h, t) : _mm512_setzero_si512();
        acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(kern512_fold4(s)), _mm512_mul_ps(h.d, dx), acc[r]);
        if (sh.mins)
            acc[r] = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(mins(&h, &xm)), _mm512_mul_ps(h.dmin, dx), acc[r]);
    }
}

/* A K-quant format's step (kq_group over its NAME_shape, prep_NAME, head_NAME, sum_NAME, mins_prep_NAME and
 * mins_NAME, in kern512_pass4's step shape), its passes and its exported rows functions. */
#define KQ_FORMAT(name)                                                                                     \
    INLINE void name##_step(const char *w, size_t rs, const int nr, const kern_act *a, size_t m, size_t b,  \
                            const int nb, const int pf, __m512 acc[KERN512_ROWS])                           \
    {                                                                                                       \
        kq_group(w, rs, nr, a, m, b, nb, name##_shape, prep_##name, head_##name, sum_##name,                \
                 mins_prep_##name, mins_##name, pf, acc);                                                   \
    }                                                                                                       \
    KERN512_STEP_PASSES(name, QK_K)                                                                         \
    KERN512_EXPORT_ROWS(name)

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

/* ---- q4_K's heads, four blocks at once: a block starts with 16 bytes, d, dmin and the 12 bytes of packed 6-bit
 * scales and mins. Unpacking those one block at a time (kern_q4_K_unpack's shifts and masks on three words, then
 * the halves one by one) took more scalar instructions than the block has vector ones, and on Intel the scalar
 * ones share ports 0 and 5 with the vector ones; four heads side by side take six vector instructions. ---- */

/* The nb (<= 4) heads at p, block t's in 128-bit lane t (zero past nb), never reading past the blocks: four
 * whole blocks take one load and three inserts, as a tree (two deep). */
INLINE __m512i q4_K_heads(const char *p, int nb)
{
    const size_t bb = sizeof(block_q4_K);
    if (nb == 4) {
        __m256i h01 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)),
                                              _mm_loadu_si128((const __m128i *)(p + bb)), 1);
        __m256i h23 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p + 2 * bb))),
                                              _mm_loadu_si128((const __m128i *)(p + 3 * bb)), 1);
        return _mm512_inserti64x4(_mm512_castsi256_si512(h01), h23, 1);
    }
    __m512i h = _mm512_setzero_si512();
    for (int t = 0; t < nb; t++) /* a row's last step: the lane index must be a constant */
        h = t == 0 ? _mm512_inserti32x4(h, _mm_loadu_si128((const __m128i *)p), 0)
            : t == 1 ? _mm512_inserti32x4(h, _mm_loadu_si128((const __m128i *)(p + bb)), 1)
                     : _mm512_inserti32x4(h, _mm_loadu_si128((const __m128i *)(p + 2 * bb)), 2);
    return h;
}

/* Lane t: block t's 8 scales (bytes 0-7) and 8 mins (bytes 8-15), 0..63, by kern_q4_K_unpack's rule on dwords 1-3
 * of the head (w0, w1, w2): dword 0 = w0 & 0x3f.., 1 = (w2 & 0x0f..) | (w0 >> 2 & 0x30..), 2 = w1 & 0x3f.., 3 =
 * (w2 >> 4 & 0x0f..) | (w1 >> 2 & 0x30..) (w >> 2 & 0x30 is (w >> 6 & 3) << 4 within each byte). */
INLINE __m512i q4_K_scales_mins4(__m512i heads)
{
    /* dwords (w0, w2, w1, w2) and (w0, w0, w1, w1); the immediate is the four dword indices, two bits each (the
     * intrinsic's enum type names the same values) */
    __m512i x = _mm512_shuffle_epi32(heads, (_MM_PERM_ENUM)(1 | 3 << 2 | 2 << 4 | 3 << 6));
    __m512i y = _mm512_shuffle_epi32(heads, (_MM_PERM_ENUM)(1 | 1 << 2 | 2 << 4 | 2 << 6));
    const __m512i shift = _mm512_set4_epi32(4, 0, 0, 0), low = _mm512_set4_epi32(0x0f0f0f0f, 0x3f3f3f3f, 0x0f0f0f0f,
                                                                                      0x3f3f3f3f);
    const __m512i top = _mm512_set4_epi32(0x30303030, 0, 0x30303030, 0);
    __m512i hi = _mm512_and_si512(_mm512_srli_epi32(y, 2), top);
    /* (x >> shift & low) | hi: ternary-logic truth table 0xEA = (A & B) | C */
    return _mm512_ternarylogic_epi32(_mm512_srlv_epi32(x, shift), low, hi, 0xEA);
}

/* d and dmin of the heads as floats in kern512_fold4's lanes: words 8t and 8t + 1 of the heads, gathered into
 * the low 8 words (d0..d3, dmin0..dmin3; zero past nb, as the heads are), converted, each four broadcast. */
static const uint16_t q4_K_head_words[32] = { 0, 8, 16, 24, 1, 9, 17, 25 };

INLINE kq_head head_q4_K(const char *p, int nb)
{
    __m512i heads = q4_K_heads(p, nb);
    __m512i hw = _mm512_permutexvar_epi16(_mm512_loadu_si512(q4_K_head_words), heads);
    __m512 f = _mm512_castps256_ps512(_mm256_cvtph_ps(_mm512_castsi512_si128(hw)));
    return (kq_head){ .d = _mm512_shuffle_f32x4(f, f, 0x00), .dmin = _mm512_shuffle_f32x4(f, f, 0x55),
                      .v = q4_K_scales_mins4(heads) };
}

/* Sum over the sub-blocks of sc_j x (codes . x) (16 int32 lanes); sm: the block's scales (bytes 0-7) in every
 * 128-bit lane. Half h's low nibbles are sub-blocks 4h (128-bit lanes 0-1) and 4h + 2 (lanes 2-3), its high ones
 * 4h + 1 and 4h + 3: packed, lane k's words 0-3 and 4-7 are those two sub-blocks'. */
INLINE __m512i q4_K_dots(const block_q4_K *blk, __m512i sm, const __m512i xs[4])
{
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    __m512i isum = _mm512_setzero_si512();
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        __m512i q = _mm512_loadu_si512(blk->qs + 64 * h);
        __m512i lo = _mm512_and_si512(q, low4), hi = _mm512_and_si512(_mm512_srli_epi16(q, 4), low4);
        __m512i s = _mm512_shuffle_epi8(sm, byte_pairs(4 * h, 4 * h + 1, 4 * h, 4 * h + 1, 4 * h + 2, 4 * h + 3,
                                                       4 * h + 2, 4 * h + 3));
        __m512i d = _mm512_packs_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), lo, xs[2 * h]),
                                       _mm512_dpbusd_epi32(_mm512_setzero_si512(), hi, xs[2 * h + 1]));
        isum = _mm512_dpwssd_epi32(isum, d, s);
    }
    return isum;
}

/* ---- q4_K's mins, four blocks at once: sum over j of m_j x (bsums 2j + bsums 2j + 1) for each block, two
 * vpdpwssd in kern512_fold4's lanes, where a block at a time took a lane broadcast, a shuffle and a vpmaddwd and
 * then a fold of its own. Lane 4L + t pairs block t's mins 2L (first vector) and 2L + 1 (second), each twice as
 * int16, with its bsums 4L, 4L + 1 and 4L + 2, 4L + 3: over L, every min against both bsums of its sub-block. ---- */

/* Dword 2L (first) and 2L + 1 (second) of block t's bsums into lane 4L + t: the four blocks' bsums (zero past nb,
 * as prep leaves them) are two vectors of 16 dwords, blocks 0, 1 and 2, 3. Once a pass, for every row of it. */
static const uint32_t q4_K_bsums_dwords[2][16] = {
    { 0, 8, 16, 24, 2, 10, 18, 26, 4, 12, 20, 28, 6, 14, 22, 30 },
    { 1, 9, 17, 25, 3, 11, 19, 27, 5, 13, 21, 29, 7, 15, 23, 31 },
};

INLINE kq_xm mins_prep_q4_K(const kq_x xv[4])
{
    __m512i b01 = _mm512_inserti64x4(xv[0].aux, _mm512_castsi512_si256(xv[1].aux), 1);
    __m512i b23 = _mm512_inserti64x4(xv[2].aux, _mm512_castsi512_si256(xv[3].aux), 1);
    return (kq_xm){ { _mm512_permutex2var_epi32(b01, _mm512_loadu_si512(q4_K_bsums_dwords[0]), b23),
                      _mm512_permutex2var_epi32(b01, _mm512_loadu_si512(q4_K_bsums_dwords[1]), b23) } };
}

/* Word t of 128-bit lane L: word 4 + L of block t's head lane (its mins 2L and 2L + 1, bytes 8 + 2L and 9 + 2L of
 * q4_K_scales_mins4's lane t); words 4-7 of each lane are not read. */
static const uint16_t q4_K_min_words[32] = { 4, 12, 20, 28, 0, 0, 0, 0, 5, 13, 21, 29, 0, 0, 0, 0,
                                             6, 14, 22, 30, 0, 0, 0, 0, 7, 15, 23, 31, 0, 0, 0, 0 };

INLINE __m512i mins_q4_K(const kq_head *h, const kq_xm *xm)
{
    __m512i w = _mm512_permutexvar_epi16(_mm512_loadu_si512(q4_K_min_words), h->v);
    /* int32 lane t of each 128-bit lane: byte 2t (then 2t + 1) of w, zero-extended, twice (an index with bit 7
     * set writes a zero byte) */
    const __m512i even = _mm512_broadcast_i32x4(_mm_setr_epi8(0, -128, 0, -128, 2, -128, 2, -128, 4, -128, 4, -128,
                                                              6, -128, 6, -128));
    const __m512i odd = _mm512_broadcast_i32x4(_mm_setr_epi8(1, -128, 1, -128, 3, -128, 3, -128, 5, -128, 5, -128,
                                                             7, -128, 7, -128));
    __m512i mn = _mm512_madd_epi16(_mm512_shuffle_epi8(w, even), xm->v[0]);
    return _mm512_dpwssd_epi32(mn, _mm512_shuffle_epi8(w, odd), xm->v[1]);
}

/* q4_K's activation: the quants in the nibbles' order, the bsums in the low 256 bits. */
INLINE kq_x prep_q4_K(const int8_t *x, const block_q8_K *xb)
{
    kq_x v;
    q4_K_x(x, v.x);
    v.aux = _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)xb->bsums));
    return v;
}

/* Block t's scales and mins (128-bit lane t of v) in every 128-bit lane. Literal immediates, not t * 0x55: without
 * optimisation (-O1 under ASan) the intrinsic is a real function whose last argument must be a constant; at -O2
 * t is one after unrolling and the switch folds away. */
INLINE __m512i q4_K_lane(__m512i v, int t)
{
    switch (t) {
    case 0:
        return _mm512_shuffle_i32x4(v, v, 0x00);
    case 1:
        return _mm512_shuffle_i32x4(v, v, 0x55);
    case 2:
        return _mm512_shuffle_i32x4(v, v, 0xAA);
    default:
        return _mm512_shuffle_i32x4(v, v, 0xFF);
    }
}

INLINE __m512i sum_q4_K(const char *w, const kq_x *xv, const kq_head *h, int t)
{
    return q4_K_dots((const block_q4_K *)w, q4_K_lane(h->v, t), xv->x); /* the block's bytes, as kern_row_ptr
                                                                           * found them */
}

static const kq_shape q4_K_shape = { sizeof(block_q4_K), 1 };
KQ_FORMAT(q4_K)

/* ---- q6_K: 64 codes of elements 64z .. 64z + 63 from ql's 64 bytes of half z / 2 (low nibbles for even
 * z, high for odd) and qh's 32 bytes of that half in both 256-bit halves (kern.h's layout) ---- */

/* vpermw indices: 128-bit lane k of the pair (z, z + 1)'s scale vector, words 0-3 sub-block 4z + k's scale, words
 * 4-7 sub-block 4z + 4 + k's, as vpackssdw leaves the two chunks' sums (the scales: words 0-15). */
static const uint16_t q6_K_pair_words[2][32] = {
    { 0, 0, 0, 0, 4, 4, 4, 4, 1, 1, 1, 1, 5, 5, 5, 5, 2, 2, 2, 2, 6, 6, 6, 6, 3, 3, 3, 3, 7, 7, 7, 7 },
    { 8, 8, 8, 8, 12, 12, 12, 12, 9, 9, 9, 9, 13, 13, 13, 13, 10, 10, 10, 10, 14, 14, 14, 14, 11, 11, 11, 11, 15,
      15, 15, 15 },
};

/* Half h's two chunks' codes (c[0]: z = 2h, c[1]: z = 2h + 1). qh's high 256 bits shifted down 2 and masked leave in
 * every byte the even chunk's top bits at 0-1 and the odd one's at 4-5 (the masked-off bits 2-3 and 6-7 then keep
 * the shifted copies clean); a 16-bit shift moves bits across the bytes of a lane, but only into bits the selects
 * take from ql. Select: ternary-logic truth table 0xE4 = C ? A : B. */
INLINE void q6_K_codes2(__m512i ql, __m512i qh, __m512i c[2])
{
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    const __m512i down = _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_set1_epi16(2), 1);
    __m512i t = _mm512_and_si512(_mm512_srlv_epi16(qh, down), _mm512_set1_epi8(0x33));
    c[0] = _mm512_ternarylogic_epi32(ql, _mm512_slli_epi16(t, 4), low4, 0xE4);
    c[1] = _mm512_ternarylogic_epi32(_mm512_srli_epi16(ql, 4), t, low4, 0xE4);
}

/* Sum over the 16 sub-blocks of scale_g x ((codes - 32) . x) in 16 int32 lanes; x: the block's four 64-quant
 * loads, nb: -16 x bsums in both 256-bit halves. A chunk's codes times x by vpdpbusd, four to an int32 lane of
 * one sub-block (at most 4 x 63 x 128 = 32256: an int16), two chunks' lanes packed into words (vpackssdw, exact)
 * and multiplied by their sub-blocks' scales in one vpdpwssd (the file's comment). */
INLINE __m512i q6_K_dots(const block_q6_K *blk, const __m512i x[4], __m512i nb)
{
    /* the 16 scales as int16 in both 256-bit halves (the broadcast is the load's), against nb: -32 x scale_g x
     * bsums_g */
    __m512i sc = _mm512_cvtepi8_epi16(_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)blk->scales)));
    __m512i isum = _mm512_dpwssd_epi32(_mm512_setzero_si512(), sc, nb);
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
        __m512i c[2];
        q6_K_codes2(_mm512_loadu_si512(blk->ql + 64 * h),
                    _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)(blk->qh + 32 * h))), c);
        __m512i d0 = _mm512_dpbusd_epi32(_mm512_setzero_si512(), c[0], x[2 * h]);
        __m512i d1 = _mm512_dpbusd_epi32(_mm512_setzero_si512(), c[1], x[2 * h + 1]);
        __m512i s = _mm512_permutexvar_epi16(_mm512_loadu_si512(q6_K_pair_words[h]), sc);
        isum = _mm512_dpwssd_epi32(isum, _mm512_packs_epi32(d0, d1), s);
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

/* q6_K's heads: its d (at the block's end), and nothing else. */
INLINE kq_head head_q6_K(const char *p, int nb)
{
    return (kq_head){ .d = kern512_halves4(p + offsetof(block_q6_K, d), sizeof(block_q6_K), nb),
                      .dmin = _mm512_setzero_ps(), .v = _mm512_setzero_si512() };
}

INLINE __m512i sum_q6_K(const char *w, const kq_x *xv, const kq_head *h, int t)
{
    (void)h, (void)t; /* its scales are in the block: q6_K_dots reads them */
    return q6_K_dots((const block_q6_K *)w, xv->x, xv->aux); /* the block's bytes, as kern_row_ptr found them */
}

/* No mins: q6_K's offset 32 is inside the sum (kq_shape.mins 0: never called). */
#define mins_prep_q6_K NULL
#define mins_q6_K NULL

static const kq_shape q6_K_shape = { sizeof(block_q6_K), 0 };
KQ_FORMAT(q6_K)
