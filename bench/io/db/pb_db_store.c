/* pb_db_store.c — one CSV of a run into its kind's table, checked to print back as written. */
#include "pb_db_impl.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A cell in its column's type where it reads as one (an empty number is NULL); else as the text it is (nan). */
static int store_bind(sqlite3_stmt *st, int i, const pb_column *col, const char *s)
{
    if (col->type == PB_T_TEXT)
        return sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    if (!*s)
        return sqlite3_bind_null(st, i);
    char *end = NULL;
    errno = 0;
    if (isspace((unsigned char)*s) || *s == '+') {
        /* strtod and strtoll skip these; the harnesses never print them: kept as text */
    } else if (col->type == PB_T_INT) {
        long long v = strtoll(s, &end, 10);
        if (!errno && !*end)
            return sqlite3_bind_int64(st, i, v);
    } else if (col->type == PB_T_U64) {
        unsigned long long v = strtoull(s, &end, 10);
        if (*s != '-' && !errno && !*end && v <= LLONG_MAX)
            return sqlite3_bind_int64(st, i, (long long)v);
    } else {
        double v = strtod(s, &end);
        if (!*end && isfinite(v)) /* SQLite would keep a NaN as NULL: nan stays text */
            return sqlite3_bind_double(st, i, v);
    }
    return sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

/* t's header line as the file had it, the column names joined by commas (a malloc'ed string). */
static char *store_header(const pb_table *t)
{
    char *h = NULL;
    size_t cap = 0;
    FILE *f = open_memstream(&h, &cap);
    if (!f)
        return NULL;
    for (size_t c = 0; c < t->ncols; c++)
        fprintf(f, "%s%s", c ? "," : "", t->header[c]);
    fclose(f);
    return h;
}

/* INSERT of the file's columns into k's table. */
static sqlite3_stmt *store_insert(pb_db *db, int kind, const pb_table *t, char *err, size_t len)
{
    char tab[32], sql[32768];
    snprintf(sql, sizeof sql, "INSERT INTO %s(pb_run, pb_row", pb_db_table((pb_kind)kind, tab, sizeof tab));
    for (size_t c = 0; c < t->ncols; c++) {
        size_t at = strlen(sql);
        snprintf(sql + at, sizeof sql - at, ", \"%s\"", t->header[c]);
    }
    size_t at = strlen(sql);
    snprintf(sql + at, sizeof sql - at, ") VALUES(?, ?");
    for (size_t c = 0; c < t->ncols; c++) {
        at = strlen(sql);
        snprintf(sql + at, sizeof sql - at, ", ?");
    }
    at = strlen(sql);
    snprintf(sql + at, sizeof sql - at, ")");
    return pb_db_prepare(db, sql, err, len);
}

static int store_rows(pb_db *db, long long run, const pb_db_csv *c, pb_db_row_hook hook, void *hook_arg, long *rows,
                      char *err, size_t len)
{
    const pb_table *t = c->t;
    const pb_schema *s = pb_schema_get((pb_kind)c->kind);
    sqlite3_stmt *st = store_insert(db, c->kind, t, err, len);
    if (!st)
        return -1;
    int rc = 0;
    for (size_t r = 0; rc == 0 && r < t->nrows; r++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run);
        sqlite3_bind_int64(st, 2, (long long)r);
        for (size_t col = 0; col < t->ncols; col++)
            store_bind(st, (int)col + 3, &s->cols[col], pb_table_str(t, r, (int)col));
        if (sqlite3_step(st) != SQLITE_DONE) {
            rc = pb_db_fail(db, err, len, "cannot store a row");
            break;
        }
        ++*rows;
        if (hook)
            hook(hook_arg, *rows);
    }
    sqlite3_finalize(st);
    return rc;
}

/* What the check of the printed-back rows carries: the file, where mismatched lines go, and the file's text as
 * its cells give it (canon), to compare with its bytes at the end. */
typedef struct store_cmp {
    pb_db *db;
    long long run;
    const pb_db_csv *c;
    sqlite3_stmt *keep;
    FILE *canon;
    char *err;
    size_t len;
} store_cmp;

