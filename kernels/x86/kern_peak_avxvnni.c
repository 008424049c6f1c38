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

/* Ten accumulators: vpdpbusd's latency (4-5) x 2 ports. */
static uint64_t kern_peak_int8_avxvnni(uint64_t iters)
{
    __m256i a = _mm256_set1_epi8(3), b = _mm256_set1_epi8(-5);
    /* distinct starts: equal chains would be merged into one */
    __m256i c0 = _mm256_set1_epi32(0), c1 = _mm256_set1_epi32(1), c2 = _mm256_set1_epi32(2),
            c3 = _mm256_set1_epi32(3), c4 = _mm256_set1_epi32(4), c5 = _mm256_set1_epi32(5),
            c6 = _mm256_set1_epi32(6), c7 = _mm256_set1_epi32(7), c8 = _mm256_set1_epi32(8),
            c9 = _mm256_set1_epi32(9);
    for (uint64_t i = 0; i < iters; i++) {
        __asm__("" : "+x"(a), "+x"(b));
        c0 = kp_dpbusd(c0, a, b);
        c1 = kp_dpbusd(c1, a, b);
        c2 = kp_dpbusd(c2, a, b);
        c3 = kp_dpbusd(c3, a, b);
        c4 = kp_dpbusd(c4, a, b);
        c5 = kp_dpbusd(c5, a, b);
        c6 = kp_dpbusd(c6, a, b);
        c7 = kp_dpbusd(c7, a, b);
        c8 = kp_dpbusd(c8, a, b);
        c9 = kp_dpbusd(c9, a, b);
    }
    __m256i s = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(c0, c1), _mm256_add_epi32(c2, c3)),
                                 _mm256_add_epi32(_mm256_add_epi32(c4, c5), _mm256_add_epi32(c6, c7)));
    s = _mm256_add_epi32(s, _mm256_add_epi32(c8, c9));
    return (uint64_t)(uint32_t)_mm256_extract_epi32(s, 0);
}

const kern_peak_kernel kern_peak_avxvnni[KERN_PEAK_NOPS] = {
    [KERN_PEAK_INT8] = { .run = kern_peak_int8_avxvnni, .macs_per_iter = 32.0 * 10, .instr = "vpdpbusd ymm (VEX)" },
};
