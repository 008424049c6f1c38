/* Inputs are opened as every input is (pb_infile): a FIFO, a link to /dev/zero or a directory under an input's
 * name is one line at once, never a hang or a read that does not end (bench_check's --expect, bench_report's
 * plots). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixture.h"

Test(input_files, an_expect_file_that_is_not_a_regular_file_is_exit_2_at_once, .timeout = 30)
{
    static const struct {
        const char *make, *says;
    } cases[] = {
        { "mkfifo %s/inv.txt", "not a regular file (a FIFO)" },
        { "ln -s /dev/zero %s/inv.txt", "not a regular file (a character device)" },
        { "mkdir %s/inv.txt", "not a regular file (a directory)" },
        { "truncate -s 20M %s/inv.txt", "more than the 16 MiB an expect file may hold" },
    };
    char dir[64], cmd[300], out[4096];
    tf_tmpdir(dir, sizeof dir, "pbinf");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(cmd, sizeof cmd, "rm -rf %s/inv.txt && ", dir);
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), cases[i].make, dir);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        /* timeout(1) turns the old hang into a failure with a status, rather than the test's own timeout */
        int rc = sh(out, sizeof out, "timeout 10 $B/bench_check " RUNS "/quick --expect %s/inv.txt", dir);
        cr_expect_eq(rc, 2, "%s: exit %d: %s", cases[i].make, rc, out);
        cr_expect(strstr(out, cases[i].says) && strstr(out, "inv.txt"), "%s: %s", cases[i].make, out);
        cr_expect_eq(tf_count(out, "\n"), 1, "one line: %s", out);
    }
    tf_rmrf(dir);
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
