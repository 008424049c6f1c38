/* The llama-bench reader (bench/io/llamabench/): each of its five formats, from the real outputs in
 * tests/data/llama-bench/ (the same run's json and csv, the same run's jsonl and md), gives the same points; a
 * shuffled file reads the same; every mutated copy is refused with one line naming the file and the line. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pb_llamabench.h"
#include "test_files.h"

#define LB_DIR "tests/data/llama-bench/"

static pb_llamabench load_ok(const char *path)
{
    pb_llamabench lb;
    pb_csverr e;
    cr_assert_eq(pb_llamabench_load(&lb, path, &e), 0, "%s", e.msg);
    return lb;
}

static double num(const pb_llamabench *lb, size_t i, int col) { return pb_llamabench_num(&lb->t[i], col); }

/* The four tests every fixture holds: tg16 at depth 0 and 256, 1 and 2 threads, in that order. */
static void expect_shape(const pb_llamabench *lb)
{
    static const double threads[] = { 1, 1, 2, 2 }, depth[] = { 0, 256, 0, 256 };
    cr_assert_eq(lb->n, 4u, "%s: %zu tests", lb->name, lb->n);
    for (size_t i = 0; i < 4; i++) {
        cr_expect_eq(num(lb, i, PB_LLAMABENCH_n_threads), threads[i], "%s test %zu", lb->name, i);
        cr_expect_eq(num(lb, i, PB_LLAMABENCH_n_depth), depth[i]);
        cr_expect_eq(num(lb, i, PB_LLAMABENCH_n_prompt), 0);
        cr_expect_eq(num(lb, i, PB_LLAMABENCH_n_gen), 16);
        cr_expect(pb_llamabench_is_tg(&lb->t[i]));
        cr_expect_str_eq(pb_llamabench_str(&lb->t[i], PB_LLAMABENCH_model_type), "qwen3 0.6B Q8_0 (guessed)");
    }
}

Test(llamabench, csv_fixture)
{
    pb_llamabench lb = load_ok(LB_DIR "llama-bench.csv");
    cr_expect_eq(lb.format, PB_LLAMABENCH_CSV);
    cr_expect_not(lb.rounded);
    expect_shape(&lb);
    cr_expect_eq(lb.t[0].v[PB_LLAMABENCH_model_size].u, 798801920ull);
    cr_expect_eq(lb.t[0].v[PB_LLAMABENCH_model_n_params].u, 751632384ull);
    cr_expect_float_eq(num(&lb, 0, PB_LLAMABENCH_avg_ts), 22.495212, 1e-9);
    cr_expect_float_eq(num(&lb, 3, PB_LLAMABENCH_stddev_ts), 2.134104, 1e-9);
    cr_expect_eq(lb.t[3].v[PB_LLAMABENCH_avg_ns].u, 1642151349ull);
    cr_expect_eq(lb.t[0].v[PB_LLAMABENCH_cpu_strict].i, 0);
    cr_expect_eq(lb.t[0].v[PB_LLAMABENCH_poll].i, 50);
    cr_expect_str_eq(pb_llamabench_str(&lb.t[0], PB_LLAMABENCH_type_k), "f16");
    cr_expect_str_eq(pb_llamabench_str(&lb.t[0], PB_LLAMABENCH_model_filename), "models/qwen3-0.6b-rand-q8_0.gguf");
    cr_expect_eq(lb.t[2].line, 4u);
    cr_expect_eq(lb.t[0].nsamples, 0u, "csv carries no samples");
    pb_llamabench_free(&lb);
}

