/* bench_kernels as a user runs it ($POOLBENCH_BIN, set by make test): bad input is one line naming the
 * option, exit status 2 and nothing written; a tiny run writes kernels.csv with its schema's columns. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulation.h"
#include "harness_run.h"
#include "kern_isa.h"

/* With --out: the directory it names must not appear either. */
static void expect_refused(const char *env, const char *args, const char *named)
{
    char with_out[512];
    snprintf(with_out, sizeof with_out, "%s --out out", args);
    harness_expect_bad("bench_kernels", env ? env : "", with_out, named);
}

/* A tiny bench_kernels run, `--level l2 --threads 1 --budget-ms 2 --cols 512 ARGS --out out` (args may repeat
 * one of those: the last wins), in a fresh temporary directory (tag heads its name): its kernels.csv's header
 * line into header, each row after it through check (which gets the header too, to find columns by name); the
 * directory removed. Returns the count of rows. */
static int kernels_rows(const char *tag, const char *args, char *header, int len,
                        void (*check)(const char *header, const char *row))
{
    char dir[64], path[128], line[512], all[512];
    snprintf(all, sizeof all, "--level l2 --threads 1 --budget-ms 2 --cols 512 %s --out out", args);
    tf_tmpdir(dir, sizeof dir, tag);
    harness_run_ok(dir, "bench_kernels", "", all);
    snprintf(path, sizeof path, "%s/out/kernels.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    cr_assert_not_null(fgets(header, len, f));
    int rows = 0;
    for (; fgets(line, sizeof line, f); rows++)
        check(header, line);
    fclose(f);
    cr_assert_eq(tf_rmrf(dir), 0);
    return rows;
}

/* The index of the column named name in a CSV header line, -1 when it has none. */
static int csv_column(const char *header, const char *name)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", header);
    int col = 0;
    for (char *save = NULL, *t = strtok_r(copy, ",\n", &save); t; t = strtok_r(NULL, ",\n", &save), col++)
        if (strcmp(t, name) == 0)
            return col;
    return -1;
}

/* The number in column col of a CSV row (0 when the row is shorter; an empty cell counts as a column). */
static double csv_number(const char *row, int col)
{
    const char *t = row;
    for (int c = 0; t && c < col; c++) {
        t = strchr(t, ',');
        t = t ? t + 1 : NULL;
    }
    return t ? strtod(t, NULL) : 0;
}

Test(kernels_cli, bad_options)
{
    expect_refused(NULL, "--threads 0", "--threads");
    expect_refused(NULL, "--batch 513", "--batch");
    expect_refused(NULL, "--format q9_9", "--format");
    expect_refused(NULL, "--level l4", "--level");
    expect_refused(NULL, "--cols 1000", "--cols");
#if defined(__aarch64__) /* an ISA this CPU or build cannot run */
    expect_refused(NULL, "--isa avx2", "avx2");
#else
    expect_refused(NULL, "--isa neon", "neon");
#endif
    expect_refused("POOLBENCH_ISA=avx9", "", "avx9");
    expect_refused("POOLBENCH_KERNEL=avx9", "", "POOLBENCH_KERNEL=avx9"); /* the old name, named as given */
    expect_refused(NULL, "--bogus", "--bogus");
    expect_refused(NULL, "--counters no_such_event", "--counters");
    expect_refused(NULL, "--counters cycles,,task-clock", "--counters");
}

