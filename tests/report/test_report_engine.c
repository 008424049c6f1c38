/* report.md's "Your engine beside the floor" and compare.md's per machine: the real llama-bench output
 * (tests/data/llama-bench) beside a run of the same model shape (tests/data/runs/complete: qwen3-0.6b q8_0, a
 * read floor at 1 and 2 threads). The expected figures are worked by hand from the two fixtures: at 1 thread the
 * floor's best kernel (avx512-nt) reads a median 33.17 GB/s, so 798,801,920 bytes allow 41.5 tok/s and the
 * engine's 22.50 is 54% of it; poolbench's fastest q8_0 decode there is hybrid's 50.71 tok/s, 2.25x. Cells are
 * then edited and the sentences seen to change with them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixture.h"
#include "run_dir.h"
#include "test_files.h"

#define LB "tests/data/llama-bench/"

/* A copy of the complete fixture with fixture (a file of tests/data/llama-bench) beside it as `as`. */
static void engine_run(char *dir, size_t len, const char *fixture, const char *as)
{
    copy_fixture("complete", dir, len);
    char cmd[900], out[512];
    snprintf(cmd, sizeof cmd, "cp " LB "%s %s/%s", fixture, dir, as);
    cr_assert_eq(tf_run(out, sizeof out, cmd), 0, "%s", out);
}

/* bench_report --no-plots DIR [args]: its exit status; report.md's text (NULL when it was not written). */
static char *report(const char *dir, const char *args, int *rc)
{
    static char out[8192];
    *rc = sh(out, sizeof out, "rm -f %s/report.md; $B/bench_report --no-plots %s %s", dir, args, dir);
    return tf_read("%s/report.md", dir);
}

static void expect_in(const char *text, const char *want)
{
    cr_expect_not_null(strstr(text, want), "wanted: %s\nin the section:\n%s", want, strstr(text, "## Your engine"));
}

Test(engine, report_places_each_tg_point)
{
    char dir[256];
    engine_run(dir, sizeof dir, "llama-bench.json", "llama-bench.json");
    int rc;
    char *md = tf_must_exist(report(dir, "", &rc), "report.md");
    cr_expect_eq(rc, 0);
    expect_in(md, "## Your engine beside the floor");
    expect_in(md, "llama-bench.json (json): llama.cpp build unknown (0) on AMD EPYC, backend CPU; qwen3 0.6B Q8_0 "
                  "(guessed) from models/qwen3-0.6b-rand-q8_0.gguf: 799 MB, 751.6 M parameters; threads not pinned "
                  "(cpu_strict 0, cpu_mask 0x0). 4 tests, 4 of them tg.");
    expect_in(md, "| tg16 | 1 | 0 | 22.50 | 21.53–23.49 (3) | 33.2 | 41.5 | 54% | 50.71 (hybrid) | 2.25× |");
    expect_in(md, "| tg16 @ d256 | 1 | 256 | 19.31 | 18.61–19.73 (3) | 33.2 | 41.5 | 46% | — | — |");
    expect_in(md, "| tg16 | 2 | 0 | 9.58 | 7.06–11.14 (3) noisy | 35.0 | 43.8 | 22% | 52.96 (spin) | 5.53× |");
    expect_in(md, "- tg16 at 1 thread, depth 0: llama.cpp decodes qwen3 0.6B Q8_0 (guessed) at 22.50 tok/s (21.53 to "
                  "23.49 over 3 repetitions), 54% of the floor (41.5 tok/s: 799 MB at the 33.2 GB/s median read through "
                  "1 thread); poolbench decodes qwen3-0.6b q8_0 (the same shape and format) there at 50.71 tok/s "
                  "(hybrid, static; 94% of the floor for the 633 MB of weights it reads): 2.25× llama.cpp's.");
    expect_in(md, "- tg16 @ d256 at 1 thread, depth 256: llama.cpp decodes qwen3 0.6B Q8_0 (guessed) at 19.31 tok/s");
    expect_in(md, "sweep.csv has no decode of this model at 1 thread, depth 256, to set beside it.");
    expect_in(md, "NOISY: its repetitions spread 39% (slowest to fastest over the median), over the 25% a figure can "
                  "carry.");
    drop_fixture(dir);
}

