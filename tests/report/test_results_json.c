/* results.json (bench_report): Google Benchmark's JSON format, read back with a strict JSON reader
 * (json_mini.h): a context, and one benchmark per point with what compare.py reads (name, run_type, real_time,
 * cpu_time, time_unit) and the point's figures as counters; text from the run directory cannot break it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_mini.h"
#include "report_fixture.h"

/* bench_report --no-plots on the run directory dir; its results.json parsed into *root. */
static void report_json_in(const char *dir, jm_val *root)
{
    char out[8192], err[256], path[300];
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report --no-plots %s", dir), 0, "%s", out);
    cr_expect(strstr(out, "results: ") && strstr(out, "results.json"), "says where: %s", out);
    snprintf(path, sizeof path, "%s/results.json", dir);
    char *text = jm_slurp(path);
    cr_assert_not_null(text, "%s", path);
    int rc = jm_parse(text, root, err, sizeof err);
    free(text);
    cr_assert_eq(rc, 0, "results.json parses: %s", err);
    cr_assert_eq(root->type, JM_OBJ);
}

/* report_json_in on a copy of fixture (its name into dir). */
static void report_json(const char *fixture, char *dir, size_t len, jm_val *root)
{
    copy_fixture(fixture, dir, len);
    report_json_in(dir, root);
}

static bool is_num(const jm_val *v) { return v && v->type == JM_NUM; }
static bool is_str(const jm_val *v) { return v && v->type == JM_STR; }

/* What compare.py reads of every benchmark, and Google Benchmark's other per-run keys. */
static void expect_benchmark(const jm_val *b, size_t i)
{
    cr_assert_eq(b->type, JM_OBJ, "benchmark %zu is an object", i);
    const jm_val *name = jm_get(b, "name"), *unit = jm_get(b, "time_unit"), *type = jm_get(b, "run_type");
    cr_assert(is_str(name), "benchmark %zu has a name", i);
    cr_expect(is_str(jm_get(b, "run_name")) && strcmp(jm_get(b, "run_name")->str, name->str) == 0, "%s", name->str);
    cr_expect(is_str(type) && strcmp(type->str, "iteration") == 0, "%s: run_type", name->str);
    cr_expect(is_num(jm_get(b, "real_time")) && jm_get(b, "real_time")->num > 0, "%s: real_time", name->str);
    cr_expect(is_num(jm_get(b, "cpu_time")), "%s: cpu_time", name->str);
    cr_expect(is_str(unit) && strstr(" ns us ms s ", unit->str) && strlen(unit->str) <= 2, "%s: time_unit",
              name->str);
    static const char *const ints[] = { "iterations", "repetitions", "repetition_index", "threads", "family_index",
                                        "per_family_instance_index", NULL };
    for (const char *const *k = ints; *k; k++)
        cr_expect(is_num(jm_get(b, *k)), "%s: %s", name->str, *k);
}

