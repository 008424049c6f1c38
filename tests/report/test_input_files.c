/* Inputs are opened as every input is (pb_infile): a FIFO, a link to /dev/zero or a directory under an input's
 * name is one line at once, never a hang or a read that does not end (bench_check's --expect, bench_report's
 * plots). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixture.h"

static void expect_check_refuses(const char *path, const tf_refused *in)
{
    char out[4096];
    /* timeout(1) turns the old hang into a failure with a status, rather than the test's own timeout */
    int rc = sh(out, sizeof out, "timeout 10 $B/bench_check " RUNS "/quick --expect %s", path);
    cr_expect_eq(rc, 2, "%s: exit %d: %s", in->make, rc, out);
    cr_expect(strstr(out, in->says) && strstr(out, "inv.txt"), "%s: %s", in->make, out);
    cr_expect_eq(tf_count(out, "\n"), 1, "one line: %s", out);
}

Test(input_files, an_expect_file_that_is_not_a_regular_file_is_exit_2_at_once, .timeout = 30)
{
    tf_each_refused("inv.txt", "20M", "more than the 16 MiB an expect file may hold", expect_check_refuses);
}

/* bench_report's plots read a few facts from machine.csv: a FIFO there made them wait for a writer forever,
 * after the report itself had already left the file out. */
Test(input_files, a_fifo_machine_csv_does_not_hang_the_plots, .timeout = 60)
{
    char dir[256], out[8192];
    copy_fixture("quick", dir, sizeof dir);
    cr_assert_eq(sh(out, sizeof out, "rm %s/machine.csv && mkfifo %s/machine.csv", dir, dir), 0, "%s", out);
    int rc = sh(out, sizeof out, "timeout -k 2 30 $B/bench_report %s", dir);
    cr_expect_eq(rc, 1, "machine.csv left out makes the status 1 (124: it hung): %s", out);
    cr_expect(strstr(out, "/machine.csv: not a regular file (a FIFO)"), "%s", out);
    drop_fixture(dir);
}
