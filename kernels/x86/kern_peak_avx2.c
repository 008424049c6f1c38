/* kern_peak_avx2.c — the compute roof on AVX2 (see kern_peak.h): int8 through vpmaddubsw (u8 x s8 pairs summed
 * into int16) and vpmaddwd by ones (into int32), then vpaddd, as an AVX2 quantized dot does; f32 through
 * vfmadd231ps. Compiled with -mavx2 -mfma; runs only where kern_isa_supported(avx2). */
#include <immintrin.h>

#include "kern_peak.h"

/* Six accumulators: the pair of multiplies is 10 cycles deep on most cores, and 2 ports keep 6 pairs in flight
 * with the operands, ones and temporaries in the other 10 ymm registers. */
#define KP_INT8_ACCS 6
#define KP_F32_ACCS 10 /* an FMA's latency (4-5) x 2 ports; more spill to the stack */

static uint64_t kern_peak_int8_avx2(uint64_t iters)
{
    __m256i acc[KP_INT8_ACCS], a = _mm256_set1_epi8(3), b = _mm256_set1_epi8(-5), ones = _mm256_set1_epi16(1);
    _Pragma("GCC unroll 16")
    for (int k = 0; k < KP_INT8_ACCS; k++)
        acc[k] = _mm256_set1_epi32(k); /* distinct: equal chains would be merged into one */
    for (uint64_t i = 0; i < iters; i++)
        _Pragma("GCC unroll 16")
        for (int k = 0; k < KP_INT8_ACCS; k++) {
            __asm__("" : "+x"(a)); /* a new operand to the compiler: each accumulator's products are its own */
            __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), ones);
            acc[k] = _mm256_add_epi32(acc[k], p);
        }
    __m256i s = acc[0];
    _Pragma("GCC unroll 16")
    for (int k = 1; k < KP_INT8_ACCS; k++)
        s = _mm256_add_epi32(s, acc[k]);
    return (uint64_t)(uint32_t)_mm256_extract_epi32(s, 0);
}

static uint64_t kern_peak_f32_avx2(uint64_t iters)
{
    __m256 acc[KP_F32_ACCS], a = _mm256_set1_ps(1.0f), b = _mm256_set1_ps(1e-7f);
    _Pragma("GCC unroll 16")
    for (int k = 0; k < KP_F32_ACCS; k++)
        acc[k] = _mm256_set1_ps((float)k); /* distinct: equal chains would be merged */
    for (uint64_t i = 0; i < iters; i++) {
        __asm__("" : "+x"(a), "+x"(b));
        _Pragma("GCC unroll 16")
        for (int k = 0; k < KP_F32_ACCS; k++)
            acc[k] = _mm256_fmadd_ps(a, b, acc[k]);
    }
    __m256 s = acc[0];
    _Pragma("GCC unroll 16")
    for (int k = 1; k < KP_F32_ACCS; k++)
        s = _mm256_add_ps(s, acc[k]);
    return (uint64_t)(_mm256_cvtss_f32(s) * 1e6f);
}

const kern_peak_kernel kern_peak_avx2[KERN_PEAK_NOPS] = {
    [KERN_PEAK_INT8] = { .run = kern_peak_int8_avx2, .macs_per_iter = 32.0 * KP_INT8_ACCS,
                         .instr = "vpmaddubsw+vpmaddwd ymm" },
    [KERN_PEAK_F32] = { .run = kern_peak_f32_avx2, .macs_per_iter = 8.0 * KP_F32_ACCS, .instr = "vfmadd231ps ymm" },
};
