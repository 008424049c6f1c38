/* kern_peak.c — the compute roof's table by ISA and its scalar kernels (see kern_peak.h). */
#include "kern_peak.h"

#include <stddef.h>
#if defined(__x86_64__)
#include <emmintrin.h> /* SSE2: every x86-64 has it, and the compiler vectorizes the scalar kernels with it */
#endif

const char *const kern_peak_op_names[KERN_PEAK_NOPS + 1] = {
#define KERN_PEAK_NAME(id, name) #name,
    KERN_PEAK_OPS(KERN_PEAK_NAME)
#undef KERN_PEAK_NAME
    NULL,
};

#if defined(__x86_64__)
/* The scalar ISA's kernels are plain C, which GCC vectorizes with x86-64's baseline SSE2 (the q8_0 scalar rows ran
 * at 2.1 products a cycle on Zen 5, over the 1.25 of the C chains below): their roof is SSE2's best, pmaddwd on
 * int8 values widened to int16 (8 products a step, summed in pairs into int32 lanes), and mulps then addps. Eight
 * independent chains; the asm keeps the operand opaque so the compiler folds nothing. */
static uint64_t kern_peak_int8_sse2(uint64_t iters)
{
    __m128i acc[8], a = _mm_set1_epi16(-5), b = _mm_set1_epi16(3);
    for (int k = 0; k < 8; k++)
        acc[k] = _mm_set1_epi32(k); /* distinct starts: equal chains would be merged into one */
    for (uint64_t i = 0; i < iters; i++) {
        __asm__("" : "+x"(a));
        _Pragma("GCC unroll 8")
        for (int k = 0; k < 8; k++)
            acc[k] = _mm_add_epi32(acc[k], _mm_madd_epi16(a, b));
    }
    __m128i s = acc[0];
    for (int k = 1; k < 8; k++)
        s = _mm_add_epi32(s, acc[k]); /* wrapping lanes, as the chains */
    uint32_t out[4];
    _mm_storeu_si128((__m128i *)out, s);
    return (uint32_t)(out[0] + out[1] + out[2] + out[3]); /* the lanes' sum, wrapping as they do */
}

static uint64_t kern_peak_f32_sse2(uint64_t iters)
{
    __m128 acc[8], a = _mm_set1_ps(1.0f), b = _mm_set1_ps(1e-7f);
    for (int k = 0; k < 8; k++)
        acc[k] = _mm_set1_ps((float)k);
    for (uint64_t i = 0; i < iters; i++) {
        __asm__("" : "+x"(a));
        _Pragma("GCC unroll 8")
        for (int k = 0; k < 8; k++)
            acc[k] = _mm_add_ps(acc[k], _mm_mul_ps(a, b));
    }
    float out[4];
    _mm_storeu_ps(out, acc[0]);
    return (uint64_t)(out[0] * 1e6f);
}

const kern_peak_kernel kern_peak_scalar[KERN_PEAK_NOPS] = {
    [KERN_PEAK_INT8] = { .run = kern_peak_int8_sse2, .macs_per_iter = 64, .instr = "pmaddwd xmm (SSE2)" },
    [KERN_PEAK_F32] = { .run = kern_peak_f32_sse2, .macs_per_iter = 32, .instr = "mulps+addps xmm (SSE2)" },
};
#elif !defined(__aarch64__) /* arm64's scalar roof is NEON's (kern_peak_neon.c); the C chains serve other targets */
/* Eight int32 accumulators of int8 products, in general registers: the asm says each may have changed, so the
 * compiler neither vectorizes the chains nor folds a round's equal products into one. */
static uint64_t kern_peak_int8_scalar(uint64_t iters)
{
    /* distinct starts: equal chains would be merged into one; unsigned: a long run wraps, as an int32 lane does,
     * where a signed sum would overflow */
    uint32_t acc[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    int32_t a = 3, b = -5; /* int8 values, widened as a scalar dot widens them */
    for (uint64_t i = 0; i < iters; i++)
        _Pragma("GCC unroll 16")
        for (int k = 0; k < 8; k++) {
            __asm__("" : "+r"(a));
            acc[k] += (uint32_t)((int32_t)(int8_t)a * (int32_t)(int8_t)b);
        }
    uint64_t sum = 0;
    _Pragma("GCC unroll 16")
    for (int k = 0; k < 8; k++)
        sum += acc[k];
    return sum;
}

/* Eight f32 chains of acc + a * b, a multiply and an add as baseline code compiles them (no -mfma here). */
static uint64_t kern_peak_f32_scalar(uint64_t iters)
{
    float acc[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, a = 1.0f, b = 1e-7f; /* distinct, as the int8 chains */
    for (uint64_t i = 0; i < iters; i++)
        _Pragma("GCC unroll 16")
        for (int k = 0; k < 8; k++) {
            __asm__("" : "+m"(a)); /* opaque: no register class is known on every target */
            acc[k] = acc[k] + a * b;
        }
    float sum = 0;
    _Pragma("GCC unroll 16")
    for (int k = 0; k < 8; k++)
        sum += acc[k];
    return (uint64_t)(sum * 1e6f);
}

const kern_peak_kernel kern_peak_scalar[KERN_PEAK_NOPS] = {
    [KERN_PEAK_INT8] = { .run = kern_peak_int8_scalar, .macs_per_iter = 8, .instr = "C int32 multiply-add" },
    [KERN_PEAK_F32] = { .run = kern_peak_f32_scalar, .macs_per_iter = 8, .instr = "C float multiply, add" },
};
#endif

/* Each ISA's own kernels; NULL where this build has none. On arm64 NEON is the baseline the compiler vectorizes the
 * scalar kernels with, so the scalar ISA's roof is NEON's (kern_peak_neon.c), as it is SSE2's on x86-64. */
static const kern_peak_kernel *const kern_peak_tables[KERN_ISA_COUNT] = {
#if defined(__aarch64__)
    [KERN_ISA_SCALAR] = kern_peak_neon,
#else
    [KERN_ISA_SCALAR] = kern_peak_scalar,
#endif
#if defined(__x86_64__)
    [KERN_ISA_AVX2] = kern_peak_avx2,
    [KERN_ISA_AVXVNNI] = kern_peak_avxvnni,
    [KERN_ISA_AVX512] = kern_peak_avx512,
#elif defined(__aarch64__)
    [KERN_ISA_DOTPROD] = kern_peak_dotprod,
    [KERN_ISA_I8MM] = kern_peak_i8mm,
#endif
};

const kern_peak_kernel *kern_peak_get(kern_isa isa, kern_peak_op op, kern_isa *ran)
{
    if (!kern_isa_supported(isa) || (unsigned)op >= KERN_PEAK_NOPS)
        return NULL;
    while ((unsigned)isa < KERN_ISA_COUNT && !(kern_peak_tables[isa] && kern_peak_tables[isa][op].run))
        isa = kern_isa_below(isa);
    if ((unsigned)isa >= KERN_ISA_COUNT)
        return NULL;
    *ran = isa;
    return &kern_peak_tables[isa][op];
}
