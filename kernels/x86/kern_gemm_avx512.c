/* kern_gemm_avx512.c — the GEMM tiles of q4_0_r16 and q8_0_r16 on AVX-512 VNNI (a prompt's matrix products): one
 * group of 16 rows against R16_GEMM_ROWS activation rows at a time, each 64-byte chunk of the group's block loaded (and
 * q4_0's nibbles split) once for all of them, where the matvec's group kernel loads it once per activation row.
 * Every (row, activation row) gets the matvec's integer sum (the same products, exact in int32, the codes' offset
 * taken out by the same seed) and the matvec's float steps in block order (kern_repack_avx512.c's
 * r16_groups_pass): the output is bit for bit the matvec's of the same row, whatever M or the tile. Compiled with
 * the AVX-512 flags; only called after kern_job_check saw the CPU has them. */
#include "kern_repack512.h"

#define R16_GEMM_ROWS 8 /* 8 rows x (two chains and a float sum) + the chunk and its halves: within 32 zmm */

/* Activation rows m0 .. m0 + nm - 1 (nm <= R16_GEMM_ROWS, a constant once inlined) against the group at g; bits 4
 * (q4_0_r16) or 8 (q8_0_r16). Two chains per activation row (even and odd chunks, as the matvec's), so that the
 * vpdpbusd in flight outnumber its latency. y: nm x 16. */
INLINE void gemm_r16(const char *g, const kern_act *a, size_t m0, const int nm, float *y, const int bits)
{
    const size_t nb = a->cols / QK8_0, block = r16_block_bytes(bits);
    const int chunks = r16_chunks(bits);
    const __m512i low4 = _mm512_set1_epi8(0x0F);
    /* the rows' quants, block sums and scales as one base and a stride each (kern_act's arrays are row after row):
     * three pointers, where one per row and array spilled GCC's general registers at nm = 8 */
    const int8_t *x = kern_act_qs(a, m0);
    const int32_t *nsumb = kern_act_nsumb(a, m0);
    const float *dx = kern_act_scale(a, m0);
    const size_t sx = a->cols, sb = kern_act_blocks(a);
    __m512 acc[R16_GEMM_ROWS];
#pragma GCC unroll 8
    for (int m = 0; m < nm; m++)
        acc[m] = _mm512_setzero_ps();
    for (size_t b = 0; b < nb; b++, g += block, x += QK8_0) {
        __m512i s0[R16_GEMM_ROWS], s1[R16_GEMM_ROWS];
#pragma GCC unroll 8
        for (int m = 0; m < nm; m++) {
            s0[m] = _mm512_set1_epi32(r16_seed(bits, nsumb[sb * (size_t)m + b]));
            s1[m] = _mm512_setzero_si512();
        }
#pragma GCC unroll 8
        for (int c = 0; c < chunks; c++) {
            __m512i v = _mm512_loadu_si512(g + 2 * KERN_R16 + 64 * c);
            __m512i lo = bits == 4 ? _mm512_and_si512(v, low4) : v;
            __m512i hi = bits == 4 ? _mm512_and_si512(_mm512_srli_epi16(v, 4), low4) : v;
#pragma GCC unroll 8
            for (int m = 0; m < nm; m++) {
                const int8_t *xm = x + sx * (size_t)m;
                if (bits == 4) {
                    s0[m] = _mm512_dpbusd_epi32(s0[m], lo, quads_at(xm + 4 * c));
                    s1[m] = _mm512_dpbusd_epi32(s1[m], hi, quads_at(xm + 16 + 4 * c));
                } else if (c % 2 == 0) {
                    s0[m] = _mm512_dpbusd_epi32(s0[m], v, quads_at(xm + 4 * c));
                } else {
                    s1[m] = _mm512_dpbusd_epi32(s1[m], v, quads_at(xm + 4 * c));
                }
            }
        }
        __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)g));
#pragma GCC unroll 8
        for (int m = 0; m < nm; m++) {
            __m512 xd = _mm512_set1_ps(dx[sb * (size_t)m + b]);
            __m512 p = _mm512_cvtepi32_ps(_mm512_add_epi32(s0[m], s1[m]));
            acc[m] = _mm512_add_ps(acc[m], _mm512_mul_ps(p, _mm512_mul_ps(dw, xd)));
        }
    }
#pragma GCC unroll 8
    for (int m = 0; m < nm; m++)
        _mm512_storeu_ps(y + KERN_R16 * m, acc[m]);
}

/* gemm_r16 for each layout, its bits a constant. */
INLINE void gemm_r16_q4_0(const char *g, const kern_act *a, size_t m0, const int nm, float *y)
{
    gemm_r16(g, a, m0, nm, y, 4);
}

INLINE void gemm_r16_q8_0(const char *g, const kern_act *a, size_t m0, const int nm, float *y)
{
    gemm_r16(g, a, m0, nm, y, 8);
}

void kern_gemm_q4_0_r16_avx512(const char *g, const kern_act *a, size_t m0, size_t nm, float *y)
{
    gemm_in_tiles(gemm_r16_q4_0, R16_GEMM_ROWS, g, a, m0, nm, y);
}

void kern_gemm_q8_0_r16_avx512(const char *g, const kern_act *a, size_t m0, size_t nm, float *y)
{
    gemm_in_tiles(gemm_r16_q8_0, R16_GEMM_ROWS, g, a, m0, nm, y);
}
