/* test_report_kernels.c — report.md's "Kernels that ran" (bench/report/pb_report_kernels.c) from a sweep.csv written
 * here: one row per format and thread count saying which kernel ran, on which layout (a repacked one with its copy's
 * size) and why, how it streamed, the floor's why; the rows that ran by rank counted with what to do about it;
 * nothing without sweep.csv. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_report.h"
#include "pb_schema.h"
#include "run_dir.h"
#include "test_files.h"

/* The section for a run directory holding machine.csv and, when n > 0, a sweep.csv of rows; malloc'd. */
static char *section_of(const char *const *const *rows, int n)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbrepkern");
    tf_write(dir, "machine.csv", "key,value\nhost,h\nrun_id,r\n");
    if (n > 0)
        rd_sweep_csv(dir, rows, n);
    char *text = rd_section(dir, pb_report_kernels);
    tf_rmrf(dir);
    return text;
}

#define ROW(fmt, thr, kern, why, stream, floor, pol)                                                                \
    (const char *const[]){ "format", fmt, "threads", thr, "kernel", kern, "kernel_why", why, "kernel_stream", stream, \
                           "floor_why", floor, "policy", pol, "kernel_layout", *why ? "file" : "", NULL }

Test(report_kernels, each_format_and_thread_count_once_with_its_why)
{
    const char *const *rows[] = {
        ROW("q8_0", "1", "avx2", "tuned", "t2@3072", "tuned", "spin"),
        ROW("q8_0", "1", "avx2", "tuned", "t2@3072", "tuned", "condvar"), /* another policy: the same kernel */
        ROW("q6_K", "2", "avx512", "rank", "t2", "all", "spin"),
        ROW("q4_0", "1", "avx2", "forced", "off", "all", "spin"),
    };
    char *s = section_of(rows, 4);
    static const char *const want[] = {
        "## Kernels that ran", "| q8_0 | 1 | avx2 | file | tuned | t2@3072 | tuned |",
        "| q6_K | 2 | avx512 | file | rank | t2 | all |", "| q4_0 | 1 | avx2 | file | forced | off | all |",
        "1 of these ran by rank: `bench_tune`", NULL,
    };
    for (int i = 0; want[i]; i++)
        cr_expect_not_null(strstr(s, want[i]), "no '%s' in:\n%s", want[i], s);
    const char *first = strstr(s, "| q8_0 | 1 |");
    cr_expect(first && !strstr(first + 1, "| q8_0 | 1 |"), "a combination once:\n%s", s);
    cr_expect_null(strstr(s, "re-laid"), "no repacked layout, no word of a copy:\n%s", s);
    free(s);
}

#define ROW_LAID(fmt, thr, layout, bytes)                                                                           \
    (const char *const[]){ "format", fmt, "threads", thr, "kernel", "avx512", "kernel_why", "tuned", "kernel_stream", \
                           "off", "floor_why", "all", "policy", "spin", "kernel_layout", layout, "repacked_bytes",  \
                           bytes, NULL }

/* A repacked layout is named with the memory its copy took, and said to be a copy beside the weights; the file
 * layout of the same format at another thread count is its own row. */
Test(report_kernels, a_repacked_layout_names_its_copy)
{
    const char *const *rows[] = {
        ROW_LAID("tq2_0", "1", "tq2_0_r16", "153652224"),
        ROW_LAID("tq2_0", "2", "file", "0"),
    };
    char *s = section_of(rows, 2);
    static const char *const want[] = {
        "| tq2_0 | 1 | avx512 | tq2_0_r16, copy 153.7 MB | tuned | off | all |",
        "| tq2_0 | 2 | avx512 | file | tuned | off | all |",
        "re-laid when the decode loaded them, into a copy held beside the weights",
        NULL,
    };
    for (int i = 0; want[i]; i++)
        cr_expect_not_null(strstr(s, want[i]), "no '%s' in:\n%s", want[i], s);
    free(s);
}

Test(report_kernels, an_old_run_says_not_recorded_and_none_without_a_sweep)
{
    const char *const *rows[] = { ROW("q8_0", "1", "avx512", "", "", "", "spin") };
    char *s = section_of(rows, 1);
    cr_expect_not_null(strstr(s, "| q8_0 | 1 | avx512 | file | not recorded |"), "%s", s);
    free(s);
    s = section_of(NULL, 0);
    cr_expect_str_eq(s, "");
    free(s);
}
