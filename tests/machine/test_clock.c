/* test_clock.c — the dependent-add chain runs every add it is asked for, and yields a clock where it measures. */
#include "pb_clock.h"

#include <criterion/criterion.h>
#include <math.h>

Test(clock, the_chain_runs_every_add)
{
    if (!pb_clock_measures())
        cr_skip_test("no add chain for this architecture");
    cr_expect_eq(pb_clock_chain(640), 640u);
    cr_expect_eq(pb_clock_chain(100), 64u, "a count that is not a multiple of 64 is rounded down");
    cr_expect_eq(pb_clock_chain(0), 0u);
}

Test(clock, a_clock_where_it_measures_and_nan_elsewhere)
{
    double ghz = pb_clock_ghz();
    if (pb_clock_measures())
        cr_expect(isfinite(ghz) && ghz > 0, "%g GHz", ghz);
    else
        cr_expect(isnan(ghz));
}
