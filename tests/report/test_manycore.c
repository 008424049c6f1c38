/* scripts/manycore.sh: on a machine with fewer than 16 cpus it says so in one line, runs nothing, writes nothing and
 * exits 0; --print names the commands it would run; a bad argument is exit 2 with one line. The measuring part needs
 * 16 cpus and minutes: it is not a test. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_files.h"

/* Runs `POOLBENCH_RESULTS=results sh scripts/manycore.sh ARGS 2>&1` from the repository root; output into out. */
static int run_script(const char *results, const char *args, char *out, size_t len)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "POOLBENCH_RESULTS=%s sh scripts/manycore.sh %s 2>&1", results, args);
    return tf_run(out, len, cmd);
}

Test(manycore, fewer_cpus_one_line_and_nothing_run)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int cpu[16];
    if (tf_allowed_cpus(cpu, 16) >= 16 && online >= 16)
        cr_skip_test("16 cpus here: the script would measure for minutes");
    char dir[128], results[192], out[4096];
    tf_tmpdir(dir, sizeof dir, "manycore");
    snprintf(results, sizeof results, "%s/results", dir);
    cr_assert_eq(run_script(results, "", out, sizeof out), 0, "%s", out);
    cr_expect_eq(tf_count(out, "\n"), 1, "one line: %s", out);
    cr_expect(strstr(out, "fewer than the 16") && strstr(out, "nothing run"), "%s", out);
    struct stat st;
    cr_expect_neq(stat(results, &st), 0, "no run directory made");
}

Test(manycore, print_names_the_commands)
{
    char out[4096];
    cr_assert_eq(run_script("results", "--print", out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "bench_pool_overhead --threads 2,4,8,16 --policy spin,tree,omp --barrier all"), "%s", out);
    cr_expect(strstr(out, "bench_sweep --format q8_0 --threads 1-16"), "%s", out);
    cr_expect(strstr(out, "tests/data/manycore/"), "%s", out);
}

Test(manycore, bad_argument_exit_2)
{
    char out[4096];
    cr_assert_eq(run_script("results", "--bogus", out, sizeof out), 2, "%s", out);
    cr_expect_eq(tf_count(out, "\n"), 1, "%s", out);
    cr_expect(strstr(out, "--bogus") && strstr(out, "accepted"), "%s", out);
}