/* json and csv came from one run (-o json -oe csv): the same figures, and json's samples besides. */
Test(llamabench, json_fixture_matches_its_csv)
{
    pb_llamabench js = load_ok(LB_DIR "llama-bench.json"), cs = load_ok(LB_DIR "llama-bench.csv");
    cr_expect_eq(js.format, PB_LLAMABENCH_JSON);
    expect_shape(&js);
    for (size_t i = 0; i < 4; i++)
        for (int c = 0; c < PB_LLAMABENCH_NCOLS; c++) {
            if (c == PB_LLAMABENCH_samples_ns || c == PB_LLAMABENCH_samples_ts)
                continue;
            cr_expect(js.t[i].have[c] && cs.t[i].have[c], "test %zu field %s", i, pb_schema_name(PB_K_LLAMABENCH, c));
            if (pb_schema_get(PB_K_LLAMABENCH)->cols[c].type == PB_T_TEXT)
                cr_expect_str_eq(pb_llamabench_str(&js.t[i], c), pb_llamabench_str(&cs.t[i], c));
            else
                cr_expect_eq(num(&js, i, c), num(&cs, i, c), "test %zu %s", i, pb_schema_name(PB_K_LLAMABENCH, c));
        }
    cr_assert_eq(js.t[0].nsamples, 3u);
    cr_expect_float_eq(js.t[0].samples_ts[1], 23.4938, 1e-9);
    cr_expect_float_eq(js.t[0].samples_ns[2], 712244724.0, 0.5);
    cr_expect_eq(js.t[1].line, 47u, "the second object opens on line 47");
    pb_llamabench_free(&js);
    pb_llamabench_free(&cs);
}

/* jsonl and md came from one run (-o jsonl -oe md): md's rounded figures are jsonl's. */
Test(llamabench, md_fixture_matches_its_jsonl)
{
    pb_llamabench jl = load_ok(LB_DIR "llama-bench.jsonl"), md = load_ok(LB_DIR "llama-bench.md");
    cr_expect_eq(jl.format, PB_LLAMABENCH_JSONL);
    cr_expect_eq(md.format, PB_LLAMABENCH_MD);
    cr_expect(md.rounded);
    expect_shape(&jl);
    expect_shape(&md);
    cr_assert_eq(jl.t[2].nsamples, 3u);
    cr_expect_float_eq(jl.t[2].samples_ns[1], 32696067641.0, 0.5, "a sample past 2^32 ns");
    for (size_t i = 0; i < 4; i++) {
        cr_expect_float_eq(num(&md, i, PB_LLAMABENCH_avg_ts), num(&jl, i, PB_LLAMABENCH_avg_ts), 0.005);
        cr_expect_float_eq(num(&md, i, PB_LLAMABENCH_stddev_ts), num(&jl, i, PB_LLAMABENCH_stddev_ts), 0.005);
        cr_expect_float_eq(num(&md, i, PB_LLAMABENCH_model_size), num(&jl, i, PB_LLAMABENCH_model_size),
                           0.005 * 1048576);
        cr_expect_float_eq(num(&md, i, PB_LLAMABENCH_model_n_params), num(&jl, i, PB_LLAMABENCH_model_n_params),
                           0.005e6);
        cr_expect_str_eq(pb_llamabench_str(&md.t[i], PB_LLAMABENCH_backends), "CPU");
        cr_expect_str_eq(pb_llamabench_str(&md.t[i], PB_LLAMABENCH_build_commit), "unknown");
        cr_expect_eq(num(&md, i, PB_LLAMABENCH_build_number), 0);
        cr_expect_not(md.t[i].have[PB_LLAMABENCH_avg_ns], "md has no avg_ns");
        cr_expect(isnan(num(&md, i, PB_LLAMABENCH_avg_ns)));
    }
    cr_expect_eq(md.t[3].line, 6u);
    pb_llamabench_free(&jl);
    pb_llamabench_free(&md);
}

Test(llamabench, sql_fixture)
{
    pb_llamabench lb = load_ok(LB_DIR "llama-bench.sql");
    cr_expect_eq(lb.format, PB_LLAMABENCH_SQL);
    expect_shape(&lb);
    cr_expect_float_eq(num(&lb, 0, PB_LLAMABENCH_avg_ts), 21.786670, 1e-9);
    cr_expect_eq(lb.t[1].v[PB_LLAMABENCH_avg_ns].u, 788384431ull);
    cr_expect_eq(lb.t[0].line, 45u);
    pb_llamabench_free(&lb);
}

