/* pb_llamabench_sql.c — llama-bench's sql run by SQLite in a database in memory, its statements held to
 * llama-bench's. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "pb_llamabench_impl.h"

/* A hostile file's reach: one statement (llama-bench's INSERT is about 1 KB), one value, the columns of a row. */
#define SQL_MAX_STATEMENT (1 << 20)
#define SQL_MAX_VALUE (1 << 20)
#define SQL_MAX_COLUMNS 1024

/* One file's run: the database, the authorizer's state, and the place up to which lines are counted. */
typedef struct sql_run {
    pb_llamabench_build *b;
    sqlite3 *db;
    bool trusted;               /* preparing or running our own statement: the authorizer allows it */
    bool creates;               /* the file's statement being prepared is its CREATE TABLE llama_bench */
    bool denied;                /* the authorizer denied an action of that statement */
    const char *counted;        /* the text is counted up to here: line, line_start */
    const char *line_start;
    size_t line;
    sqlite3_stmt *rows, *clear; /* the shadow table's rows, and its emptying (sql_shadow) */
} sql_run;

/* The authorizer, asked about every action of a statement while it is prepared: the file's statements may be
 * llama-bench's CREATE TABLE llama_bench (in main, with the schema row SQLite writes for it) and its INSERT INTO
 * llama_bench (which reaches the shadow table in temp) of one row of literals. Functions, subqueries, a second row
 * of VALUES (SQLite asks SQLITE_SELECT for it), ATTACH, PRAGMA, DROP, triggers, views, reads: denied. */
static int sql_authorize(void *arg, int action, const char *what, const char *column, const char *dbname,
                         const char *trigger)
{
    (void)column;
    (void)trigger;
    sql_run *r = arg; /* safe: sql_open registers this run's sql_run, which outlives the connection */
    if (r->trusted)
        return SQLITE_OK;
    bool in_main = dbname && strcmp(dbname, "main") == 0, in_temp = dbname && strcmp(dbname, "temp") == 0;
    bool ours = what && sqlite3_stricmp(what, "llama_bench") == 0;
    bool schema = in_main && what && strcmp(what, "sqlite_master") == 0;
    bool ok = false;
    if (action == SQLITE_CREATE_TABLE)
        ok = r->creates = ours && in_main;
    else if (action == SQLITE_INSERT) /* asked for CREATE TABLE's schema row first; a statement of the file's
                                        * own that writes sqlite_master SQLite refuses (defensive) */
        ok = (ours && in_temp) || schema;
    else if (action == SQLITE_UPDATE || action == SQLITE_READ) /* that schema row, once CREATE TABLE was allowed */
        ok = r->creates && schema;
    r->denied |= !ok; /* SQLite's message differs by action ("not authorized to use function"): one message here */
    return ok ? SQLITE_OK : SQLITE_DENY;
}

/* The line and column of p, counted on from the last place asked (the statements come in order). */
static size_t sql_line_of(sql_run *r, const char *p, size_t *col)
{
    for (; r->counted < p; r->counted++)
        if (*r->counted == '\n') {
            r->line++;
            r->line_start = r->counted + 1;
        }
    *col = (size_t)(p - r->line_start) + 1;
    return r->line;
}

/* Where the statement at p starts: past white space and "--" comments, so its line is the statement's own. */
static const char *sql_start(const char *p)
{
    for (;;) {
        p += strspn(p, " \t\r\n\f\v");
        if (p[0] != '-' || p[1] != '-')
            return p;
        p += strcspn(p, "\n");
    }
}

/* SQLite refused the statement starting at line: its message, at the byte it names where it names one. */
static int sql_refused(sql_run *r, const char *start, size_t line)
{
    if (r->denied)
        return pb_llamabench_fail(r->b, line, 0, "a statement other than llama-bench's CREATE TABLE llama_bench and "
                                  "INSERT INTO llama_bench (accepted: only those)");
    size_t col = 0;
#if SQLITE_VERSION_NUMBER >= 3038000
    int off = sqlite3_error_offset(r->db);
    if (off >= 0)
        line = sql_line_of(r, start + off, &col);
#endif
    return pb_llamabench_fail(r->b, line, col, "SQLite cannot run the statement: %.200s", sqlite3_errmsg(r->db));
}

/* After the file's CREATE TABLE: a table of its columns in temp, declaring no type, which the file's INSERT INTO
 * llama_bench reaches first (SQLite looks a name up in temp before main). A column without a type converts
 * nothing, so each value reads back as the file wrote it: llama-bench's REAL would turn '12.50' into 12.5. */
