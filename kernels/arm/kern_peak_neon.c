/* kern_peak_neon.c — the compute roof on arm64's Advanced SIMD (see kern_peak.h), which is arm64's baseline: the
 * compiler vectorizes the scalar kernels with it, so these are the scalar ISA's roof too (kern_peak.c). int8: smlal
 * (8 signed byte products added into int16 lanes, an instruction; the widest NEON multiply-accumulate of bytes
 * before dotprod's SDOT); f32: fmla on 4 floats. Ten independent chains each (the latency, 3-4, times the two to four
 * pipes of current cores). Built on arm64 only. */
#include <arm_neon.h>

#include "kern_peak.h"

/* c + a x b through the instructions themselves, so the compiler keeps every chain apart. */
static inline int16x8_t kp_smlal(int16x8_t c, int8x8_t a, int8x8_t b)
{
    __asm__("smlal %0.8h, %1.8b, %2.8b" : "+w"(c) : "w"(a), "w"(b));
    return c;
}

static inline float32x4_t kp_fmla(float32x4_t c, float32x4_t a, float32x4_t b)
{
    __asm__("fmla %0.4s, %1.4s, %2.4s" : "+w"(c) : "w"(a), "w"(b));
    return c;
}

/* The sum of every chain's lane 0, each wrapping as its int16 lane does. */
static uint64_t kern_peak_int8_neon(uint64_t iters)
{
    int8x8_t a = vdup_n_s8(3), b = vdup_n_s8(-5);
    int16x8_t c[10];
    for (int k = 0; k < 10; k++)
        c[k] = vdupq_n_s16((int16_t)k); /* distinct starts: equal chains would be merged into one */
    for (uint64_t i = 0; i < iters; i++) {
        __asm__("" : "+w"(a), "+w"(b));
        _Pragma("GCC unroll 10")
        for (int k = 0; k < 10; k++)
            c[k] = kp_smlal(c[k], a, b);
    }
    uint64_t sum = 0;
    for (int k = 0; k < 10; k++)
        sum += (uint16_t)vgetq_lane_s16(c[k], 0);
    return sum;
}

static uint64_t kern_peak_f32_neon(uint64_t iters)
{
    float32x4_t a = vdupq_n_f32(1.0f), b = vdupq_n_f32(1e-7f), c[10];
    for (int k = 0; k < 10; k++)
        c[k] = vdupq_n_f32((float)k);
    for (uint64_t i = 0; i < iters; i++) {
        __asm__("" : "+w"(a));
        _Pragma("GCC unroll 10")
        for (int k = 0; k < 10; k++)
            c[k] = kp_fmla(c[k], a, b);
    }
    float32x4_t s = c[0];
    for (int k = 1; k < 10; k++)
        s = vaddq_f32(s, c[k]);
    return (uint64_t)(vgetq_lane_f32(s, 0) * 1e6f);
}

const kern_peak_kernel kern_peak_neon[KERN_PEAK_NOPS] = {
    [KERN_PEAK_INT8] = { .run = kern_peak_int8_neon, .macs_per_iter = 8.0 * 10, .instr = "smlal v.8h" },
    [KERN_PEAK_F32] = { .run = kern_peak_f32_neon, .macs_per_iter = 4.0 * 10, .instr = "fmla v.4s" },
};
