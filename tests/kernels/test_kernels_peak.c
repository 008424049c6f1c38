/* The compute roof's kernels (kern_peak.h): each int8 kernel's checksum after N rounds is the one its claimed
 * accumulators, lanes and products give (a kernel whose chains the compiler merged, or that did fewer products
 * than macs_per_iter says, returns another sum), and an ISA without its own kernel runs the next one down. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "kern_peak.h"

/* The sum of accumulators k = 0..accs-1 after n rounds adding `step` each, as the kernel folds it: lanes copies of
 * each (every lane alike), truncated to 32 bits as an int32 lane is. */
static uint64_t folded(int accs, int lanes, int64_t step, uint64_t n)
{
    int64_t s = 0;
    for (int k = 0; k < accs; k++)
        s += k + step * (int64_t)n;
    return (uint64_t)(uint32_t)(int32_t)(s * lanes);
}

#if !defined(__x86_64__)
/* The scalar kernel's checksum: chains k = 0..chains-1 after n rounds of 3 x -5, each lane_bits wide and wrapping
 * as such a lane does, summed. */
static uint64_t scalar_chains(int chains, int lane_bits, uint64_t n)
{
    uint64_t sum = 0;
    for (int k = 0; k < chains; k++) {
        int64_t v = k - 15 * (int64_t)n;
        sum += lane_bits == 16 ? (uint64_t)(uint16_t)(int16_t)v : (uint64_t)(uint32_t)(int32_t)v;
    }
    return sum;
}
#endif

Test(kernels_peak, int8_kernels_do_the_products_they_count)
{
    const uint64_t n = 1000;
    /* 3 (as u8) x -5 (as s8): four products into an int32 lane a vpdpbusd, two pairs (maddubs, madd) on AVX2 */
    static const struct { kern_isa isa; int bytes_per_acc, lanes_folded; int64_t step; } want[] = {
#if defined(__x86_64__)
        { KERN_ISA_SCALAR, 8, 4, -30 },   /* SSE2's pmaddwd: -5 x 3 twice into each of 4 lanes, all 4 summed */
#endif
        { KERN_ISA_AVX2, 32, 1, -60 },    /* lane 0 of the summed ymm */
        { KERN_ISA_AVXVNNI, 32, 1, -60 }, /* lane 0 */
        { KERN_ISA_AVX512, 64, 16, -60 }, /* every lane of the summed zmm */
#if defined(__aarch64__)
        { KERN_ISA_DOTPROD, 16, 1, -60 }, /* sdot: four products into lane 0 */
        { KERN_ISA_I8MM, 32, 1, -120 },   /* smmla: a row of 8 by a column of 8 into lane 0 */
#endif
    };
    kern_isa ran;
#if !defined(__x86_64__)
#if defined(__aarch64__)
    const int chains = 10, lane_bits = 16, macs = 80; /* NEON's smlal: int16 lanes, each lane 0 wrapping as it does */
#else
    const int chains = 8, lane_bits = 32, macs = 8;
#endif
    const kern_peak_kernel *s = kern_peak_get(KERN_ISA_SCALAR, KERN_PEAK_INT8, &ran);
    cr_assert_not_null(s);
    cr_expect_eq(s->run(n), scalar_chains(chains, lane_bits, n), "scalar: %d chains of 3 x -5", chains);
    cr_expect_eq(s->macs_per_iter, macs);
#endif
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const kern_peak_kernel *k = kern_peak_get(want[i].isa, KERN_PEAK_INT8, &ran);
        if (!k || ran != want[i].isa) {
            cr_log_info("%s: this CPU does not run it; skipped", kern_isa_name(want[i].isa));
            continue;
        }
        int accs = (int)(k->macs_per_iter / want[i].bytes_per_acc);
        cr_expect_eq(k->run(n), folded(accs, want[i].lanes_folded, want[i].step, n), "%s: %d accumulators",
                     kern_isa_name(want[i].isa), accs);
    }
}

Test(kernels_peak, an_isa_without_its_own_kernel_runs_the_next_one_down)
{
    kern_isa ran;
    if (kern_isa_supported(KERN_ISA_AVXVNNI)) {
        cr_expect_not_null(kern_peak_get(KERN_ISA_AVXVNNI, KERN_PEAK_F32, &ran));
        cr_expect_eq(ran, KERN_ISA_AVX2, "avxvnni's f32 is avx2's");
    }
    if (kern_isa_supported(KERN_ISA_AVX512GFNI)) {
        cr_expect_not_null(kern_peak_get(KERN_ISA_AVX512GFNI, KERN_PEAK_INT8, &ran));
        cr_expect_eq(ran, KERN_ISA_AVX512);
    }
    cr_expect_not_null(kern_peak_get(KERN_ISA_SCALAR, KERN_PEAK_F32, &ran));
    cr_expect_eq(ran, KERN_ISA_SCALAR);
    for (int i = 0; i < KERN_ISA_COUNT; i++)
        if (!kern_isa_supported((kern_isa)i))
            cr_expect_null(kern_peak_get((kern_isa)i, KERN_PEAK_INT8, &ran), "%s: not on this CPU",
                           kern_isa_name((kern_isa)i));
}
