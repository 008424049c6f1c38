/* The dashboard exports (bench_report): bencher.json in Bencher's Metric Format and the two
 * github-action-benchmark files (customBiggerIsBetter, customSmallerIsBetter), each read back with a strict JSON
 * reader (json_mini.h) and held to its published format: BMF's object of benchmarks of measures, each with a
 * numeric value and optional lower_value <= value <= upper_value; github-action-benchmark's array of entries with
 * name, unit and value (range and extra optional, both text), nothing else. Then one decode point's figures
 * against the fixture's cells. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_mini.h"
#include "report_fixture.h"

static bool is_num(const jm_val *v) { return v && v->type == JM_NUM; }
static bool is_str(const jm_val *v) { return v && v->type == JM_STR; }

static void parse_file(const char *dir, const char *name, jm_val *root)
{
    char path[300], err[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = jm_slurp(path);
    cr_assert_not_null(text, "%s is written", path);
    int rc = jm_parse(text, root, err, sizeof err);
    free(text);
    cr_assert_eq(rc, 0, "%s parses: %s", name, err);
}

/* Bencher Metric Format: {"benchmark": {"measure": {"value": N[, "lower_value": N, "upper_value": N]}}}. */
static void expect_bmf(const jm_val *root)
{
    cr_assert_eq(root->type, JM_OBJ, "BMF is an object");
    cr_assert_gt(root->n, 0u);
    for (size_t b = 0; b < root->n; b++) {
        const jm_val *bench = &root->items[b];
        cr_assert_eq(bench->type, JM_OBJ, "%s is an object of measures", root->keys[b]);
        cr_expect_gt(bench->n, 0u, "%s has a measure", root->keys[b]);
        for (size_t m = 0; m < bench->n; m++) {
            const jm_val *x = &bench->items[m];
            const char *who = root->keys[b];
            cr_assert_eq(x->type, JM_OBJ, "%s %s", who, bench->keys[m]);
            cr_expect(strlen(bench->keys[m]) <= 64, "a measure's name is at most 64 characters");
            const jm_val *v = jm_get(x, "value"), *lo = jm_get(x, "lower_value"), *hi = jm_get(x, "upper_value");
            cr_assert(is_num(v), "%s %s: value is a number", who, bench->keys[m]);
            cr_expect((lo == NULL) == (hi == NULL), "%s %s: both bounds or neither", who, bench->keys[m]);
            if (lo && hi)
                cr_expect(is_num(lo) && is_num(hi) && lo->num <= v->num && v->num <= hi->num, "%s %s: %g <= %g <= %g",
                          who, bench->keys[m], lo->num, v->num, hi->num);
            for (size_t k = 0; k < x->n; k++)
                cr_expect(strcmp(x->keys[k], "value") == 0 || strcmp(x->keys[k], "lower_value") == 0 ||
                              strcmp(x->keys[k], "upper_value") == 0,
                          "%s %s: unknown key %s", who, bench->keys[m], x->keys[k]);
        }
    }
}

/* github-action-benchmark's custom format: [{"name", "unit", "value"[, "range"][, "extra"]}], names unique;
 * units among those the side allows. */
static void expect_gab(const jm_val *root, const char *const *units)
{
    cr_assert_eq(root->type, JM_ARR, "an array of entries");
    cr_assert_gt(root->n, 0u);
    for (size_t i = 0; i < root->n; i++) {
        const jm_val *e = &root->items[i];
        cr_assert_eq(e->type, JM_OBJ);
        const jm_val *name = jm_get(e, "name"), *unit = jm_get(e, "unit"), *range = jm_get(e, "range");
        cr_assert(is_str(name) && is_str(unit) && is_num(jm_get(e, "value")), "entry %zu: name, unit, value", i);
        cr_expect(!range || (is_str(range) && strncmp(range->str, "± ", strlen("± ")) == 0), "%s: range", name->str);
        cr_expect(!jm_get(e, "extra") || is_str(jm_get(e, "extra")), "%s: extra is text", name->str);
        for (size_t k = 0; k < e->n; k++)
            cr_expect(strcmp(e->keys[k], "name") == 0 || strcmp(e->keys[k], "unit") == 0 ||
                          strcmp(e->keys[k], "value") == 0 || strcmp(e->keys[k], "range") == 0 ||
                          strcmp(e->keys[k], "extra") == 0,
                      "%s: unknown key %s", name->str, e->keys[k]);
        bool known = false;
        for (const char *const *u = units; *u && !known; u++)
            known = strcmp(*u, unit->str) == 0;
        cr_expect(known, "%s: unit %s on this side", name->str, unit->str);
        for (size_t j = 0; j < i; j++)
            cr_expect_str_neq(jm_get(&root->items[j], "name")->str, name->str, "names are unique");
    }
}

