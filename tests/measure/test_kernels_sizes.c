/* test_kernels_sizes.c — bench_kernels' working sets (pb_kbr_sizes_of): under a hypervisor that shows the host's
 * 300 MiB L3, the l3 level takes the 32 MiB guess but dram stays out of the 300 MiB (an Emerald Rapids guest
 * really has it: the old 128 MiB dram window ran from the L3), and --l3-kib or a plausible L3 size both. */
#include <criterion/criterion.h>
#include <string.h>

#include "pb_kernels_run.h"

#define MIB (1ull << 20)

static pb_topo topo; /* large: static */

static void one_l3(uint64_t bytes, int instances)
{
    memset(&topo, 0, sizeof topo);
    topo.ncaches = 2;
    topo.cache[0] = (pb_topo_cache){ .level = 2, .instances = 2, .total_bytes = 4 * MIB, .bytes = { 2 * MIB } };
    topo.cache[1] = (pb_topo_cache){ .level = 3, .instances = instances, .total_bytes = bytes * (uint64_t)instances,
                                     .bytes = { bytes } };
}

Test(kernels_sizes, dram_is_out_of_the_reported_l3_when_the_l3_level_guesses)
{
    pb_machine m = { .hypervisor = true, .memory = 24ull << 30 };
    pb_kbr_sizes s;
    one_l3(300 * MIB, 1);
    pb_kbr_sizes_of(&s, &topo, &m, 0, 0, false);
    cr_expect(s.l3_guessed);
    cr_expect_eq(s.l3, PB_KBR_L3_ASSUMED);
    cr_expect_eq(s.dram, 4 * 300 * MIB, "dram %llu MiB", (unsigned long long)(s.dram / MIB));
    pb_kbr_sizes_of(&s, &topo, &m, 0, 0, true);
    cr_expect_eq(s.dram, 2 * 300 * MIB, "quick: dram %llu MiB", (unsigned long long)(s.dram / MIB));
    /* a small machine: dram is capped at a quarter of its memory */
    m.memory = 2ull << 30;
    pb_kbr_sizes_of(&s, &topo, &m, 0, 0, false);
    cr_expect_eq(s.dram, 512 * MIB);
}

Test(kernels_sizes, plausible_and_given_l3_size_both_levels)
{
    pb_machine m = { .hypervisor = false, .memory = 64ull << 30 };
    pb_kbr_sizes s;
    one_l3(32 * MIB, 2);
    pb_kbr_sizes_of(&s, &topo, &m, 0, 0, false);
    cr_expect(!s.l3_guessed);
    cr_expect_eq(s.l3, 32 * MIB);
    cr_expect_eq(s.dram, 4 * 64 * MIB, "4 x both instances");
    pb_kbr_sizes_of(&s, &topo, &m, 0, 96 * 1024, false);
    cr_expect_eq(s.l3, 96 * MIB);
    cr_expect_eq(s.dram, 4 * 2 * 96 * MIB, "--l3-kib sizes dram too");
}
