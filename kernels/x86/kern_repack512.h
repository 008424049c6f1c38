/* kern_repack512.h — what the repacked layouts' AVX-512 group kernels share (kern_repack_avx512.c: q1_0_r32lut,
 * q4_0_r16, q8_0_r16; kern_repack256_avx512.c: tq2_0_r16, q4_K_r16, q6_K_r16): four quants in
 * every lane and the float sums of 16-row groups (the ISA-free parts: kern_group.h). Included only by files
 * compiled with the AVX-512 flags; not public. */
#ifndef KERN_REPACK512_H
#define KERN_REPACK512_H

#include <immintrin.h>
#include <string.h>

#include "kern_group.h"

/* The four quants at p (one dword, any alignment) in every dword lane: what a vpdpbusd of 16 rows' four weights
 * meets. */
INLINE __m512i quads_at(const int8_t *p) { return _mm512_set1_epi32(group_quads(p)); }

/* The float sums of n <= 4 groups of 16 rows: zeroed, and stored to y (n x 16). */
INLINE void r16_acc_zero(__m512 acc[4], const int n)
{
#pragma GCC unroll 4
    for (int r = 0; r < n; r++)
        acc[r] = _mm512_setzero_ps();
}

INLINE void r16_acc_store(const __m512 acc[4], const int n, float *y)
{
#pragma GCC unroll 4
    for (int r = 0; r < n; r++)
        _mm512_storeu_ps(y + KERN_R16 * r, acc[r]);
}

#endif
