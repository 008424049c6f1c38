/* pb_answer_pairs.c — a deviation compared with the recommendation through pairs.csv (see pb_answer.h). */
#include "pb_answer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* pairs.csv's columns a lookup reads, by index into col[]. */
enum { C_MODEL, C_FORMAT, C_POLICY, C_SCHED, C_GLUE, C_THREADS, C_CPUSET, C_BATCH, C_CONTEXT, C_KV, C_ROUND, C_MS,
       C_ASIDE, NC };

/* Whether row r of t is p's token in its block at batch 1. */
static bool pb_pair_is(const pb_table *t, const int *col, size_t r, const pb_answer_point *p)
{
    const char *want[] = { [C_MODEL] = p->d.model, [C_FORMAT] = p->d.format, [C_POLICY] = p->d.policy,
                           [C_SCHED] = p->d.schedule, [C_GLUE] = p->d.glue, [C_CPUSET] = p->d.cpuset,
                           [C_KV] = p->kv };
    for (int c = 0; c <= C_KV; c++)
        if (want[c] && strcmp(pb_table_str(t, r, col[c]), want[c]) != 0)
            return false;
    return pb_table_num(t, r, col[C_THREADS]) == p->d.threads && pb_table_num(t, r, col[C_BATCH]) == 1 &&
           pb_table_num(t, r, col[C_CONTEXT]) == p->context;
}

/* Whether a and b are alternatives of one block: only their policy, schedule or glue differ. */
static bool pb_pair_block(const pb_answer_point *a, const pb_answer_point *b)
{
    return strcmp(a->d.model, b->d.model) == 0 && strcmp(a->d.format, b->d.format) == 0 &&
           strcmp(a->d.cpuset, b->d.cpuset) == 0 && strcmp(a->kv, b->kv) == 0 && a->d.threads == b->d.threads &&
           a->context == b->context;
}

bool pb_answer_paired(const pb_table *t, const pb_answer_point *run, const pb_answer_point *p, pb_paired *out,
                      int *aside)
{
    static const int ids[NC] = { PB_PAIRS_model, PB_PAIRS_format, PB_PAIRS_policy, PB_PAIRS_schedule, PB_PAIRS_glue,
                                 PB_PAIRS_threads, PB_PAIRS_cpuset, PB_PAIRS_batch, PB_PAIRS_context, PB_PAIRS_kv_type,
                                 PB_PAIRS_round, PB_PAIRS_ms_per_token, PB_PAIRS_set_aside };
    int col[NC];
    *aside = 0;
    if (!pb_pair_block(run, p)) /* other blocks' rounds ran at other times: their round numbers pair nothing */
        return false;
    for (int c = 0; t && c < NC; c++)
        if ((col[c] = pb_table_col(t, pb_schema_name(PB_K_PAIRS, ids[c]))) < 0)
            return false;
    if (!t)
        return false;
    /* per round: the recommendation's ms and the deviation's (NaN: none yet, or set aside) */
    double a[PB_PAIRED_MAX], b[PB_PAIRED_MAX];
    bool seen_a[PB_PAIRED_MAX] = { false }, seen_b[PB_PAIRED_MAX] = { false }, spoiled[PB_PAIRED_MAX] = { false };
    for (size_t r = 0; r < t->nrows; r++) {
        bool is_run = pb_pair_is(t, col, r, run), is_p = !is_run && pb_pair_is(t, col, r, p);
        double k = pb_table_num(t, r, col[C_ROUND]);
        if ((!is_run && !is_p) || !(k >= 1 && k <= PB_PAIRED_MAX))
            continue;
        int i = (int)k - 1;
        spoiled[i] |= pb_table_num(t, r, col[C_ASIDE]) == 1;
        *(is_run ? &a[i] : &b[i]) = pb_table_num(t, r, col[C_MS]);
        *(is_run ? &seen_a[i] : &seen_b[i]) = true;
    }
    /* ms per token: the deviation's tok/s over the recommendation's is a's ms over b's */
    double x[PB_PAIRED_MAX], y[PB_PAIRED_MAX];
    size_t n = 0;
    for (int i = 0; i < PB_PAIRED_MAX; i++) {
        if (!seen_a[i] || !seen_b[i])
            continue;
        if (spoiled[i]) {
            ++*aside;
            continue;
        }
        x[n] = b[i];
        y[n++] = a[i];
    }
    if (n == 0 && *aside == 0)
        return false;
    *out = pb_paired_ratio(x, y, n);
    return true;
}

bool pb_answer_pairs_best(pb_answers *a)
{
    bool moved = false;
    for (int step = 0; step < 8; step++) { /* each move is to a faster one: a handful at most */
        const pb_answer_point *best = NULL;
        double best_lo = 1;
        for (int i = 0; i < a->npoints; i++) {
            const pb_answer_point *p = &a->pt[i];
            pb_paired cmp;
            int aside;
            if (p->point == a->run.point || !pb_answer_paired(a->pairs, &a->run, p, &cmp, &aside))
                continue;
            if (pb_paired_differs(&cmp) && cmp.lo > best_lo) {
                best = p;
                best_lo = cmp.lo;
            }
        }
        if (!best)
            return moved;
        a->run = *best;
        moved = true;
    }
    return moved;
}
