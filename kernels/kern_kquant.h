/* kern_kquant.h — what the K-quant files share (q4_K, q6_K: 256 weights a block, q8_K activations): the
 * reference conversions the format traits point at (kern_quant_k.c), and the unpacking of q4_K's packed 6-bit
 * scales and mins, which the scalar reference does byte by byte from the layout and the SIMD kernels do word
 * by word. Not a public header (kern.h is). */
#ifndef KERN_KQUANT_H
#define KERN_KQUANT_H

#include <string.h>

#include "kern.h"

void kern_quantize_q4_K(const float *x, void *w, size_t n);
void kern_dequantize_q4_K(const void *w, float *x, size_t n);
void kern_quantize_q6_K(const float *x, void *w, size_t n);
void kern_dequantize_q6_K(const void *w, float *x, size_t n);

/* The SIMD kernels (kernels/x86/kern_kquant_<isa>.c), in their ISA's table: kern_rows_fn's shape (kern_impl.h). */
#if defined(__x86_64__)
void kern_rows_q4_K_avx2(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y);
void kern_rows_q6_K_avx2(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y);
void kern_batch_q4_K_avx2(const void *w, size_t rb, size_t n, const kern_act *a, size_t m0, size_t nm, float *y,
                          size_t ldy);
void kern_batch_q6_K_avx2(const void *w, size_t rb, size_t n, const kern_act *a, size_t m0, size_t nm, float *y,
                          size_t ldy);
void kern_rows_q4_K_avx512(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y);
void kern_rows_q6_K_avx512(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y);
/* The same without the streaming prefetch (kern_table.rows_cached). */
void kern_rows_q4_K_cached_avx512(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y);
void kern_rows_q6_K_cached_avx512(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y);
#endif

/* Sub-block j's (j < 8) 6-bit scale and min from block_q4_K.scales, as kern.h's layout states it. */
static inline void kern_q4_K_scale_min(const uint8_t packed[12], int j, int *sc, int *m)
{
    if (j < 4) {
        *sc = packed[j] & 63;
        *m = packed[j + 4] & 63;
    } else {
        *sc = (packed[j + 4] & 15) | (packed[j - 4] >> 6) << 4;
        *m = (packed[j + 4] >> 4) | (packed[j] >> 6) << 4;
    }
}

/* All eight scales (byte j of *sc) and mins (byte j of *m) at once, from the packed bytes read as three
 * little-endian words (the SIMD kernels' targets are little-endian): w0's bytes are packed[0..3], w1's
 * packed[4..7], w2's packed[8..11]. The low 6 bits of w0 / w1 are scales / mins 0-3; mins and scales 4-7 take
 * their low 4 bits from w2's nibbles and their top 2 from w0's / w1's bits 6-7. */
static inline void kern_q4_K_unpack(const uint8_t packed[12], uint64_t *sc, uint64_t *m)
{
    const uint32_t low6 = 0x3f3f3f3fu, low4 = 0x0f0f0f0fu, top2 = 0x03030303u;
    uint32_t w[3];
    memcpy(w, packed, sizeof w);
    uint32_t sc_hi = (w[2] & low4) | ((w[0] >> 6) & top2) << 4;
    uint32_t m_hi = ((w[2] >> 4) & low4) | ((w[1] >> 6) & top2) << 4;
    *sc = (w[0] & low6) | (uint64_t)sc_hi << 32;
    *m = (w[1] & low6) | (uint64_t)m_hi << 32;
}

/* q6_K's 6-bit code of element e (0..63; the weight is code - 32), as kern.h's layout states it. */
static inline int kern_q6_K_code(const block_q6_K *b, int e)
{
    int h = e / 128, k = e % 128 / 32, l = e % 32;
    int low = b->ql[64 * h + l + 32 * (k & 1)] >> 4 * (k >> 1) & 15;
    return low | (b->qh[32 * h + l] >> 2 * k & 3) << 4;
}

/* Sets element e's 6-bit code c in b, where kern_q6_K_code reads it (the fields' other bits kept). */
static inline void kern_q6_K_set_code(block_q6_K *b, int e, int c)
{
    int h = e / 128, k = e % 128 / 32, l = e % 32;
    uint8_t *low = &b->ql[64 * h + l + 32 * (k & 1)], *top = &b->qh[32 * h + l];
    *low = (uint8_t)((*low & ~(15 << 4 * (k >> 1))) | (c & 15) << 4 * (k >> 1));
    *top = (uint8_t)((*top & ~(3 << 2 * k)) | (c >> 4 & 3) << 2 * k);
}

/* q4_K's nibble of element e (0..15). */
static inline int kern_q4_K_code(const block_q4_K *b, int e)
{
    return b->qs[32 * (e / 64) + e % 32] >> 4 * (e / 32 % 2) & 15;
}

#endif
