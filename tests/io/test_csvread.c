/* The CSV reader: columns by name, quoting, line ends, numbers, and an error naming file, line and column for
 * every kind of malformed input. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_csvread.h"
#include "test_files.h"

static pb_table parse_ok(const char *s)
{
    pb_table t;
    pb_csverr e;
    int rc = pb_table_parse(&t, "x.csv", s, strlen(s), &e);
    cr_assert_eq(rc, 0, "unexpected error: %s", e.msg);
    return t;
}

static pb_csverr parse_bad(const char *s)
{
    pb_table t;
    pb_csverr e;
    int rc = pb_table_parse(&t, "bad.csv", s, strlen(s), &e);
    cr_assert_eq(rc, -1, "accepted malformed input: %s", s);
    cr_assert_null(t.cells);
    return e;
}

Test(csvread, columns_by_name_and_extra_columns)
{
    pb_table t = parse_ok("run_id,host,threads,gbps\nr1,h,1,34.5\nr1,h,2,nan\n");
    cr_assert_eq(t.ncols, 4u);
    cr_assert_eq(t.nrows, 2u);
    int thr = pb_table_col(&t, "threads"), g = pb_table_col(&t, "gbps");
    cr_assert_eq(thr, 2);
    cr_assert_eq(pb_table_col(&t, "nope"), -1);
    cr_assert_float_eq(pb_table_num(&t, 0, g), 34.5, 1e-12);
    cr_assert(isnan(pb_table_num(&t, 1, g)), "\"nan\" reads as NaN");
    cr_assert_str_eq(pb_table_str(&t, 1, 1), "h");
    cr_assert_str_eq(pb_table_str(&t, 1, -1), "", "a missing column reads as empty");
    cr_assert(isnan(pb_table_num(&t, 0, -1)));
    cr_assert_str_eq(pb_table_str(&t, 5, 0), "", "a row out of range reads as empty");
    cr_assert_eq(t.line[1], 3u);
    const char *need[] = { "host", "gbps", NULL };
    pb_csverr e;
    cr_assert_eq(pb_table_require(&t, need, &e), 0);
    const char *need2[] = { "host", "tok_per_s", NULL };
    cr_assert_eq(pb_table_require(&t, need2, &e), -1);
    cr_assert(strstr(e.msg, "x.csv:1:") && strstr(e.msg, "tok_per_s"), "%s", e.msg);
    pb_table_free(&t);
}

Test(csvread, quoted_fields_crlf_blank_lines_no_final_newline)
{
    pb_table t = parse_ok("a,b,c\r\n\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\"\r\n\r\n\n1,,\"\"\n4,5,6");
    cr_assert_eq(t.nrows, 3u);
    cr_assert_str_eq(pb_table_str(&t, 0, 0), "x,y");
    cr_assert_str_eq(pb_table_str(&t, 0, 1), "say \"hi\"");
    cr_assert_str_eq(pb_table_str(&t, 0, 2), "two\nlines");
    cr_assert_str_eq(pb_table_str(&t, 1, 1), "");
    cr_assert_str_eq(pb_table_str(&t, 1, 2), "");
    cr_assert_eq(t.line[1], 6u, "blank lines and the newline inside quotes still count as lines");
    cr_assert_str_eq(pb_table_str(&t, 2, 2), "6");
    pb_table_free(&t);
    t = parse_ok("only_header\n");
    cr_assert_eq(t.nrows, 0u);
    pb_table_free(&t);
}

Test(csvread, numbers)
{
    double v;
    cr_assert_eq(pb_parse_num("12.5", &v), 0);
    cr_assert_float_eq(v, 12.5, 0);
    cr_assert_eq(pb_parse_num(" 1e3 ", &v), 0);
    cr_assert_float_eq(v, 1000, 0);
    cr_assert_eq(pb_parse_num("nan", &v), 0);
    cr_assert(isnan(v));
    cr_assert_eq(pb_parse_num("NaN", &v), 0);
    cr_assert_eq(pb_parse_num("-inf", &v), 0);
    cr_assert(isinf(v) && v < 0);
    cr_assert_eq(pb_parse_num("", &v), -1);
    cr_assert(isnan(v));
    cr_assert_eq(pb_parse_num("12abc", &v), -1);
    cr_assert_eq(pb_parse_num("near", &v), -1);
    pb_table t = parse_ok("n,gbps\n1,3x\n");
    pb_csverr e;
    cr_assert_eq(pb_table_num_checked(&t, 0, 0, &v, &e), 0);
    cr_assert_eq(pb_table_num_checked(&t, 0, 1, &v, &e), -1);
    cr_assert_str_eq(e.msg, "x.csv:2: column 'gbps' (field 2): '3x' is not a number");
    pb_table_free(&t);
}

/* Every malformed input: the message starts with "bad.csv:LINE:COL: " and says what is wrong. */
static void expect_error(const char *csv, size_t line, size_t col, const char *what)
{
    pb_csverr e = parse_bad(csv);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "bad.csv:%zu:%zu: ", line, col);
    cr_assert_eq(e.line, line, "%s", e.msg);
    cr_assert_eq(e.col, col, "%s", e.msg);
    cr_assert(strncmp(e.msg, prefix, strlen(prefix)) == 0, "%s (expected prefix %s)", e.msg, prefix);
    cr_assert(strstr(e.msg, what), "'%s' lacks '%s'", e.msg, what);
    cr_assert_null(strchr(e.msg, '\n'), "one line: %s", e.msg);
}

