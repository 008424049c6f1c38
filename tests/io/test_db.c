/* The results database (bench/io/db): runs go in whole or not at all, come back out byte for byte, and a file
 * of another layout is refused. */
#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb_db.h"
#include "test_files.h"

#define ZEN3 "refs/zen3-2vcpu"
#define EMR "refs/emr-16vcpu"

static pb_db *open_db(const char *dir)
{
    char path[4200], err[4400];
    snprintf(path, sizeof path, "%s/t.sqlite", dir);
    pb_db *db;
    cr_assert_eq(pb_db_open(&db, path, true, err, sizeof err), 0, "%s", err);
    return db;
}

static void import_ok(pb_db *db, const char *run, pb_db_added want)
{
    char err[8192];
    pb_db_import_result r;
    cr_assert_eq(pb_db_import(db, run, NULL, &r, err, sizeof err), 0, "%s: %s", run, err);
    cr_expect_eq(r.added, want, "%s: added %d, want %d", run, r.added, want);
}

/* One number from the database at dir/t.sqlite. */
static long long sql_count(const char *dir, const char *sql)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/t.sqlite", dir);
    sqlite3 *h;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

/* Exports run NAME into dir/NAME-out and diffs it against orig: every CSV there, byte for byte. */
static void export_equals(pb_db *db, const char *dir, const char *name, const char *orig)
{
    char out[4200], err[8800], cmd[9000], diff[4096];
    pb_db_run r;
    cr_assert_eq(pb_db_find(db, name, &r, err, sizeof err), 0, "%s", err);
    snprintf(out, sizeof out, "%s/%s-out", dir, strchr(name, '/') ? strchr(name, '/') + 1 : name);
    cr_assert_eq(pb_db_export(db, r.id, out, err, sizeof err), 0, "%s", err);
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c csv; ls '%s' | grep -c csv; for f in '%s'/*.csv; do "
             "cmp \"$f\" '%s'/\"${f##*/}\" >/dev/null || echo \"$f differs\"; done", orig, out, orig, out);
    tf_run(diff, sizeof diff, cmd);
    int a = 0, b = 0;
    cr_assert_eq(sscanf(diff, "%d\n%d", &a, &b), 2, "%s: %s", cmd, diff);
    cr_expect_eq(a, b, "%s: %d CSVs, %d exported", orig, a, b);
    cr_expect_gt(a, 0, "%s holds CSVs", orig);
    cr_expect(!strstr(diff, "differs"), "every CSV of %s written back identical: %s", orig, diff);
}

Test(db, two_runs_come_back_byte_for_byte)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbdb");
    pb_db *db = open_db(dir);
    import_ok(db, ZEN3, PB_DB_ADDED);
    import_ok(db, EMR, PB_DB_ADDED);
    export_equals(db, dir, "20261204-232632", ZEN3);
    export_equals(db, dir, "vm/manycore-20261204-101935", EMR);
    cr_expect_eq(sql_count(dir, "SELECT count(*) FROM files WHERE raw IS NOT NULL"), 0,
                 "every CSV kept as rows, none as bytes");
    cr_expect_eq(sql_count(dir, "SELECT count(*) FROM lines"), 0, "every row prints back from its typed cells");
    cr_expect_gt(sql_count(dir, "SELECT count(*) FROM sweep WHERE tok_per_s > 0"), 100, "the rows are queryable");
    pb_db_close(db);
    tf_rmrf(dir);
}

