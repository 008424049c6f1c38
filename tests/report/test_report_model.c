/* test_report_model.c — report.md's "Decode at depth" section (bench/report/model) from a sweep.csv written here:
 * a model file's name, architecture and tensor-type mix, a row per point with the llama-bench command of the same
 * point, attention's speed-up over threads; nothing for a preset at one context; and bench_report drawing
 * sweep_context.png beside it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness_run.h"
#include "pb_report.h"
#include "pb_schema.h"
#include "run_dir.h"
#include "test_files.h"

/* A run directory holding machine.csv and a sweep.csv of rows (each a NULL-terminated name=value list). */
static void run_dir(char *dir, size_t len, const char *const *const *rows, int n)
{
    tf_tmpdir(dir, len, "pbrepmodel");
    tf_write(dir, "machine.csv", "key,value\nhost,h\nrun_id,r\n");
    rd_sweep_csv(dir, rows, n);
}

/* The section for dir, malloc'd. */
static char *section(const char *dir)
{
    return rd_section(dir, pb_report_model);
}

#define FILE_ROW(ctx, thr, attn)                                                                                    \
    (const char *const[]){ "model", "Qwen3_0.6B", "model_file", "m.gguf", "arch", "qwen3", "weights", "mmap",         \
                           "type_mix", "q8_0:197:633.1MB f32:113:0.4MB", "weight_bytes", "633100000", "policy", "spin", \
                           "schedule", "static", "glue", "fused", "kv_type", "f16", "cpuset", "p", "context", ctx,       \
                           "threads", thr, "attn_ms_median", attn, "tok_per_s", "20.5", NULL }

Test(report_model, a_model_file_at_depth)
{
    const char *const *rows[] = { FILE_ROW("0", "1", "0.5"), FILE_ROW("4096", "1", "8"), FILE_ROW("0", "2", "0.4"),
                                  FILE_ROW("4096", "2", "4") };
    char dir[64];
    run_dir(dir, sizeof dir, rows, 4);
    char *s = section(dir);
    static const char *const want[] = {
        "## Decode at depth", "**Qwen3_0.6B** from m.gguf (architecture qwen3), weights mmap: 633.1 MB",
        "| q8_0 | 197 | 633.1 |", "| f32 | 113 | 0.4 |", "| 4096 | 0.0 | 2 | spin | 1 | 20.50 |",
        "llama-bench -m m.gguf -p 0 -n 128 -d 4096 -t 2 |", "llama-bench -m m.gguf -p 0 -n 128 -d 0 -t 1 |",
        "- context 4096, spin: 8.000 ms at 1 thread, 4.000 ms at 2: 2.00x", NULL,
    };
    for (int i = 0; want[i]; i++)
        cr_expect_not_null(strstr(s, want[i]), "no '%s' in:\n%s", want[i], s);
    free(s);
    tf_rmrf(dir);
}

Test(report_model, nothing_for_a_preset_at_one_context)
{
    const char *const *rows[] = { (const char *const[]){ "model", "qwen3-0.6b", "model_file", "", "context", "0", NULL } };
    char dir[64];
    run_dir(dir, sizeof dir, rows, 1);
    char *s = section(dir);
    cr_expect_str_eq(s, "");
    free(s);
    tf_rmrf(dir);
}

/* bench_report on the run: the section in report.md and, with gnuplot, the depth plot beside sweep.gp's. */
Test(report_model, bench_report_draws_the_depth_plot, .timeout = 120)
{
    const char *const *rows[] = { FILE_ROW("0", "1", "0.5"), FILE_ROW("512", "1", "1"), FILE_ROW("4096", "1", "8") };
    char dir[64], env[4200], cwd[4096], path[256];
    run_dir(dir, sizeof dir, rows, 3);
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(env, sizeof env, "POOLBENCH_PLOTS='%s/plots'", cwd);
    harness_run_ok(dir, "bench_report", env, ".");
    char *md = tf_slurp("%s/report.md", dir);
    cr_expect_not_null(strstr(md, "## Decode at depth"), "%s", md);
    snprintf(path, sizeof path, "%s/sweep.png", dir);
    if (access(path, F_OK) == 0) { /* gnuplot drew sweep.gp: the depth plot is drawn too */
        snprintf(path, sizeof path, "%s/sweep_context.png", dir);
        cr_expect_eq(access(path, F_OK), 0, "no sweep_context.png");
    }
    tf_rmrf(dir);
}
