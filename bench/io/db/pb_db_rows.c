/* pb_db_rows.c — a kind table's rows printed back as CSV lines, the way the harness wrote them. */
#include "pb_db_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pb_db_header_cols(pb_kind k, const char *header, int *cols, int max)
{
    int n = 0;
    const char *p = header;
    for (;;) {
        size_t w = strcspn(p, ",");
        char name[128];
        if (w >= sizeof name || n == max)
            return -1;
        memcpy(name, p, w);
        name[w] = '\0';
        if ((cols[n++] = pb_schema_col(k, name)) < 0)
            return -1;
        if (!p[w])
            return n;
        p += w + 1;
    }
}

/* One cell onto f: a value of the column's own class through the schema's format (what the harness printed), any
 * other value (a text kept where a number did not print back) as its text; NULL is an empty field. */
static void rows_cell(FILE *f, const pb_column *col, sqlite3_stmt *st, int i)
{
    int t = sqlite3_column_type(st, i);
    pb_value v;
    if (t == SQLITE_NULL)
        return;
    if (t == SQLITE_INTEGER && (col->type == PB_T_INT || col->type == PB_T_U64)) {
        v.i = sqlite3_column_int64(st, i);
        if (col->type == PB_T_U64)
            v.u = (unsigned long long)v.i; /* stored as int64 only when it fit below 2^63: the same value */
        pb_value_print(f, col, v);
    } else if (t == SQLITE_FLOAT && col->type == PB_T_REAL) {
        v.d = sqlite3_column_double(st, i);
        pb_value_print(f, col, v);
    } else {
        const unsigned char *s = sqlite3_column_text(st, i);
        pb_csv_field(f, s ? (const char *)s : "");
    }
}

/* SELECT of the header's columns from k's table for one run, in row order, into buf. */
static void rows_select(pb_kind k, const int *cols, int n, char *buf, size_t len)
{
    char t[32];
    snprintf(buf, len, "SELECT");
    for (int c = 0; c < n; c++) {
        size_t at = strlen(buf);
        snprintf(buf + at, len - at, "%s \"%s\"", c ? "," : "", pb_schema_name(k, cols[c]));
    }
    size_t at = strlen(buf);
    snprintf(buf + at, len - at, " FROM %s WHERE pb_run = ? ORDER BY pb_row", pb_db_table(k, t, sizeof t));
}

int pb_db_rows_each(pb_db *db, long long run, pb_kind k, const char *header, pb_db_line_fn fn, void *arg, char *err,
                    size_t len)
{
    int cols[512];
    int n = pb_db_header_cols(k, header, cols, 512);
    if (n < 0) {
        snprintf(err, len, "%s: a header that is not %s's columns: %.200s", db->path, pb_schema_get(k)->file, header);
        return -1;
    }
    char sql[16384];
    rows_select(k, cols, n, sql, sizeof sql);
    sqlite3_stmt *st = pb_db_prepare(db, sql, err, len);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, run);
    char *line = NULL;
    size_t cap = 0;
    int rc = 0, step = SQLITE_DONE;
    const pb_schema *s = pb_schema_get(k);
    for (long row = 0; rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW; row++) {
        free(line); /* open_memstream makes a new buffer each time: the last row's goes first */
        line = NULL;
        FILE *f = open_memstream(&line, &cap);
        if (!f) {
            snprintf(err, len, "%s: out of memory", db->path);
            rc = -1;
            break;
        }
        for (int c = 0; c < n; c++) {
            if (c)
                fputc(',', f);
            rows_cell(f, &s->cols[cols[c]], st, c);
        }
        fclose(f);
        rc = fn(arg, row, line);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = pb_db_fail(db, err, len, "cannot read rows");
    free(line);
    sqlite3_finalize(st);
    return rc;
}
