/* kern_peak_dotprod.c — the compute roof's int8 with SDOT (FEAT_DotProd, see kern_peak.h): 16 signed byte products
 * an instruction, four summed into each int32 lane; ten independent chains (kern_peak_arm.h). Built with the dotprod
 * flags; runs only where kern_isa_supported(dotprod). */
#include "kern_peak.h"
#include "kern_peak_arm.h"

/* c + a . b through the instruction itself, so the compiler keeps every chain apart. */
static inline int32x4_t kp_sdot(int32x4_t c, int8x16_t a, int8x16_t b)
{
    __asm__("sdot %0.4s, %1.16b, %2.16b" : "+w"(c) : "w"(a), "w"(b));
    return c;
}

static uint64_t kern_peak_int8_dotprod(uint64_t iters) { return kern_peak_arm_chains(kp_sdot, iters); }

const kern_peak_kernel kern_peak_dotprod[KERN_PEAK_NOPS] = {
    [KERN_PEAK_INT8] = { .run = kern_peak_int8_dotprod, .macs_per_iter = 16.0 * 10, .instr = "sdot v.4s" },
};
