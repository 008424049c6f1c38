/* predict.csv (make predict) read back and report.md's "Cycles on paper" section (bench/report/pb_predict.c):
 * which rows count, the best variant per format, the verdict against the chip's bandwidth, escaping, and a file
 * that is absent or malformed. The script that writes predict.csv checks its own rows (scripts/predict.sh). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_predict.h"
#include "test_files.h"

#define HEADER                                                                                                \
    "arch,cpu,chip,clock_ghz,format,variant,function,status,stride_seen,dot_ops,loop_insns,cycles_per_iter,"          \
    "block_rthroughput,mca_model,bytes_per_iter,blocks_per_iter,cycles_per_block,bytes_per_block,"           \
    "bytes_per_cycle,gbs_at_clock,core_bw_gbs,bw_kind,bw_source\n"

/* One row: only the columns the reader uses vary. */
static void row(char *buf, size_t len, const char *cpu, const char *chip, const char *format, const char *isa,
                const char *status, const char *gbs, const char *bw)
{
    size_t at = strlen(buf);
    snprintf(buf + at, len - at, "aarch64,%s,%s,2.0,%s,%s,rows_x,%s,yes,sdot 32/32,10,4.0,4.0,A57,64,0.5,8,128,16,%s,%s,"
             "estimate,a guess\n", cpu, chip, format, isa, status, gbs, bw);
}

/* chip A (bandwidth 10): f32 20 ok (outruns), q8_0 5 ok and 12 branchy in another variant (the faster counts:
 * outruns), q4_0 4 ok (short), q4_K an upper bound 0.3 (short: certain), tq2_0 an upper bound 50 (unknown),
 * q1_0 a cpu-lacks row (nothing). chip B (no bandwidth figure): f16 3 ok. */
static void fixture(char *buf, size_t len)
{
    snprintf(buf, len, HEADER);
    row(buf, len, "a76", "Chip A", "f32", "neon", "ok", "20", "10");
    row(buf, len, "a76", "Chip A", "q8_0", "neon", "ok", "5", "10");
    row(buf, len, "a76", "Chip A", "q8_0", "dotprod", "branchy", "12", "10");
    row(buf, len, "a76", "Chip A", "q4_0", "neon", "ok", "4", "10");
    row(buf, len, "a76", "Chip A", "q4_K", "scalar", "element-loop", "0.3", "10");
    row(buf, len, "a76", "Chip A", "tq2_0", "scalar", "nested", "50", "10");
    row(buf, len, "a76", "Chip A", "q1_0", "i8mm", "cpu-lacks-i8mm", "", "10");
    row(buf, len, "b1", "Chip B", "f16", "neon", "ok", "3", "");
}

/* csv written as dir's predict.csv and read back into *p, which must succeed. */
static void read_back(const char *dir, const char *csv, pb_predict *p)
{
    char path[128];
    pb_csverr e;
    tf_write(dir, "predict.csv", csv);
    snprintf(path, sizeof path, "%s/predict.csv", dir);
    cr_assert_eq(pb_predict_read(p, path, &e), 0, "%s", e.msg);
}

Test(predict, reads_the_best_usable_variant_per_format)
{
    char dir[64], csv[4096];
    tf_tmpdir(dir, sizeof dir, "pb-predict");
    fixture(csv, sizeof csv);
    pb_predict p;
    read_back(dir, csv, &p);
    cr_assert_eq(p.n, 2);
    cr_assert_eq(p.rows, 8);
    cr_assert_eq(p.unusable, 1, "the cpu-lacks row gives nothing");
    const pb_predict_chip *a = &p.c[0], *b = &p.c[1];
    cr_assert_str_eq(a->cpu, "a76");
    cr_assert_str_eq(a->model, "A57");
    cr_assert_float_eq(a->bw_gbs, 10.0, 1e-9);
    cr_assert(isnan(b->bw_gbs), "an empty bandwidth is none, not 0");
    /* formats: f32 0, f16 1, q8_0 2, q4_0 3, q1_0 4, tq2_0 5, q4_K 6, q6_K 7 */
    cr_assert_str_eq(pb_predict_format_name(2), "q8_0");
    cr_assert_float_eq(a->f[2].gbs, 12.0, 1e-9, "the faster of q8_0's two variants");
    cr_assert_str_eq(a->f[2].kernel, "dotprod");
    cr_assert(isnan(a->f[4].gbs), "q1_0: only a cpu-lacks row");
    cr_assert(a->f[6].bound && a->f[5].bound);
    cr_assert_eq(pb_predict_outruns(&a->f[0], a->bw_gbs), 1);
    cr_assert_eq(pb_predict_outruns(&a->f[2], a->bw_gbs), 1);
    cr_assert_eq(pb_predict_outruns(&a->f[3], a->bw_gbs), 0);
    cr_assert_eq(pb_predict_outruns(&a->f[6], a->bw_gbs), 0, "an upper bound below the bandwidth settles it");
    cr_assert_eq(pb_predict_outruns(&a->f[5], a->bw_gbs), -1, "an upper bound above it does not");
    cr_assert_eq(pb_predict_outruns(&a->f[4], a->bw_gbs), -1);
    cr_assert_eq(pb_predict_outruns(&b->f[1], b->bw_gbs), -1, "no bandwidth: not judged");
    tf_rmrf(dir);
}