static const jm_val *gab_entry(const jm_val *root, const char *name)
{
    for (size_t i = 0; i < root->n; i++)
        if (strcmp(jm_get(&root->items[i], "name")->str, name) == 0)
            return &root->items[i];
    return NULL;
}

Test(exports, formats_and_figures)
{
    char dir[256], out[8192];
    copy_fixture("complete", dir, sizeof dir);
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report --no-plots %s", dir), 0, "%s", out);
    cr_expect_not_null(strstr(out, "bencher.json"), "says where: %s", out);
    jm_val bmf, big, small;
    parse_file(dir, "bencher.json", &bmf);
    parse_file(dir, "github-benchmark-bigger.json", &big);
    parse_file(dir, "github-benchmark-smaller.json", &small);
    expect_bmf(&bmf);
    expect_gab(&big, (const char *const[]){ "tok/s", "GB/s", "%", "x", "Gop/s", NULL });
    expect_gab(&small, (const char *const[]){ "ns", "us", "ms", "x", NULL });
    /* sweep.csv's first row: spin q8_0 at 1 thread, 49.88 tok/s, tokens of 19.447 / 20.048 / 21.652 ms */
    const char *name = NULL;
    for (size_t b = 0; b < bmf.n && !name; b++)
        if (strncmp(bmf.keys[b], "decode/qwen3-0.6b/q8_0/spin/static/", 35) == 0 && strstr(bmf.keys[b], "threads:1"))
            name = bmf.keys[b];
    cr_assert_not_null(name, "the first decode point is a benchmark");
    const jm_val *pt = jm_get(&bmf, name), *tok = jm_get(pt, "tok_per_s"), *lat = jm_get(pt, "latency");
    cr_assert(tok && lat, "%s: tok_per_s and latency", name);
    cr_expect_float_eq(jm_get(tok, "value")->num, 49.88, 1e-9);
    cr_expect_float_eq(jm_get(tok, "lower_value")->num, 49.88 * 20.048 / 21.652, 1e-3, "its slowest token");
    cr_expect_float_eq(jm_get(tok, "upper_value")->num, 49.88 * 20.048 / 19.447, 1e-3, "its fastest token");
    cr_expect_float_eq(jm_get(lat, "value")->num, 20.048e6, 1, "latency is the median token in ns");
    char key[400];
    snprintf(key, sizeof key, "%s tok_per_s", name);
    const jm_val *e = gab_entry(&big, key);
    cr_assert_not_null(e, "%s among the bigger-is-better", key);
    cr_expect_str_eq(jm_get(e, "unit")->str, "tok/s");
    cr_expect_float_eq(jm_get(e, "value")->num, 49.88, 1e-9);
    cr_expect_not_null(jm_get(e, "range"), "its tokens' range");
    cr_expect_null(gab_entry(&small, key), "never on both sides");
    snprintf(key, sizeof key, "%s real_time", name);
    e = gab_entry(&small, key);
    cr_assert_not_null(e, "%s among the smaller-is-better", key);
    cr_expect_str_eq(jm_get(e, "unit")->str, "ms");
    cr_expect_float_eq(jm_get(e, "value")->num, 20.048, 1e-9);
    snprintf(key, sizeof key, "%s pct_of_floor", name);
    cr_expect_not_null(gab_entry(&big, key), "%% of the floor is bigger-is-better");
    /* a floor point's GB/s and a dispatch point's ns */
    bool gbps = false, ns = false;
    for (size_t i = 0; i < big.n; i++)
        gbps |= strncmp(jm_get(&big.items[i], "name")->str, "floor/read/", 11) == 0 &&
                strcmp(jm_get(&big.items[i], "unit")->str, "GB/s") == 0;
    for (size_t i = 0; i < small.n; i++)
        ns |= strncmp(jm_get(&small.items[i], "name")->str, "dispatch/spin/", 14) == 0 &&
              strcmp(jm_get(&small.items[i], "unit")->str, "ns") == 0;
    cr_expect(gbps && ns, "floor GB/s bigger, dispatch ns smaller");
    jm_free(&bmf);
    jm_free(&big);
    jm_free(&small);
    drop_fixture(dir);
}
