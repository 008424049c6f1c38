/* pb_db_import.c — a run directory into the database, in one transaction. */
#include "pb_db_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pb_csvread.h"
#include "pb_infile.h"

#define IMP_FILES 48                /* CSV kinds and engine files a run holds: about 15 */
#define IMP_ENGINE_PREFIX "llama-bench."

typedef struct imp_file {
    char name[256];
    char *data;
    size_t len;
    pb_table t;
    int kind; /* a pb_kind, or -1: kept as bytes only (an engine's file, a header of no kind) */
} imp_file;

typedef struct imp {
    pb_db *db;
    const char *dir;
    imp_file f[IMP_FILES];
    int n;
    pb_db_import_result *res;
    char git[64], started[32], digest[24];
    long long run;
    pb_db_import_opts o;
    char *err;
    size_t len;
} imp;

/* The kind whose file is called name and whose columns (or an older prefix of them) t's header holds; -1. */
static int imp_kind(const char *name, const pb_table *t)
{
    for (int k = 0; k < PB_SCHEMA_COUNT; k++) {
        const pb_schema *s = pb_schema_get((pb_kind)k);
        int n = (int)t->ncols, min = s->older ? s->older : s->ncols;
        if (strcmp(s->file, name) != 0 || n < min || n > s->ncols)
            continue;
        int c = 0;
        while (c < n && strcmp(t->header[c], s->cols[c].name) == 0)
            c++;
        if (c == n)
            return k;
    }
    return -1;
}

static bool imp_wanted(const char *name)
{
    if (strncmp(name, IMP_ENGINE_PREFIX, strlen(IMP_ENGINE_PREFIX)) == 0)
        return true;
    for (int k = 0; k < PB_SCHEMA_COUNT; k++)
        if (strcmp(pb_schema_get((pb_kind)k)->file, name) == 0)
            return true;
    return false;
}

static int imp_name_cmp(const void *a, const void *b)
{
    return strcmp(((const imp_file *)a)->name, ((const imp_file *)b)->name);
}

/* One file of the run read, and parsed when it is a CSV kind's. */
static int imp_read(imp *m, int dfd, const char *name)
{
    if (m->n == IMP_FILES) {
        snprintf(m->err, m->len, "%s: more than %d files to keep", m->dir, IMP_FILES);
        return -1;
    }
    imp_file *f = &m->f[m->n];
    snprintf(f->name, sizeof f->name, "%s", name);
    f->kind = -1;
    if (pb_infile_read(dfd, name, (size_t)PB_CSV_MAX_MIB << 20, "a run's file", &f->data, &f->len, m->err, m->len))
        return -1;
    m->n++;
    if (strncmp(name, IMP_ENGINE_PREFIX, strlen(IMP_ENGINE_PREFIX)) == 0)
        return 0;
    pb_csverr e;
    if (pb_table_parse(&f->t, name, f->data, f->len, &e) != 0) {
        snprintf(m->err, m->len, "%s/%s", m->dir, e.msg);
        return -1;
    }
    f->kind = imp_kind(name, &f->t);
    return 0;
}

/* Every file of the run that the database keeps, sorted by name. */
static int imp_collect(imp *m)
{
    int dfd = open(m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        snprintf(m->err, m->len, "%s: %s; a run directory is accepted", m->dir, strerror(errno));
        if (dfd >= 0)
            close(dfd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)))
        if (imp_wanted(e->d_name))
            rc = imp_read(m, dfd, e->d_name);
    closedir(d);
    qsort(m->f, (size_t)m->n, sizeof m->f[0], imp_name_cmp);
    return rc;
}

/* machine.csv's value of key, "" when absent. */
static const char *imp_machine(const imp *m, const char *key)
{
    for (int i = 0; i < m->n; i++) {
        const pb_table *t = &m->f[i].t;
        if (m->f[i].kind != PB_K_MACHINE)
            continue;
        for (size_t r = 0; r < t->nrows; r++)
            if (strcmp(pb_table_str(t, r, 0), key) == 0)
                return pb_table_str(t, r, 1);
    }
    return "";
}

/* When the run started: its stamp (YYYYmmdd-HHMMSS, the name results/<host>/ gives a run) where the run id ends
 * in one, else machine.csv's time of change. */
static void imp_started(imp *m)
{
    const char *id = m->res->run_id;
    for (const char *p = id; *p; p++) {
        int y, mo, d, h, mi, s, used = 0;
        if (sscanf(p, "%4d%2d%2d-%2d%2d%2d%n", &y, &mo, &d, &h, &mi, &s, &used) == 6 && used == 15) {
            snprintf(m->started, sizeof m->started, "%04d-%02d-%02dT%02d:%02d:%02d", y, mo, d, h, mi, s);
            return;
        }
    }
    char path[PATH_MAX];
    struct stat st;
    struct tm tm;
    snprintf(path, sizeof path, "%s/machine.csv", m->dir);
    if (stat(path, &st) == 0 && gmtime_r(&st.st_mtime, &tm))
        strftime(m->started, sizeof m->started, "%Y-%m-%dT%H:%M:%S", &tm);
}

