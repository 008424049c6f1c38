/* The clock's sentence in report.md, computed from kernels.csv's ghz_before and ghz_after cells: held while its
 * range stays within PB_CLOCK_MOVED_PCT of its highest, moved (with the range and the share) past it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "report_fixture.h"
#include "test_files.h"

/* report.md after a fresh bench_report (tf_read's buffer: valid until the next read). */
static char *report_of(const char *dir)
{
    char out[8192];
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report --no-plots %s", dir), 0, "%s", out);
    return tf_slurp("%s/report.md", dir);
}

Test(report_clock, held_then_moved_as_the_cells_change)
{
    char dir[256];
    copy_fixture("xeon16", dir, sizeof dir);
    set_cell(dir, "kernels.csv", 0, "ghz_before", "2.500");
    set_cell(dir, "kernels.csv", 0, "ghz_after", "2.550");
    set_cell(dir, "kernels.csv", 1, "ghz_before", "2.520");
    set_cell(dir, "kernels.csv", 1, "ghz_after", "2.540");
    char *md = report_of(dir);
    tf_expect_has(md, "The clock held: 2.50-2.55 GHz around the run's 2 points");
    cr_expect(!strstr(md, "The clock moved"), "no move within 10%%");
    set_cell(dir, "kernels.csv", 1, "ghz_after", "2.000");
    md = report_of(dir);
    tf_expect_has(md, "The clock moved during the run: 2.00-2.55 GHz around its 2 points", "22% of its highest");
    drop_fixture(dir);
}

/* machine.csv's TSC rate: the run's clock is given against it, a turbo named where every point ran above it. */
Test(report_clock, read_against_the_nominal_tsc_rate)
{
    char dir[256];
    copy_fixture("xeon16", dir, sizeof dir);
    set_cell(dir, "kernels.csv", 0, "ghz_before", "2.500");
    set_cell(dir, "kernels.csv", 0, "ghz_after", "2.550");
    char *md = report_of(dir);
    cr_expect(!strstr(md, "the nominal"), "an empty tsc_mhz: no nominal clock");
    set_cell(dir, "machine.csv", find_row(dir, "machine.csv", (const char *const[]){ "key", "tsc_mhz", NULL }), "value",
             "2100");
    md = report_of(dir);
    tf_expect_has(md, "The clock held: 2.50-2.55 GHz around the run's 1 points with one (a dependent add chain on "
                      "their cpus; 1.19-1.21x the nominal 2100 MHz, the TSC's rate: above it, a turbo).");
    drop_fixture(dir);
}

Test(report_clock, no_sentence_without_a_clock)
{
    char dir[256];
    copy_fixture("xeon16", dir, sizeof dir);
    char *md = report_of(dir);
    cr_expect(!strstr(md, "The clock held") && !strstr(md, "The clock moved"), "a run without ghz cells says nothing");
    drop_fixture(dir);
}
