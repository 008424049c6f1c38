/* pb_compare_db.c — the runs of a comparison taken from the results database: each run written back out into a
 * scratch directory, read as any run directory, then the scratch removed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_compare.h"
#include "pb_engine.h"
#include "pb_run.h"

int pb_compare_load(pb_cmp_run *r, const char *dir, const char *prog, int *bad, char *err, size_t len)
{
    if (pb_rundata_load(&r->rd, dir, err, len) != 0 || pb_engines_load(&r->rd, NULL, err, len) != 0)
        return -1;
    pb_rundata_print_problems(stderr, &r->rd, prog, "left out");
    *bad += pb_rundata_bad(&r->rd);
    pb_digest_run(&r->d, &r->rd);
    return 0;
}

/* The runs asked for: each --run by name, then those the filter passes when it names any. How many (at most
 * max), or -1 with err. */
static int cdb_pick(pb_db *db, const pb_compare_db *q, pb_db_run *out, int max, char *err, size_t len)
{
    int n = 0;
    if (q->nruns > max) {
        snprintf(err, len, "%d runs named; at most %d are compared", q->nruns, max);
        return -1;
    }
    for (; n < q->nruns; n++)
        if (pb_db_find(db, q->runs[n], &out[n], err, len) != 0)
            return -1;
    if (q->filter.nhosts || q->filter.git || q->filter.since) {
        int m = pb_db_runs(db, &q->filter, out + n, max - n, err, len);
        if (m < 0)
            return -1;
        if (m > max - n) {
            snprintf(err, len, "%s: %d runs match; at most %d are compared (narrow with --git or --since, or name "
                     "them with --run)", q->path, m + n, max);
            return -1;
        }
        n += m;
    }
    return n;
}

/* Run r exported into the scratch directory, loaded, and named by the directory it was imported from (so that
 * compare.md reads as it would from that directory). */
static int cdb_load_one(pb_db *db, const pb_db_run *r, pb_cmp_run *out, const char *scratch, int *bad, char *err,
                       size_t len)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/run", scratch);
    int rc = pb_db_export(db, r->id, dir, err, len);
    if (rc == 0) {
        rc = pb_compare_load(out, dir, "bench_compare", bad, err, len);
        snprintf(out->rd.dir, sizeof out->rd.dir, "%s", *r->dir ? r->dir : r->run_id);
        pb_run_clear(dir, true);
    }
    return rc;
}

int pb_compare_from_db(pb_compare *c, const pb_compare_db *q, int *bad, char *err, size_t len)
{
    pb_db *db;
    if (pb_db_open(&db, q->path, false, err, len) != 0)
        return -1;
    pb_db_run *runs = calloc(PB_CMP_RUNS, sizeof *runs);
    int n = runs ? cdb_pick(db, q, runs, PB_CMP_RUNS, err, len) : -1;
    if (n >= 0 && n < 2)
        snprintf(err, len, "%s: %d run%s chosen; a comparison takes 2 to %d (bench_db --db %s list shows them)",
                 q->path, n, n == 1 ? "" : "s", PB_CMP_RUNS, q->path);
    char scratch[] = "/tmp/pbcmp-XXXXXX";
    int rc = n >= 2 && mkdtemp(scratch) ? 0 : -1;
    if (n >= 2 && rc != 0)
        snprintf(err, len, "cannot make a scratch directory in /tmp");
    c->run = rc == 0 ? calloc((size_t)n, sizeof *c->run) : NULL;
    for (int i = 0; rc == 0 && c->run && i < n; i++, c->n++)
        rc = cdb_load_one(db, &runs[i], &c->run[i], scratch, bad, err, len);
    if (rc == 0 && !c->run)
        rc = -1;
    if (n >= 2)
        rmdir(scratch);
    free(runs);
    pb_db_close(db);
    return rc;
}
