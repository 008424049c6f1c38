/* pb_compare.h — several runs side by side (bench_compare): the headline figures of each as keyed figures,
 * matched by key across runs, with ratios to the first run; what the runs do not share is listed, not guessed. */
#ifndef PB_COMPARE_H
#define PB_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "pb_db.h"
#include "pb_digest.h"

#define PB_CMP_RUNS 8
#define PB_CMP_FIGS 96

/* One headline figure of a run, under a key that means the same on every machine. */
typedef struct pb_fig {
    char key[96];
    char label[128];
    char unit[16];
    double v;
    bool lower_better;
} pb_fig;

/* The headline figures of a digest. Returns how many (at most max). */
int pb_digest_figs(const pb_digest *d, pb_fig *out, int max);

typedef struct pb_cmp_run {
    pb_rundata rd;
    pb_digest d;
    char label[64];    /* host, or host/run when hosts repeat */
    int nfig;
    pb_fig fig[PB_CMP_FIGS];
} pb_cmp_run;

typedef struct pb_compare {
    int n;
    pb_cmp_run *run; /* n runs */
} pb_compare;

/* Loads and digests the run directory dir into r, printing what it leaves out (each line headed by prog); *bad
 * counts its malformed sources. 0, or -1 with a one-line reason (not a run directory, a llama-bench file that does not read). */
int pb_compare_load(pb_cmp_run *r, const char *dir, const char *prog, int *bad, char *err, size_t len);

/* The runs of bench_compare --db: named ones (RUN_ID or HOST/RUN_ID) and those a filter passes. */
typedef struct pb_compare_db {
    const char *path;
    const char *const *runs;
    int nruns;
    pb_db_filter filter;
} pb_compare_db;
/* c's runs (allocated, c->n of them) from the database: each exported to a scratch directory, loaded by
 * pb_compare_load and named by the directory it was imported from. 0, or -1 with err (fewer than 2 or more than
 * PB_CMP_RUNS runs chosen, a name that is no run, a database that does not open). */
int pb_compare_from_db(pb_compare *c, const pb_compare_db *q, int *bad, char *err, size_t len);

/* One headline figure (a pb_fig key: floor.1, decode.qwen3-0.6b.q8_0, ...) over the runs f passes, oldest first:
 * out_dir/trend.dat (made when missing) for plots/trend.gp, a title line then "index commit value started" per run
 * that has the figure (*points of them). 0, or -1 with err (no run passes, none has the figure: err lists the
 * newest run's keys). */
int pb_compare_trend(pb_db *db, const pb_db_filter *f, const char *key, const char *out_dir, int *points, char *err,
                     size_t len);

/* Labels the runs (after each run's rd and d are loaded) and computes their figures. */
void pb_compare_prepare(pb_compare *c);
/* compare.md's budget section (pb_compare_budget.c): per model x format every run holds, each run's best point's
 * budget side by side, and the part that differs most from the first run's. Nothing when no format has a budget
 * in every run. */
void pb_compare_budget(FILE *out, const pb_compare *c);
/* compare.md */
void pb_compare_md(FILE *out, const pb_compare *c, const char *out_dir);
/* The data files plots/compare.gp draws from: compare_floor.dat, compare_decode.dat, compare_dispatch.dat in
 * out_dir. 0, or -1 when one could not be written. */
int pb_compare_data(const pb_compare *c, const char *out_dir);

#endif
