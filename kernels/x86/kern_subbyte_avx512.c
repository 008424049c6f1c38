/* kern_subbyte_avx512.c — q1_0, q4_0 and tq2_0 for KERN_ISA_AVX512 (kern_subbyte512.h), a code taken out of its
 * byte by a shift and a mask: the CPUs with AVX-512 VNNI and no GFNI (docs/kernels.md) run these, and
 * POOLBENCH_ISA=avx512 runs them anywhere for an A/B against kern_subbyte_avx512gfni.c. */
#include <immintrin.h>

/* Bits shift..shift+bits-1 of every byte, moved to bits to..to+bits-1 (the rest zero). vpsrlw and vpsllw shift
 * 16-bit words: the mask drops the bits the shift moved in from the neighbouring byte. A constant shift equal to to
 * compiles to the mask alone. */
static inline __attribute__((always_inline)) __m512i field_shift_mask(__m512i v, int shift, int bits, int to)
{
    const __m512i mask = _mm512_set1_epi8((char)(((1 << bits) - 1) << to));
    __m512i t = shift > to   ? _mm512_srli_epi16(v, (unsigned)(shift - to))
                : shift < to ? _mm512_slli_epi16(v, (unsigned)(to - shift))
                             : v;
    return _mm512_and_si512(t, mask);
}

#define KERN512_FIELD_AT(v, shift, bits, to) field_shift_mask(v, shift, bits, to)
#define KERN512_ISA avx512
#include "kern_subbyte512.h"
