/* kern_peak_i8mm.c — the compute roof's int8 with SMMLA (FEAT_I8MM, see kern_peak.h): a 2x8 by 8x2 signed byte
 * matrix product an instruction, 32 products into four int32 lanes; ten independent chains (kern_peak_arm.h). Built
 * with the i8mm flags; runs only where kern_isa_supported(i8mm). */
#include "kern_peak.h"
#include "kern_peak_arm.h"

/* c + a x b through the instruction itself, so the compiler keeps every chain apart. */
static inline int32x4_t kp_smmla(int32x4_t c, int8x16_t a, int8x16_t b)
{
    __asm__("smmla %0.4s, %1.16b, %2.16b" : "+w"(c) : "w"(a), "w"(b));
    return c;
}

static uint64_t kern_peak_int8_i8mm(uint64_t iters) { return kern_peak_arm_chains(kp_smmla, iters); }

const kern_peak_kernel kern_peak_i8mm[KERN_PEAK_NOPS] = {
    [KERN_PEAK_INT8] = { .run = kern_peak_int8_i8mm, .macs_per_iter = 32.0 * 10, .instr = "smmla v.4s" },
};
