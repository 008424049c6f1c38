/* Joules per token from a point's RAPL power and its median token. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pb_sweep.h"

Test(sweep_energy, joules_per_token_from_power_and_the_median_token)
{
    pb_sweep_row r;
    memset(&r, 0, sizeof r);
    r.watts_package = 10;
    r.watts_dram = 2;
    r.m.ms.median = 50;
    r.batch = 2;
    cr_expect_float_eq(pb_sweep_j_per_token(&r), 12 * 0.050 / 2, 1e-12, "(10 + 2) W x 50 ms over 2 tokens");
    r.watts_dram = NAN;
    cr_expect_float_eq(pb_sweep_j_per_token(&r), 10 * 0.050 / 2, 1e-12, "no dram zone: the package alone");
    r.watts_package = NAN;
    cr_expect(isnan(pb_sweep_j_per_token(&r)), "no power: no joules");
}
