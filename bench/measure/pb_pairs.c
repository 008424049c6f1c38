/* pb_pairs.c — alternatives measured interleaved (see pb_pairs.h). */
#include "pb_pairs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_err.h"
#include "pb_paired.h"
#include "pb_stop.h"
#include "pb_time.h"
#include "pb_tuning.h"

void pb_pairs_order(int r, int n, int *order)
{
    for (int k = 0; k < n; k++) {
        int at = (k + r) % n;
        order[(r / n) % 2 ? n - 1 - k : k] = at; /* every n rounds the other way round: who follows whom changes */
    }
}

double pb_pairs_steal_pct(const pb_procstat *before, const pb_procstat *after, const int *cpus, int n)
{
    pb_cpu_load sum;
    memset(&sum, 0, sizeof sum);
    for (int i = 0; i < n; i++) {
        pb_cpu_load l;
        if (!pb_procstat_load(before, after, cpus[i], &l))
            return NAN;
        pb_cpu_load_sum(&sum, &l);
    }
    pb_cpu_load_finish(&sum);
    return sum.ticks ? sum.steal : NAN;
}

bool pb_pairs_spoiled(double steal_pct) { return steal_pct > PB_STEAL_NOISY_PCT; }

void pb_pairs_mark_moved(pb_pairs_result *r, int k, bool moved)
{
    r->moved[k] = moved;
    for (int a = 0; moved && a < r->nalt; a++)
        r->aside[k][a] = true;
}

/* Alternative a's pairs against alternative 0 over r's kept rounds, none set aside, into x (0's) and y (a's). */
static size_t pb_pairs_of(const pb_pairs_result *r, int a, double *x, double *y)
{
    size_t n = 0;
    for (int k = 0; k < r->rounds; k++)
        if (!r->aside[k][0] && !r->aside[k][a]) {
            x[n] = r->ms[k][0];
            y[n++] = r->ms[k][a];
        }
    return n;
}

bool pb_pairs_narrow(const pb_pairs_result *r, double target)
{
    double x[PB_PAIRS_MAX_ROUNDS], y[PB_PAIRS_MAX_ROUNDS];
    for (int a = 1; a < r->nalt; a++) {
        size_t n = pb_pairs_of(r, a, x, y);
        pb_paired p = pb_paired_ratio(x, y, n);
        if (!(p.hi / p.ratio - 1 <= target && 1 - p.lo / p.ratio <= target))
            return false; /* NaN ends too: no interval yet */
    }
    return r->nalt > 1;
}

/* /proc/stat between tokens: each reading ends one token's interval and starts the next one's, so a token costs
 * one read, not two (the interval also holds the glue switch before the token, and after a round's last one the
 * round trip: no token's own time). */
typedef struct pb_pairs_stat {
    const char *path;
    pb_procstat ps[2];
    int cur;   /* ps[cur]: the last reading */
    bool have; /* it was read */
    char *buf; /* pb_procstat_read's buffer */
    size_t cap;
} pb_pairs_stat;

/* A new reading: the steal of cpus since the last one (NaN when either is missing). */
static double pb_pairs_stat_next(pb_pairs_stat *s, const int *cpus, int ncpus)
{
    pb_procstat *next = &s->ps[s->cur ^ 1];
    bool got = pb_procstat_read(s->path, next, &s->buf, &s->cap) > 0;
    double steal = got && s->have ? pb_pairs_steal_pct(&s->ps[s->cur], next, cpus, ncpus) : NAN;
    s->cur ^= 1;
    s->have = got;
    return steal;
}

/* One timed token of alternative a on its executor, with the steal of its cpus up to its end. */
static int pb_pairs_token(pb_decode *d, pb_exec *ex, const pb_pairs_alt *alt, uint64_t token, const int *cpus,
                          int ncpus, pb_pairs_stat *st, double *ms, double *steal)
{
    pb_decode_set_glue(d, alt->glue);
    uint64_t t0 = pb_now_ns();
    int rc = pb_decode_token(d, ex, token);
    *ms = (double)(pb_now_ns() - t0) / 1e6;
    pb_exec_token_end(ex);
    *steal = pb_pairs_stat_next(st, cpus, ncpus);
    return rc;
}