/* Edited cells move the sentences: the floor's median, poolbench's decode, the engine's own figure and model. */
Test(engine, sentences_follow_the_cells)
{
    char dir[256], out[4096];
    engine_run(dir, sizeof dir, "llama-bench.csv", "llama-bench.csv");
    int rc;
    char *md = tf_must_exist(report(dir, "", &rc), "report.md");
    expect_in(md, "| tg16 | 1 | 0 | 22.50 | ± 0.98 | 33.2 | 41.5 | 54% | 50.71 (hybrid) | 2.25× |");
    expect_in(md, "| tg16 | 2 | 0 | 9.58 | ± 2.20 noisy | 35.0 | 43.8 | 22% | 52.96 (spin) | 5.53× |");
    /* the 1-thread floor's best kernel reads a median 16.00 GB/s: 20.0 tok/s, the engine 112% of it */
    size_t r = find_row(dir, "memory_floor.csv",
                        (const char *const[]){ "kernel", "avx512-nt", "threads", "1", "op", "read", NULL });
    set_cell(dir, "memory_floor.csv", r, "gbps_median", "16.00");
    /* poolbench's hybrid point at 1 thread decodes faster */
    r = find_row(dir, "sweep.csv", (const char *const[]){ "policy", "hybrid", "threads", "1", "tok_per_s", "50.71", NULL });
    set_cell(dir, "sweep.csv", r, "tok_per_s", "60.00");
    /* the engine's own 2-thread figure, and the model of its last test */
    set_cell(dir, "llama-bench.csv", 2, "avg_ts", "26.480000");
    set_cell(dir, "llama-bench.csv", 3, "model_type", "llama 8B Q4_0");
    md = tf_must_exist(report(dir, "", &rc), "report.md");
    cr_expect_eq(rc, 0);
    expect_in(md, "| tg16 | 1 | 0 | 22.50 | ± 0.98 | 16.0 | 20.0 | 112% | 60.00 (hybrid) | 2.67× |");
    expect_in(md, "112% of the floor (20.0 tok/s: 799 MB at the 16.0 GB/s median read through 1 thread); poolbench "
                  "decodes qwen3-0.6b q8_0 (the same shape and format) there at 60.00 tok/s (hybrid, static; 94% of "
                  "the floor for the 633 MB of weights it reads): 2.67× llama.cpp's.");
    expect_in(md, "| tg16 | 2 | 0 | 26.48 | ± 2.20 | 35.0 | 43.8 | 60% | 52.96 (spin) | 2.00× |");
    expect_in(md, "- tg16 @ d256 at 2 threads, depth 256: llama.cpp decodes llama 8B Q4_0 at 10.02 tok/s (± 2.13), "
                  "23% of the floor");
    expect_in(md, "sweep.csv has no decode of this model at 2 threads, depth 256, to set beside it");
    /* no read floor at 2 threads */
    cr_assert_eq(sh(out, sizeof out, "sed -i '/,read,[^,]*,2,/d' %s/memory_floor.csv", dir), 0, "%s", out);
    md = tf_must_exist(report(dir, "", &rc), "report.md");
    expect_in(md, "| tg16 | 2 | 0 | 26.48 | ± 2.20 | — | — | — | 52.96 (spin) | 2.00× |");
    expect_in(md, "memory_floor.csv has no read floor at 2 threads, so no % of the floor");
    drop_fixture(dir);
}

/* --engine FILE adds a file from elsewhere (any of the formats); the same file named twice is read once. */
Test(engine, engine_option_adds_a_file)
{
    char dir[256];
    copy_fixture("complete", dir, sizeof dir);
    int rc;
    char *md = tf_must_exist(report(dir, "--engine " LB "llama-bench.md", &rc), "report.md");
    cr_expect_eq(rc, 0);
    expect_in(md, "llama-bench.md (md): llama.cpp build unknown (0) on a CPU it does not name, backend CPU; qwen3 0.6B "
                  "Q8_0 (guessed) from a file it does not name: 799 MB, 751.6 M parameters. 4 tests, 4 of them tg; "
                  "the md table rounds its figures and has no samples.");
    expect_in(md, "| tg16 | 1 | 0 | 22.89 | ± 0.59 | 33.2 | 41.5 | 55% | 50.71 (hybrid) | 2.22× |");
    char out[4096];
    cr_assert_eq(sh(out, sizeof out, "cp " LB "llama-bench.sql %s/llama-bench.sql", dir), 0, "%s", out);
    char opt[400];
    snprintf(opt, sizeof opt, "--engine %s/llama-bench.sql", dir);
    md = tf_must_exist(report(dir, opt, &rc), "report.md");
    cr_expect_eq(tf_count(md, "llama-bench.sql (sql)"), 1, "read once");
    drop_fixture(dir);
}