Test(llamabench, format_by_name_then_by_content)
{
    static const struct { const char *name, *text; pb_llamabench_format f; } cases[] = {
        { "x.json", "", PB_LLAMABENCH_JSON },
        { "x.JSONL", "", PB_LLAMABENCH_JSONL },
        { "a.b/x.sql", "[", PB_LLAMABENCH_SQL },
        { "x.md", "{", PB_LLAMABENCH_MD },
        { "x.csv", "|", PB_LLAMABENCH_CSV },
        { "out", "  [\n{", PB_LLAMABENCH_JSON },
        { "out.txt", "{\"a\":1}", PB_LLAMABENCH_JSONL },
        { "out", "| model |", PB_LLAMABENCH_MD },
        { "o", "create table", PB_LLAMABENCH_SQL },
        { "o", "INSERT INTO", PB_LLAMABENCH_SQL },
        { "x.d/out", "build_commit,", PB_LLAMABENCH_CSV },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_eq(pb_llamabench_format_of(cases[i].name, cases[i].text, strlen(cases[i].text)), cases[i].f, "%s %s",
                     cases[i].name, cases[i].text);
}

/* ---------------------------------------------------------------- mutated copies */

/* The fixture's text with the n-th (from 1) occurrence of `from` replaced by `to`, written to DIR/NAME. */
static void mutate(const char *dir, const char *name, const char *fixture, const char *from, const char *to, int n)
{
    char *text = tf_must_exist(tf_read(LB_DIR "%s", fixture), fixture);
    char *at = text;
    for (int k = 0; k < n; k++) {
        at = strstr(k ? at + 1 : at, from);
        cr_assert_not_null(at, "%s holds '%s' %d times", fixture, from, n);
    }
    size_t head = (size_t)(at - text), flen = strlen(from), tlen = strlen(to), rest = strlen(at + flen);
    char *out = malloc(head + tlen + rest + 1);
    cr_assert_not_null(out);
    memcpy(out, text, head);
    memcpy(out + head, to, tlen);
    memcpy(out + head + tlen, at + flen, rest + 1);
    tf_write(dir, name, out);
    free(out);
}

/* Loads DIR/NAME expecting a refusal whose one line starts "DIR/NAME:" and holds want. */
static void expect_refused(const char *dir, const char *name, const char *want)
{
    char path[300], lead[320];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(lead, sizeof lead, "%s:", path);
    pb_llamabench lb;
    pb_csverr e;
    cr_expect_eq(pb_llamabench_load(&lb, path, &e), -1, "%s accepted (wanted: %s)", name, want);
    cr_expect_eq(lb.n, 0u);
    cr_expect_eq(strncmp(e.msg, lead, strlen(lead)), 0, "the message names the file: %s", e.msg);
    cr_expect_not_null(strstr(e.msg, want), "%s: wanted '%s' in: %s", name, want, e.msg);
    cr_expect_null(strchr(e.msg, '\n'), "one line: %s", e.msg);
}

typedef struct mutation {
    const char *fixture, *from, *to;
    int nth;
    const char *want; /* in the message, after the file name: its line (and column) first */
} mutation;

static const mutation mutations[] = {
    /* csv: "...","1","0x0",... on the third test (line 4) */
    { "llama-bench.csv", "\"2\",\"0x0\"", "\"0\",\"0x0\"", 1, ":4:12: field 'n_threads': '0' is not a positive integer" },
    { "llama-bench.csv", "\"22.495212\"", "\"fast\"", 1, ":2:40: field 'avg_ts': 'fast' is not a finite number" },
    { "llama-bench.csv", "\"798801920\"", "\"7988.5\"", 2, ":3:8: field 'model_size': '7988.5' is not an integer" },
    { "llama-bench.csv", "\"50\"", "\"-5\"", 4, ":5:15: field 'poll': '-5' is not a finite number" },
    { "llama-bench.csv", ",n_threads,", ",threads,", 1, ":2: a test without the field 'n_threads'" },
    { "llama-bench.csv", "\"0.605982\"\n", "\"0.6", 1, ":3:322: 'u' after a closing quote" },
    { "llama-bench.csv", "\"0\",\"16\",\"0\"", "\"0\",\"0\",\"0\"", 1, ":2: n_prompt and n_gen both 0" },
    { "llama-bench.csv", "\"16\",\"256\"", "\"16\",\"99999999999999999999\"", 1, ":3:36: field 'n_depth': "
                                                                             "'99999999999999999999' is out of range" },
    /* what no run can have measured (hostile round 3: "inf x", a 47-digit tok/s, 1955345484157% of floor) */
    { "llama-bench.csv", "\"22.495212\"", "\"0\"", 1, ":2:40: field 'avg_ts': '0' cannot be true" },
    { "llama-bench.csv", "\"22.495212\"", "\"1e308\"", 1, ":2:40: field 'avg_ts': '1e308' cannot be true" },
    { "llama-bench.csv", "\"798801920\"", "\"18446744073709551615\"", 1, ":2:8: field 'model_size': "
                                                                      "'18446744073709551615' cannot be true" },
    { "llama-bench.csv", "\"22.495212\"", "\"0x16\"", 1, ":2:40: field 'avg_ts': '0x16' is not a decimal number" },
    /* json: one field a line; jansson names a syntax error's place, a field's error names its test's line */
    { "llama-bench.json", "\"n_threads\": 2,", "\"n_threads\": -2,", 1, ":92: field 'n_threads': '-2' is not a" },
    { "llama-bench.json", "\"cpu_strict\": false", "\"cpu_strict\": 2", 1, ":2: field 'cpu_strict': '2' is not 0 or "
                                                                        "1" },
    { "llama-bench.json", "21.5276,", "\"fast\",", 1, ":2: field 'samples_ts': item 1 of the list is not a number" },
    { "llama-bench.json", "[ 21.5276, 23.4938, 22.4642 ]", "[ 21.5276 ]", 1, ":2: samples_ns holds 3 repetitions "
                                                                              "and samples_ts 1" },
    { "llama-bench.json", "\"poll\": 50,", "\"poll\": 50, \"poll\": 51,", 1, ":17:22: duplicate object key near "
                                                                            "'\"poll\"'" },
    { "llama-bench.json", "\"avg_ts\": 22.495212,", "\"avg_ts\": {\"v\": 1},", 1, ":2: field 'avg_ts' holds an "
                                                                              "object" },
    { "llama-bench.json", "  }\n]", "  },\n]", 1, ":182:1: '[' or '{' expected near ']'" },
    { "llama-bench.json", "\"n_gen\": 16,", "\"n_gen\": 016,", 1, ":37:14: invalid token near '0'" },
    { "llama-bench.json", "\"test_time\": \"2026", "\"test_time\": \"\\q2026", 1, ":39:20: invalid escape near" },
    { "llama-bench.json", "\"model_size\": 798801920,", "", 3, ":92: a test without the field 'model_size'" },
    { "llama-bench.json", "]\n", "] x\n", 5, ":182:3: more after the array's closing ']'" },
    { "llama-bench.json", "\"n_threads\": 1,", "\"n_threads\": true,", 1, ":2: field 'n_threads': 'true' is "
                                                                          "not an integer" },
    { "llama-bench.json", "\"test_time\": \"2026", "\"test_time\": \"\\u00002026", 1, ":39:45: \\u0000 is not "
                                                                                      "allowed" },
    { "llama-bench.json", "\"poll\": 50", "\"po\\u0000ll\": 50", 1, ":17:16: NUL byte in object key not "
                                                                         "supported" },
    /* jsonl: one object a line */
    { "llama-bench.jsonl", "\"poll\": 50,", "\"poll\": 50, \"poll\": 50,", 2, ":2:365: duplicate object key" },
    { "llama-bench.jsonl", "}\n{", "} {", 1, ":1:987: more on the line after its object" },
    { "llama-bench.jsonl", "\"avg_ts\": 3.382312", "\"avg_ts\": Infinity", 1, ":3:869: invalid token near 'Infinity'" },
    { "llama-bench.jsonl", "\"n_depth\": 256", "\"n_depth\": 25.6", 2, ":4: field 'n_depth': '25.6' is not an "
                                                                      "integer" },
    /* sql: SQLite runs it; a statement is named by the line it starts on, a syntax error by its place */
    { "llama-bench.sql", "INSERT INTO llama_bench", "INSERT INTO bench", 2, ":46: SQLite cannot run the statement: no "
                                                                            "such table: bench" },
    { "llama-bench.sql", "'21.786670', '1.515350');", "'21.786670');", 1, ":45: SQLite cannot run the statement: 40 "
                                                                          "values for 41 columns" },
    { "llama-bench.sql", "'1.515350');", "'1.515350', '9');", 1, ":45: SQLite cannot run the statement: 42 values" },
    { "llama-bench.sql", "'0x0', '0', '50'", "'0x0', 'yes', '50'", 3, ":47: field 'cpu_strict': 'yes' is not an "
                                                                         "integer" },
    /* the text as the file wrote it, not as llama-bench's INTEGER column would keep it (1.5) */
    { "llama-bench.sql", "'0x0', '0', '50'", "'0x0', '1.50', '50'", 3, ":47: field 'cpu_strict': '1.50' is not an "
                                                                          "integer" },
    { "llama-bench.sql", "'6.210063', '4.252112');", "'6.210063', '4.252112);", 1, ":48:860: SQLite cannot run the "
                                                                                  "statement: unrecognized token" },
    { "llama-bench.sql", "llama_bench (\n", "llama_benches (\n", 1, ":1: a statement other than llama-bench's CREATE "
                                                                   "TABLE llama_bench and INSERT INTO llama_bench" },
    /* statements llama-bench does not write, before its second INSERT (line 46), refused at the line they start on */
    { "llama-bench.sql", "INSERT INTO", "DROP TABLE llama_bench;\nINSERT INTO", 2, ":46: a statement other than" },
    { "llama-bench.sql", "INSERT INTO", "ATTACH ':memory:' AS x;\nINSERT INTO", 2, ":46: a statement other than" },
    { "llama-bench.sql", "INSERT INTO", "PRAGMA writable_schema = 1;\nINSERT INTO", 2, ":46: a statement other than" },
    { "llama-bench.sql", "INSERT INTO", "-- a comment\n\nCREATE TRIGGER t AFTER INSERT ON llama_bench BEGIN\n "
                                        "DELETE FROM llama_bench;\nEND;\nINSERT INTO", 2,
      ":48: a statement other than" }, /* the line it starts on, past the comment */
    { "llama-bench.sql", "INSERT INTO", "SELECT * FROM llama_bench;\nINSERT INTO", 2, ":46: a statement other than" },
    { "llama-bench.sql", "INSERT INTO", "CREATE VIEW v AS SELECT 1;\nINSERT INTO", 2, ":46: a statement other than" },
    { "llama-bench.sql", "INSERT INTO", "CREATE TEMP TABLE llama_bench (a);\nINSERT INTO", 2, ":46: a statement other "
                                                                                            "than" },
    { "llama-bench.sql", "INSERT INTO", "INSERT INTO sqlite_master VALUES ('', '', '', 0, '');\nINSERT INTO", 2,
      ":46: SQLite cannot run the statement: table sqlite_master may not be modified" },
    /* INSERT INTO llama_bench, but of something else than one row of literals */
    { "llama-bench.sql", "'1.515350');", "'1.515350'), ('a');", 1, ":45: a statement other than" },
    { "llama-bench.sql", "'1.515350');", "lower('1.515350'));", 1, ":45: a statement other than" },
    { "llama-bench.sql", "'1.515350');", "(SELECT 1));", 1, ":45: a statement other than" },
    { "llama-bench.sql", "'1.515350');", "'1.515350') RETURNING *;", 1, ":45: a statement other than" },
    /* md */
    { "llama-bench.md", "tg16 @ d256", "tg16 @ 256", 1, ":4:89: test 'tg16 @ 256' is not one llama-bench writes" },
    { "llama-bench.md", "761.80 MiB", "761.80 MB", 2, ":4:36: '761.80 MB' is not a size as llama-bench writes it" },
    { "llama-bench.md", "22.89 ± 0.59", "22.89", 1, ":3:111: t/s '22.89' is not llama-bench's 'mean ± deviation'" },
    { "llama-bench.md", "3.38 ± 4.05", "3.38 ± -4.05", 1, ":5:112: field 'stddev_ts': '-4.05' is not a finite" },
    { "llama-bench.md", "|       1 |", "|", 1, ":3:1: 6 cells in a row of a table of 7 columns" },
    { "llama-bench.md", "| threads |", "| thread |", 1, ":1:1: no column 'threads' in the table's header" },
    { "llama-bench.md", "| --------------: |", "| ------x-------: |", 1, ":2:85: the line under the header holds "
                                                                       "dashes" },
    { "llama-bench.md", "build: unknown (0)", "built: unknown (0)", 1, ":8:1: after llama-bench's table, only its "
                                                                       "build line" },
    { "llama-bench.md", "6.31 ± 4.23 |\n", "6.31 ± 4.", 1, ":6:1: a table row starts and ends with '|'" },
};

Test(llamabench, mutated_copies_refused_naming_file_and_line)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbllamabench");
    for (size_t i = 0; i < sizeof mutations / sizeof mutations[0]; i++) {
        const mutation *m = &mutations[i];
        char name[64];
        snprintf(name, sizeof name, "m%02zu-%s", i, m->fixture); /* the fixture's extension: its format */
        mutate(dir, name, m->fixture, m->from, m->to, m->nth);
        expect_refused(dir, name, m->want);
    }
    tf_rmrf(dir);
}

