/* pb_answer_pairs.c — the recommendation's deviations through pairs.csv (see pb_answer.h). */
#include "pb_answer.h"

#include "pb_pairs_find.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* An answer point as a pairs.csv key. */
static pb_pair_key pb_answer_key(const pb_answer_point *p)
{
    return (pb_pair_key){ .model = p->d.model, .format = p->d.format, .cpuset = p->d.cpuset, .kv = p->kv,
                          .policy = p->d.policy, .schedule = p->d.schedule, .glue = p->d.glue,
                          .threads = p->d.threads, .context = p->context };
}

bool pb_answer_paired(const pb_table *t, const pb_answer_point *run, const pb_answer_point *p, pb_paired *out,
                      int *aside)
{
    pb_pair_key a = pb_answer_key(run), b = pb_answer_key(p);
    return pb_pairs_compare(t, &a, &b, out, aside);
}

bool pb_answer_pairs_move(const pb_answers *a, pb_answer_point *p)
{
    bool moved = false;
    for (int step = 0; step < 8; step++) { /* each move is to a faster one: a handful at most */
        const pb_answer_point *best = NULL;
        double best_lo = 1;
        for (int i = 0; i < a->npoints; i++) {
            const pb_answer_point *q = &a->pt[i];
            pb_paired cmp;
            int aside;
            if (q->point == p->point || !pb_answer_paired(a->pairs, p, q, &cmp, &aside))
                continue;
            if (pb_paired_differs(&cmp) && cmp.lo > best_lo) {
                best = q;
                best_lo = cmp.lo;
            }
        }
        if (!best)
            return moved;
        *p = *best;
        moved = true;
    }
    return moved;
}

bool pb_answer_pairs_best(pb_answers *a)
{
    return pb_answer_pairs_move(a, &a->run);
}

/* What q changes from p, in words ("hybrid", "serial glue", "hybrid, serial glue"). */
static void pb_answer_change(const pb_answer_point *p, const pb_answer_point *q, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    if (strcmp(p->d.policy, q->d.policy) != 0)
        n += (size_t)snprintf(buf + n, len - n, "%s", q->d.policy);
    if (n < len && strcmp(p->d.schedule, q->d.schedule) != 0)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", q->d.schedule);
    if (n < len && strcmp(p->d.glue, q->d.glue) != 0)
        snprintf(buf + n, len - n, "%s%s glue", n ? ", " : "", q->d.glue);
}

int pb_answer_ties(const pb_answers *a, const pb_answer_point *p, char *buf, size_t len)
{
    int n = 0;
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < a->npoints && at < len; i++) {
        const pb_answer_point *q = &a->pt[i];
        pb_paired cmp;
        int aside;
        if (q->point == p->point || !pb_answer_paired(a->pairs, p, q, &cmp, &aside) || !isfinite(cmp.lo) ||
            pb_paired_differs(&cmp))
            continue;
        char what[160];
        pb_answer_change(p, q, what, sizeof what);
        at += (size_t)snprintf(buf + at, len - at, "%s%s", n++ ? "; " : "", what);
    }
    return n;
}
