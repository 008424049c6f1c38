/* bench/ library basics: statistics on known data and their edge cases, the CSV writer's no-overwrite and
 * no-half-file guarantees, run directories, and the round trip's placement tag. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_csv.h"
#include "pb_pingpong.h"
#include "pb_run.h"
#include "pb_stats.h"
#include "pb_time.h"
#include "run_dir.h"
#include "test_files.h"

Test(stats, percentiles_on_known_data)
{
    double v[] = { 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 }; /* 1..10 shuffled */
    pb_summary s = pb_summarize(v, 10);
    cr_assert_eq(s.n, 10u);
    cr_assert_float_eq(s.min, 1, 1e-12);
    cr_assert_float_eq(s.max, 10, 1e-12);
    cr_assert_float_eq(s.median, 5.5, 1e-12);
    cr_assert_float_eq(s.p90, 9.1, 1e-12); /* rank 0.9*9 = 8.1 -> 9 + 0.1*(10-9) */
    cr_assert_float_eq(s.p99, 9.91, 1e-12);
    cr_assert_float_eq(s.mean, 5.5, 1e-12);
    cr_assert_float_eq(s.stddev, sqrt(8.25), 1e-12);
    cr_assert_float_eq(s.spread, 9 / 5.5, 1e-12);
    cr_assert_float_eq(v[0], 10, 0, "the input is not reordered");
}

Test(stats, edge_cases)
{
    pb_summary s = pb_summarize(NULL, 0);
    cr_assert(s.n == 0 && isnan(s.median) && isnan(s.min) && isnan(s.spread));
    double one = 42;
    s = pb_summarize(&one, 1);
    cr_assert(s.min == 42 && s.median == 42 && s.p99 == 42 && s.max == 42 && s.stddev == 0 && s.spread == 0);
    double two[] = { 1, 3 };
    s = pb_summarize(two, 2);
    cr_assert_float_eq(s.median, 2, 1e-12, "median of two values is their mean");
    double zeros[] = { 0, 0, 0 };
    s = pb_summarize(zeros, 3);
    cr_assert(isnan(s.spread) && isnan(s.cv), "spread and CV of a zero median/mean are NaN");
}

Test(csv, written_to_partial_then_published)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbtest");
    char path[128], tmp[4200];
    pb_csv *c = pb_csv_open(dir, "x.csv", "a,b");
    cr_assert_not_null(c);
    snprintf(path, sizeof path, "%s/x.csv", dir);
    snprintf(tmp, sizeof tmp, "%s", pb_csv_partial_path(c));
    pb_csv_row(c, "%d,%s", 1, "two");
    cr_assert_neq(access(path, F_OK), 0, "no final file before close");
    cr_assert_eq(access(tmp, F_OK), 0);
    cr_assert_eq(pb_csv_close(c), 0);
    cr_assert_str_eq(tf_slurp("%s", path), "a,b\n1,two\n");
    cr_assert_neq(access(tmp, F_OK), 0, "partial file gone");
}

Test(csv, never_overwrites_and_abort_leaves_nothing)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbtest");
    pb_csv *c = pb_csv_open(dir, "x.csv", "a");
    pb_csv_row(c, "1");
    cr_assert_eq(pb_csv_close(c), 0);
    cr_assert_null(pb_csv_open(dir, "x.csv", "a"), "an existing result is never replaced");
    c = pb_csv_open(dir, "y.csv", "a");
    pb_csv_row(c, "half");
    pb_csv_abort(c);
    char out[256], cmd[128];
    snprintf(cmd, sizeof cmd, "ls '%s'", dir);
    cr_assert_eq(tf_run(out, sizeof out, cmd), 0);
    cr_assert_str_eq(out, "x.csv\n", "abort leaves neither y.csv nor its partial file");
}

Test(csv, fields_are_quoted_when_needed)
{
    char buf[256] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    pb_csv_field(f, "plain");
    fputc('|', f);
    pb_csv_field(f, "a,b");
    fputc('|', f);
    pb_csv_field(f, "say \"hi\"");
    fclose(f);
    cr_assert_str_eq(buf, "plain|\"a,b\"|\"say \"\"hi\"\"\"");
}