static void expect_scalar_l2(const char *header, const char *row)
{
    cr_assert(strstr(row, ",scalar,") && strstr(row, ",l2,"), "%s", row);
    cr_assert(strstr(row, ",forced,off,file,"), "--isa named it; in L2 no prefetch runs; the file's layout: %s", row);
    /* under both roofs: the format's MACs per byte (q8_0 32 per 34, tq2_0 256 per 66), scalar's int8 roof at these
     * threads, and the share the point reached of it */
    double mpb = csv_number(row, csv_column(header, "macs_per_byte"));
    double roof = csv_number(row, csv_column(header, "roof_gmacs"));
    double share = csv_number(row, csv_column(header, "roof_share"));
    double gops = csv_number(row, csv_column(header, "gops_median"));
    double want = strstr(row, ",q8_0,") ? 32.0 / 34 : 256.0 / 66;
    cr_expect(fabs(mpb - want) < 0.001, "macs_per_byte %g, want %g: %s", mpb, want, row);
    cr_expect(roof > 0, "the scalar int8 roof: %s", row);
    /* each cell is rounded as printed (share 3 decimals, gops 3, roof 2): under qemu a scalar roof of 0.37 GMAC/s
     * carries 1.4% of rounding on its own, so the bound is the rounding the three cells allow */
    double slack = 0.0005 + share * (0.0005 / gops + 0.005 / roof) + 1e-9;
    cr_expect(fabs(share - gops / roof) <= slack, "roof_share %g = %g / %g (as printed, within %g): %s", share, gops,
              roof, slack, row);
    cr_expect(share > 0 && share <= 1, "no kernel above its ISA's roof: %s", row);
}

Test(kernels_cli, tiny_run_writes_the_csv, .timeout = 60)
{
    char header[512];
    int rows = kernels_rows("pbkc", "--format q8_0,tq2_0 --isa scalar --layout file --batch 1,2", header,
                            sizeof header, expect_scalar_l2);
    cr_assert_str_eq(header, "run_id,host,format,variant,rows,cols,batch,threads,bytes,level,gbps_min,gbps_median,"
                             "gbps_max,gbps_act_median,gops_median,ns_per_row,emulate_slow,ghz_before,ghz_after,"
                             "cycles_per_block,counters,ipc,why,stream,layout,repack_ms,layout_bytes,read_gbps,read_kernel,"
                             "macs_per_byte,roof_gmacs,roof_share\n");
    cr_assert_eq(rows, 4, "2 formats x 2 batches");
}

/* The clock around a point, and the cycles a block took at it: ns_per_row x threads x the mean clock over the
 * row's 512 / 32 = 16 q8_0 blocks (the printed figures' rounding allowed). */
static void expect_cycles_from_the_clock(const char *header, const char *row)
{
    double before = csv_number(row, csv_column(header, "ghz_before"));
    double after = csv_number(row, csv_column(header, "ghz_after"));
    double ns = csv_number(row, csv_column(header, "ns_per_row"));
    double cycles = csv_number(row, csv_column(header, "cycles_per_block"));
    cr_expect(before > 0 && after > 0, "a clock before and after: %s", row);
    double want = ns * 1 * (before + after) / 2 / 16;
    cr_expect(fabs(cycles - want) <= 0.01 * want + 0.01, "cycles_per_block %g, want %g: %s", cycles, want, row);
}

Test(kernels_cli, cycles_per_block_from_the_clock_around_the_point, .timeout = 60)
{
    char header[512];
    int rows = kernels_rows("pbkclk", "--format q8_0 --isa scalar --layout file --batch 1", header,
                            sizeof header, expect_cycles_from_the_clock);
    cr_assert_eq(rows, 1);
}

/* A K-quant row with both GB/s above zero. */
static void expect_k_quant_speeds(const char *header, const char *row)
{
    cr_assert(strstr(row, ",q4_K,") || strstr(row, ",q6_K,"), "%s", row);
    /* an r16 layout's kernel prefetches at every level (kern_repack.h): its stream is not off; q6_K_r1's reads
     * as the file's, off */
    cr_assert(strstr(row, ",all,off,file,") || strstr(row, ",all,off,q6_K_r1,") ||
                  (strstr(row, ",all,") && (strstr(row, ",q4_K_r16,") || strstr(row, ",q6_K_r16,"))),
              "every variant and layout was run, none named: %s", row);
    static const char *const speeds[] = { "gbps_median", "gbps_act_median" };
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
        int col = csv_column(header, speeds[i]);
        cr_assert(col >= 0 && csv_number(row, col) > 0, "%s of %s", speeds[i], row);
    }
}

