/* pb_db.c — the results database opened: its layout checked, its tables made from pb_schema.h's lists. */
#include "pb_db_impl.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int pb_db_fail(const pb_db *db, char *err, size_t len, const char *what)
{
    snprintf(err, len, "%s: %s: %s", db->path, what, db->h ? sqlite3_errmsg(db->h) : "out of memory");
    return -1;
}

int pb_db_exec(pb_db *db, const char *sql, const char *what, char *err, size_t len)
{
    return sqlite3_exec(db->h, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : pb_db_fail(db, err, len, what);
}

sqlite3_stmt *pb_db_prepare(pb_db *db, const char *sql, char *err, size_t len)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
        pb_db_fail(db, err, len, "cannot prepare a statement");
        sqlite3_finalize(st);
        return NULL;
    }
    return st;
}

const char *pb_db_table(pb_kind k, char *buf, size_t len)
{
    const char *t = pb_schema_get(k)->table;
    size_t i = 0;
    for (; t[i] && i + 1 < len; i++)
        buf[i] = (char)tolower((unsigned char)t[i]);
    buf[i] = '\0';
    return buf;
}

const char *pb_db_sql_type(pb_col_type t)
{
    switch (t) {
    case PB_T_TEXT:
        return "TEXT";
    case PB_T_INT:
    case PB_T_U64:
        return "INTEGER";
    case PB_T_REAL:
        return "REAL";
    }
    return "TEXT";
}

static const char DB_TABLES[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, host TEXT NOT NULL, run_id TEXT NOT NULL, git TEXT, started TEXT,"
    " dir TEXT, digest TEXT NOT NULL, files INTEGER, rows INTEGER, reference TEXT, UNIQUE(host, run_id));"
    "CREATE TABLE files(run INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL, kind TEXT, header TEXT,"
    " nrows INTEGER, raw BLOB, PRIMARY KEY(run, name));"
    "CREATE TABLE lines(run INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL, row INTEGER NOT NULL,"
    " text TEXT NOT NULL, PRIMARY KEY(run, name, row));";

/* The layout a file holds: its meta's, 0 for a file with no table at all (new), -1 for a file with tables but
 * no poolbench meta. */
static int db_layout(pb_db *db)
{
    sqlite3_stmt *st = NULL;
    int layout = -1;
    if (sqlite3_prepare_v2(db->h, "SELECT value FROM meta WHERE key = 'layout'", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            layout = sqlite3_column_int(st, 0);
    } else if (sqlite3_prepare_v2(db->h, "SELECT count(*) FROM sqlite_schema", -1, &st, NULL) == SQLITE_OK &&
               sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0) {
        layout = 0;
    }
    sqlite3_finalize(st);
    return layout;
}

/* The kind table k, or the columns this build's schema appended since the file's table was made. */
static int db_kind_table(pb_db *db, pb_kind k, char *err, size_t len)
{
    const pb_schema *s = pb_schema_get(k);
    char t[32], q[256], sql[16384];
    pb_db_table(k, t, sizeof t);
    snprintf(sql, sizeof sql, "CREATE TABLE IF NOT EXISTS %s(pb_run INTEGER NOT NULL REFERENCES runs(id),"
             " pb_row INTEGER NOT NULL", t);
    for (int c = 0; c < s->ncols; c++) {
        size_t n = strlen(sql);
        snprintf(sql + n, sizeof sql - n, ", \"%s\" %s", s->cols[c].name, pb_db_sql_type(s->cols[c].type));
    }
    size_t n = strlen(sql);
    snprintf(sql + n, sizeof sql - n, ", PRIMARY KEY(pb_run, pb_row))");
    if (pb_db_exec(db, sql, "cannot make a table", err, len) != 0)
        return -1;
    snprintf(q, sizeof q, "SELECT 1 FROM pragma_table_info('%s') WHERE name = ?", t);
    sqlite3_stmt *st = pb_db_prepare(db, q, err, len);
    if (!st)
        return -1;
    int rc = 0;
    for (int c = 0; rc == 0 && c < s->ncols; c++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, s->cols[c].name, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            continue;
        snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN \"%s\" %s", t, s->cols[c].name,
                 pb_db_sql_type(s->cols[c].type));
        rc = pb_db_exec(db, sql, "cannot add a column appended to the schema", err, len);
    }
    sqlite3_finalize(st);
    return rc;
}

/* A new file's tables, or an older one's checked and brought to this schema's columns. In one transaction. */
static int db_prepare_tables(pb_db *db, char *err, size_t len)
{
    if (pb_db_exec(db, "BEGIN IMMEDIATE", "cannot start a transaction", err, len) != 0)
        return -1;
    int layout = db_layout(db), rc = 0;
    char sql[256];
    if (layout == 0) {
        snprintf(sql, sizeof sql, "INSERT INTO meta VALUES('layout', '%d'), ('csv_schema', '%d')", PB_DB_LAYOUT,
                 PB_SCHEMA_VERSION);
        rc = pb_db_exec(db, DB_TABLES, "cannot make the tables", err, len) ||
             pb_db_exec(db, sql, "cannot write the layout", err, len) ? -1 : 0;
    } else if (layout < 0) {
        snprintf(err, len, "%s: not a poolbench results database (it has tables but no poolbench layout); "
                 "a file bench_db made is accepted", db->path);
        rc = -1;
    } else if (layout != PB_DB_LAYOUT) {
        snprintf(err, len, "%s: a poolbench database of layout %d; this build reads layout %d only (open it with the "
                 "poolbench that wrote it, or import the run directories into a new file)", db->path, layout,
                 PB_DB_LAYOUT);
        rc = -1;
    }
    for (int k = 0; rc == 0 && k < PB_SCHEMA_COUNT; k++)
        rc = db_kind_table(db, (pb_kind)k, err, len);
    if (rc == 0)
        return pb_db_exec(db, "COMMIT", "cannot commit the tables", err, len);
    sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* Refuses what SQLite would open as something else: a directory, a FIFO (it would block), a device. */
static int db_check_path(const char *path, bool create, char *err, size_t len)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT && create)
            return 0;
        snprintf(err, len, "%s: %s%s", path, strerror(errno), errno == ENOENT ? " (bench_db import makes one)" : "");
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, len, "%s: not a regular file; a database file's path is accepted", path);
        return -1;
    }
    return 0;
}