Test(csvread, errors_name_file_line_and_column)
{
    expect_error("a,b\n1,\"open\n2,3\n", 2, 3, "unterminated quoted field");
    expect_error("a,b\n1,2,3\n", 2, 5, "3 fields where the header has 2");
    expect_error("a,b,c\n1,2\n", 2, 4, "2 fields where the header has 3");
    expect_error("a,b\n\"x\"y,2\n", 2, 4, "'y' after a closing quote");
    expect_error("a,b\n1,x\"y\n", 2, 4, "quote inside an unquoted field");
    expect_error("a,b\n1,2\r3\n", 2, 4, "carriage return");
    expect_error("a,,c\n", 1, 1, "column 2 has an empty name");
    expect_error("a,b,a\n", 1, 1, "duplicate column name 'a'");
    /* a quoted newline in the name stays out of the one-line message (make fuzz found it) */
    expect_error("\"a\nb\",c,\"a\nb\"\n", 1, 1, "duplicate column name 'a?b'");
    expect_error("", 1, 1, "empty file");
    expect_error("\n\n", 1, 1, "empty file");
    const char nul[] = "a,b\n1,\0\n";
    pb_table t;
    pb_csverr e;
    cr_assert_eq(pb_table_parse(&t, "bad.csv", nul, sizeof nul - 1, &e), -1);
    cr_assert_str_eq(e.msg, "bad.csv:2:3: NUL byte");
}

Test(csvread, load_names_the_file_and_tells_missing_from_bad)
{
    pb_table t;
    pb_csverr e;
    cr_assert_eq(pb_table_load(&t, "tests/data/no-such.csv", &e), -1);
    cr_assert(e.missing);
    cr_assert(strstr(e.msg, "tests/data/no-such.csv"), "%s", e.msg);
    char path[] = "/tmp/pbcsv-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("a,b\n1,2\n3\n", f);
    fclose(f);
    cr_assert_eq(pb_table_load(&t, path, &e), -1);
    cr_assert_not(e.missing);
    char want[128];
    snprintf(want, sizeof want, "%s:3:2: 1 field where the header has 2", path);
    cr_assert(strncmp(e.msg, want, strlen(want)) == 0, "%s", e.msg);
    remove(path);
}

/* A run directory's CSV with the columns it needs: 1 without the file, the table with them, -1 with the reason
 * when one is missing or the path would not fit (never a path cut short: a cut one could name another file). */
Test(csvread, load_in_a_directory_with_the_columns_it_needs)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbcsvin");
    tf_write(dir, "t.csv", "a,b\n1,2\n");
    static const char *const ab[] = { "a", "b", NULL }, *const abc[] = { "a", "b", "c", NULL };
    pb_table t;
    char err[512] = "";
    cr_expect_eq(pb_table_load_in(&t, dir, "none.csv", ab, err, sizeof err), 1, "no file: %s", err);
    cr_assert_eq(pb_table_load_in(&t, dir, "t.csv", ab, err, sizeof err), 0, "%s", err);
    cr_expect_eq(t.nrows, 1);
    pb_table_free(&t);
    cr_expect_eq(pb_table_load_in(&t, dir, "t.csv", abc, err, sizeof err), -1);
    cr_expect(strstr(err, "c"), "names the missing column: %s", err);
    char longname[4300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    err[0] = '\0';
    cr_expect_eq(pb_table_load_in(&t, dir, longname, ab, err, sizeof err), -1);
    cr_expect(strstr(err, "path longer than"), "%s", err);
    tf_rmrf(dir);
}

/* The loaders read regular files only, at once: a FIFO would block the open, /dev/zero would never end. */
static void expect_load_refused(const char *path, const tf_refused *in)
{
    pb_table t;
    pb_csverr e;
    cr_expect_eq(pb_table_load(&t, path, &e), -1, "%s", in->make);
    cr_expect(e.unreadable && !e.missing, "%s", e.msg);
    char want[4500];
    snprintf(want, sizeof want, "%s: %s", path, in->says);
    cr_expect_str_eq(e.msg, want);
}

Test(csvread, load_refuses_what_is_not_a_regular_file, .timeout = 20)
{
    tf_each_refused("x.csv", "300M", "300 MiB, more than the 256 MiB a CSV may hold", expect_load_refused);
}

/* A partial file a killed writer left: its last line, cut mid-way (inside quotes too), is left out. */
Test(csvread, load_partial_drops_a_cut_last_record)
{
    static const struct {
        const char *text;
        size_t rows;
        bool cut;
    } cases[] = {
        { "a,b\n1,2\n3,4\n", 2, false },
        { "a,b\n1,2\n3,", 1, true },
        { "a,b\n1,2\n3,\"x\ny", 1, true },
        { "a,b\n1,\"x\ny\"\n", 1, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[] = "/tmp/pbcsv-XXXXXX";
        int fd = mkstemp(path);
        cr_assert_geq(fd, 0);
        FILE *f = fdopen(fd, "w");
        fputs(cases[i].text, f);
        fclose(f);
        pb_table t;
        pb_csverr e;
        bool cut = !cases[i].cut;
        cr_assert_eq(pb_table_load_partial(&t, path, &cut, &e), 0, "%s", e.msg);
        cr_expect_eq(t.nrows, cases[i].rows, "case %zu", i);
        cr_expect_eq(cut, cases[i].cut, "case %zu", i);
        pb_table_free(&t);
        remove(path);
    }
}

Test(csvread, keep_rows_drops_the_others_with_their_lines)
{
    pb_table t = parse_ok("a,b\n1,2\n3,4\n5,6\n");
    bool keep[] = { true, false, true };
    cr_assert_eq(pb_table_keep_rows(&t, keep), 1u);
    cr_assert_eq(t.nrows, 2u);
    cr_assert_str_eq(pb_table_str(&t, 1, 0), "5");
    cr_assert_eq(t.line[1], 4u);
    pb_table_free(&t);
}
