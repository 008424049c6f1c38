/* scripts/likwid_compare.sh: its summary of a likwid_compare.csv (likwid's best kernel per thread count and
 * round against our best one-stream kernel and our floor, as ratios), and its argument errors (exit 2, one
 * line, before anything runs). The measuring part needs likwid-bench and minutes: it is not a test. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "test_files.h"

/* Runs `sh scripts/likwid_compare.sh ARGS 2>&1` from the repository root; output into out. Exit status. */
static int run_script(const char *args, char *out, size_t len)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sh scripts/likwid_compare.sh %s 2>&1", args);
    return tf_run(out, len, cmd);
}

Test(likwid_compare, summary_picks_the_best_of_each_side)
{
    char out[4096];
    cr_assert_eq(run_script("--summary tests/data/likwid_compare.csv", out, sizeof out), 0, "%s", out);
    /* 1 thread: likwid's best is load_mem 30; one-stream best avx512 31.5 (1.050); floor avx512-4s 36 (1.200). */
    cr_expect(strstr(out, "30.00 load_mem") && strstr(out, "31.50 avx512    (1.050)") &&
                  strstr(out, "36.00 avx512-4s (1.200)"), "%s", out);
    /* 2 threads: likwid load_avx512 50; one-stream avx2 45 (0.900: avx2-4b 55 reads 4 streams, not one); floor
     * avx2-4s 60 (1.200), placement far. */
    cr_expect(strstr(out, "far") && strstr(out, "50.00 load_avx512") && strstr(out, "45.00 avx2      (0.900)") &&
                  strstr(out, "60.00 avx2-4s   (1.200)"), "%s", out);
}

Test(likwid_compare, bad_arguments_exit_2_with_one_line)
{
    static const char *const bad[] = { "--threads 0,", "--threads a", "--rounds 0", "--size x", "--frobnicate",
                                       "--out /tmp/a --run-dir /tmp/b", "--threads" };
    char out[4096];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_expect_eq(run_script(bad[i], out, sizeof out), 2, "'%s': %s", bad[i], out);
        cr_expect(strncmp(out, "likwid_compare: ", 16) == 0 && strchr(out, '\n') == out + strlen(out) - 1,
                  "'%s': one line: %s", bad[i], out);
    }
}
