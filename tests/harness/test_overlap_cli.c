/* bench_overlap's bad-input contract: a ratio <= 0, an unknown mode, a matvec width that is not a multiple of
 * the q8_0 block, a helper on the caller's cpu: one line naming the option, exit status 2, nothing written.
 * Runs the harness as a user would ($POOLBENCH_BIN, set by make test), inside a fresh empty directory. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness_run.h"

/* Each refused argument list and the option its message must name. */
static const char *const bad_args[][2] = {
    /* a ratio not above zero */
    { "--ratios 0", "--ratios" }, { "--ratios -1", "--ratios" }, { "--ratios 0.5,0", "--ratios" },
    { "--ratios abc", "--ratios" }, { "--ratios nan", "--ratios" },
    /* an unknown mode */
    { "--modes async", "--modes" }, { "--modes serial,bogus", "--modes" },
    /* a size that is not a multiple of the block */
    { "--cols 100", "--cols" }, { "--cols 33", "--cols" }, { "--cols 0", "--cols" }, { "--rows 0", "--rows" },
    /* bad cpus, too few steps, an unknown option */
    { "--cpus 0,0", "--cpus" }, { "--cpus 4096", "--cpus" }, { "--cpus 0,1,0", "--cpus" }, { "--steps 1", "--steps" },
    { "--bogus", "--bogus" },
};

Test(overlap_cli, bad_input)
{
    for (size_t i = 0; i < sizeof bad_args / sizeof bad_args[0]; i++)
        harness_expect_bad("bench_overlap", "", bad_args[i][0], bad_args[i][1]);
}

/* rows x cols is checked before any work, as bench_sweep and bench_memory_floor check theirs: 2^20 x 2^20 q8_0
 * weights (about a TiB) used to make the run directory and fail in malloc, exit 1. */
Test(overlap_cli, weights_beyond_memory_are_refused_before_work)
{
    harness_expect_bad("bench_overlap", "", "--rows 1048576 --cols 1048576", "--rows");
}

/* A tiny run: exit 0, overlap.csv with its schema's columns first and one row per mode. No speed is asserted. */
Test(overlap_cli, tiny_run_writes_the_csv)
{
    char dir[64], path[128], line[1024];
    tf_tmpdir(dir, sizeof dir, "pbov-run");
    harness_run_ok(dir, "bench_overlap", "", "--ratios 0.5 --steps 10 --reps 3 --rows 64 --cols 64 --out run");
    snprintf(path, sizeof path, "%s/run/overlap.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    cr_assert_not_null(fgets(line, sizeof line, f));
    const char *cols = "run_id,host,mode,ratio,prep_us,job_us,us_per_step,speedup,pct_of_ceiling,cpus,";
    cr_expect_eq(strncmp(line, cols, strlen(cols)), 0, "header: %s", line);
    int rows = 0, serial = 0;
    while (fgets(line, sizeof line, f)) {
        rows++;
        serial += strstr(line, ",serial,0.5,") != NULL;
    }
    fclose(f);
    int allowed[2];
    int cpus = tf_allowed_cpus(allowed, 2);
    cr_expect_eq(rows, cpus >= 2 ? 4 : 2, "one row per mode that can run here");
    cr_expect_eq(serial, 1);
    cr_expect_eq(tf_rmrf(dir), 0);
}
