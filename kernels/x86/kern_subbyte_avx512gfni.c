/* kern_subbyte_avx512gfni.c — q1_0, q4_0 and tq2_0 for KERN_ISA_AVX512GFNI (kern_subbyte512.h), a code taken out of
 * its byte by one vgf2p8affineqb, and the ISA's table: only these three formats, the others fall back to avx512's
 * (kern_table_for), which the CSVs then name.
 *
 * Why GFNI: vgf2p8affineqb multiplies every byte by an 8x8 bit matrix, so one instruction moves any bits of a
 * byte to any positions and clears the rest: bit field (shift, bits) is a matrix whose row 7 - i picks bit shift
 * + i. With a shift and a mask that is two instructions, the shift on one port where vpdpbusd issues on two, so
 * the shifts, not the multiplies, set the pace of q1_0 (7 per 512 weights a row) and tq2_0 (3 per 256).
 * docs/history/kernels.md has the instruction costs and the speed-ups. */
#include <immintrin.h>
#include <stdint.h>

#include "kern_avx512.h"
#include "kern_impl.h"

/* Bits shift..shift+bits-1 of every byte, moved to bits to..to+bits-1 (the rest zero): one vgf2p8affineqb (the mask
 * alone where the field stays in place, which any vector port runs). */
static inline __attribute__((always_inline)) __m512i field_gfni(__m512i v, int shift, int bits, int to)
{
    if (shift == to)
        return _mm512_and_si512(v, _mm512_set1_epi8((char)(((1 << bits) - 1) << to)));
    /* kern_gf2_field_matrix (kern_impl.h) in every qword; its bits as the intrinsic's signed type */
    return _mm512_gf2p8affine_epi64_epi8(v, _mm512_set1_epi64((long long)kern_gf2_field_matrix(shift, bits, to)), 0);
}

#define KERN512_FIELD_AT(v, shift, bits, to) field_gfni(v, shift, bits, to)
#define KERN512_ISA avx512gfni
#include "kern_subbyte512.h"

const kern_table kern_table_avx512gfni = {
    .isa = KERN_ISA_AVX512GFNI,
    .rows = { KERN512_SUBBYTE_ROWS(avx512gfni) },
    .rows_cached = { KERN512_SUBBYTE_ROWS_CACHED(avx512gfni) },
    .batch = { [KERN_Q4_0] = kern_batch_q4_0_avx512gfni },
    .rows_per_pass = KERN512_ROWS,
};
