/* pb_db_export.c — runs found in the database, and a run written back out as its directory. */
#include "pb_db_impl.h"

#include <errno.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_run.h"

#define EXPORT_RUN_COLS                                                                                             \
    "id, host, run_id, coalesce(git, ''), coalesce(started, ''), coalesce(dir, ''), files, rows, "                  \
    "coalesce(reference, '')"

static void export_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(buf, len, "%s", t ? (const char *)t : "");
}

static void export_run_row(sqlite3_stmt *st, pb_db_run *r)
{
    r->id = sqlite3_column_int64(st, 0);
    export_text(st, 1, r->host, sizeof r->host);
    export_text(st, 2, r->run_id, sizeof r->run_id);
    export_text(st, 3, r->git, sizeof r->git);
    export_text(st, 4, r->started, sizeof r->started);
    export_text(st, 5, r->dir, sizeof r->dir);
    r->files = sqlite3_column_int(st, 6);
    r->rows = (long)sqlite3_column_int64(st, 7);
    export_text(st, 8, r->reference, sizeof r->reference);
}

/* The filter's SQL: hosts as ?1..?N, then git and since. */
static void export_where(const pb_db_filter *f, char *sql, size_t len)
{
    snprintf(sql, len, "SELECT " EXPORT_RUN_COLS " FROM runs WHERE 1");
    size_t at = strlen(sql);
    if (f->nhosts > 0) {
        /* a host's own runs (no reference name), or a reference by its name: ?1..?N serve both */
        snprintf(sql + at, len - at, " AND ((reference IS NULL AND host IN (");
        for (int i = 0; i < f->nhosts; i++) {
            at = strlen(sql);
            snprintf(sql + at, len - at, "%s?%d", i ? ", " : "", i + 1);
        }
        at = strlen(sql);
        snprintf(sql + at, len - at, ")) OR reference IN (");
        for (int i = 0; i < f->nhosts; i++) {
            at = strlen(sql);
            snprintf(sql + at, len - at, "%s?%d", i ? ", " : "", i + 1);
        }
        at = strlen(sql);
        snprintf(sql + at, len - at, "))");
    }
    at = strlen(sql);
    snprintf(sql + at, len - at, "%s%s ORDER BY started, id", f->git ? " AND instr(git, ?) = 1" : "",
             f->since ? " AND started >= ?" : "");
}

int pb_db_runs(pb_db *db, const pb_db_filter *f, pb_db_run *out, int max, char *err, size_t len)
{
    static const pb_db_filter all = { 0 };
    f = f ? f : &all;
    char sql[4096];
    if (f->nhosts > 64) {
        snprintf(err, len, "%s: more than 64 hosts asked for", db->path);
        return -1;
    }
    export_where(f, sql, sizeof sql);
    sqlite3_stmt *st = pb_db_prepare(db, sql, err, len);
    if (!st)
        return -1;
    int b = 1;
    for (int i = 0; i < f->nhosts; i++)
        sqlite3_bind_text(st, b++, f->hosts[i], -1, SQLITE_STATIC); /* ?1..?N, each used twice in the SQL */
    if (f->git)
        sqlite3_bind_text(st, b++, f->git, -1, SQLITE_STATIC);
    if (f->since)
        sqlite3_bind_text(st, b++, f->since, -1, SQLITE_STATIC);
    int n = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        if (n++ < max)
            export_run_row(st, &out[n - 1]);
    sqlite3_finalize(st);
    return step == SQLITE_DONE ? n : pb_db_fail(db, err, len, "cannot list the runs");
}

