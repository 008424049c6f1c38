/* bench_kernels as a user runs it ($POOLBENCH_BIN, set by make test): bad input is one line naming the
 * option, exit status 2 and nothing written; a tiny run writes kernels.csv with the columns. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness_run.h"

/* With --out: the directory it names must not appear either. */
static void expect_refused(const char *env, const char *args, const char *named)
{
    char with_out[512];
    snprintf(with_out, sizeof with_out, "%s --out out", args);
    harness_expect_bad("bench_kernels", env ? env : "", with_out, named);
}

/* bench_kernels with args (ending in --out out) in a fresh temporary directory (tag heads its name, written
 * into dir); returns its out/kernels.csv open after the header line, which is left in line. */
static FILE *kernels_run(char *dir, size_t len, const char *tag, const char *args, char *line, int linelen)
{
    char path[128];
    tf_tmpdir(dir, len, tag);
    harness_run_ok(dir, "bench_kernels", "", args);
    snprintf(path, sizeof path, "%s/out/kernels.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    cr_assert_not_null(fgets(line, linelen, f));
    return f;
}

Test(kernels_cli, bad_options)
{
    expect_refused(NULL, "--threads 0", "--threads");
    expect_refused(NULL, "--batch 17", "--batch");
    expect_refused(NULL, "--format q9_9", "--format");
    expect_refused(NULL, "--level l4", "--level");
    expect_refused(NULL, "--cols 1000", "--cols");
#if defined(__aarch64__) /* a variant this CPU or build cannot run */
    expect_refused(NULL, "--variant avx2", "avx2");
#else
    expect_refused(NULL, "--variant neon", "neon");
#endif
    expect_refused("POOLBENCH_KERNEL=avx9", "", "avx9");
    expect_refused(NULL, "--bogus", "--bogus");
}

Test(kernels_cli, tiny_run_writes_the_csv, .timeout = 60)
{
    char dir[64], line[512];
    FILE *f = kernels_run(dir, sizeof dir, "pbkc",
                          "--format q8_0,tq2_0 --variant scalar --level l2 --threads 1 --batch 1,2 --budget-ms 2 "
                          "--cols 512 --out out",
                          line, sizeof line);
    cr_assert_str_eq(line, "run_id,host,format,variant,rows,cols,batch,threads,bytes,level,gbps_min,gbps_median,"
                           "gbps_max,gbps_act_median,gops_median,ns_per_row,emulate_slow\n");
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        cr_assert(strstr(line, ",scalar,") && strstr(line, ",l2,"), "%s", line);
        rows++;
    }
    fclose(f);
    cr_assert_eq(rows, 4, "2 formats x 2 batches");
    cr_assert_eq(tf_rmrf(dir), 0);
}

/* The K-quants through every variant this CPU runs, each row with both GB/s: the weights alone and quantizing the
 * activation before every call (gbps_act_median, a number > 0; no speed is asserted). */
Test(kernels_cli, k_quants_and_the_quantizing_column, .timeout = 60)
{
    char dir[64], line[512];
    FILE *f = kernels_run(dir, sizeof dir, "pbkq",
                          "--format q4_K,q6_K --level l2 --l2-kib 64 --threads 1 --batch 1 --budget-ms 2 --cols 512 "
                          "--out out",
                          line, sizeof line);
    int col = 0, act = -1, plain = -1;
    for (char *save = NULL, *t = strtok_r(line, ",\n", &save); t; t = strtok_r(NULL, ",\n", &save), col++) {
        act = strcmp(t, "gbps_act_median") == 0 ? col : act;
        plain = strcmp(t, "gbps_median") == 0 ? col : plain;
    }
    cr_assert(act >= 0 && plain >= 0, "kernels.csv has gbps_median and gbps_act_median");
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        char copy[512];
        snprintf(copy, sizeof copy, "%s", line);
        cr_assert(strstr(line, ",q4_K,") || strstr(line, ",q6_K,"), "%s", line);
        col = 0;
        for (char *save = NULL, *t = strtok_r(copy, ",\n", &save); t; t = strtok_r(NULL, ",\n", &save), col++)
            if (col == act || col == plain)
                cr_assert(strtod(t, NULL) > 0, "column %d of %s", col, line);
        rows++;
    }
    fclose(f);
    cr_assert_geq(rows, 2, "q4_K and q6_K, every variant");
    cr_assert_eq(tf_rmrf(dir), 0);
}

/* A run without a 1-thread point still draws its roofline (at the fewest threads it measured) and exits 0: the
 * plot once asked for 1-thread rows only, gnuplot failed on the empty panel and the run exited 1. */
Test(kernels_cli, a_run_without_one_thread_plots_its_fewest_threads, .timeout = 60)
{
    char dir[64], path[128];
    tf_tmpdir(dir, sizeof dir, "pbkc");
    harness_run_ok(dir, "bench_kernels", "",
                   "--format q8_0 --variant scalar --level l2 --threads 2 --batch 1 --budget-ms 2 --cols 512 --out out");
    snprintf(path, sizeof path, "%s/out/kernels.png", dir);
    FILE *f = fopen(path, "rb");
    cr_expect_not_null(f, "%s", path);
    if (f)
        fclose(f);
    cr_assert_eq(tf_rmrf(dir), 0);
}