/* The run's identity from machine.csv, and a hash of every file kept (FNV-1a, 64 bits, names and bytes). */
static int imp_identify(imp *m)
{
    const char *host = imp_machine(m, "host"), *id = imp_machine(m, "run_id");
    if (!*host || !*id) {
        snprintf(m->err, m->len, "%s: not a run directory: no machine.csv with its host and run_id", m->dir);
        return -1;
    }
    snprintf(m->res->host, sizeof m->res->host, "%s", host);
    snprintf(m->res->run_id, sizeof m->res->run_id, "%s", id);
    snprintf(m->git, sizeof m->git, "%s", imp_machine(m, "git"));
    imp_started(m);
    uint64_t h = 14695981039346656037ull;
    for (int i = 0; i < m->n; i++) {
        const imp_file *f = &m->f[i];
        for (size_t b = 0; b <= strlen(f->name); b++)
            h = (h ^ (unsigned char)f->name[b]) * 1099511628211ull;
        for (size_t b = 0; b < f->len; b++)
            h = (h ^ (unsigned char)f->data[b]) * 1099511628211ull;
    }
    snprintf(m->digest, sizeof m->digest, "%016llx", (unsigned long long)h);
    return 0;
}

static void imp_free(imp *m)
{
    for (int i = 0; i < m->n; i++) {
        free(m->f[i].data);
        pb_table_free(&m->f[i].t);
    }
}

/* The run's row: 1 when (host, run_id) is there already with the same files (nothing to do), 0 when added (m->run
 * its id), -1 with err when it is there with other files or cannot be written. */
static int imp_run_row(imp *m)
{
    sqlite3_stmt *st = pb_db_prepare(m->db, "SELECT id, digest, dir FROM runs WHERE host = ? AND run_id = ?", m->err,
                                     m->len);
    m->run = -1;
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, m->res->host, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, m->res->run_id, -1, SQLITE_STATIC);
    int rc = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        rc = strcmp((const char *)sqlite3_column_text(st, 1), m->digest) == 0 ? 1 : -1;
        m->run = sqlite3_column_int64(st, 0);
        if (rc < 0)
            snprintf(m->err, m->len, "%s: run %s of host %s is in %s already with other files (imported from %.1000s); "
                     "not replaced: a run is kept as it was first imported", m->dir, m->res->run_id, m->res->host,
                     m->db->path, (const char *)sqlite3_column_text(st, 2));
    }
    sqlite3_finalize(st);
    if (rc != 0)
        return rc;
    char real[PATH_MAX];
    st = pb_db_prepare(m->db, "INSERT INTO runs(host, run_id, git, started, dir, digest, reference) "
                              "VALUES(?,?,?,?,?,?,?)", m->err, m->len);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, m->res->host, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, m->res->run_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, m->git, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, m->started, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, realpath(m->dir, real) ? real : m->dir, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 6, m->digest, -1, SQLITE_STATIC);
    if (m->o.reference)
        sqlite3_bind_text(st, 7, m->o.reference, -1, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : pb_db_fail(m->db, m->err, m->len, "cannot add the run");
    sqlite3_finalize(st);
    m->run = sqlite3_last_insert_rowid(m->db->h);
    return rc;
}

/* Every file stored, then the run's counts: inside the transaction. */
static int imp_files(imp *m)
{
    for (int i = 0; i < m->n; i++) {
        const imp_file *f = &m->f[i];
        pb_db_csv c = { .name = f->name, .data = f->data, .len = f->len, .t = f->t.text ? &f->t : NULL,
                        .kind = f->kind };
        bool raw = false;
        if (pb_db_store(m->db, m->run, &c, m->o.hook, m->o.hook_arg, &m->res->rows, &raw, m->err, m->len) != 0)
            return -1;
        m->res->raw += raw;
    }
    m->res->files = m->n;
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE runs SET files = %d, rows = %ld WHERE id = %lld", m->res->files, m->res->rows,
             m->run);
    return pb_db_exec(m->db, sql, "cannot count the run's rows", m->err, m->len);
}

/* A run there already, imported again as a reference: it takes the name. */
static int imp_name_reference(imp *m)
{
    sqlite3_stmt *st = pb_db_prepare(m->db, "UPDATE runs SET reference = ? WHERE id = ?", m->err, m->len);
    if (!st)
        return -1;
    sqlite3_bind_text(st, 1, m->o.reference, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, m->run);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : pb_db_fail(m->db, m->err, m->len, "cannot name the reference");
    sqlite3_finalize(st);
    return rc;
}

int pb_db_import(pb_db *db, const char *dir, const pb_db_import_opts *o, pb_db_import_result *res, char *err,
                 size_t len)
{
    *res = (pb_db_import_result){ .added = PB_DB_ADDED };
    imp *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, len, "%s: out of memory", dir);
        return -1;
    }
    *m = (imp){ .db = db, .dir = dir, .res = res, .o = o ? *o : (pb_db_import_opts){ 0 }, .err = err, .len = len };
    int rc = imp_collect(m) == 0 && imp_identify(m) == 0 ? 0 : -1;
    if (rc == 0)
        rc = pb_db_exec(db, "BEGIN IMMEDIATE", "cannot start a transaction", err, len);
    if (rc == 0) {
        int have = imp_run_row(m);
        rc = have < 0 || (have == 0 && imp_files(m) != 0) ? -1 : 0;
        res->added = have == 1 ? PB_DB_UNCHANGED : PB_DB_ADDED;
        if (rc == 0 && have == 1 && m->o.reference)
            rc = imp_name_reference(m);
        if (rc == 0 && (have == 0 || m->o.reference))
            rc = pb_db_exec(db, "COMMIT", "cannot commit the run", err, len);
        else
            sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    }
    imp_free(m);
    free(m);
    return rc;
}