/* Row `row` as the file's cells give it, quoted as the writer quotes. */
static void store_cells_line(FILE *f, const pb_table *t, size_t row)
{
    for (size_t c = 0; c < t->ncols; c++) {
        if (c)
            fputc(',', f);
        pb_csv_field(f, pb_table_str(t, row, (int)c));
    }
}

static int store_check_line(void *arg, long row, const char *line)
{
    store_cmp *k = arg; /* pb_db_rows_each passes back the store_cmp given to it below */
    char *cells = NULL;
    size_t cap = 0;
    FILE *f = open_memstream(&cells, &cap);
    if (!f)
        return pb_db_fail(k->db, k->err, k->len, "out of memory");
    store_cells_line(f, k->c->t, (size_t)row);
    fclose(f);
    int rc = 0;
    if (strcmp(cells, line) != 0) {
        sqlite3_reset(k->keep);
        sqlite3_bind_int64(k->keep, 1, k->run);
        sqlite3_bind_text(k->keep, 2, k->c->name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(k->keep, 3, row);
        sqlite3_bind_text(k->keep, 4, cells, -1, SQLITE_STATIC);
        if (sqlite3_step(k->keep) != SQLITE_DONE)
            rc = pb_db_fail(k->db, k->err, k->len, "cannot keep a line");
    }
    fprintf(k->canon, "%s\n", cells);
    free(cells);
    return rc;
}

/* The rows printed back, each one that differs from its cells kept as a line; *same: the header and the cells'
 * lines give the file's bytes. */
static int store_check(pb_db *db, long long run, const pb_db_csv *c, const char *header, bool *same, char *err,
                       size_t len)
{
    char *text = NULL;
    size_t cap = 0;
    store_cmp k = { .db = db, .run = run, .c = c, .err = err, .len = len };
    k.keep = pb_db_prepare(db, "INSERT INTO lines(run, name, row, text) VALUES(?, ?, ?, ?)", err, len);
    k.canon = k.keep ? open_memstream(&text, &cap) : NULL;
    if (!k.canon) {
        sqlite3_finalize(k.keep);
        return k.keep ? pb_db_fail(db, err, len, "out of memory") : -1;
    }
    fprintf(k.canon, "%s\n", header);
    int rc = pb_db_rows_each(db, run, (pb_kind)c->kind, header, store_check_line, &k, err, len);
    fclose(k.canon);
    sqlite3_finalize(k.keep);
    *same = rc == 0 && cap == c->len && memcmp(text, c->data, cap) == 0;
    free(text);
    return rc;
}

static int store_file_row(pb_db *db, long long run, const pb_db_csv *c, const char *header, bool raw, char *err,
                          size_t len)
{
    sqlite3_stmt *st = pb_db_prepare(db, "INSERT INTO files(run, name, kind, header, nrows, raw) VALUES(?,?,?,?,?,?)",
                                     err, len);
    if (!st)
        return -1;
    char tab[32];
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, c->name, -1, SQLITE_STATIC);
    if (c->kind >= 0)
        sqlite3_bind_text(st, 3, pb_db_table((pb_kind)c->kind, tab, sizeof tab), -1, SQLITE_TRANSIENT);
    if (header)
        sqlite3_bind_text(st, 4, header, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, c->t ? (long long)c->t->nrows : 0);
    if (raw)
        sqlite3_bind_blob64(st, 6, c->data, c->len, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : pb_db_fail(db, err, len, "cannot store a file");
    sqlite3_finalize(st);
    return rc;
}

int pb_db_store(pb_db *db, long long run, const pb_db_csv *c, pb_db_row_hook hook, void *hook_arg, long *rows,
                bool *raw, char *err, size_t len)
{
    char *header = c->t ? store_header(c->t) : NULL;
    if (c->t && !header)
        return pb_db_fail(db, err, len, "out of memory");
    bool same = false;
    int rc = 0;
    if (c->kind >= 0) {
        rc = store_rows(db, run, c, hook, hook_arg, rows, err, len);
        if (rc == 0)
            rc = store_check(db, run, c, header, &same, err, len);
    }
    *raw = !same;
    if (rc == 0)
        rc = store_file_row(db, run, c, header, *raw, err, len);
    free(header);
    return rc;
}