/* The K-quants through every variant and layout this CPU runs, each row with both GB/s: the weights alone and quantizing the
 * activation before every call (gbps_act_median, a number > 0; no speed is asserted). */
Test(kernels_cli, k_quants_and_the_quantizing_column, .timeout = 60)
{
    char header[512];
    int rows = kernels_rows("pbkq", "--format q4_K,q6_K --l2-kib 64 --batch 1", header, sizeof header,
                            expect_k_quant_speeds);
    cr_assert(csv_column(header, "gbps_act_median") >= 0 && csv_column(header, "gbps_median") >= 0,
              "kernels.csv has gbps_median and gbps_act_median");
    cr_assert_geq(rows, 2, "q4_K and q6_K, every variant");
}

/* A run without a 1-thread point still draws its roofline (at the fewest threads it measured) and exits 0: the
 * plot once asked for 1-thread rows only, gnuplot failed on the empty panel and the run exited 1. Its classic
 * roofline, both roofs, is drawn too (the roof columns are there). */
Test(kernels_cli, a_run_without_one_thread_plots_its_fewest_threads, .timeout = 60)
{
    char dir[64], path[128];
    tf_tmpdir(dir, sizeof dir, "pbkc");
    harness_run_ok(dir, "bench_kernels", "",
                   "--format q8_0 --isa scalar --level l2 --threads 2 --batch 1 --budget-ms 2 --cols 512 --out out");
    static const char *const pngs[] = { "kernels.png", "roofline.png" };
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/out/%s", dir, pngs[i]);
        FILE *f = fopen(path, "rb");
        cr_expect_not_null(f, "%s", path);
        if (f)
            fclose(f);
    }
    cr_assert_eq(tf_rmrf(dir), 0);
}

/* A q8_0 or q1_0 row, its variant in the named list of this test (avx512 or avx512gfni). */
static void expect_avx512_rows(const char *header, const char *row)
{
    (void)header;
    cr_assert((strstr(row, ",q8_0,avx512,") || strstr(row, ",q1_0,avx512,") || strstr(row, ",q1_0,avx512gfni,")),
              "%s", row);
}

/* A variant whose table lacks a format runs the best one below it; when that one is measured in the same run, the
 * format is measured once, under the variant that ran: avx512gfni has q1_0 but not q8_0, so --isa
 * avx512,avx512gfni gives one q8_0 row (avx512) and two q1_0 rows in the file's layout; q1_0_r32lut and q8_0_r16
 * have an avx512 kernel only, so one repacked row each (avx512gfni's would be it again). */
Test(kernels_cli, a_fallback_is_not_measured_twice, .timeout = 60)
{
    if (!kern_isa_supported(KERN_ISA_AVX512GFNI)) {
        printf("kernels_cli::a_fallback_is_not_measured_twice: skipped: this CPU or build has no avx512gfni\n");
        cr_skip_test("no avx512gfni here");
    }
    char header[512];
    int rows = kernels_rows("pbkf", "--format q8_0,q1_0 --isa avx512,avx512gfni --batch 1", header,
                            sizeof header, expect_avx512_rows);
    cr_assert_eq(rows, 5, "q8_0 once (avx512) in each layout, q1_0 twice in the file's layout, once repacked");
}

/* --counters: the software event counts everywhere perf_event_open works; cycles and instructions count where the
 * machine has a PMU (IPC then appears) and are recorded as unsupported where it has none (a VM), never fatal. */
static void expect_counted(const char *header, const char *row)
{
    (void)header;
    const char *tc = strstr(row, "task-clock=");
    cr_expect(tc && tc[11] >= '1' && tc[11] <= '9', "task-clock counted: %s", row);
    bool cycles = strstr(row, "cycles=") && !strstr(row, "cycles=unsupported");
    cr_expect(cycles || strstr(row, "cycles=unsupported("), "cycles counted or said unsupported: %s", row);
    double ipc = csv_number(row, csv_column(header, "ipc"));
    cr_expect(!cycles || ipc > 0, "IPC where cycles counted: %s", row);
}