static int sql_shadow(sql_run *r, size_t line)
{
    if (r->rows)
        return 0; /* a second CREATE TABLE IF NOT EXISTS: nothing was created */
    r->trusted = true;
    sqlite3_stmt *cols = NULL;
    sqlite3_str *sql = sqlite3_str_new(r->db);
    sqlite3_str_appendall(sql, "CREATE TEMP TABLE llama_bench (");
    int rc = sqlite3_prepare_v2(r->db, "SELECT * FROM main.llama_bench", -1, &cols, NULL);
    for (int i = 0; rc == SQLITE_OK && i < sqlite3_column_count(cols); i++) {
        const char *name = sqlite3_column_name(cols, i);
        rc = name ? rc : SQLITE_NOMEM;
        sqlite3_str_appendf(sql, "%s\"%w\"", i ? ", " : "", name ? name : "");
    }
    sqlite3_str_appendall(sql, ")");
    sqlite3_finalize(cols);
    char *create = sqlite3_str_finish(sql);
    if (rc == SQLITE_OK)
        rc = create ? sqlite3_exec(r->db, create, NULL, NULL, NULL) : SQLITE_NOMEM;
    sqlite3_free(create);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(r->db, "SELECT * FROM temp.llama_bench", -1, &r->rows, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(r->db, "DELETE FROM temp.llama_bench", -1, &r->clear, NULL);
    r->trusted = false;
    return rc == SQLITE_OK ? 0 : pb_llamabench_fail(r->b, line, 0, "SQLite: %.200s", sqlite3_errmsg(r->db));
}

/* One row of the shadow table: a test at its INSERT's line. NULL, which is also what a column the INSERT did not
 * name holds, is a field not given. */
static int sql_row(sql_run *r, size_t line)
{
    pb_llamabench_build *b = r->b;
    if (pb_llamabench_record(b, line) != 0)
        return -1;
    for (int i = 0; i < sqlite3_column_count(r->rows); i++) {
        int type = sqlite3_column_type(r->rows, i);
        const char *name = sqlite3_column_name(r->rows, i);
        const char *v = (const char *)sqlite3_column_text(r->rows, i);
        if (type == SQLITE_NULL)
            continue;
        if (!name || !v)
            return pb_llamabench_fail(b, 0, 0, "out of memory");
        if (type == SQLITE_BLOB) /* its bytes may hold a NUL, which would cut the text */
            return pb_llamabench_fail(b, line, 0,
                                      "field '%.100s' holds a blob, where llama-bench writes a '...' string", name);
        size_t off = pb_llamabench_begin(b);
        pb_llamabench_putn(b, v, (size_t)sqlite3_column_bytes(r->rows, i));
        pb_llamabench_end(b);
        if (pb_llamabench_field(b, name, off, line, 0) != 0)
            return -1;
    }
    return 0;
}

/* After one of the file's INSERTs: its row filed, then the shadow table emptied, so that it holds one
 * statement's row at a time and each test keeps its statement's line. */
static int sql_take_rows(sql_run *r, size_t line)
{
    if (!r->rows)
        return 0;
    r->trusted = true; /* a statement SQLite prepares again asks the authorizer again */
    int rc, bad = 0;
    while (!bad && (rc = sqlite3_step(r->rows)) == SQLITE_ROW)
        bad = sql_row(r, line);
    sqlite3_reset(r->rows);
    if (!bad && rc != SQLITE_DONE)
        bad = pb_llamabench_fail(r->b, line, 0, "SQLite: %.200s", sqlite3_errmsg(r->db));
    if (!bad && sqlite3_step(r->clear) != SQLITE_DONE)
        bad = pb_llamabench_fail(r->b, line, 0, "SQLite: %.200s", sqlite3_errmsg(r->db));
    sqlite3_reset(r->clear);
    r->trusted = false;
    return bad;
}

/* The file's statements one by one, each refused or run where it starts, its row filed. */
static int sql_run_all(sql_run *r, const char *text)
{
    for (const char *at = sql_start(text); *at; at = sql_start(at)) {
        size_t col, line = sql_line_of(r, at, &col);
        sqlite3_stmt *st = NULL;
        const char *tail = at;
        r->creates = r->denied = false;
        if (sqlite3_prepare_v2(r->db, at, -1, &st, &tail) != SQLITE_OK)
            return sql_refused(r, at, line);
        if (tail == at) /* nothing taken: cannot happen, but would loop */
            return pb_llamabench_fail(r->b, line, col, "SQLite read no statement here");
        at = tail;
        if (!st)
            continue; /* a lone ';' */
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            ; /* EXPLAIN's rows: llama-bench's statements return none */
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return pb_llamabench_fail(r->b, line, 0, "SQLite cannot run the statement: %.200s", sqlite3_errmsg(r->db));
        if ((r->creates ? sql_shadow(r, line) : sql_take_rows(r, line)) != 0)
            return -1;
    }
    return 0;
}

/* The database in memory, hardened where this SQLite can be, limited, and guarded by the authorizer. */
static int sql_open(sql_run *r)
{
    if (sqlite3_open_v2(":memory:", &r->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        return pb_llamabench_fail(r->b, 0, 0, "SQLite cannot open a database in memory: %s",
                                  r->db ? sqlite3_errmsg(r->db) : "out of memory");
#ifdef SQLITE_DBCONFIG_DEFENSIVE
    sqlite3_db_config(r->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
    sqlite3_db_config(r->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
#endif
    static const int limits[][2] = {
        { SQLITE_LIMIT_SQL_LENGTH, SQL_MAX_STATEMENT }, { SQLITE_LIMIT_LENGTH, SQL_MAX_VALUE },
        { SQLITE_LIMIT_COLUMN, SQL_MAX_COLUMNS },       { SQLITE_LIMIT_EXPR_DEPTH, 16 },
        { SQLITE_LIMIT_VARIABLE_NUMBER, 0 },            { SQLITE_LIMIT_ATTACHED, 0 },
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        sqlite3_limit(r->db, limits[i][0], limits[i][1]);
    sqlite3_set_authorizer(r->db, sql_authorize, r);
    return 0;
}

int pb_llamabench_read_sql(pb_llamabench_build *b, const char *data, size_t len)
{
    /* NUL-terminated: SQLite copies a text that is not once per statement it prepares */
    char *text = malloc(len + 1);
    if (!text)
        return pb_llamabench_fail(b, 0, 0, "out of memory");
    memcpy(text, data, len);
    text[len] = '\0';
    sql_run r = { .b = b, .counted = text, .line_start = text, .line = 1 };
    int rc = sql_open(&r) == 0 ? sql_run_all(&r, text) : -1;
    sqlite3_finalize(r.rows);
    sqlite3_finalize(r.clear);
    sqlite3_close(r.db);
    free(text);
    return rc;
}
