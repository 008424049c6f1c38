/* bench_memory_floor --latency as a user runs it: bad input is one line naming the option and exit status 2 before
 * anything is written; a tiny run writes latency.csv through the schema (its header, every cell within its
 * column's rule), the ladder by working set and, with a second cpu, one loaded row per duty. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness_run.h"
#include "pb_schema.h"

static void expect_bad(const char *args, const char *needle)
{
    harness_expect_bad_out("bench_memory_floor", args, needle);
}

Test(latency_cli, refuses_the_floors_options_and_bad_duties)
{
    expect_bad("--latency --threads 1", "--threads");
    expect_bad("--latency --kernel scalar", "--kernel");
    expect_bad("--latency --passes 10", "--passes");
    expect_bad("--duty 50", "--duty");
    expect_bad("--latency --duty 0", "--duty");
    expect_bad("--latency --duty 101", "--duty");
    expect_bad("--latency --duty 10,x", "--duty");
    expect_bad("--latency --cpus 0 --duty 50", "--duty"); /* one cpu chases: no streamer to run the duty */
    expect_bad("--latency --size 0", "--size");
    expect_bad("--latency --size 16777216", "--size");
    expect_bad("--latency --cpus 4096", "--cpus");
}

Test(latency_cli, tiny_run_writes_rows_through_the_schema)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pblat");
    harness_run_ok(dir, "bench_memory_floor", "", "--latency --quick --size 4 --duty 50,100 --out run");
    char *csv = tf_slurp("%s/run/latency.csv", dir);
    const char *hdr = pb_schema_header(PB_K_LATENCY);
    cr_assert(strncmp(csv, hdr, strlen(hdr)) == 0 && csv[strlen(hdr)] == '\n', "%s", csv);
    pb_table t;
    harness_load_csv(&t, dir, "run/latency.csv");
    const pb_schema *s = pb_schema_get(PB_K_LATENCY);
    for (size_t r = 0; r < t.nrows; r++)
        for (int c = 0; c < s->ncols; c++) {
            int tc = pb_table_col(&t, s->cols[c].name);
            cr_assert_geq(tc, 0, "%s", s->cols[c].name);
            const char *cell = pb_table_str(&t, r, tc);
            cr_expect(pb_cell_ok(s->cols[c].rule, cell), "row %zu, %s: '%s' is not %s", r, s->cols[c].name, cell,
                      pb_cell_accepts(s->cols[c].rule));
        }
    int cpus[2];
    int loaded = tf_allowed_cpus(cpus, 2) > 1 ? 2 : 0;
    cr_assert_eq(t.nrows, 5u + (size_t)loaded, "16 KiB x 4 up to 4 MiB: 5 ladder rows, then %d loaded", loaded);
    int phase = pb_table_col(&t, "phase"), size = pb_table_col(&t, "size_kib"), duty = pb_table_col(&t, "duty_pct");
    int ns = pb_table_col(&t, "ns_median"), load = pb_table_col(&t, "load_gbps");
    static const double kib[] = { 16, 64, 256, 1024, 4096 };
    for (size_t r = 0; r < 5; r++) {
        cr_expect_str_eq(pb_table_str(&t, r, phase), "ladder");
        cr_expect_eq(pb_table_num(&t, r, size), kib[r]);
        cr_expect_eq(pb_table_num(&t, r, duty), 0);
        cr_expect_gt(pb_table_num(&t, r, ns), 0);
    }
    for (size_t r = 5; r < t.nrows; r++) {
        cr_expect_str_eq(pb_table_str(&t, r, phase), "loaded");
        cr_expect_eq(pb_table_num(&t, r, size), 4096, "the loaded curve chases the whole buffer");
        cr_expect_eq(pb_table_num(&t, r, duty), r == 5 ? 50 : 100);
        cr_expect_gt(pb_table_num(&t, r, load), 0, "the streamers read something");
    }
    pb_table_free(&t);
}
