/* bench_pool_overhead's bad-input contract: one line naming the option and what is accepted, exit status 2,
 * nothing written. Runs the harness as a user would ($POOLBENCH_BIN, set by make test). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <sys/stat.h>

#include "harness_run.h"

/* Each refused argument list and the option its message must name. */
static const char *const bad_args[][2] = {
    /* thread counts */
    { "--threads 0", "--threads" }, { "--threads -1", "--threads" }, { "--threads abc", "--threads" },
    { "--threads 1-", "--threads" }, { "--threads 99999", "--threads" },
    /* policy, gap, cpu, an unknown option */
    { "--policy nope", "--policy" }, { "--gap-us -5", "--gap-us" }, { "--cpus 4096", "--cpus" },
    { "--bogus", "--bogus" },
    /* a number in hexadecimal (strtod's 0x10 is 16): decimal only, as for the integers */
    { "--batch-ms 0x10", "--batch-ms" },
};

Test(pool_overhead_cli, bad_input)
{
    for (size_t i = 0; i < sizeof bad_args / sizeof bad_args[0]; i++)
        harness_expect_bad("bench_pool_overhead", "", bad_args[i][0], bad_args[i][1]);
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
    harness_expect_bad("bench_pool_overhead", "", args, "--out");
    snprintf(args, sizeof args, "--quick --out %s/sub", file);
    harness_expect_bad("bench_pool_overhead", "", args, "--out");
    struct stat st;
    cr_assert_eq(stat(file, &st), 0);
    cr_assert_eq(st.st_size, 9, "the existing file is untouched");
}
