/* The budget on the budget fixture (a `make report QUICK=1` run of the development VM, a 2-vCPU Emerald Rapids
 * KVM guest at load average 16: its 2-thread points are what a busy neighbour does): every sweep point's parts
 * add up to its median token, bench_report --check refuses a row whose parts do not, and results.json carries
 * the same budget per decode point. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_mini.h"
#include "pb_schema.h"
#include "pb_tuning.h"
#include "report_fixture.h"

/* Row r's parts, summed. */
static double parts_sum(const pb_table *t, size_t r)
{
    double s = 0;
    for (int p = 0; p < PB_BUDGET_NPARTS; p++) { /* a fixture from before the roof has no roof column: 0 */
        int c = pb_table_col(t, pb_schema_name(PB_K_SWEEP, pb_budget_col((pb_budget_part)p)));
        s += c < 0 ? 0 : pb_table_num(t, r, c);
    }
    return s;
}

/* Adds ms to row r's col in DIR/sweep.csv (written back with 4 decimals, as the harness writes it). */
static void add_ms(const char *dir, size_t r, const char *col, double ms)
{
    pb_table t;
    load_csv(dir, "sweep.csv", &t);
    char v[32];
    snprintf(v, sizeof v, "%.4f", pb_table_num(&t, r, pb_table_col(&t, col)) + ms);
    pb_table_free(&t);
    set_cell(dir, "sweep.csv", r, col, v);
}

Test(report_budget, parts_add_up_on_the_fixture)
{
    pb_table t;
    load_csv(RUNS "/budget", "sweep.csv", &t);
    cr_assert_gt(t.nrows, 0);
    for (size_t r = 0; r < t.nrows; r++) {
        double med = pb_table_num(&t, r, pb_table_col(&t, "ms_per_token_median")), sum = parts_sum(&t, r);
        cr_expect(fabs(sum - med) <= PB_BUDGET_SUM_TOL_MS, "row %zu: parts %.4f, token %.4f", r, sum, med);
    }
    pb_table_free(&t);
}

Test(report_budget, check_refuses_parts_that_do_not_add_up)
{
    char dir[256], out[8192];
    copy_fixture("budget", dir, sizeof dir);
    sh(out, sizeof out, "$B/bench_report --check %s", dir);
    cr_expect(!strstr(out, "add up to"), "the fixture's parts add up: %s", out);
    add_ms(dir, 2, "budget_wait_ms", 1); /* the third row's wait: 1 ms more than measured */
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report --check %s", dir), 1, "%s", out);
    cr_expect(strstr(out, "sweep.csv:4: columns budget_floor_ms..budget_unexplained_ms and budget_roof_ms add up to") &&
              strstr(out, "not ms_per_token_median's"), "names the row: %s", out);
    drop_fixture(dir);
}

Test(report_budget, results_json_has_the_budget)
{
    char dir[256], out[8192], err[256];
    copy_fixture("budget", dir, sizeof dir);
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report --no-plots %s", dir), 0, "%s", out);
    char path[300];
    snprintf(path, sizeof path, "%s/results.json", dir);
    char *text = jm_slurp(path);
    cr_assert_not_null(text);
    jm_val root;
    cr_assert_eq(jm_parse(text, &root, err, sizeof err), 0, "%s", err);
    free(text);
    const jm_val *b = jm_get(&root, "budget");
    cr_assert(b && b->type == JM_ARR, "a budget array");
    pb_table t;
    load_csv(dir, "sweep.csv", &t);
    cr_expect_eq(b->n, t.nrows, "one entry per sweep point");
    for (size_t i = 0; i < b->n; i++) {
        const jm_val *e = &b->items[i], *parts = jm_get(e, "parts_ms"), *ms = jm_get(e, "ms_per_token");
        cr_assert(parts && parts->type == JM_OBJ && ms && ms->type == JM_NUM, "entry %zu", i);
        cr_expect(strncmp(jm_get(e, "name")->str, "decode/", 7) == 0, "a decode point's name");
        double s = 0;
        for (int p = 0; p < PB_BUDGET_NPARTS; p++) {
            const jm_val *v = jm_get(parts, pb_budget_part_name((pb_budget_part)p));
            cr_assert(v && v->type == JM_NUM, "entry %zu part %s", i, pb_budget_part_name((pb_budget_part)p));
            s += v->num;
        }
        cr_expect(fabs(s - ms->num) <= PB_BUDGET_SUM_TOL_MS, "entry %zu: %.4f vs %.4f", i, s, ms->num);
        cr_expect_float_eq(ms->num, pb_table_num(&t, i, pb_table_col(&t, "ms_per_token_median")), 1e-9);
    }
    pb_table_free(&t);
    jm_free(&root);
    drop_fixture(dir);
}

/* bench_compare puts each run's budget side by side and names the part that differs most: a copy of the
 * fixture whose best point's glue took 50 ms more. */
Test(report_budget, compare_names_the_part_that_differs)
{
    char a[256], b[256], out[8192], cmd[1200], cmp[300];
    copy_fixture("budget", a, sizeof a);
    copy_fixture("budget", b, sizeof b);
    snprintf(cmd, sizeof cmd, "sed -i 's/^host,.*/host,other/' %s/machine.csv", b);
    cr_assert_eq(system(cmd), 0);
    add_ms(b, 0, "budget_glue_ms", 50);
    snprintf(cmp, sizeof cmp, "%s-cmp", a);
    cr_assert_eq(sh(out, sizeof out, "$B/bench_compare --no-plots %s %s --out %s", a, b, cmp), 0, "%s", out);
    const char *md = tf_slurp("%s/compare.md", cmp);
    tf_expect_has(md, "## Where the time went, side by side", "### qwen3-0.6b q8_0",
                  "| part | vm: spin, 1 thread | other: spin, 1 thread |",
                  "| glue | 0.18 ms (0%) | 50.18 ms (19%) |",
                  "other against vm: the part that differs most is glue, 50.18 ms against 0.18 (+50.00 ms of the "
                  "token's +0.00 ms).");
    drop_fixture(a);
    drop_fixture(b);
}