Test(db, the_same_run_twice_changes_nothing_and_other_files_are_refused)
{
    char dir[64], err[8192], cmd[4400], out[256];
    tf_tmpdir(dir, sizeof dir, "pbdb");
    pb_db *db = open_db(dir);
    import_ok(db, ZEN3, PB_DB_ADDED);
    long long rows = sql_count(dir, "SELECT count(*) FROM sweep");
    import_ok(db, ZEN3, PB_DB_UNCHANGED);
    cr_expect_eq(sql_count(dir, "SELECT count(*) FROM runs"), 1);
    cr_expect_eq(sql_count(dir, "SELECT count(*) FROM sweep"), rows);
    /* the same run id with one byte changed */
    snprintf(cmd, sizeof cmd, "cp -r " ZEN3 " '%s/changed' && sed -i '2s/,1,/,2,/' '%s/changed/sweep.csv' && echo ok",
             dir, dir);
    cr_assert_eq(tf_run(out, sizeof out, cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/changed", dir);
    pb_db_import_result r;
    cr_expect_eq(pb_db_import(db, cmd, NULL, &r, err, sizeof err), -1);
    cr_expect(strstr(err, "with other files") && !strchr(err, '\n'), "one line: %s", err);
    cr_expect_eq(sql_count(dir, "SELECT count(*) FROM sweep"), rows, "nothing of it written");
    pb_db_close(db);
    tf_rmrf(dir);
}

static void kill_at_row(void *arg, long rows)
{
    if (rows == *(const long *)arg) /* the tests' long, given with the hook */
        raise(SIGKILL);
}

Test(db, an_import_killed_midway_leaves_no_part_of_its_run)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbdb");
    pb_db_close(open_db(dir));
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        char err[8192];
        pb_db *db = open_db(dir);
        pb_db_import_result r;
        long at = 700; /* the Zen 3 run has 1352 rows: killed halfway */
        pb_db_import_opts o = { .hook = kill_at_row, .hook_arg = &at };
        pb_db_import(db, ZEN3, &o, &r, err, sizeof err);
        _exit(0);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the child was killed mid-import");
    pb_db *db = open_db(dir); /* opening rolls the hot journal back */
    cr_expect_eq(sql_count(dir, "SELECT count(*) FROM runs"), 0);
    cr_expect_eq(sql_count(dir, "SELECT count(*) FROM files"), 0);
    cr_expect_eq(sql_count(dir, "SELECT (SELECT count(*) FROM kernels) + (SELECT count(*) FROM sweep) + "
                                "(SELECT count(*) FROM cpuutil) + (SELECT count(*) FROM pool)"), 0);
    import_ok(db, ZEN3, PB_DB_ADDED);
    cr_expect_eq(sql_count(dir, "SELECT rows FROM runs"), 1352);
    pb_db_close(db);
    tf_rmrf(dir);
}

static void sql_do(const char *dir, const char *sql)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/t.sqlite", dir);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
    sqlite3_close(h);
}

Test(db, an_older_schema_is_brought_up_and_another_layout_refused)
{
    char dir[64], path[4200], err[4400];
    tf_tmpdir(dir, sizeof dir, "pbdb");
    pb_db_close(open_db(dir));
    /* a file from before the prompt's columns: sweep lacks the last one */
    sql_do(dir, "ALTER TABLE sweep DROP COLUMN budget_roof_ms");
    pb_db *db = open_db(dir);
    import_ok(db, "refs/zen5-2vcpu", PB_DB_ADDED);
    export_equals(db, dir, "20261205-080812", "refs/zen5-2vcpu");
    pb_db_close(db);
    sql_do(dir, "UPDATE meta SET value = '99' WHERE key = 'layout'");
    snprintf(path, sizeof path, "%s/t.sqlite", dir);
    cr_expect_eq(pb_db_open(&db, path, false, err, sizeof err), -1);
    cr_expect(strstr(err, "layout 99") && strstr(err, "reads layout 1") && !strchr(err, '\n'), "%s", err);
    /* a SQLite file of something else */
    sql_do(dir, "DROP TABLE meta");
    cr_expect_eq(pb_db_open(&db, path, false, err, sizeof err), -1);
    cr_expect(strstr(err, "not a poolbench results database"), "%s", err);
    tf_rmrf(dir);
}

Test(db, rows_that_do_not_print_back_keep_their_text)
{
    char dir[64], cmd[4400], out[256];
    tf_tmpdir(dir, sizeof dir, "pbdb");
    /* the Zen 3 run with a figure written with fewer decimals than the schema prints, a nan, and CR LF elsewhere */
    snprintf(cmd, sizeof cmd,
             "cp -r " ZEN3 " '%s/odd' && cd '%s/odd' && sed -i -E '2s/,[0-9]+\\.[0-9]{3},/,7.5,/' memory_floor.csv && "
             "sed -i -E '3s/,[0-9]+\\.[0-9]+,/,nan,/' memory_floor.csv && sed -i 's/$/\\r/' overlap.csv && "
             "grep -c ',7.5,' memory_floor.csv", dir, dir);
    cr_assert_eq(tf_run(out, sizeof out, cmd), 0, "%s", cmd);
    pb_db *db = open_db(dir);
    snprintf(cmd, sizeof cmd, "%s/odd", dir);
    import_ok(db, cmd, PB_DB_ADDED);
    cr_expect_geq(sql_count(dir, "SELECT count(*) FROM lines"), 1, "the odd lines kept");
    cr_expect_eq(sql_count(dir, "SELECT count(*) FROM files WHERE raw IS NOT NULL"), 1, "overlap.csv as bytes");
    export_equals(db, dir, "20261204-232632", cmd);
    pb_db_close(db);
    tf_rmrf(dir);
}
