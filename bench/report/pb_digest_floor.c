/* The read floor per thread count from memory_floor.csv, and per-token floors from token_floor.csv. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_digest.h"

static int floor_cmp(const void *a, const void *b)
{
    return ((const pb_floor_point *)a)->threads - ((const pb_floor_point *)b)->threads;
}

/* Keeps the best of copy or write (op) in *best at *thr. */
static void keep_best(double *best, int *thr, double v, int threads)
{
    if (!isnan(v) && (isnan(*best) || v > *best)) {
        *best = v;
        *thr = threads;
    }
}

static void digest_memory(pb_floor_digest *f, const pb_table *t)
{
    if (!t)
        return;
    int cop = pb_table_col(t, PB_COL(MEMORY, op)), ck = pb_table_col(t, PB_COL(MEMORY, kernel)),
        cth = pb_table_col(t, PB_COL(MEMORY, threads)), cb = pb_table_col(t, PB_COL(MEMORY, gbps_best)),
        cm = pb_table_col(t, PB_COL(MEMORY, gbps_median)), cmin = pb_table_col(t, PB_COL(MEMORY, gbps_min)),
        crt = pb_table_col(t, PB_COL(MEMORY, rt_ns)), cpl = pb_table_col(t, PB_COL(MEMORY, placement)),
        ccp = pb_table_col(t, PB_COL(MEMORY, cpus)), cthp = pb_table_col(t, PB_COL(MEMORY, thp_mib)),
        csz = pb_table_col(t, PB_COL(MEMORY, size_mib));
    for (size_t r = 0; r < t->nrows; r++) {
        const char *op = pb_table_str(t, r, cop);
        int thr = pb_digest_int(t, r, cth);
        double best = pb_table_num(t, r, cb);
        if (strcmp(op, "copy") == 0)
            keep_best(&f->copy_best, &f->copy_threads, best, thr);
        else if (strcmp(op, "write") == 0)
            keep_best(&f->write_best, &f->write_threads, best, thr);
        if (strcmp(op, "read") != 0 || isnan(best))
            continue;
        pb_floor_point *p = NULL;
        for (int i = 0; i < f->n; i++)
            if (f->pt[i].threads == thr)
                p = &f->pt[i];
        if (p && !(best > p->best))
            continue;
        if (!p) {
            if (f->n == PB_DIGEST_MAX)
                continue;
            p = &f->pt[f->n++];
        }
        *p = (pb_floor_point){ .threads = thr, .best = best, .median = pb_table_num(t, r, cm),
                              .min = pb_table_num(t, r, cmin), .rt_ns = pb_table_num(t, r, crt),
                              .thp_mib = pb_table_num(t, r, cthp), .size_mib = pb_table_num(t, r, csz) };
        pb_digest_copy(p->kernel, pb_table_str(t, r, ck));
        pb_digest_copy(p->placement, pb_table_str(t, r, cpl));
        pb_digest_copy(p->cpus, pb_table_str(t, r, ccp));
    }
    qsort(f->pt, (size_t)f->n, sizeof f->pt[0], floor_cmp);
    f->have = f->n > 0;
}

/* Per-token floors of one model: qwen3-0.6b (the default suite's) when present, else the first. */
static void digest_token(pb_token_digest *tk, const pb_table *t)
{
    if (!t)
        return;
    int cmo = pb_table_col(t, PB_COL(TOKEN, model)), cf = pb_table_col(t, PB_COL(TOKEN, format)),
        cth = pb_table_col(t, PB_COL(TOKEN, threads)), cms = pb_table_col(t, PB_COL(TOKEN, ms_per_token)),
        cc = pb_table_col(t, PB_COL(TOKEN, tok_per_s_ceiling)), cw = pb_table_col(t, PB_COL(TOKEN, weight_bytes));
    for (size_t r = 0; r < t->nrows; r++) {
        const char *m = pb_table_str(t, r, cmo);
        if (!tk->model[0] || (strcmp(m, "qwen3-0.6b") == 0 && strcmp(tk->model, m) != 0)) {
            pb_digest_copy(tk->model, m);
            tk->n = 0;
        }
        if (strcmp(m, tk->model) != 0 || tk->n == PB_DIGEST_MAX)
            continue;
        pb_digest_copy(tk->t[tk->n].format, pb_table_str(t, r, cf));
        tk->t[tk->n].threads = pb_digest_int(t, r, cth);
        tk->t[tk->n].ms = pb_table_num(t, r, cms);
        tk->t[tk->n].ceiling = pb_table_num(t, r, cc);
        tk->t[tk->n++].weight_bytes = pb_table_num(t, r, cw);
    }
    tk->have = tk->n > 0;
}

void pb_digest_floor(pb_floor_digest *f, pb_token_digest *tk, const pb_rundata *rd)
{
    memset(f, 0, sizeof *f);
    memset(tk, 0, sizeof *tk);
    f->copy_best = f->write_best = NAN;
    digest_memory(f, pb_rundata_table(rd, PB_K_MEMORY));
    digest_token(tk, pb_rundata_table(rd, PB_K_TOKEN));
}

const pb_floor_point *pb_digest_floor_at(const pb_floor_digest *f, int threads)
{
    for (int i = 0; i < f->n; i++)
        if (f->pt[i].threads == threads)
            return &f->pt[i];
    return NULL;
}
