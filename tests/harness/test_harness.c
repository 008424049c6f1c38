/* test_harness.c — the library side of the one error convention (bench/harness/pb_harness.c): a set-up step that
 * refuses returns -1 and leaves its line for the main, which exits; a failure in the middle of measuring keeps
 * the rows measured so far: pb_harness_close publishes them, marks the run incomplete with the reason and
 * returns 1, as after a signal. In-process: nothing here may exit. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "harness_run.h"
#include "pb_harness.h"
#include "test_files.h"

/* Lines of text (a CSV's rows plus its header). */
static int lines_of(const char *text)
{
    int n = 0;
    for (const char *p = text; p && *p; p++)
        n += *p == '\n';
    return n;
}

/* The context header on stdout, the refusals on stderr: neither belongs in the test log. */
static void quiet(void)
{
    cr_redirect_stdout();
    cr_redirect_stderr();
}

/* A harness opened on dir/run with one output, t.csv, holding `rows` rows. */
static pb_csv *open_with_rows(pb_harness *h, const char *dir, char *run, size_t len, int rows)
{
    snprintf(run, len, "%s/run", dir);
    cr_assert_eq(pb_harness_begin(h, "bench_t", run, NULL), 0, "%s", h->err);
    cr_assert_eq(pb_harness_open(h), 0, "%s", h->err);
    pb_csv *c = pb_harness_csv(h, "t.csv", "a,b");
    cr_assert_not_null(c, "%s", h->err);
    for (int i = 0; i < rows; i++)
        pb_csv_row(c, "%d,%d", i, 2 * i);
    return c;
}

Test(harness, failure_mid_run_publishes_the_rows_and_marks_the_run_incomplete, .init = quiet)
{
    static pb_harness h; /* holds a pb_machine: off the stack */
    char dir[64], run[128];
    tf_tmpdir(dir, sizeof dir, "pb_harness");
    open_with_rows(&h, dir, run, sizeof run, 3);
    cr_assert(pb_harness_going(&h));
    cr_assert_eq(pb_harness_fail(&h, "point %d: %s", 4, "Cannot allocate memory"), -1);
    cr_assert_not(pb_harness_going(&h), "a failure ends the measuring loop");
    pb_harness_fail(&h, "a later failure"); /* follows from the first: not the reason */
    static const char *const plots[] = { NULL };
    cr_assert_eq(pb_harness_close(&h, "no-such-script.gp", plots), 1, "a failed run exits 1 (no plot drawn)");
    char *csv = tf_read("%s/t.csv", run);
    cr_assert_not_null(csv, "the rows measured before the failure are published");
    cr_assert_eq(lines_of(csv), 4, "header + 3 rows: %s", csv);
    cr_assert_eq(tf_names_starting(run, "t.csv" PB_CSV_PARTIAL), 0, "no partial file left");
    char *machine = tf_read("%s/machine.csv", run);
    cr_assert_not_null(machine);
    cr_assert(strstr(machine, "incomplete,bench_t: failed after 3 rows (t.csv): point 4: Cannot allocate memory\n"),
              "machine.csv names the failure and the rows kept: %s", machine);
    cr_assert_null(strstr(machine, "a later failure"), "%s", machine);
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(harness, refused_set_up_returns_2_and_drops_the_claimed_outputs, .init = quiet)
{
    static pb_harness h;
    char dir[64], run[128];
    tf_tmpdir(dir, sizeof dir, "pb_harness");
    open_with_rows(&h, dir, run, sizeof run, 0);
    cr_assert_eq(pb_harness_refuse_opt(&h, "cpus", NULL, "cpu %d does not exist", 99), -1);
    cr_assert_str_eq(h.err, "bench_t: --cpus: cpu 99 does not exist");
    cr_assert_eq(pb_harness_refused(&h), 2);
    cr_assert_eq(tf_names_starting(run, "t.csv"), 0, "nothing measured: no t.csv and no partial file");
    cr_assert_null(h.topo);
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* A variable the pools read is input too: refused with one line before any work, not a failure once the outputs
 * are claimed (bench_kernels read it only when it made its pools). */
Test(harness, a_bad_pool_variable_is_refused_before_any_work, .timeout = 60)
{
    harness_expect_bad("bench_kernels", "POOLBENCH_POLICY=bogus", "--quick --format q8_0 --level l2 --threads 1",
                       "POOLBENCH_POLICY");
}

Test(harness, help_is_refused_with_status_0, .init = quiet)
{
    static pb_harness h;
    bool quick = false;
    const pb_opt opts[] = { PB_OPT_QUICK(&quick, "short"), { 0 } };
    const pb_cli cli = { .prog = "bench_t", .opts = opts };
    cr_assert_eq(pb_harness_parse(&h, &cli, 2, (char *[]){ "bench_t", "--help", NULL }, NULL), -1);
    cr_assert_eq(pb_harness_refused(&h), 0, "--help: exit 0");
    static pb_harness bad;
    cr_assert_eq(pb_harness_parse(&bad, &cli, 2, (char *[]){ "bench_t", "--quick=1", NULL }, NULL), -1);
    cr_assert(strstr(bad.err, "bench_t: --quick takes no value"), "%s", bad.err);
}
