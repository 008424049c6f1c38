/* bench_pool_overhead's bad-input contract: one line naming the option and what is accepted, exit status 2,
 * nothing written. Runs the harness as a user would ($POOLBENCH_BIN, set by make test). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <sys/stat.h>

#include "harness_run.h"

static void expect_bad(const char *args, const char *option)
{
    harness_expect_bad("bench_pool_overhead", "", args, option);
}

Test(pool_overhead_cli, bad_thread_counts)
{
    expect_bad("--threads 0", "--threads");
    expect_bad("--threads -1", "--threads");
    expect_bad("--threads abc", "--threads");
    expect_bad("--threads 1-", "--threads");
    expect_bad("--threads 99999", "--threads");
}

Test(pool_overhead_cli, bad_policy_gap_cpu_option)
{
    expect_bad("--policy nope", "--policy");
    expect_bad("--gap-us -5", "--gap-us");
    expect_bad("--cpus 4096", "--cpus");
    expect_bad("--bogus", "--bogus");
}

Test(pool_overhead_cli, out_onto_non_empty_or_unwritable)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbpo-out");
    char file[96], args[256];
    snprintf(file, sizeof file, "%s/keep", dir);
    FILE *f = fopen(file, "w");
    fputs("precious\n", f);
    fclose(f);
    snprintf(args, sizeof args, "--quick --out %s", dir);
    expect_bad(args, "--out");
    snprintf(args, sizeof args, "--quick --out %s/sub", file);
    expect_bad(args, "--out");
    struct stat st;
    cr_assert_eq(stat(file, &st), 0);
    cr_assert_eq(st.st_size, 9, "the existing file is untouched");
}
