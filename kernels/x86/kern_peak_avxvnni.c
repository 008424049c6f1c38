/* kern_peak_avxvnni.c — the compute roof's int8 on AVX-VNNI (see kern_peak.h): the VEX vpdpbusd on ymm, u8 x s8
 * products summed four at a time into int32 in one instruction. Its f32 is avx2's. Compiled with -mavxvnni; runs
 * only where kern_isa_supported(avxvnni). */
#include <immintrin.h>

#include "kern_peak.h"

/* c + a . b through the instruction itself: with the intrinsic, GCC 12 stored every accumulator to the stack every
 * round (a store port's pace, not vpdpbusd's). */
static inline __m256i kp_dpbusd(__m256i c, __m256i a, __m256i b)
{
    __asm__("%{vex%} vpdpbusd %[b], %[a], %[c]" : [c] "+x"(c) : [a] "x"(a), [b] "x"(b));
    return c;
}

#define KP_ACCS 10 /* vpdpbusd's latency (4-5) x 2 ports */

static uint64_t kern_peak_int8_avxvnni(uint64_t iters)
{
    __m256i acc[KP_ACCS], a = _mm256_set1_epi8(3), b = _mm256_set1_epi8(-5);
    _Pragma("GCC unroll 16")
    for (int k = 0; k < KP_ACCS; k++)
        acc[k] = _mm256_set1_epi32(k); /* distinct: equal chains would be merged into one */
    for (uint64_t i = 0; i < iters; i++) {
        __asm__("" : "+x"(a), "+x"(b));
        _Pragma("GCC unroll 16")
        for (int k = 0; k < KP_ACCS; k++)
            acc[k] = kp_dpbusd(acc[k], a, b);
    }
    __m256i s = acc[0];
    _Pragma("GCC unroll 16")
    for (int k = 1; k < KP_ACCS; k++)
        s = _mm256_add_epi32(s, acc[k]); /* wrapping lanes: the same checksum in any order */
    return (uint64_t)(uint32_t)_mm256_extract_epi32(s, 0);
}

const kern_peak_kernel kern_peak_avxvnni[KERN_PEAK_NOPS] = {
    [KERN_PEAK_INT8] = { .run = kern_peak_int8_avxvnni, .macs_per_iter = 32.0 * KP_ACCS,
                         .instr = "vpdpbusd ymm (VEX)" },
};
