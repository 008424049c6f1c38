/* kern_peak.c — the compute roof's table by ISA and its scalar kernels (see kern_peak.h). */
#include "kern_peak.h"

#include <stddef.h>

const char *const kern_peak_op_names[KERN_PEAK_NOPS + 1] = {
#define KERN_PEAK_NAME(id, name) #name,
    KERN_PEAK_OPS(KERN_PEAK_NAME)
#undef KERN_PEAK_NAME
    NULL,
};

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

/* A float kept in a floating-point register by the empty asm (memory elsewhere: slower, still correct). */
#if defined(__x86_64__)
#define KERN_PEAK_FREG "+x"
#elif defined(__aarch64__)
#define KERN_PEAK_FREG "+w"
#else
#define KERN_PEAK_FREG "+m"
#endif

/* Eight f32 chains of acc + a * b, a multiply and an add as baseline code compiles them (no -mfma here). */
static uint64_t kern_peak_f32_scalar(uint64_t iters)
{
    float acc[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, a = 1.0f, b = 1e-7f; /* distinct, as the int8 chains */
    for (uint64_t i = 0; i < iters; i++)
        _Pragma("GCC unroll 16")
        for (int k = 0; k < 8; k++) {
            __asm__("" : KERN_PEAK_FREG(a));
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

/* Each ISA's own kernels; NULL where this build has none. */
static const kern_peak_kernel *const kern_peak_tables[KERN_ISA_COUNT] = {
    [KERN_ISA_SCALAR] = kern_peak_scalar,
#if defined(__x86_64__)
    [KERN_ISA_AVX2] = kern_peak_avx2,
    [KERN_ISA_AVXVNNI] = kern_peak_avxvnni,
    [KERN_ISA_AVX512] = kern_peak_avx512,
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
