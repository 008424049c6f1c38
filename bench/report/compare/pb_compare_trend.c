/* pb_compare_trend.c — one headline figure over a host's runs in the results database, by commit: trend.dat and
 * plots/trend.gp's trend.png and .svg. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_compare.h"
#include "pb_report.h"
#include "pb_run.h"

#define TREND_RUNS 4096

/* One run's figure: its value under key (NaN when the run has none), and the keys it has when asked. */
static double trend_value(const pb_cmp_run *r, const char *key, pb_fig *label)
{
    for (int i = 0; i < r->nfig; i++)
        if (strcmp(r->fig[i].key, key) == 0) {
            *label = r->fig[i];
            return r->fig[i].v;
        }
    return NAN;
}

/* The keys of r's figures, comma-separated, into buf. */
static void trend_keys(const pb_cmp_run *r, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < r->nfig; i++) {
        size_t at = strlen(buf);
        snprintf(buf + at, len - at, "%s%s", i ? ", " : "", r->fig[i].key);
    }
}

typedef struct trend_data {
    const pb_db_run *runs;
    const double *v;
    int n;
    const pb_fig *label;
    const char *host;
} trend_data;

/* trend.dat: a title line, then "index commit value started run" per run that has the figure. */
static void trend_write(FILE *f, const void *arg)
{
    const trend_data *t = arg;
    char title[300];
    snprintf(title, sizeof title, "%s (%s), %s", t->label->label, t->label->unit, t->host);
    for (char *p = title; *p; p++)
        if (*p == '"' || *p == '\n')
            *p = '\'';
    fprintf(f, "\"%s\"\n", title);
    for (int i = 0, k = 0; i < t->n; i++)
        if (isfinite(t->v[i]))
            fprintf(f, "%d %s %.6g %s\n", ++k, *t->runs[i].git ? t->runs[i].git : "?", t->v[i], t->runs[i].started);
}

/* Each run exported, read and digested for key's value, one at a time. Which ran -1 with err. */
static int trend_values(pb_db *db, const pb_db_run *runs, int n, const char *key, double *v, pb_fig *label,
                        char *keys, size_t klen, char *err, size_t len)
{
    char scratch[] = "/tmp/pbtrend-XXXXXX", dir[64];
    if (!mkdtemp(scratch)) {
        snprintf(err, len, "cannot make a scratch directory in /tmp: %s", strerror(errno));
        return -1;
    }
    snprintf(dir, sizeof dir, "%s/run", scratch);
    int rc = 0;
    pb_cmp_run *r = calloc(1, sizeof *r);
    for (int i = 0; rc == 0 && r && i < n; i++) {
        int bad = 0;
        memset(r, 0, sizeof *r);
        rc = pb_db_export(db, runs[i].id, dir, err, len);
        if (rc == 0 && pb_compare_load(r, dir, "bench_db", &bad, err, len) == 0) {
            r->nfig = pb_digest_figs(&r->d, r->fig, PB_CMP_FIGS);
            v[i] = trend_value(r, key, label);
            if (i == n - 1)
                trend_keys(r, keys, klen);
        } else if (rc == 0) {
            v[i] = NAN; /* a run that does not read is a gap in the trend, said on stderr */
            fprintf(stderr, "bench_db: trend: %s\n", err);
        }
        pb_rundata_free(&r->rd);
        pb_run_clear(dir, true);
    }
    rc = r ? rc : -1;
    free(r);
    rmdir(scratch);
    return rc;
}

int pb_compare_trend(pb_db *db, const pb_db_filter *f, const char *key, const char *out_dir, int *points, char *err,
                     size_t len)
{
    pb_db_run *runs = calloc(TREND_RUNS, sizeof *runs);
    double *v = calloc(TREND_RUNS, sizeof *v);
    int n = runs && v ? pb_db_runs(db, f, runs, TREND_RUNS, err, len) : -1, rc = -1;
    char keys[8192] = "";
    pb_fig label = { 0 };
    *points = 0;
    if (n > TREND_RUNS)
        n = TREND_RUNS;
    if (n == 0)
        snprintf(err, len, "no run in the database passes --host, --git and --since");
    else if (n > 0 && trend_values(db, runs, n, key, v, &label, keys, sizeof keys, err, len) == 0) {
        for (int i = 0; i < n; i++)
            *points += isfinite(v[i]);
        if (*points == 0)
            snprintf(err, len, "no run has the figure '%s'; the newest has: %.6000s", key, keys);
        else if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
            snprintf(err, len, "%s: %s", out_dir, strerror(errno));
        else {
            char path[4200];
            snprintf(path, sizeof path, "%s/trend.dat", out_dir);
            char hosts[256] = "";
            for (int i = 0; i < f->nhosts; i++) {
                size_t at = strlen(hosts);
                snprintf(hosts + at, sizeof hosts - at, "%s%s", i ? " + " : "", f->hosts[i]);
            }
            trend_data t = { runs, v, n, &label, f->nhosts ? hosts : "every host" };
            rc = pb_write_file(path, trend_write, &t);
            if (rc != 0)
                snprintf(err, len, "%s: %s", path, strerror(errno));
        }
    }
    free(runs);
    free(v);
    return rc;
}