/* The quick report of the development VM: every part of the suite ran. */
Test(results_json, quick_run_in_google_benchmark_format)
{
    char dir[256];
    jm_val root;
    report_json("quick", dir, sizeof dir, &root);
    const jm_val *ctx = jm_get(&root, "context"), *bm = jm_get(&root, "benchmarks");
    cr_assert(ctx && ctx->type == JM_OBJ, "a context object");
    cr_expect(is_str(jm_get(ctx, "host_name")) && strcmp(jm_get(ctx, "host_name")->str, "vm") == 0);
    cr_expect(is_str(jm_get(ctx, "date")) && strcmp(jm_get(ctx, "date")->str, "2026-11-30T09:17:57") == 0);
    cr_expect(is_num(jm_get(ctx, "num_cpus")) && jm_get(ctx, "num_cpus")->num == 2);
    cr_expect(is_num(jm_get(ctx, "mhz_per_cpu")) && is_str(jm_get(ctx, "library_build_type")));
    const jm_val *caches = jm_get(ctx, "caches"), *load = jm_get(ctx, "load_avg");
    cr_expect(caches && caches->type == JM_ARR && caches->n == 3, "L1, L2, L3");
    cr_expect(caches && caches->n && is_num(jm_get(&caches->items[2], "size")) &&
              jm_get(&caches->items[2], "size")->num == 314572800);
    cr_expect(load && load->type == JM_ARR && load->n == 3);
    const jm_val *facts = jm_get(ctx, "poolbench");
    cr_expect(is_str(jm_get(facts, "schema_version")) && is_str(jm_get(facts, "isa")), "machine.csv's facts");

    cr_assert(bm && bm->type == JM_ARR && bm->n >= 10, "at least 10 benchmarks: %zu", bm ? bm->n : 0);
    for (size_t i = 0; i < bm->n; i++)
        expect_benchmark(&bm->items[i], i);
    for (size_t i = 0; i < bm->n; i++)
        for (size_t j = i + 1; j < bm->n; j++)
            cr_expect_str_neq(jm_get(&bm->items[i], "name")->str, jm_get(&bm->items[j], "name")->str,
                              "names are unique (compare.py matches by name)");

    /* A decode point: its time per token, and its figures as counters, straight from sweep.csv's row. */
    const jm_val *b = &bm->items[0];
    cr_expect_str_eq(jm_get(b, "name")->str, "decode/qwen3-0.6b/q8_0/spin/static/fused/p/threads:1");
    cr_expect_str_eq(jm_get(b, "time_unit")->str, "ms");
    cr_expect_float_eq(jm_get(b, "real_time")->num, 228.0113, 1e-9);
    cr_expect(is_num(jm_get(b, "tok_per_s")) && fabs(jm_get(b, "tok_per_s")->num - 4.386) < 1e-9);
    cr_expect(is_num(jm_get(b, "pct_of_floor")) && fabs(jm_get(b, "pct_of_floor")->num - 74.41) < 1e-9);
    cr_expect_float_eq(jm_get(b, "iterations")->num, 5, 1e-9, "5 timed tokens");
    int dispatch = 0;
    for (size_t i = 0; i < bm->n; i++)
        dispatch += strcmp(jm_get(&bm->items[i], "name")->str, "dispatch/spin/threads:2/gap_us:0/job_ns:0") == 0 &&
                    is_num(jm_get(&bm->items[i], "ratio_to_rt")) && is_num(jm_get(&bm->items[i], "ratio_to_omp"));
    cr_expect_eq(dispatch, 1, "the spin dispatch at 2 threads, with its ratios");
    jm_free(&root);
    drop_fixture(dir);
}

/* A machine.csv anyone could have written: quotes, backslashes, control characters and bytes that are not
 * UTF-8 come out as valid JSON strings. An older run (no sweep series, no verified) still gives its points. */
Test(results_json, hostile_text_and_old_csvs)
{
    char dir[256];
    copy_fixture("complete", dir, sizeof dir);
    size_t r = find_row(dir, "machine.csv", (const char *const[]){ "key", "brand", NULL });
    set_cell(dir, "machine.csv", r, "value", "a \"quoted\" \\ brand\t\x01\xff\xc3\xa9");
    jm_val root;
    report_json_in(dir, &root);
    const jm_val *brand = jm_get(jm_get(jm_get(&root, "context"), "poolbench"), "brand");
    cr_assert(is_str(brand));
    cr_expect_str_eq(brand->str, "a \"quoted\" \\ brand\t\x01\xef\xbf\xbd\xc3\xa9", "escaped, U+FFFD for the bad byte");
    const jm_val *bm = jm_get(&root, "benchmarks");
    cr_assert(bm && bm->n >= 10, "%zu", bm ? bm->n : 0);
    for (size_t i = 0; i < bm->n; i++)
        expect_benchmark(&bm->items[i], i);
    jm_free(&root);
    drop_fixture(dir);
}

/* The reader the tests above rely on refuses what a careless writer would produce. */
Test(results_json, reader_is_strict)
{
    static const char *const bad[] = {
        "{\"a\": NaN}", "{\"a\": 1,}", "[1 2]", "{\"a\" 1}", "{\"a\": \"x\ty\"}", "{\"a\": 01}", "{\"a\": .5}",
        "{\"a\": \"\xff\"}", "{\"a\": \"\\ud800\"}", "[1] x", "{a: 1}", "[\"unterminated]", NULL,
    };
    jm_val v;
    char err[256];
    for (const char *const *s = bad; *s; s++)
        cr_expect_eq(jm_parse(*s, &v, err, sizeof err), -1, "refused: %s", *s);
    static const char good[] = "{\"a\": [1, -2.5e3, true, null, \"\\u00e9\\ud83d\\ude00\"], \"b\": {}}";
    cr_assert_eq(jm_parse(good, &v, err, sizeof err), 0, "%s", err);
    const jm_val *a = jm_get(&v, "a");
    cr_assert(a && a->type == JM_ARR && a->n == 5);
    cr_expect_float_eq(a->items[1].num, -2500, 1e-9);
    cr_expect_str_eq(a->items[4].str, "\xc3\xa9\xf0\x9f\x98\x80");
    jm_free(&v);
}

