/* kern_peak_arm.h — the int8 roof's ten chains on arm64, shared by the dotprod (sdot) and i8mm (smmla) kernels: each
 * file passes its instruction, inlined (a constant op), and compiles it with its own ISA's flags. Not public. */
#ifndef KERN_PEAK_ARM_H
#define KERN_PEAK_ARM_H

#include <arm_neon.h>
#include <stdint.h>

/* c + a . b through one instruction (four int32 lanes from sixteen signed bytes each side). */
typedef int32x4_t kern_peak_arm_op(int32x4_t c, int8x16_t a, int8x16_t b);

/* iters rounds of ten independent chains of op on 3 x -5; lane 0 of their wrapping sum. */
static inline __attribute__((always_inline)) uint64_t kern_peak_arm_chains(kern_peak_arm_op *op, uint64_t iters)
{
    int8x16_t a = vdupq_n_s8(3), b = vdupq_n_s8(-5);
    int32x4_t c[10];
    for (int k = 0; k < 10; k++)
        c[k] = vdupq_n_s32(k); /* distinct starts: equal chains would be merged into one */
    for (uint64_t i = 0; i < iters; i++) {
        __asm__("" : "+w"(a), "+w"(b));
        _Pragma("GCC unroll 10")
        for (int k = 0; k < 10; k++)
            c[k] = op(c[k], a, b);
    }
    int32x4_t s = c[0];
    for (int k = 1; k < 10; k++)
        s = vaddq_s32(s, c[k]); /* wrapping lanes, as the chains */
    return (uint64_t)(uint32_t)vgetq_lane_s32(s, 0);
}

#endif