/* A run directory whose path is longer than 256 bytes: its engine file named again by --engine is read once,
 * under its own name (once the name was cut at 255 bytes, so realpath missed it: listed twice as "long", every
 * row doubled). */
Test(engine, a_long_run_path_is_read_once_under_its_name)
{
    char dir[256], lng[600], out[4096];
    engine_run(dir, sizeof dir, "llama-bench.csv", "llama-bench.csv");
    int at = snprintf(lng, sizeof lng, "%s-long-", dir);
    memset(lng + at, 'l', 278 - (size_t)at);
    lng[278] = '\0';
    cr_assert_eq(sh(out, sizeof out, "mv %s %s", dir, lng), 0, "%s", out);
    char opt[700];
    snprintf(opt, sizeof opt, "--engine %s/llama-bench.csv", lng);
    int rc;
    char *md = tf_must_exist(report(lng, opt, &rc), "report.md");
    cr_expect_eq(rc, 0);
    cr_expect_eq(tf_count(md, "llama-bench.csv (csv)"), 1, "read once, under its name: %s", strstr(md, "## Your engine"));
    cr_assert_eq(sh(out, sizeof out, "mv %s %s", lng, dir), 0, "%s", out);
    drop_fixture(dir);
}

/* A bad llama-bench file, in the directory or given: one line naming the file and line, exit 2, nothing written. */
Test(engine, bad_engine_file_is_exit_2_before_work)
{
    char dir[256], out[8192];
    engine_run(dir, sizeof dir, "llama-bench.jsonl", "llama-bench.jsonl");
    cr_assert_eq(sh(out, sizeof out, "sed -i '2s/\"n_threads\": 1/\"n_threads\": one/' %s/llama-bench.jsonl", dir), 0);
    int rc = sh(out, sizeof out, "$B/bench_report --no-plots %s", dir);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect_not_null(strstr(out, "/llama-bench.jsonl:2:"), "%s", out);
    cr_expect_not_null(strstr(out, "invalid token near 'one'"), "%s", out); /* jansson's words */
    cr_expect_eq(tf_count(out, "\n"), 1, "one line: %s", out);
    cr_expect_eq(file_size(dir, "report.md"), -1, "nothing written");
    cr_expect_eq(file_size(dir, "results.json"), -1, "nothing written");
    cr_assert_eq(sh(out, sizeof out, "rm %s/llama-bench.jsonl && mkfifo %s/fifo.json", dir, dir), 0, "%s", out);
    rc = sh(out, sizeof out, "timeout 20 $B/bench_report --no-plots --engine %s/fifo.json %s", dir, dir);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect_not_null(strstr(out, "fifo.json: not a regular file (a FIFO)"), "%s", out);
    rc = sh(out, sizeof out, "$B/bench_report --engine " LB "llama-bench.csv --schema-md");
    cr_expect_eq(rc, 2, "--engine does not go with a mode that stands alone: %s", out);
    drop_fixture(dir);
}