/* report_json_in on a new run directory (its name into dir) holding sweep.csv alone, with text. */
static void json_of_sweep(const char *text, char *dir, size_t len, jm_val *root)
{
    tf_tmpdir(dir, len, "pbjson");
    tf_write(dir, "sweep.csv", text);
    report_json_in(dir, root);
}

/* Points that differ only in their context, cache type or weights' home keep names of their own (first wins
 * otherwise, and the others would be lost); the defaults (context 0, f16, the arena) stay out of the name. */
Test(results_json, depth_and_cache_in_the_names)
{
    char dir[64];
    jm_val root;
    json_of_sweep("model,format,policy,schedule,glue,cpuset,threads,batch,tokens,ms_per_token_median,tok_per_s,context,"
                  "kv_type,weights\n"
                  "m,q8_0,spin,static,fused,p,1,1,2,100,10,0,f16,arena\n"
                  "m,q8_0,spin,static,fused,p,1,1,2,110,9.09,512,f16,arena\n"
                  "m,q8_0,spin,static,fused,p,1,1,2,105,9.52,512,q8_0,arena\n"
                  "m,q8_0,spin,static,fused,p,1,1,2,101,9.9,0,f16,mmap\n",
                  dir, sizeof dir, &root);
    const jm_val *bm = jm_get(&root, "benchmarks");
    static const char *const names[] = {
        "decode/m/q8_0/spin/static/fused/p/threads:1",
        "decode/m/q8_0/spin/static/fused/p/threads:1/context:512",
        "decode/m/q8_0/spin/static/fused/p/threads:1/context:512/kv_type:q8_0",
        "decode/m/q8_0/spin/static/fused/p/threads:1/mmap",
    };
    cr_assert(bm && bm->n == 4, "four points: %zu", bm ? bm->n : 0);
    for (size_t i = 0; i < 4; i++)
        cr_expect_str_eq(jm_get(&bm->items[i], "name")->str, names[i]);
    jm_free(&root);
    tf_rmrf(dir);
}

/* A prompt's point is named as one (prompt:N beside its batch), and its speed-up over 1 thread is over the 1-thread
 * prompt of its series, not over a decode of as many rows: tok/s 300 at 2 threads over the prompt's 200 at 1, 1.5x
 * (a batch-16 decode at 1 thread, 100 tok/s, would make it 3x). */
Test(results_json, a_prompt_is_named_and_scaled_as_one)
{
    char dir[64];
    jm_val root;
    json_of_sweep("model,format,policy,schedule,glue,cpuset,threads,batch,tokens,ms_per_token_min,ms_per_token_median,"
                  "ms_per_token_max,tok_per_s,context,kv_type,weights,prompt\n"
                  "m,q8_0,spin,static,fused,p,1,16,2,160,160,160,100,0,f16,arena,0\n"
                  "m,q8_0,spin,static,fused,p,1,16,2,80,80,80,200,0,f16,arena,16\n"
                  "m,q8_0,spin,static,fused,p,2,16,2,53.3,53.3,53.3,300,0,f16,arena,16\n",
                  dir, sizeof dir, &root);
    const jm_val *bm = jm_get(&root, "benchmarks");
    cr_assert(bm && bm->n == 3, "three points: %zu", bm ? bm->n : 0);
    cr_expect_str_eq(jm_get(&bm->items[0], "name")->str, "decode/m/q8_0/spin/static/fused/p/threads:1/batch:16");
    cr_expect_str_eq(jm_get(&bm->items[2], "name")->str,
                     "decode/m/q8_0/spin/static/fused/p/threads:2/batch:16/prompt:16");
    const jm_val *x = jm_get(&bm->items[2], "x_1thread");
    cr_assert(is_num(x), "the prompt's speed-up over 1 thread");
    cr_expect_float_eq(x->num, 1.5, 1e-6, "over the 1-thread prompt: %g", x->num);
    jm_free(&root);
    tf_rmrf(dir);
}
