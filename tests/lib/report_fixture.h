/* report_fixture.h — the run-directory fixtures of the bench_report / bench_compare tests: fresh copies of
 * tests/data/runs/<name>, cells rewritten through the reader and the writer's quoting, and the programs run
 * through the shell with $POOLBENCH_BIN as B. Header-only: each test file gets its own static copies. */
#ifndef REPORT_FIXTURE_H
#define REPORT_FIXTURE_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pb_csv.h"
#include "pb_csvread.h"
#include "test_files.h"

#define RUNS "tests/data/runs"

/* A fresh copy of a fixture (the report writes into its run directory). */
static inline void copy_fixture(const char *name, char *dir, size_t len)
{
    char tmpl[128];
    tf_tmpdir(tmpl, sizeof tmpl, "pbrep");
    snprintf(dir, len, "%s/%s", tmpl, name);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp -r " RUNS "/%s %s", name, dir);
    cr_assert_eq(system(cmd), 0);
}

/* Removes a copy_fixture copy (the temporary directory that holds it) and dir-cmp, a comparison written beside. */
static inline void drop_fixture(const char *dir)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf \"$(dirname '%s')\" '%s-cmp'", dir, dir);
    cr_expect_eq(system(cmd), 0, "%s", cmd);
}

/* Runs a shell command line with $POOLBENCH_BIN as B; returns its exit status, stdout+stderr in out. */
static inline int sh(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline int sh(char *out, size_t len, const char *fmt, ...)
{
    const char *bin = getenv("POOLBENCH_BIN");
    char line[4096], cmd[4600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "B='%s'; (%s) 2>&1", bin ? bin : "build/bin", line);
    return tf_run(out, len, cmd);
}

static inline long file_size(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Reads DIR/file into t, failing the test when it does not parse. */
static inline void load_csv(const char *dir, const char *file, pb_table *t)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    pb_csverr e;
    cr_assert_eq(pb_table_load(t, path, &e), 0, "%s", e.msg);
}

/* Rewrites one cell of a CSV (row r, column name) through the reader and the writer's quoting. */
static inline void set_cell(const char *dir, const char *file, size_t row, const char *col, const char *value)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    pb_table t;
    pb_csverr e;
    cr_assert_eq(pb_table_load(&t, path, &e), 0, "%s", e.msg);
    int c = pb_table_col(&t, col);
    cr_assert_geq(c, 0);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (size_t r = 0; r <= t.nrows; r++) {
        for (size_t i = 0; i < t.ncols; i++) {
            if (i)
                fputc(',', f);
            const char *v = r == 0 ? t.header[i] : t.cells[(r - 1) * t.ncols + i];
            pb_csv_field(f, r == row + 1 && (int)i == c ? value : v);
        }
        fputc('\n', f);
    }
    fclose(f);
    pb_table_free(&t);
}

/* The first row where every (column, value) pair matches. */
static inline size_t find_row(const char *dir, const char *file, const char *const *kv)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    pb_table t;
    pb_csverr e;
    cr_assert_eq(pb_table_load(&t, path, &e), 0, "%s", e.msg);
    for (size_t r = 0; r < t.nrows; r++) {
        bool all = true;
        for (const char *const *p = kv; *p; p += 2)
            all &= strcmp(pb_table_str(&t, r, pb_table_col(&t, p[0])), p[1]) == 0;
        if (all) {
            pb_table_free(&t);
            return r;
        }
    }
    cr_assert_fail("no matching row in %s", file);
    return 0;
}

#endif
