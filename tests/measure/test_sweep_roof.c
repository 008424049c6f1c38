/* test_sweep_roof.c — the compute roof a sweep's block takes (pb_sweep_roofs_best): the best the run measured on the
 * same core set, thread count and op, so a block measured under steal takes the roof an earlier block saw, a better
 * measure replaces it, and another set, thread count or op keeps its own. */
#include <criterion/criterion.h>
#include <math.h>

#include "pb_sweep_roofs.h"

static pb_sweep_roofs roof_run(void)
{
    pb_sweep_roofs r;
    pb_sweep_roofs_open(&r);
    return r;
}

Test(sweep_roof, a_block_under_steal_takes_the_best_roof_its_set_had)
{
    pb_sweep_roofs run = roof_run();
    static const int p = 0; /* a plan entry: only its address counts */
    cr_expect_eq(pb_sweep_roofs_best(&run, &p, 2, 0, 198.0), 198.0, "the first measure stands alone");
    cr_expect_eq(pb_sweep_roofs_best(&run, &p, 2, 0, 101.6), 198.0, "a lower measure later takes the earlier best");
    cr_expect_eq(pb_sweep_roofs_best(&run, &p, 2, 0, 200.5), 200.5, "a better measure replaces it");
    cr_expect_eq(pb_sweep_roofs_best(&run, &p, 2, 0, 150.0), 200.5, "and is kept for the blocks after");
    pb_sweep_roofs_free(&run);
}

Test(sweep_roof, another_set_thread_count_or_op_keeps_its_own)
{
    pb_sweep_roofs run = roof_run();
    static const int p = 0, e = 0; /* two plan entries */
    cr_assert_eq(pb_sweep_roofs_best(&run, &p, 2, 0, 200.0), 200.0);
    cr_expect_eq(pb_sweep_roofs_best(&run, &e, 2, 0, 90.0), 90.0, "another core set");
    cr_expect_eq(pb_sweep_roofs_best(&run, &p, 1, 0, 100.0), 100.0, "another thread count");
    cr_expect_eq(pb_sweep_roofs_best(&run, &p, 2, 1, 51.0), 51.0, "another op (f32)");
    cr_expect_eq(pb_sweep_roofs_best(&run, &e, 2, 0, 80.0), 90.0, "each keeps its own best");
    cr_expect_eq(pb_sweep_roofs_best(&run, &p, 1, 0, 99.0), 100.0);
    cr_expect_eq(pb_sweep_roofs_best(&run, &p, 2, 1, 50.0), 51.0);
    cr_expect_eq(pb_sweep_roofs_best(&run, &p, 2, 0, 150.0), 200.0);
    pb_sweep_roofs_free(&run);
}

Test(sweep_roof, a_failed_measure_is_not_remembered)
{
    pb_sweep_roofs run = roof_run();
    static const int p = 0;
    cr_expect(isnan(pb_sweep_roofs_best(&run, &p, 1, 0, NAN)), "nothing kept: the failed measure as it is");
    cr_expect_eq(pb_sweep_roofs_best(&run, &p, 1, 0, 100.0), 100.0, "a NaN kept before would have hidden this one");
    cr_expect_eq(pb_sweep_roofs_best(&run, &p, 1, 0, NAN), 100.0, "a failed measure later takes the kept one");
    pb_sweep_roofs_free(&run);
}