/* Every round until the target or the budget (see pb_pairs.h), on the open executors. */
static int pb_pairs_rounds(pb_decode *d, pb_exec *ex, const pb_pairs_alt *alts, const int *cpus, int ncpus,
                           double budget_s, const char *procstat, const pb_pairs_hook *hook, pb_pairs_result *out,
                           char *err, size_t errlen)
{
    pb_pairs_stat *st = calloc(1, sizeof *st); /* 130 KiB: off the stack */
    if (!st)
        return pb_errf(err, errlen, "interleaved rounds: out of memory");
    st->path = procstat;
    pb_pairs_stat_next(st, cpus, ncpus); /* the first token's start */
    uint64_t t0 = pb_now_ns();
    int rc = 0;
    for (int r = 0; r <= PB_PAIRS_MAX_ROUNDS && rc == 0 && !pb_stop_signal(); r++) {
        int order[PB_PAIRS_MAX_ALTS];
        pb_pairs_order(r > 0 ? r - 1 : 0, out->nalt, order); /* by kept round: any first n kept rotate fully */
        for (int k = 0; k < out->nalt && rc == 0; k++) {
            int a = order[k];
            double ms, steal;
            rc = pb_pairs_token(d, &ex[a], &alts[a], (uint64_t)r, cpus, ncpus, st, &ms, &steal);
            if (rc != 0)
                rc = pb_errf(err, errlen, "interleaved round %d: %s", r, strerror(errno));
            else if (r > 0) { /* round 0 warms every executor and is not kept */
                out->ms[r - 1][a] = ms;
                out->steal[r - 1][a] = steal;
                out->aside[r - 1][a] = pb_pairs_spoiled(steal);
                out->slot[r - 1][a] = k;
            }
        }
        bool moved = hook && hook->moved && hook->moved(hook->ctx); /* outside every token's time */
        if (r > 0)
            pb_pairs_mark_moved(out, r - 1, moved);
        out->rounds = r;
        if (rc == 0 && out->rounds >= PB_PAIRED_MIN_CI && pb_pairs_narrow(out, PB_PAIRS_TARGET)) {
            out->narrow = true;
            break;
        }
        if (out->rounds >= 1 && (double)(pb_now_ns() - t0) / 1e9 >= budget_s) /* one kept round at least */
            break;
    }
    free(st->buf);
    free(st);
    return rc;
}

int pb_pairs_run(pb_decode *d, const pb_pairs_alt *alts, int nalt, const int *cpus, int ncpus, double budget_s,
                 const char *procstat, const pb_pairs_hook *hook, pb_pairs_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (nalt < 2 || nalt > PB_PAIRS_MAX_ALTS)
        return pb_errf(err, errlen, "interleaved rounds: %d alternatives (2 to %d are compared)", nalt,
                       PB_PAIRS_MAX_ALTS);
    out->nalt = nalt;
    pb_exec *ex = calloc((size_t)nalt, sizeof *ex);
    if (!ex)
        return pb_errf(err, errlen, "interleaved rounds: out of memory");
    int opened = 0, rc = 0;
    while (opened < nalt && pb_exec_open_cfg(&ex[opened], &alts[opened].cfg) == 0)
        opened++;
    if (opened < nalt)
        rc = pb_errf(err, errlen, "interleaved rounds: executor %d of %d: %s", opened + 1, nalt, strerror(errno));
    pb_glue_mode glue = d->glue;
    if (rc == 0)
        rc = pb_pairs_rounds(d, ex, alts, cpus, ncpus, budget_s, procstat, hook, out, err, errlen);
    pb_decode_set_glue(d, glue);
    for (int i = 0; i < opened; i++)
        pb_exec_close(&ex[i]);
    free(ex);
    return rc;
}