/* compare.md: each machine's engine file against its own floor and its own decode. */
Test(engine, compare_shows_each_machine)
{
    char a[256], b[256], out[8192];
    engine_run(a, sizeof a, "llama-bench.json", "llama-bench.json");
    copy_fixture("laptop", b, sizeof b);
    cr_assert_eq(sh(out, sizeof out, "cp " LB "llama-bench.csv %s/", b), 0, "%s", out);
    int rc = sh(out, sizeof out, "$B/bench_compare --no-plots %s %s --out %s-cmp", a, b, a);
    cr_expect_eq(rc, 0, "%s", out);
    char *md = tf_must_exist(tf_read("%s-cmp/compare.md", a), "compare.md");
    expect_in(md, "## Your engine beside the floor, per machine");
    char *dev = strstr(md, "### devbox"), *lap = strstr(md, "### laptop");
    cr_assert(dev && lap && dev < lap, "a section per machine, in the runs' order");
    cr_expect_not_null(strstr(dev, "| tg16 | 1 | 0 | 22.50 | 21.53–23.49 (3) | 33.2 | 41.5 | 54% | 50.71 (hybrid) |"));
    /* the laptop: a median 21.34 GB/s at 1 thread, 26.7 tok/s; its fastest q8_0 decode at 1 thread spawn's 32.59 */
    cr_expect_not_null(strstr(lap, "| tg16 | 1 | 0 | 22.50 | ± 0.98 | 21.3 | 26.7 | 84% | 32.59 (spawn) | 1.45× |"),
                       "%s", lap);
    drop_fixture(a);
    drop_fixture(b);
}

/* bench_report --check (and so bench_check) reads the run's llama-bench files too: a bad one is a problem line. */
Test(engine, check_reads_the_engine_files)
{
    char dir[256], out[8192];
    engine_run(dir, sizeof dir, "llama-bench.json", "llama-bench.json");
    sh(out, sizeof out, "$B/bench_report --check %s", dir);
    cr_expect_null(strstr(out, "llama-bench"), "a good file is no problem: %s", out);
    cr_assert_eq(sh(out, sizeof out, "sed -i '16s/false/2/' %s/llama-bench.json", dir), 0, "%s", out);
    int rc = sh(out, sizeof out, "$B/bench_report --check %s", dir);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect_not_null(strstr(out, "/llama-bench.json:2: field 'cpu_strict': '2' is not 0 or 1"), "%s", out);
    drop_fixture(dir);
}

/* A pp test (llama-bench's first row made pp64: n_prompt 64, n_gen 0) beside the run's prompts of 64 tokens of
 * the same shape and format: the fastest at its threads (spin's 300.50 tok/s over 150.25: 13.4x the engine's
 * 22.50, at 41% of the roof), none at 2 threads, and a prompt of 32 tokens never taken for it. */
Test(engine, a_pp_test_beside_poolbench_s_prompt)
{
    char dir[64], out[1024], cmd[512];
    tf_tmpdir(dir, sizeof dir, "pbengpp");
    rd_machine_csv(dir, NULL, NULL);
    const char *const *rows[] = {
        (const char *const[]){ "model", "qwen3-0.6b", "format", "q8_0", "model_file", "", "emulate_slow", "",
                               "prompt", "64", "batch", "64", "threads", "1", "context", "0", "tok_per_s", "150.25",
                               "roof_share", "0.2", "policy", "condvar", "schedule", "static", NULL },
        (const char *const[]){ "model", "qwen3-0.6b", "format", "q8_0", "model_file", "", "emulate_slow", "",
                               "prompt", "64", "batch", "64", "threads", "1", "context", "0", "tok_per_s", "300.5",
                               "roof_share", "0.41", "policy", "spin", "schedule", "steal:64", NULL },
        (const char *const[]){ "model", "qwen3-0.6b", "format", "q8_0", "model_file", "", "emulate_slow", "",
                               "prompt", "32", "batch", "32", "threads", "1", "context", "0", "tok_per_s", "900",
                               "roof_share", "0.9", "policy", "spin", "schedule", "static", NULL },
    };
    rd_sweep_csv(dir, rows, 3);
    snprintf(cmd, sizeof cmd, "awk -F, -v OFS=, 'NR == 2 { $(NF - 7) = \"\\\"64\\\"\"; $(NF - 6) = \"\\\"0\\\"\" } 1' "
             LB "llama-bench.csv > %s/llama-bench.csv", dir);
    cr_assert_eq(tf_run(out, sizeof out, cmd), 0, "%s", out);
    int rc;
    char *md = tf_must_exist(report(dir, "", &rc), "report.md");
    expect_in(md, "| pp64 | 1 | 0 | 22.50 | ± 0.98 | 300.50 (spin, steal:64) | 13.4× | 41% |");
    expect_in(md, "4 tests, 3 of them tg (the others process a prompt");
    tf_rmrf(dir);
}
