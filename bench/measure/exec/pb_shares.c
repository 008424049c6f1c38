/* pb_shares.c — see pb_shares.h. */
#include "pb_shares.h"

#include <errno.h>
#include <stdlib.h>

#include "pb_tuning.h"

/* share[i] = w[i] / sum(w), or 1/n each when equal. */
static void shares_from(pb_shares *s, const double *w, bool equal)
{
    double sum = 0;
    for (int i = 0; !equal && i < s->n; i++)
        sum += w[i];
    s->equal = equal || !(sum > 0);
    for (int i = 0; i < s->n; i++)
        s->share[i] = s->equal ? 1.0 / s->n : w[i] / sum;
}

/* Capacities usable as fixed shares: every one known and not all the same (one kind: nothing to weigh). */
static bool capacities_differ(const double *c, int n)
{
    if (!c)
        return false;
    bool differ = false;
    for (int i = 0; i < n; i++) {
        if (!(c[i] > 0))
            return false;
        differ |= c[i] != c[0];
    }
    return differ;
}

int pb_shares_init(pb_shares *s, int n, const double *capacity)
{
    *s = (pb_shares){ .n = n, .measured = !capacities_differ(capacity, n), .equal = true };
    s->rate = calloc((size_t)n, sizeof *s->rate);
    s->share = calloc((size_t)n, sizeof *s->share);
    s->busy0 = calloc((size_t)n, sizeof *s->busy0);
    s->rows0 = calloc((size_t)n, sizeof *s->rows0);
    if (!s->rate || !s->share || !s->busy0 || !s->rows0) {
        pb_shares_free(s);
        errno = ENOMEM;
        return -1;
    }
    shares_from(s, capacity, s->measured);
    return 0;
}

void pb_shares_free(pb_shares *s)
{
    void *const held[] = { s->rate, s->share, s->busy0, s->rows0 };
    for (size_t i = 0; i < sizeof held / sizeof *held; i++)
        free(held[i]);
    *s = (pb_shares){ 0 };
}

/* Thread i's rate over the last token, folded into its weighted mean. False when the token says nothing of it
 * (no rows, no time, or a reset since the last boundary). */
static bool shares_rate(pb_shares *s, int i, const pb_thread_stat *a)
{
    bool reset = a->busy_ns < s->busy0[i] || a->rows < s->rows0[i];
    uint64_t db = a->busy_ns - s->busy0[i], dr = a->rows - s->rows0[i];
    s->busy0[i] = a->busy_ns;
    s->rows0[i] = a->rows;
    if (reset || db == 0 || dr == 0)
        return false;
    double r = (double)dr / (double)db;
    s->rate[i] = s->rate[i] > 0 ? PB_WEIGHTED_EWMA * r + (1 - PB_WEIGHTED_EWMA) * s->rate[i] : r;
    return true;
}

bool pb_shares_token(pb_shares *s, const pb_slices *sl)
{
    if (!s->measured || sl->n != s->n)
        return false;
    double lo = 0, hi = 0;
    bool known = true;
    for (int i = 0; i < s->n; i++) {
        shares_rate(s, i, &sl->t[i]);
        known &= s->rate[i] > 0;
        lo = i == 0 || s->rate[i] < lo ? s->rate[i] : lo;
        hi = s->rate[i] > hi ? s->rate[i] : hi;
    }
    s->tokens++;
    /* Until every thread has a rate the equal split stays: a thread without one has not run a slice yet. */
    shares_from(s, s->rate, !known || hi / lo - 1 < PB_WEIGHTED_DEADBAND);
    return true;
}

const char *pb_shares_source(const pb_shares *s)
{
    return s->measured ? "measured" : "cpukinds";
}
