/* test_kernels_sizes.c — bench_kernels' working sets (pb_kernels_run_sizes): under a hypervisor that shows the host's
 * 300 MiB L3, the l3 level takes the 32 MiB guess but dram stays out of the 300 MiB (an Emerald Rapids guest
 * really has it: the old 128 MiB dram window ran from the L3), and --l3-kib or a plausible L3 size both. */
#include <criterion/criterion.h>
#include <math.h>
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
    pb_kernels_sizes s;
    one_l3(300 * MIB, 1);
    pb_kernels_run_sizes(&s, &topo, &m, 0, 0, false);
    cr_expect(s.l3_guessed);
    cr_expect_eq(s.l3, PB_KERNELS_L3_ASSUMED);
    cr_expect_eq(s.dram, 4 * 300 * MIB, "dram %llu MiB", (unsigned long long)(s.dram / MIB));
    pb_kernels_run_sizes(&s, &topo, &m, 0, 0, true);
    cr_expect_eq(s.dram, 2 * 300 * MIB, "quick: dram %llu MiB", (unsigned long long)(s.dram / MIB));
    /* a small machine: dram is capped at a quarter of its memory */
    m.memory = 2ull << 30;
    pb_kernels_run_sizes(&s, &topo, &m, 0, 0, false);
    cr_expect_eq(s.dram, 512 * MIB);
    /* the OS kernel's count rules where it is known: hwloc's node under a balloon said 2 GiB of 24 */
    m.os_memory = 24ull << 30;
    pb_kernels_run_sizes(&s, &topo, &m, 0, 0, false);
    cr_expect_eq(s.dram, 4 * 300 * MIB, "dram %llu MiB", (unsigned long long)(s.dram / MIB));
    m.memory = 24ull << 30;
    m.os_memory = 2ull << 30;
    pb_kernels_run_sizes(&s, &topo, &m, 0, 0, false);
    cr_expect_eq(s.dram, 512 * MIB);
}

Test(kernels_sizes, plausible_and_given_l3_size_both_levels)
{
    pb_machine m = { .hypervisor = false, .memory = 64ull << 30 };
    pb_kernels_sizes s;
    one_l3(32 * MIB, 2);
    pb_kernels_run_sizes(&s, &topo, &m, 0, 0, false);
    cr_expect(!s.l3_guessed);
    cr_expect_eq(s.l3, 32 * MIB);
    cr_expect_eq(s.dram, 4 * 64 * MIB, "4 x both instances");
    pb_kernels_run_sizes(&s, &topo, &m, 0, 96 * 1024, false);
    cr_expect_eq(s.l3, 96 * MIB);
    cr_expect_eq(s.dram, 4 * 2 * 96 * MIB, "--l3-kib sizes dram too");
}

/* The dram points' side-by-side floor reads with the best read kernel this CPU runs, chosen by measuring each (not
 * the chosen ISA's one-stream read, which the 4-stream ones beat by 5-15% on the development Xeon): whatever it
 * picks is a read kernel this CPU runs, and it reads the window; without a kernel there is no figure. */
Test(kernels_sizes, the_dram_reference_is_a_read_kernel_measured_beside)
{
    pb_kernel_timing_buf b;
    cr_assert_eq(pb_kernel_timing_buf_init(&b, 4 * MIB), 0);
    size_t bytes = pb_kernel_timing_buf_fill(&b, KERN_Q8_0, 4096, 4 * MIB);
    cr_assert_gt(bytes, 0);
    const pb_memkern *k = pb_kernel_timing_best_read(&b, bytes, MIB, 0.002, 3);
    cr_assert_not_null(k);
    cr_expect_eq(k->op, PB_MEMOP_READ, "%s is not a read kernel", k->name);
    cr_expect(pb_memkern_supported(k), "%s does not run here", k->name);
    double g = pb_kernel_timing_read_gbps(&b, k, bytes, MIB, 0.002, 3);
    cr_expect(g > 0 && isfinite(g), "%s read %g GB/s", k->name, g);
    cr_expect(isnan(pb_kernel_timing_read_gbps(&b, NULL, bytes, MIB, 0.002, 3)));
    pb_kernel_timing_buf_free(&b);
}

/* A DRAM point over PB_KERNELS_OVER_FLOOR_PCT of the read beside it is what bench_kernels warns of: the most over
 * is named and every one over is counted; a point at the floor, under the bound, or with no read beside it (NaN:
 * not a 1-thread batch-1 DRAM point) is not. */
Test(kernels_sizes, points_over_the_floor_beside_them_are_found)
{
    pb_kernels_row rows[5];
    memset(rows, 0, sizeof rows);
    const double gbps[5] = { 10.0, 10.5, 13.0, 12.0, 30.0 }, read[5] = { 10.0, 10.0, 10.0, 10.0, NAN };
    for (int i = 0; i < 5; i++) {
        rows[i].r.gbps.median = gbps[i];
        rows[i].read_gbps = read[i];
    }
    pb_kernels_run run = { .rows = rows, .nrows = 5 };
    int n = -1;
    const pb_kernels_row *r = pb_kernels_run_over_floor(&run, PB_KERNELS_OVER_FLOOR_PCT, &n);
    cr_expect_eq(n, 2, "13 and 12 GB/s over a 10 GB/s read: %d counted", n);
    cr_expect_eq(r, &rows[2], "the most over is 13 GB/s (row %td)", r ? r - rows : -1);
    run.nrows = 2;
    cr_expect_null(pb_kernels_run_over_floor(&run, PB_KERNELS_OVER_FLOOR_PCT, &n));
    cr_expect_eq(n, 0);
}
