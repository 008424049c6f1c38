/* kern_peak_avx512.c — the compute roof on AVX-512 (see kern_peak.h): int8 through the EVEX vpdpbusd on zmm (64
 * u8 x s8 products into int32 an instruction), f32 through vfmadd231ps zmm. Compiled with the avx512 flags; runs
 * only where kern_isa_supported(avx512). */
#include <immintrin.h>

#include "kern_peak.h"

#define KP_ACCS 16 /* latency 4-5 x 2 ports, with room: zmm has 32 registers */

/* c + a . b through the instruction itself: with the intrinsic, GCC 12 stores accumulators to the stack (see
 * kern_peak_avxvnni.c). */
static inline __m512i kp_dpbusd(__m512i c, __m512i a, __m512i b)
{
    __asm__("vpdpbusd %[b], %[a], %[c]" : [c] "+v"(c) : [a] "v"(a), [b] "v"(b));
    return c;
}

static uint64_t kern_peak_int8_avx512(uint64_t iters)
{
    __m512i acc[KP_ACCS], a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-5);
    _Pragma("GCC unroll 16")
    for (int k = 0; k < KP_ACCS; k++)
        acc[k] = _mm512_set1_epi32(k); /* distinct: equal chains would be merged into one */
    for (uint64_t i = 0; i < iters; i++) {
        __asm__("" : "+v"(a), "+v"(b));
        _Pragma("GCC unroll 16")
        for (int k = 0; k < KP_ACCS; k++)
            acc[k] = kp_dpbusd(acc[k], a, b);
    }
    __m512i s = acc[0];
    _Pragma("GCC unroll 16")
    for (int k = 1; k < KP_ACCS; k++)
        s = _mm512_add_epi32(s, acc[k]);
    /* every lane summed by vector adds, which wrap: the reduce intrinsic adds them as C ints, and overflows */
    __m256i t = _mm256_add_epi32(_mm512_castsi512_si256(s), _mm512_extracti64x4_epi64(s, 1));
    __m128i u = _mm_add_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
    u = _mm_add_epi32(u, _mm_shuffle_epi32(u, 0x4e));
    u = _mm_add_epi32(u, _mm_shuffle_epi32(u, 0xb1));
    return (uint64_t)(uint32_t)_mm_cvtsi128_si32(u);
}

static uint64_t kern_peak_f32_avx512(uint64_t iters)
{
    __m512 acc[KP_ACCS], a = _mm512_set1_ps(1.0f), b = _mm512_set1_ps(1e-7f);
    _Pragma("GCC unroll 16")
    for (int k = 0; k < KP_ACCS; k++)
        acc[k] = _mm512_set1_ps((float)k); /* distinct: equal chains would be merged */
    for (uint64_t i = 0; i < iters; i++) {
        __asm__("" : "+v"(a), "+v"(b));
        _Pragma("GCC unroll 16")
        for (int k = 0; k < KP_ACCS; k++)
            acc[k] = _mm512_fmadd_ps(a, b, acc[k]);
    }
    __m512 s = acc[0];
    _Pragma("GCC unroll 16")
    for (int k = 1; k < KP_ACCS; k++)
        s = _mm512_add_ps(s, acc[k]);
    return (uint64_t)(_mm512_reduce_add_ps(s) * 1e6f);
}

const kern_peak_kernel kern_peak_avx512[KERN_PEAK_NOPS] = {
    [KERN_PEAK_INT8] = { .run = kern_peak_int8_avx512, .macs_per_iter = 64.0 * KP_ACCS, .instr = "vpdpbusd zmm" },
    [KERN_PEAK_F32] = { .run = kern_peak_f32_avx512, .macs_per_iter = 16.0 * KP_ACCS, .instr = "vfmadd231ps zmm" },
};
