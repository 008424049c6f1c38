/* bench_pool_overhead's bad-input contract: one line naming the option and what is accepted, exit status 2,
 * nothing written. Runs the harness as a user would ($POOLBENCH_BIN, set by make test). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "harness_run.h"
#include "report_fixture.h"

/* Each refused argument list and the option its message must name. */
static const char *const bad_args[][2] = {
    /* thread counts */
    { "--threads 0", "--threads" }, { "--threads -1", "--threads" }, { "--threads abc", "--threads" },
    { "--threads 1-", "--threads" }, { "--threads 99999", "--threads" },
    /* policy, gap, cpu, an unknown option */
    { "--policy nope", "--policy" }, { "--gap-us -5", "--gap-us" }, { "--cpus 4096", "--cpus" },
    { "--barrier nope", "--barrier" }, { "--barrier central,central", "--barrier" },
    /* the co-runner: its form, its duty, a cpu that does not exist */
    { "--co-runner 1", "--co-runner" }, { "--co-runner 0:0", "--co-runner" }, { "--co-runner 4096:50", "--co-runner" },
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

/* Barrier rows beside the dispatches: one per barrier asked for at 2 threads (none at 1: nothing to wait for),
 * named barrier-NAME, each against OpenMP's barrier at the same threads, and the run passes --check. */
Test(pool_overhead_cli, barrier_rows_from_two_threads, .timeout = 120)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbpo-bar");
    harness_run_ok(dir, "bench_pool_overhead", "",
                   "--quick --policy spin,tree --threads 1,2 --gap-us 0 --barrier central,tree,dissemination,omp "
                   "--reps 3 --batch-ms 0.5 --out run");
    pb_table t;
    harness_load_csv(&t, dir, "run/pool_overhead.csv");
    int pol = pb_table_col(&t, "policy"), thr = pb_table_col(&t, "threads"), omp = pb_table_col(&t, "ratio_to_omp"),
        ns = pb_table_col(&t, "ns_batch_mean");
    static const char *const want[] = { "barrier-central", "barrier-tree", "barrier-dissemination", "barrier-omp" };
    int seen[4] = { 0 }, tree = 0;
    for (size_t r = 0; r < t.nrows; r++) {
        const char *p = pb_table_str(&t, r, pol);
        tree += strcmp(p, "tree") == 0;
        for (int b = 0; b < 4; b++) {
            if (strcmp(p, want[b]) != 0)
                continue;
            seen[b]++;
            cr_expect_eq(pb_table_num(&t, r, thr), 2, "%s at %g threads", p, pb_table_num(&t, r, thr));
            cr_expect_gt(pb_table_num(&t, r, ns), 0, "%s", p);
            cr_expect_gt(pb_table_num(&t, r, omp), 0, "%s: ratio_to_omp against barrier-omp", p);
        }
    }
    for (int b = 0; b < 4; b++)
        cr_expect_eq(seen[b], 1, "%s rows: %d", want[b], seen[b]);
    cr_expect_eq(tree, 2, "a tree row at 1 and at 2 threads: %d", tree);
    pb_table_free(&t);
    char out[4096];
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report --check %s/run", dir), 0, "--check: %s", out);
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report %s/run", dir), 0, "bench_report: %s", out);
    char *md = tf_read("%s/run/report.md", dir);
    cr_assert_not_null(md);
    cr_expect(strstr(md, "One barrier among 2 threads inside a job costs: central ") != NULL,
              "report.md's finding on the barriers: %s", md);
    cr_expect_null(strstr(md, "A barrier-"), "a barrier is not called a dispatch");
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* A co-runner beside the run: every row names it, and the run ends with its children gone (pb_corunner's test
 * checks the reaping; here, that the harness starts and stops it around its measurement). */
Test(pool_overhead_cli, rows_name_the_co_runner, .timeout = 120)
{
    int cpu[1];
    tf_need_cpus(cpu, 1, "a cpu for the co-runner");
    char dir[64], args[256], spec[32];
    snprintf(spec, sizeof spec, "%d:30", cpu[0]);
    tf_tmpdir(dir, sizeof dir, "pbpo-co");
    snprintf(args, sizeof args, "--quick --policy spin --threads 2 --gap-us 0 --barrier central --reps 3 "
             "--batch-ms 0.5 --co-runner %s --out run", spec);
    harness_run_ok(dir, "bench_pool_overhead", "", args);
    pb_table t;
    harness_load_csv(&t, dir, "run/pool_overhead.csv");
    int co = pb_table_col(&t, "co_runner");
    cr_assert_geq(co, 0, "pool_overhead.csv has a co_runner column");
    cr_assert_gt(t.nrows, 0);
    for (size_t r = 0; r < t.nrows; r++)
        cr_expect_str_eq(pb_table_str(&t, r, co), spec, "row %zu", r);
    pb_table_free(&t);
    cr_expect_eq(tf_rmrf(dir), 0);
}
