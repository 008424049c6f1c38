/* --run-dir as the harnesses take it: a directory that is not a run of this host and schema is one line and exit
 * 2 before any work, whatever sits under machine.csv's name (a FIFO used to be found only after the measuring,
 * and then waited on for ever). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness_run.h"
#include "run_dir.h"
#include "test_files.h"

#define OVERHEAD_TINY "--quick --policy spin --threads 1 --gap-us 0"

/* prog with args in DIR (a scratch directory whose "R" is the run directory): exit 2 at once, one line naming
 * --run-dir and saying why, nothing written into R but what the test put there (its count of entries). */
static void refused_at_once(const char *dir, const char *prog, const char *args, const char *why, int entries)
{
    char err[4096], cmd[300];
    /* timeout(1): a harness that waits on a FIFO fails with 124, not with the test's own timeout */
    int rc = harness_run_in(dir, prog, "timeout -k 2 20", args, err, sizeof err);
    cr_expect_eq(rc, 2, "%s %s: exit %d: %s", prog, args, rc, err);
    cr_expect(strstr(err, "--run-dir") && strstr(err, why), "%s: says '%s': %s", prog, why, err);
    cr_expect_eq(tf_count(err, "\n"), 1, "%s: one line: %s", prog, err);
    char out[64];
    snprintf(cmd, sizeof cmd, "ls -A %s/R | wc -l", dir);
    tf_run(out, sizeof out, cmd);
    cr_expect_eq(atoi(out), entries, "%s wrote nothing into R (%s entries)", prog, out);
}

Test(run_dir_cli, a_fifo_machine_csv_is_refused_before_measuring, .timeout = 60)
{
    char dir[64], run[96];
    tf_tmpdir(dir, sizeof dir, "pbrundir");
    snprintf(run, sizeof run, "%s/R", dir);
    cr_assert_eq(mkdir(run, 0755), 0);
    snprintf(run, sizeof run, "%s/R/machine.csv", dir);
    cr_assert_eq(mkfifo(run, 0600), 0);
    refused_at_once(dir, "bench_pool_overhead", OVERHEAD_TINY " --run-dir R", "not a regular file (a FIFO)", 1);
    tf_rmrf(dir);
}

Test(run_dir_cli, another_hosts_or_schemas_run_is_refused_before_work, .timeout = 60)
{
    char dir[64], run[96];
    tf_tmpdir(dir, sizeof dir, "pbrundir");
    snprintf(run, sizeof run, "%s/R", dir);
    cr_assert_eq(mkdir(run, 0755), 0);
    rd_machine_csv(run, "otherbox", NULL);
    refused_at_once(dir, "bench_pool_overhead", OVERHEAD_TINY " --run-dir R", "host 'otherbox'", 1);
    refused_at_once(dir, "bench_cpu_util", "--run-dir R -- true", "host 'otherbox'", 1);
    rd_machine_csv(run, NULL, "99");
    refused_at_once(dir, "bench_sweep", "--quick --run-dir R", "schema '99'", 1);
    tf_write(run, "notes.txt", "mine\n");
    snprintf(run, sizeof run, "%s/R/machine.csv", dir);
    cr_assert_eq(remove(run), 0);
    refused_at_once(dir, "bench_overlap", "--quick --run-dir R", "no machine.csv", 1);
    tf_rmrf(dir);
}

/* POOLBENCH_OUT and POOLBENCH_RUN_DIR are the variables of --out and --run-dir: either gives way to the other
 * given on the command line (make report passes --run-dir), as every option's variable does. Both from one
 * source is still one line and exit 2. */
Test(run_dir_cli, the_command_line_overrides_poolbench_out_and_run_dir, .timeout = 120)
{
    char dir[64], err[4096], path[160];
    tf_tmpdir(dir, sizeof dir, "pbrundir");
    static const char *const made[] = { "R", "R2" };
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, made[i]);
        cr_assert_eq(mkdir(path, 0755), 0);
    }
    int rc = harness_run_in(dir, "bench_pool_overhead", "POOLBENCH_OUT=X", OVERHEAD_TINY " --run-dir R", err,
                            sizeof err);
    cr_expect_eq(rc, 0, "POOLBENCH_OUT with --run-dir: exit %d: %s", rc, err);
    cr_expect_not_null(tf_read("%s/R/pool_overhead.csv", dir), "the rows went to --run-dir's R");
    cr_expect_null(tf_read("%s/X/pool_overhead.csv", dir), "not to POOLBENCH_OUT's X");
    rc = harness_run_in(dir, "bench_pool_overhead", "POOLBENCH_RUN_DIR=R2", OVERHEAD_TINY " --out O", err,
                        sizeof err);
    cr_expect_eq(rc, 0, "POOLBENCH_RUN_DIR with --out: exit %d: %s", rc, err);
    cr_expect_not_null(tf_read("%s/O/pool_overhead.csv", dir), "the rows went to --out's O");
    rc = harness_run_in(dir, "bench_cpu_util", "POOLBENCH_OUT=X", "--run-dir R2 -- true", err, sizeof err);
    cr_expect_eq(rc, 0, "bench_cpu_util, POOLBENCH_OUT with --run-dir: exit %d: %s", rc, err);
    cr_expect_not_null(tf_read("%s/R2/cpu_util.csv", dir), "bench_cpu_util's samples went to R2");
    rc = harness_run_in(dir, "bench_pool_overhead", "POOLBENCH_OUT=X POOLBENCH_RUN_DIR=R", OVERHEAD_TINY, err,
                        sizeof err);
    cr_expect_eq(rc, 2, "both variables: exit %d: %s", rc, err);
    cr_expect(strstr(err, "POOLBENCH_OUT") && strstr(err, "POOLBENCH_RUN_DIR") && tf_count(err, "\n") == 1, "%s",
              err);
    cr_expect_null(tf_read("%s/X/pool_overhead.csv", dir), "nothing measured");
    tf_rmrf(dir);
}
