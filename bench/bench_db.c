/* bench_db — the results database (bench/io/db/pb_db.h): import run directories, list the runs, export one back,
 * draw one figure's trend.
 *   bench_db [--db FILE] import DIR...   each run in one transaction; a run there already is left as it is
 *   bench_db [--db FILE] list            the runs, oldest first
 *   bench_db [--db FILE] export RUN DIR  the run's CSVs written into DIR, byte for byte as imported
 *   bench_db [--db FILE] trend FIGURE DIR [--host H]... [--git REV] [--since DATE]
 *                                        DIR/trend.dat and trend.png: FIGURE over the runs chosen, by commit */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_cli.h"
#include "pb_compare.h"
#include "pb_db.h"
#include "pb_plot.h"
#include "pb_run.h"

static const char SUMMARY[] =
    "The results database, one SQLite file (default " PB_DB_DEFAULT "):\n"
    "  import DIR...   adds each run directory, all of it or nothing; a run already there is left as it is\n"
    "  list            the runs kept: host, run id, commit, start, files, rows, where it came from\n"
    "  export RUN DIR  writes run RUN (RUN_ID or HOST/RUN_ID) into DIR, its CSVs byte for byte\n"
    "  trend FIGURE DIR  DIR/trend.dat and trend.{png,svg}: one headline figure (floor.1,\n"
    "                  decode.qwen3-0.6b.q8_0, dispatch.spin, kernel.q4_0.l2, ...: bench_compare's\n"
    "                  keys) over the runs of --host (any when none) that --git and --since pass\n"
    "Query it with sqlite3: a table per CSV (sweep, pool, kernels, machine, ...), runs and files.\n"
    "exit: 0 ok; 1 a run could not be imported or written; 2 bad usage or a database that does not open";

typedef struct bdb_args {
    const char *db, *cmd, *git, *since;
    bool reference;
    pb_strs hosts;
    char **args;
    int nargs;
} bdb_args;

static int bdb_parse(int argc, char **argv, bdb_args *a)
{
    *a = (bdb_args){ .db = PB_DB_DEFAULT };
    const pb_opt opts[] = {
        { .name = "db", .kind = PB_OPT_STRING, .dest = &a->db, .metavar = "FILE", .env = "",
          .help = "the database file (default " PB_DB_DEFAULT "; import makes it)" },
        { .name = "reference", .kind = PB_OPT_FLAG, .dest = &a->reference, .env = "",
          .help = "import: the runs are reference machines', each named by its folder (refs/zen3-2vcpu: zen3-2vcpu)" },
        PB_OPT_DB_HOST(&a->hosts, "trend"),
        PB_OPT_DB_GIT(&a->git, "trend"),
        PB_OPT_DB_SINCE(&a->since, "trend"),
        { 0 },
    };
    int first, rc = pb_cli_parse_tool("bench_db", "import DIR... | list | export RUN DIR | trend FIGURE DIR", SUMMARY, opts, argc, argv,
                                      &first);
    if (rc != PB_CLI_GO)
        return rc;
    a->cmd = first < argc ? argv[first] : "";
    a->args = argv + first + (first < argc);
    a->nargs = argc - first - (first < argc);
    bool ok = (strcmp(a->cmd, "import") == 0 && a->nargs >= 1) || (strcmp(a->cmd, "list") == 0 && a->nargs == 0) ||
              (strcmp(a->cmd, "export") == 0 && a->nargs == 2) || (strcmp(a->cmd, "trend") == 0 && a->nargs == 2);
    if (!ok) {
        fprintf(stderr, "bench_db: '%s' with %d argument%s; accepted: import DIR..., list, export RUN DIR, trend "
                        "FIGURE DIR\n", a->cmd, a->nargs, a->nargs == 1 ? "" : "s");
        return 2;
    }
    if (strcmp(a->cmd, "trend") != 0 && (a->hosts.n || a->git || a->since)) {
        fprintf(stderr, "bench_db: --host, --git and --since choose the runs of trend only\n");
        return 2;
    }
    if (strcmp(a->cmd, "import") != 0 && a->reference) {
        fprintf(stderr, "bench_db: --reference is for import only\n");
        return 2;
    }
    return PB_CLI_GO;
}

