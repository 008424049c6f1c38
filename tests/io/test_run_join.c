/* --run-dir joins a run directory of this host and schema, or an empty one, and nothing else (pb_run_check):
 * /dev, a directory of someone's files, another host's run, another schema's, a machine.csv that is not a
 * regular file. pb_run_check only looks, so /dev itself is safe to ask about. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pb_run.h"
#include "run_dir.h"
#include "test_files.h"

/* pb_run_check(dir, join) refuses, with a line that says why. */
static void refused(const char *dir, const char *why)
{
    char err[1024];
    cr_expect_eq(pb_run_check(dir, true, err, sizeof err), -1, "%s is refused (%s)", dir, why);
    cr_expect(strncmp(err, "--run-dir: ", 11) == 0 && strstr(err, why) && !strchr(err, '\n'), "%s: %s", dir, err);
}

Test(run_join, refuses_what_is_not_a_run_of_this_host_and_schema)
{
    char dir[64], err[1024];
    tf_tmpdir(dir, sizeof dir, "pbjoin");
    cr_expect_eq(pb_run_check(dir, true, err, sizeof err), 0, "an empty directory: %s", err);
    refused("/dev", "but no machine.csv");
    tf_write(dir, "cpu_util.csv.partial-AbC123", "");
    cr_expect_eq(pb_run_check(dir, true, err, sizeof err), 0, "a harness writing now (bench_cpu_util writes "
                 "machine.csv last): %s", err);
    tf_write(dir, "notes.txt", "mine\n");
    refused(dir, "holds notes.txt but no machine.csv");
    rd_machine_csv(dir, NULL, NULL);
    cr_expect_eq(pb_run_check(dir, true, err, sizeof err), 0, "a run of this host: %s", err);
    rd_machine_csv(dir, "otherbox", NULL);
    refused(dir, "is a run of host 'otherbox'");
    rd_machine_csv(dir, NULL, "99");
    refused(dir, "holds CSV schema '99'");
    rd_machine_csv(dir, NULL, "3x");
    refused(dir, "holds CSV schema '3x'");
    char path[128];
    snprintf(path, sizeof path, "%s/machine.csv", dir);
    cr_assert_eq(remove(path), 0);
    cr_assert_eq(mkfifo(path, 0600), 0);
    refused(dir, "machine.csv: not a regular file (a FIFO)");
    tf_rmrf(dir);
}