int pb_db_open(pb_db **out, const char *path, bool create, char *err, size_t len)
{
    *out = NULL;
    if (strlen(path) >= sizeof((pb_db *)0)->path) {
        snprintf(err, len, "a database path of %zu bytes; paths up to %zu bytes are accepted", strlen(path),
                 sizeof((pb_db *)0)->path - 1);
        return -1;
    }
    if (db_check_path(path, create, err, len) != 0)
        return -1;
    pb_db *db = calloc(1, sizeof *db);
    if (!db) {
        snprintf(err, len, "%s: out of memory", path);
        return -1;
    }
    snprintf(db->path, sizeof db->path, "%s", path);
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
        pb_db_fail(db, err, len, "cannot open");
        pb_db_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db->h, 10000);
    /* A double-quoted name that is no column must fail, not become a string (SQLite's legacy default). */
    sqlite3_db_config(db->h, SQLITE_DBCONFIG_DQS_DML, 0, NULL);
    sqlite3_db_config(db->h, SQLITE_DBCONFIG_DQS_DDL, 0, NULL);
    sqlite3_extended_result_codes(db->h, 1);
    if (pb_db_exec(db, "PRAGMA foreign_keys = ON", "cannot set foreign keys", err, len) != 0 ||
        db_prepare_tables(db, err, len) != 0) {
        pb_db_close(db);
        return -1;
    }
    *out = db;
    return 0;
}

void pb_db_close(pb_db *db)
{
    if (!db)
        return;
    sqlite3_close(db->h);
    free(db);
}
