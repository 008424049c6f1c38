/* pb_db.h — the results database: run directories kept in one SQLite file (results/poolbench.sqlite).
 *
 * Layout (PB_DB_LAYOUT; `meta` holds it, and a file of another layout is refused in one line):
 *   meta(key, value)                      layout, and the CSV schema version of the poolbench that made it
 *   runs(id, host, run_id, git, started, dir, digest, files, rows, reference)
 *                                         one per run; (host, run_id) is unique; digest: a hash of the files kept;
 *                                         reference: the name of a reference run (refs/NAME), NULL for one's own
 *   files(run, name, kind, header, nrows, raw)
 *                                         each CSV of the run: its table (kind) and header line, or its bytes in
 *                                         raw where the rows alone cannot give them back (an engine's file)
 *   lines(run, name, row, text)           a row whose cells do not print back as written: the line as written
 *   one table per CSV kind, named as the kind (sweep, pool, kernels, machine, ...): pb_run, pb_row, then the
 *                                         kind's columns from pb_schema.h, typed (TEXT, INTEGER, REAL)
 * A run is imported in one transaction: all of it or nothing. Importing the same run again changes nothing;
 * importing other files under the same host and run id is refused. Export writes the CSVs back byte for byte. */
#ifndef PB_DB_H
#define PB_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PB_DB_LAYOUT 1 /* bump when a table of the layout above changes; older files are then refused */
#define PB_DB_DEFAULT "results/poolbench.sqlite"

typedef struct pb_db pb_db;

/* Opens (create: or creates) the database at path and checks its layout; the kind tables of this build's schema
 * are created, and a column this build's schema appended to a kind is added to an older file's table. 0, or -1
 * with a one-line reason in err. */
int pb_db_open(pb_db **db, const char *path, bool create, char *err, size_t len);
void pb_db_close(pb_db *db);

/* Called after each row stored by an import (the tests kill an import there), with the rows so far. */
typedef void (*pb_db_row_hook)(void *arg, long rows);

/* How a run is imported: as a reference machine's (named, so that --host NAME finds it and a host's own runs
 * leave it out), and the row hook (NULL: none). */
typedef struct pb_db_import_opts {
    const char *reference;
    pb_db_row_hook hook;
    void *hook_arg;
} pb_db_import_opts;

typedef enum pb_db_added { PB_DB_ADDED, PB_DB_UNCHANGED } pb_db_added;

typedef struct pb_db_import_result {
    pb_db_added added;
    char host[128], run_id[512];
    int files;  /* CSVs and engine files kept */
    long rows;  /* rows stored in the kind tables */
    int raw;    /* files kept as bytes only */
} pb_db_import_result;

/* Imports the run directory dir in one transaction. 0 (res says whether it was added or already there: a reference
 * name given then is set on it), or -1 with a one-line reason in err (nothing written). o may be NULL. */
int pb_db_import(pb_db *db, const char *dir, const pb_db_import_opts *o, pb_db_import_result *res, char *err,
                 size_t len);

/* A run kept: what `bench_db list` prints and bench_compare --db selects from. */
typedef struct pb_db_run {
    long long id;
    char host[128], run_id[512], git[64], started[32], dir[4096], reference[128];
    int files;
    long rows;
} pb_db_run;

/* Which runs: those of every host named, a name being a host's (its own runs, references left out) or a
 * reference's (none named: every run); git a prefix of the run's commit (NULL: any); since a date or time the run
 * started at or after ("YYYY-MM-DD", "YYYY-MM-DDTHH"; NULL: any). */
typedef struct pb_db_filter {
    const char *const *hosts;
    int nhosts;
    const char *git, *since;
} pb_db_filter;

/* --host, --git and --since, the options that fill a pb_db_filter, the same in every tool that selects runs of a
 * database (bench_compare, bench_db; the expansion site includes pb_cli.h). scope, a string literal: when they
 * apply ("with --db", "trend"). */
#define PB_OPT_DB_HOST(ptr, scope)                                                                               \
    { .name = "host", .kind = PB_OPT_REPEAT, .dest = (ptr), .metavar = "HOST", .env = "",                        \
      .help = scope ": the runs of this host (repeat for more; default: every host)" }
#define PB_OPT_DB_GIT(ptr, scope)                                                                                \
    { .name = "git", .kind = PB_OPT_STRING, .dest = (ptr), .metavar = "REV", .env = "",                          \
      .help = scope ": runs of commits starting with REV" }
#define PB_OPT_DB_SINCE(ptr, scope)                                                                              \
    { .name = "since", .kind = PB_OPT_STRING, .dest = (ptr), .metavar = "DATE", .env = "",                       \
      .help = scope ": runs started at or after DATE (2026-12-05, 2026-12-05T08:00)" }

/* The runs that pass f, oldest first, into out (at most max): how many there are, or -1 with err. */
int pb_db_runs(pb_db *db, const pb_db_filter *f, pb_db_run *out, int max, char *err, size_t len);
/* The run named "RUN_ID", "HOST/RUN_ID" or by its reference name: 0, or -1 with err (none, or a name two runs
 * share). */
int pb_db_find(pb_db *db, const char *name, pb_db_run *out, char *err, size_t len);
/* Writes run id's files into dir, which must not exist or be empty: 0, or -1 with err (dir then removed). */
int pb_db_export(pb_db *db, long long id, const char *dir, char *err, size_t len);

#endif
