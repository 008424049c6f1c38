/* pb_db_impl.h — what the database's files share: the handle, one-line errors from SQLite, and the kind tables'
 * names and column types. */
#ifndef PB_DB_IMPL_H
#define PB_DB_IMPL_H

#include <sqlite3.h>

#include "pb_csvread.h"

#include "pb_db.h"
#include "pb_schema.h"

struct pb_db {
    sqlite3 *h;
    char path[4096];
};

/* "PATH: what: SQLite's message" into err; returns -1. */
int pb_db_fail(const pb_db *db, char *err, size_t len, const char *what);
/* Runs sql (no rows): 0, or -1 with err naming what. */
int pb_db_exec(pb_db *db, const char *sql, const char *what, char *err, size_t len);
/* Prepares sql: the statement, or NULL with err. */
sqlite3_stmt *pb_db_prepare(pb_db *db, const char *sql, char *err, size_t len);
/* A kind's table name in lower case ("sweep") into buf. */
const char *pb_db_table(pb_kind k, char *buf, size_t len);
/* The SQL type of a schema column: TEXT, INTEGER or REAL. */
const char *pb_db_sql_type(pb_col_type t);

/* Each row of run's file of kind k, as a CSV line printed back from the table (no line end), in file order,
 * with the columns of header (the file's header line: the schema's columns, or an older prefix of them), to fn;
 * fn returns 0 to go on. pb_db_export writes these, pb_db_import checks them against the file. 0, or -1 with
 * err (fn's -1 comes back as -1 with err as fn left it). */
typedef int (*pb_db_line_fn)(void *arg, long row, const char *line);
int pb_db_rows_each(pb_db *db, long long run, pb_kind k, const char *header, pb_db_line_fn fn, void *arg, char *err,
                    size_t len);
/* The schema column of each name in header, into cols (at most max): how many, or -1 when a name is not one of
 * k's columns. */
int pb_db_header_cols(pb_kind k, const char *header, int *cols, int max);

/* One CSV of a run stored (pb_db_store.c): t's rows into kind k's table (k < 0: none), the file row with its header,
 * the lines that do not print back as written, and the bytes themselves where the rows cannot give the file
 * back (a file of no kind, CR LF line ends, blank lines). hook after each row. Adds to *rows; *raw set when the
 * bytes were kept. 0, or -1 with err. */
typedef struct pb_db_csv {
    const char *name, *data;
    size_t len;
    const pb_table *t; /* NULL: not a CSV (an engine's file) */
    int kind;
} pb_db_csv;
int pb_db_store(pb_db *db, long long run, const pb_db_csv *c, pb_db_row_hook hook, void *hook_arg, long *rows,
                bool *raw, char *err, size_t len);

#endif