/* A file cut short: every format refuses it at the place it was cut (csv and jsonl cut at a line end hold fewer
 * whole tests, which is what those formats allow: they read). */
Test(llamabench, truncated_files)
{
    static const struct { const char *fixture; long keep; const char *want; } cuts[] = {
        { "llama-bench.json", 3000, ":118:6: premature end of input" },
        { "llama-bench.json", 4678, "the end of the file where the array goes on" },
        { "llama-bench.jsonl", 1500, ":2:514: premature end of input" },
        { "llama-bench.sql", 3000, ":47: SQLite cannot run the statement: incomplete input" },
        { "llama-bench.csv", 900, "fields where the header has 41" },
        { "llama-bench.md", 0, "no table" },
    };
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pblbcut");
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char *text = tf_must_exist(tf_read(LB_DIR "%s", cuts[i].fixture), cuts[i].fixture);
        text[cuts[i].keep] = '\0';
        char name[64];
        snprintf(name, sizeof name, "cut%zu-%s", i, cuts[i].fixture);
        tf_write(dir, name, text);
        expect_refused(dir, name, cuts[i].want);
    }
    /* jsonl and csv cut after their second test: two tests, read */
    const char *whole[] = { "llama-bench.jsonl", "llama-bench.csv" };
    for (size_t i = 0; i < 2; i++) {
        char *text = tf_must_exist(tf_read(LB_DIR "%s", whole[i]), whole[i]);
        char *nl = strchr(text, '\n');
        nl = strchr(strchr(nl + 1, '\n') + (i == 1), '\n');
        nl[1] = '\0';
        tf_write(dir, whole[i], text);
        char path[200];
        snprintf(path, sizeof path, "%s/%s", dir, whole[i]);
        pb_llamabench lb = load_ok(path);
        cr_expect_eq(lb.n, 2u, "%s", whole[i]);
        pb_llamabench_free(&lb);
    }
    tf_rmrf(dir);
}