int pb_db_find(pb_db *db, const char *name, pb_db_run *out, char *err, size_t len)
{
    const char *slash = strchr(name, '/');
    sqlite3_stmt *st = pb_db_prepare(db, slash ? "SELECT " EXPORT_RUN_COLS " FROM runs WHERE host = ? AND run_id = ?"
                                               : "SELECT " EXPORT_RUN_COLS " FROM runs WHERE run_id = ?1 OR reference = ?1",
                                     err, len);
    if (!st)
        return -1;
    if (slash) {
        sqlite3_bind_text(st, 1, name, (int)(slash - name), SQLITE_STATIC);
        sqlite3_bind_text(st, 2, slash + 1, -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    }
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW)
        if (n++ == 0)
            export_run_row(st, out);
    sqlite3_finalize(st);
    if (n == 1)
        return 0;
    if (n == 0)
        snprintf(err, len, "%s: no run '%s' (bench_db list shows them: RUN_ID, HOST/RUN_ID or a reference's name is accepted)", db->path,
                 name);
    else
        snprintf(err, len, "%s: %d hosts have a run '%s'; name one as HOST/RUN_ID", db->path, n, name);
    return -1;
}

/* What writing one file carries. */
typedef struct export_file {
    pb_db *db;
    FILE *f;
    long long run;
    const char *name;
    sqlite3_stmt *kept; /* the line kept for a row, where its cells do not print back */
} export_file;

static int export_line(void *arg, long row, const char *line)
{
    export_file *x = arg; /* pb_db_rows_each passes back the export_file given to it below */
    sqlite3_reset(x->kept);
    sqlite3_bind_int64(x->kept, 1, x->run);
    sqlite3_bind_text(x->kept, 2, x->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(x->kept, 3, row);
    if (sqlite3_step(x->kept) == SQLITE_ROW)
        line = (const char *)sqlite3_column_text(x->kept, 0);
    fprintf(x->f, "%s\n", line);
    return 0;
}

/* One file: its bytes where kept, else its header and its rows. */
static int export_one(pb_db *db, long long run, sqlite3_stmt *file, const char *dir, char *err, size_t len)
{
    export_file x = { .db = db, .run = run, .name = (const char *)sqlite3_column_text(file, 0) };
    const char *kind = (const char *)sqlite3_column_text(file, 1), *header = (const char *)sqlite3_column_text(file, 2);
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, x.name);
    if (!(x.f = fopen(path, "wx"))) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = 0, k = -1;
    for (int i = 0; kind && i < PB_SCHEMA_COUNT; i++)
        if (strcasecmp(pb_schema_get((pb_kind)i)->table, kind) == 0)
            k = i;
    if (sqlite3_column_type(file, 3) == SQLITE_BLOB || k < 0 || !header) {
        fwrite(sqlite3_column_blob(file, 3), 1, (size_t)sqlite3_column_bytes(file, 3), x.f);
    } else {
        x.kept = pb_db_prepare(db, "SELECT text FROM lines WHERE run = ? AND name = ? AND row = ?", err, len);
        fprintf(x.f, "%s\n", header);
        rc = x.kept ? pb_db_rows_each(db, run, (pb_kind)k, header, export_line, &x, err, len) : -1;
        sqlite3_finalize(x.kept);
    }
    if (fclose(x.f) != 0 && rc == 0) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}

int pb_db_export(pb_db *db, long long run, const char *dir, char *err, size_t len)
{
    pb_run out;
    char why[4400];
    if (pb_run_prepare(&out, dir, false, why, sizeof why) != 0) {
        snprintf(err, len, "%s: %s", dir, why);
        return -1;
    }
    sqlite3_stmt *st = pb_db_prepare(db, "SELECT name, kind, header, raw FROM files WHERE run = ? ORDER BY name", err,
                                     len);
    int rc = st ? 0 : -1, step = SQLITE_DONE;
    if (st)
        sqlite3_bind_int64(st, 1, run);
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = export_one(db, run, st, out.dir, err, len);
    if (rc == 0 && step != SQLITE_DONE)
        rc = pb_db_fail(db, err, len, "cannot read the run's files");
    sqlite3_finalize(st);
    if (rc != 0)
        pb_run_clear(out.dir, out.created); /* no half-written run is left */
    return rc;
}
