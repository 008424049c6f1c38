/* pb_answer_pairs.c — the recommendation's deviations through pairs.csv (see pb_answer.h). */
#include "pb_answer.h"

#include "pb_pairs_find.h"

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