static int bdb_import(pb_db *db, const bdb_args *a)
{
    int failed = 0;
    char err[8192];
    for (int i = 0; i < a->nargs; i++) {
        pb_db_import_result r;
        char name[256];
        pb_db_import_opts o = { .reference = a->reference ? (pb_run_basename(a->args[i], name, sizeof name), name) : NULL };
        if (pb_db_import(db, a->args[i], &o, &r, err, sizeof err) != 0) {
            fprintf(stderr, "bench_db: %s\n", err);
            failed = 1;
        } else if (r.added == PB_DB_UNCHANGED) {
            printf("import: %s: run %s of %s is there already, unchanged\n", a->args[i], r.run_id, r.host);
        } else {
            printf("import: %s: run %s of %s: %d files, %ld rows%s\n", a->args[i], r.run_id, r.host, r.files, r.rows,
                   r.raw ? " (some kept as their bytes)" : "");
        }
    }
    return failed;
}

static int bdb_list(pb_db *db)
{
    char err[4400];
    int n = pb_db_runs(db, NULL, NULL, 0, err, sizeof err);
    pb_db_run *r = n > 0 ? calloc((size_t)n, sizeof *r) : NULL;
    if (n < 0 || (n > 0 && (!r || pb_db_runs(db, NULL, r, n, err, sizeof err) != n))) {
        fprintf(stderr, "bench_db: %s\n", n < 0 ? err : "out of memory");
        free(r);
        return 1;
    }
    printf("%-16s %-28s %-14s %-10s %-19s %5s %7s  %s\n", "host", "run", "reference", "git", "started", "files",
           "rows", "from");
    for (int i = 0; i < n; i++)
        printf("%-16s %-28s %-14s %-10s %-19s %5d %7ld  %s\n", r[i].host, r[i].run_id,
               *r[i].reference ? r[i].reference : "-", r[i].git, r[i].started, r[i].files, r[i].rows, r[i].dir);
    printf("%d run%s in the database\n", n, n == 1 ? "" : "s");
    free(r);
    return 0;
}

static int bdb_export(pb_db *db, const bdb_args *a)
{
    char err[8800];
    pb_db_run r;
    if (pb_db_find(db, a->args[0], &r, err, sizeof err) != 0) {
        fprintf(stderr, "bench_db: %s\n", err);
        return 2;
    }
    if (pb_db_export(db, r.id, a->args[1], err, sizeof err) != 0) {
        fprintf(stderr, "bench_db: %s\n", err);
        return 1;
    }
    printf("export: run %s of %s into %s (%d files)\n", r.run_id, r.host, a->args[1], r.files);
    return 0;
}

static int bdb_trend(pb_db *db, const bdb_args *a)
{
    char err[8800];
    pb_db_filter f = { .hosts = a->hosts.v, .nhosts = a->hosts.n, .git = a->git, .since = a->since };
    int points;
    if (pb_compare_trend(db, &f, a->args[0], a->args[1], &points, err, sizeof err) != 0) {
        fprintf(stderr, "bench_db: trend: %s\n", err);
        return 1;
    }
    printf("trend: %s over %d run%s: %s/trend.dat\n", a->args[0], points, points == 1 ? "" : "s", a->args[1]);
    return pb_plot_run("trend.gp", a->args[1]) < 0;
}

int main(int argc, char **argv)
{
    bdb_args a;
    int rc = bdb_parse(argc, argv, &a);
    if (rc != PB_CLI_GO)
        return rc;
    pb_db *db;
    char err[8192];
    if (pb_db_open(&db, a.db, strcmp(a.cmd, "import") == 0, err, sizeof err) != 0) {
        fprintf(stderr, "bench_db: %s\n", err);
        return 2;
    }
    if (strcmp(a.cmd, "import") == 0)
        rc = bdb_import(db, &a);
    else if (strcmp(a.cmd, "list") == 0)
        rc = bdb_list(db);
    else if (strcmp(a.cmd, "trend") == 0)
        rc = bdb_trend(db, &a);
    else
        rc = bdb_export(db, &a);
    pb_db_close(db);
    return rc;
}