Test(kernels_cli, counters_record_what_counted_and_what_is_unsupported, .timeout = 60)
{
#if !defined(__x86_64__)
    cr_skip_test("event names come from libpfm4, which only the x86-64 build links");
#endif
    char header[1024];
    int rows = kernels_rows("pbkcnt",
                            "--format q8_0 --isa scalar --layout file --batch 1 "
                            "--counters cycles,instructions,task-clock",
                            header, sizeof header, expect_counted);
    cr_assert_eq(rows, 1);
}

/* A repacked row: its layout named, the time its copy took to make and the bytes it holds (the file's, for whole
 * groups of rows). */
static void expect_repacked_row(const char *header, const char *row)
{
    cr_assert(strstr(row, ",q1_0,scalar,") && strstr(row, ",q1_0_r32lut,"), "%s", row);
    int ms = csv_column(header, "repack_ms"), bytes = csv_column(header, "layout_bytes"),
        fb = csv_column(header, "bytes");
    cr_assert(ms >= 0 && bytes >= 0 && fb >= 0, "kernels.csv has repack_ms, layout_bytes and bytes");
    cr_assert_gt(csv_number(row, ms), 0, "repack_ms of %s", row);
    cr_assert_eq(csv_number(row, bytes), csv_number(row, fb), "whole groups: the file's bytes: %s", row);
}

Test(kernels_cli, a_repacked_layout_has_its_row, .timeout = 60)
{
    char header[512];
    int rows = kernels_rows("pbkr", "--format q1_0 --isa scalar --layout q1_0_r32lut --l2-kib 64 --batch 1",
                            header, sizeof header, expect_repacked_row);
    cr_assert_eq(rows, 1, "only the layout asked for");
    expect_refused(NULL, "--layout q1_0_x9", "--layout");
}

/* No row of a repacked layout's scalar kernel unless scalar is asked for: it is the layout's oracle, not a
 * contender. */
static void expect_no_scalar_layout(const char *header, const char *row)
{
    (void)header;
    cr_expect(!strstr(row, ",scalar,"), "a layout's oracle measured unasked: %s", row);
}

Test(kernels_cli, a_layout_s_scalar_oracle_runs_only_when_asked, .timeout = 60)
{
    if (!kern_isa_supported(KERN_ISA_AVX2))
        cr_skip_test("no avx2 here: the case is an ISA that lacks q6_K_r16's kernel and falls back to scalar");
    char header[512];
    int rows = kernels_rows("pbko", "--format q6_K --isa avx2 --batch 1", header, sizeof header,
                            expect_no_scalar_layout);
    cr_expect_eq(rows, 2, "avx2's q6_K file and q6_K_r1 kernels only: q6_K_r16 has no avx2 kernel");
}

/* --variant and POOLBENCH_KERNEL, the old names of --isa and POOLBENCH_ISA, still work and say so once. */
Test(kernels_cli, the_old_names_of_isa_still_work_and_say_so)
{
    skip_if_emulated("bench_kernels' timed points");
    char err[2048];
    int wrote;
    int rc = harness_run("bench_kernels", "", "--quick --format q8_0 --variant scalar --level l2 --threads 1 --batch 1 "
                         "--layout file --out run", err, sizeof err, &wrote);
    cr_expect_eq(rc, 0, "%s", err);
    cr_expect_eq(tf_count(err, "--variant is the old name of --isa"), 1, "said once: %s", err);
    rc = harness_run("bench_kernels", "POOLBENCH_KERNEL=scalar", "--quick --format q8_0 --level l2 --threads 1 "
                     "--batch 1 --layout file --out run", err, sizeof err, &wrote);
    cr_expect_eq(rc, 0, "%s", err);
    cr_expect_eq(tf_count(err, "POOLBENCH_KERNEL is the old name of POOLBENCH_ISA"), 1, "said once: %s", err);
}