/* A prediction beats an upper bound for the same format even when the bound is the larger number. */
Test(predict, a_prediction_beats_a_bound)
{
    char dir[64], csv[2048];
    tf_tmpdir(dir, sizeof dir, "pb-predict");
    snprintf(csv, sizeof csv, HEADER);
    row(csv, sizeof csv, "c", "C", "q6_K", "scalar", "nested", "40", "10");
    row(csv, sizeof csv, "c", "C", "q6_K", "neon", "ok", "6", "10");
    pb_predict p;
    read_back(dir, csv, &p);
    cr_assert_str_eq(p.c[0].f[7].kernel, "neon");
    cr_assert_not(p.c[0].f[7].bound);
    tf_rmrf(dir);
}

static char *section(const char *dir)
{
    tf_mem t;
    pb_report_predict(tf_mem_open(&t), dir);
    return tf_mem_text(&t);
}

Test(predict, section_gives_the_verdict_per_chip)
{
    char dir[64], csv[4096];
    tf_tmpdir(dir, sizeof dir, "pb-predict");
    fixture(csv, sizeof csv);
    tf_write(dir, "predict.csv", csv);
    char *s = section(dir);
    /* tq2_0's figure is an unknown (an upper bound), so it is not bold. */
    tf_expect_has(s, "## Cycles on paper (llvm-mca)", "8 rows, 1 of them without a usable prediction",
                  "| f32 20.0, q8_0 12.0 | q4_0 4.0, q4_K ≤0.3 | memory-bound in 2 formats, compute-bound in 2; "
                  "1 unknown (an upper bound above it); 3 without a prediction |",
                  "| Chip B | b1 (A57) | 2.00 | none (estimate) | none | none | not judged: no bandwidth figure; "
                  "7 without a prediction |",
                  "| q8_0 | **12.0** (dotprod) | none |", "| tq2_0 | ≤50.0 (scalar) | none |",
                  "- Chip A: a guess (estimate)");
    free(s);
    tf_rmrf(dir);
}

Test(predict, chip_names_are_escaped)
{
    char dir[64], csv[2048];
    tf_tmpdir(dir, sizeof dir, "pb-predict");
    snprintf(csv, sizeof csv, HEADER);
    row(csv, sizeof csv, "x", "\"A|B <i>\"", "f32", "neon", "ok", "20", "10");
    tf_write(dir, "predict.csv", csv);
    char *s = section(dir);
    cr_assert_not_null(strstr(s, "| A\\|B &lt;i&gt; |"), "%s", s);
    cr_assert_null(strstr(s, "<i>"), "%s", s);
    free(s);
    tf_rmrf(dir);
}

Test(predict, absent_file_writes_nothing_and_a_bad_one_says_so)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pb-predict");
    char *s = section(dir);
    cr_assert_str_eq(s, "", "no predict.csv, no section: %s", s);
    free(s);
    tf_write(dir, "predict.csv", "arch,cpu\naarch64,a76\n");
    s = section(dir);
    cr_assert_not_null(strstr(s, "predict.csv cannot be read"), "%s", s);
    cr_assert_not_null(strstr(s, "no column"), "%s", s);
    free(s);
    tf_rmrf(dir);
}

/* A repacked layout's row competes with the file's for its format and is named with its layout when it wins. */
Test(predict, a_faster_repacked_layout_is_named)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pb-predict-layout");
    pb_predict p;
    read_back(dir,
              "arch,cpu,chip,clock_ghz,format,variant,status,gbs_at_clock,core_bw_gbs,layout\n"
              "x86_64,spr,S,2.5,q8_0,avx512,ok,40,10,file\n"
              "x86_64,spr,S,2.5,q8_0,avx512,branchy,90,10,q8_0_r16\n"
              "x86_64,spr,S,2.5,q4_0,avx512,ok,30,10,file\n"
              "x86_64,spr,S,2.5,q4_0,avx512,unexpected-loop,99,10,q4_0_r16\n",
              &p);
    cr_assert_eq(p.n, 1);
    cr_expect_str_eq(p.c[0].f[2].kernel, "avx512 q8_0_r16");
    cr_expect_float_eq(p.c[0].f[2].gbs, 90.0, 1e-9);
    cr_expect_str_eq(p.c[0].f[3].kernel, "avx512", "an unusable repacked row does not count");
    cr_assert_eq(tf_rmrf(dir), 0);
}