/* Reorders csv's columns (each line's fields, the same permutation) and md's, and json's keys: read the same. */
Test(llamabench, shuffled_columns_read_the_same)
{
    char dir[64], cmd[600], out[256];
    tf_tmpdir(dir, sizeof dir, "pblbshuf");
    /* csv: the last column first; every field is quoted and none holds a comma, so awk's fields are the CSV's */
    snprintf(cmd, sizeof cmd, "awk -F, -v OFS=, '{ x = $NF; $NF = $1; $1 = x; print }' " LB_DIR "llama-bench.csv > "
             "%s/s.csv && awk -F'|' -v OFS='|' 'NF > 2 { x = $2; $2 = $8; $8 = x } { print }' " LB_DIR
             "llama-bench.md > %s/s.md", dir, dir);
    cr_assert_eq(tf_run(out, sizeof out, cmd), 0, "%s", out);
    mutate(dir, "s.json", "llama-bench.json", "\"build_commit\": \"unknown\",", "\"zzz\": [1, {\"a\": [true]}],", 1);
    char path[200];
    snprintf(path, sizeof path, "%s/s.csv", dir);
    pb_llamabench a = load_ok(path), b = load_ok(LB_DIR "llama-bench.csv");
    expect_shape(&a);
    for (size_t i = 0; i < 4; i++) {
        cr_expect_eq(num(&a, i, PB_LLAMABENCH_avg_ts), num(&b, i, PB_LLAMABENCH_avg_ts));
        cr_expect_str_eq(pb_llamabench_str(&a.t[i], PB_LLAMABENCH_build_commit), "unknown");
    }
    pb_llamabench_free(&a);
    pb_llamabench_free(&b);
    snprintf(path, sizeof path, "%s/s.md", dir);
    a = load_ok(path);
    b = load_ok(LB_DIR "llama-bench.md");
    expect_shape(&a);
    for (size_t i = 0; i < 4; i++)
        cr_expect_eq(num(&a, i, PB_LLAMABENCH_avg_ts), num(&b, i, PB_LLAMABENCH_avg_ts));
    pb_llamabench_free(&a);
    pb_llamabench_free(&b);
    snprintf(path, sizeof path, "%s/s.json", dir);
    a = load_ok(path);
    cr_expect_not(a.t[0].have[PB_LLAMABENCH_build_commit], "the key was replaced by one read past");
    cr_expect(a.t[1].have[PB_LLAMABENCH_build_commit]);
    pb_llamabench_free(&a);
    tf_rmrf(dir);
}

