/* kern_subbyte_avx512.c — q1_0, q4_0 and tq2_0 for KERN_ISA_AVX512 (kern_subbyte512.h), a code taken out of its
 * byte by a shift and a mask: the CPUs with AVX-512 VNNI and no GFNI (Cascade Lake, Cooper Lake) run these, and
 * POOLBENCH_KERNEL=avx512 runs them anywhere for an A/B against kern_subbyte_avx512gfni.c. */
#include <immintrin.h>

/* Bits shift..shift+bits-1 of every byte, as the byte's value. vpsrlw shifts 16-bit words: the mask drops the
 * bits the shift moved in from the byte above. A constant shift of 0 compiles to the mask alone. */
static inline __attribute__((always_inline)) __m512i field_shift_mask(__m512i v, int shift, int bits)
{
    const __m512i mask = _mm512_set1_epi8((char)((1 << bits) - 1));
    return _mm512_and_si512(shift ? _mm512_srli_epi16(v, (unsigned)shift) : v, mask);
}

#define KERN512_FIELD(v, shift, bits) field_shift_mask(v, shift, bits)
#define KERN512_ISA avx512
#include "kern_subbyte512.h"