Test(run, out_must_be_new_or_empty)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbtest");
    char err[512], sub[128], under[300];
    pb_run r;
    snprintf(sub, sizeof sub, "%s/new/deeper", dir);
    cr_assert_eq(pb_run_prepare(&r, sub, false, err, sizeof err), 0, "%s", err);
    struct stat st;
    cr_assert_eq(stat(sub, &st), 0);
    cr_assert_str_eq(r.run_id, "deeper");
    cr_assert_eq(pb_run_check(sub, false, err, sizeof err), 0, "an empty directory is accepted");
    char file[200];
    snprintf(file, sizeof file, "%s/f", sub);
    fclose(fopen(file, "w"));
    cr_assert_eq(pb_run_check(sub, false, err, sizeof err), -1);
    cr_assert(strstr(err, "--out") && strstr(err, "not empty"), "%s", err);
    rd_machine_csv(sub, NULL, NULL);
    cr_assert_eq(pb_run_check(sub, true, err, sizeof err), 0, "--run-dir joins a non-empty run of this host");
    cr_assert_eq(pb_run_check(file, false, err, sizeof err), -1);
    cr_assert(strstr(err, "not a directory"), "%s", err);
    snprintf(sub, sizeof sub, "%s/missing", dir);
    cr_assert_eq(pb_run_check(sub, true, err, sizeof err), -1);
    cr_assert(strstr(err, "--run-dir"), "%s", err);
    snprintf(under, sizeof under, "%s/under", file);
    cr_assert_eq(pb_run_check(under, false, err, sizeof err), -1, "a path under a file cannot be created");
    cr_assert(strstr(err, "cannot be created"), "%s", err);
}

Test(run, default_is_a_new_stamped_directory_with_latest)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbtest");
    char cwd[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(chdir(dir), 0);
    pb_run a, b;
    char err[512];
    cr_assert_eq(pb_run_prepare(&a, NULL, false, err, sizeof err), 0, "%s", err);
    cr_assert_eq(pb_run_prepare(&b, NULL, false, err, sizeof err), 0, "%s", err);
    cr_assert_str_neq(a.dir, b.dir, "two runs in the same second get two directories");
    cr_assert(strncmp(a.dir, "results/", 8) == 0, "%s", a.dir);
    char latest[600], target[600];
    snprintf(latest, sizeof latest, "results/%s/latest", b.host);
    cr_assert_lt(readlink(latest, target, sizeof target - 1), 0, "latest waits for a run that succeeded");
    cr_assert_eq(pb_run_mark_latest(&a), 0);
    cr_assert_eq(pb_run_mark_latest(&b), 0, "moved again: renamed over the older link");
    ssize_t n = readlink(latest, target, sizeof target - 1);
    cr_assert_gt(n, 0);
    target[n] = '\0';
    cr_assert(strstr(b.dir, target) != NULL, "latest -> %s, newest %s", target, b.dir);
    cr_assert_eq(chdir(cwd), 0);
}

Test(pingpong, placement_tags_and_one_cpu)
{
    cr_assert_str_eq(pb_placement(65), "near");
    cr_assert_str_eq(pb_placement(400), "far");
    cr_assert_str_eq(pb_placement(NAN), "n/a");
    pb_rt rt;
    int cpu[2];
    int n = tf_allowed_cpus(cpu, 2);
    cr_assert_eq(pb_pingpong(cpu[0], cpu[0], 3, 10, &rt), 0);
    cr_assert(isnan(rt.ns_batch_mean), "no round trip on one cpu");
    if (n >= 2) {
        cr_assert_eq(pb_pingpong(cpu[0], cpu[1], 3, 1000, &rt), 0);
        cr_assert(rt.ns_batch_mean > 1 && rt.ns_batch_mean < 1e6, "round trip %.1f ns", rt.ns_batch_mean);
        cr_assert_eq(rt.batches.n, 3u);
    }
}

Test(time, clock_moves_and_busy_wait_lasts)
{
    uint64_t t0 = pb_now_ns();
    pb_spin_ns(2000000);
    uint64_t el = pb_now_ns() - t0;
    cr_assert_geq(el, 2000000u, "pb_spin_ns(2 ms) returned after %lu ns", (unsigned long)el);
    double g = pb_timer_granularity_ns();
    cr_assert(g > 0 && g < 1e6, "granularity %.1f ns", g);
}