/* Not a regular file, too large, empty, a NUL byte: refused at once, one line. */
Test(llamabench, files_that_are_not_results)
{
    char dir[64], cmd[400], out[256];
    tf_tmpdir(dir, sizeof dir, "pblbfile");
    snprintf(cmd, sizeof cmd, "cd %s && mkfifo f.json && ln -s /dev/zero z.csv && mkdir d.md && truncate -s 65M big.csv "
             "&& : > empty.jsonl && printf 'build_commit\\n\"a\\0b\"\\n' > nul.csv", dir);
    cr_assert_eq(tf_run(out, sizeof out, cmd), 0, "%s", out);
    expect_refused(dir, "f.json", "not a regular file (a FIFO)");
    expect_refused(dir, "z.csv", "not a regular file (a character device)");
    expect_refused(dir, "d.md", "not a regular file (a directory)");
    expect_refused(dir, "big.csv", "65 MiB, more than the 64 MiB a llama-bench file may hold");
    expect_refused(dir, "empty.jsonl", "no test in it");
    expect_refused(dir, "nul.csv", ":2:3: a NUL byte");
    pb_llamabench lb;
    pb_csverr e;
    char path[200];
    snprintf(path, sizeof path, "%s/none.csv", dir);
    cr_expect_eq(pb_llamabench_load(&lb, path, &e), -1);
    cr_expect(e.missing);
    tf_rmrf(dir);
}

/* More tests than a file may hold (PB_LLAMABENCH_MAX_TESTS), however small each: refused at the first one too many. */
Test(llamabench, too_many_tests_refused)
{
    size_t n = PB_LLAMABENCH_MAX_TESTS + 1;
    char *text = malloc(3 * n);
    cr_assert_not_null(text);
    for (size_t i = 0; i < n; i++)
        memcpy(text + 3 * i, "{}\n", 3);
    pb_llamabench lb;
    pb_csverr e;
    cr_expect_eq(pb_llamabench_parse(&lb, "many.jsonl", PB_LLAMABENCH_JSONL, text, 3 * n, &e), -1);
    cr_expect_not_null(strstr(e.msg, "many.jsonl:100001: more than 100000 tests"), "%s", e.msg);
    free(text);
}
