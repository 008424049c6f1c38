/* pb_sweep.c — see pb_sweep.h. */
#include "pb_sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_dispatch_cost.h"
#include "pb_time.h"

void pb_sweep_busy(const pb_sampler_result *u, const int *cpus, int ncpus, pb_sweep_meas *out)
{
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    int n = 0;
    for (int i = 0; i < ncpus; i++) {
        for (int k = 0; k < u->ncpu; k++) {
            const pb_sampler_cpu *c = &u->cpu[k];
            if (c->cpu != cpus[i] || isnan(c->mean.busy))
                continue;
            sum += c->mean.busy;
            lo = c->mean.busy < lo ? c->mean.busy : lo;
            hi = c->mean.busy > hi ? c->mean.busy : hi;
            n++;
            break;
        }
    }
    out->busy_mean = n ? sum / n : NAN;
    out->busy_min = n ? lo : NAN;
    out->busy_max = n ? hi : NAN;
    out->imbalance = n > 1 && hi - lo > PB_SWEEP_IMBALANCE;
}

int pb_sweep_cliff_of(const pb_slices *now, const pb_slices *before, const int *cpus, int tokens,
                      uint64_t dispatch_ns, long dispatches, pb_sweep_cliff *out)
{
    int n = now->n;
    *out = (pb_sweep_cliff){ .nthr = n, .thr = calloc((size_t)n, sizeof *out->thr) };
    if (!out->thr) {
        out->nthr = 0;
        return -1;
    }
    double rows = 0, tok = tokens > 0 ? tokens : 1, disp_ms = (double)dispatch_ns / 1e6 / tok;
    for (int i = 0; i < n; i++)
        rows += (double)(now->t[i].rows - before->t[i].rows);
    for (int i = 0; i < n; i++) {
        pb_sweep_thread *t = &out->thr[i];
        double busy = (double)(now->t[i].busy_ns - before->t[i].busy_ns);
        *t = (pb_sweep_thread){ .cpu = cpus ? cpus[i] : -1, .busy_ms = busy / 1e6 / tok,
                                .slice_us = dispatches > 0 ? busy / 1e3 / (double)dispatches : NAN,
                                .rows_pct = rows > 0 ? 100.0 * (double)(now->t[i].rows - before->t[i].rows) / rows
                                                     : NAN,
                                .factor = now->t[i].factor };
        t->wait_ms = disp_ms > t->busy_ms ? disp_ms - t->busy_ms : 0;
        if (t->busy_ms > out->thr[out->slowest].busy_ms)
            out->slowest = i;
    }
    double wait = 0;
    for (int i = 0; i < n; i++)
        wait += out->thr[out->slowest].busy_ms - out->thr[i].busy_ms;
    out->wait_for_slowest_ms = n > 1 ? wait / (n - 1) : 0;
    return 0;
}

void pb_sweep_meas_free(pb_sweep_meas *m)
{
    pb_sampler_result_free(&m->util);
    free(m->cliff.thr);
    m->cliff.thr = NULL;
    m->cliff.nthr = 0;
}

/* Dispatches timed for their cost after each timed token (pb_sweep_cost): at a decode's cadence ~8% of a token. */
#define PB_SWEEP_COST_CALLS 16

/* What a point keeps per timed token while it runs. */
typedef struct pb_sweep_series {
    double *ms, *glue, *attn;        /* per token: its time; outside its dispatches; in attention */
    double *cost;                    /* PB_SWEEP_COST_CALLS per token: the cost of a dispatch beside it */
    pb_budget_token *parts;
    uint64_t *prev;                  /* each thread's untagged busy ns at the last token's end */
    long cost_dispatches;            /* made by the cost batches (not the tokens') */
} pb_sweep_series;

static void pb_sweep_series_free(pb_sweep_series *x)
{
    free(x->ms);
    free(x->parts);
    free(x->prev);
    *x = (pb_sweep_series){ 0 };
}

/* 0, or -1 (ENOMEM). */
static int pb_sweep_series_init(pb_sweep_series *x, int tokens, int threads)
{
    *x = (pb_sweep_series){ .ms = malloc((3 + PB_SWEEP_COST_CALLS) * (size_t)tokens * sizeof(double)),
                            .parts = malloc((size_t)tokens * sizeof(pb_budget_token)),
                            .prev = malloc((size_t)threads * sizeof(uint64_t)) };
    if (!x->ms || !x->parts || !x->prev) {
        pb_sweep_series_free(x);
        return -1;
    }
    x->glue = x->ms + tokens;
    x->attn = x->glue + tokens;
    x->cost = x->attn + tokens;
    return 0;
}

/* Every thread's untagged busy ns now: the matvecs' (pb_sweep_token's prev). */
static void pb_sweep_mv_busy(const pb_exec *ex, uint64_t *out)
{
    for (int i = 0; i < ex->slices.n; i++)
        out[i] = ex->slices.t[i].busy_ns - ex->slices.t[i].tagged_ns;
}

/* One timed token's pieces (pb_budget_token): its time, d's serial timers, and each thread's matvec busy time
 * since the last token (prev, updated here). */
static pb_budget_token pb_sweep_token(const pb_decode *d, const pb_exec *ex, uint64_t *prev, double ms)
{
    pb_budget_token t = { .ms = ms, .glue_ms = (double)d->glue_ns / 1e6, .quant_ms = (double)d->quant_ns / 1e6,
                          .attn_ms = (double)d->attn_ns / 1e6, .busy_mean_ms = 0, .busy_max_ms = 0,
                          .wait_ms = (double)d->wait_ns / 1e6 };
    int n = ex->slices.n;
    for (int i = 0; i < n; i++) {
        /* read between tokens: the last dispatch's completion ordered the workers' writes (pb_slices.h) */
        const pb_thread_stat *a = &ex->slices.t[i];
        uint64_t mv = a->busy_ns - a->tagged_ns;
        double busy = (double)(mv - prev[i]) / 1e6;
        prev[i] = mv;
        t.busy_mean_ms += busy / n;
        t.busy_max_ms = busy > t.busy_max_ms ? busy : t.busy_max_ms;
    }
    /* attention run inside the matvecs' slices (split by head) is attention's, not theirs: its mean share out of
     * both, as if each thread's was the mean (its heads split evenly over the threads: pb_decode_token) */
    double attn_in = (double)d->attn_mv_ns / 1e6;
    t.busy_mean_ms -= attn_in;
    t.busy_max_ms -= attn_in;
    return t;
}

/* The cost of a dispatch on the point's executor beside token i, at its cadence (pb_dispatch_cost_samples): the
 * caller busy for the token's serial time per dispatch before each, which is how long a worker idles between two
 * of the token's dispatches (what decides whether it sleeps). The jobs are empty: a slice's length does not change
 * that idle time, and on a loaded machine a job long enough to be preempted in turned a scheduler's round (5-25
 * ms) into a dispatch's cost in 40% of them. 0, or -1 (ENOMEM). */
static int pb_sweep_cost(pb_sweep_series *x, int i, const pb_decode *d, pb_exec *ex)
{
    double gap_ns = d->dispatches > 0 ? x->glue[i] / d->dispatches * 1e6 : 0;
    long before = ex->dispatches;
    int rc = pb_dispatch_cost_samples(ex, PB_SWEEP_COST_CALLS, gap_ns > 0 ? (uint64_t)gap_ns : 0, 0,
                                      x->cost + (size_t)i * PB_SWEEP_COST_CALLS);
    x->cost_dispatches += ex->dispatches - before;
    return rc;
}

void pb_sweep_row_budget(pb_sweep_row *r)
{
    const pb_budget_in in = { .floor_gbps = r->floor.gbps_median, .weight_bytes = (double)r->weight_bytes,
                              .kv_bytes = (double)r->kv_bytes, .calls = r->m.mv_calls,
                              .dispatch_ns = r->m.dispatch_cost_ns, .macs = (double)r->macs,
                              .roof_gmacs = r->roof_gmacs };
    pb_budget_split(&r->m.median, &in, &r->budget);
}

double pb_sweep_roof_share(const pb_sweep_row *r)
{
    double ms = r->m.ms.median;
    return ms > 0 && r->roof_gmacs > 0 ? (double)r->macs / (ms * 1e6) / r->roof_gmacs : NAN;
}

/* A copy of the executor's accounts (the counters when the timed tokens begin). 0, or -1 (ENOMEM). */
static int pb_sweep_snapshot(const pb_exec *ex, pb_slices *copy)
{
    if (pb_slices_init(copy, ex->slices.n, NULL, NULL) != 0)
        return -1;
    memcpy(copy->t, ex->slices.t, (size_t)copy->n * sizeof *copy->t);
    return 0;
}

/* What runs between two timed tokens, none of it in either: the split's shares move, the cost batch, the floor
 * pass; the sampler paused over the last two, so busy % is the tokens'. */
static int pb_sweep_between_tokens(pb_sweep_series *x, int i, const pb_decode *d, pb_exec *ex, pb_sampler *s,
                                   const pb_sweep_between *between)
{
    pb_exec_token_end(ex);
    if (s)
        pb_sampler_pause(s);
    int rc = pb_sweep_cost(x, i, d, ex);
    if (between && between->fn)
        between->fn(between->ctx);
    if (s)
        pb_sampler_resume(s);
    return rc;
}

/* The point's figures from its series and the executor's accounts (before: when the timed tokens began). 0, or
 * -1 (ENOMEM). */
static int pb_sweep_conclude(pb_sweep_meas *out, const pb_sweep_series *x, int tokens, const pb_decode *d,
                             const pb_exec *ex, const pb_slices *before, long dispatches, uint64_t dispatch_ns,
                             const int *cpus)
{
    out->dispatches_per_token = (double)dispatches / tokens;
    out->ms = pb_summarize(x->ms, (size_t)tokens);
    out->glue_ms = pb_summarize(x->glue, (size_t)tokens);
    out->attn_ms = pb_summarize(x->attn, (size_t)tokens);
    out->median = pb_budget_median(x->parts, (size_t)tokens);
    out->mv_calls = d->mv_dispatches; /* the last token's: every token makes the same */
    out->dispatch_cost_ns = pb_summarize(x->cost, (size_t)tokens * PB_SWEEP_COST_CALLS).median;
    int rc = pb_sweep_cliff_of(&ex->slices, before, cpus, tokens, dispatch_ns, dispatches, &out->cliff);
    out->cliff.share_source = ex->split == PB_SCHED_WEIGHTED ? pb_shares_source(&ex->shares) : NULL;
    return rc;
}

int pb_sweep_measure(pb_decode *d, pb_exec *ex, int warmup, int tokens, int interval_ms, const int *cpus, int ncpus,
                     const pb_sweep_between *between, pb_sweep_meas *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->busy_mean = out->busy_min = out->busy_max = out->dispatch_cost_ns = NAN;
    pb_sweep_series x;
    pb_slices before = { 0 };
    if (pb_sweep_series_init(&x, tokens, ex->slices.n) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint64_t tok = 0, dispatch_ns = 0;
    for (int i = 0; i < warmup; i++, tok++) {
        if (pb_decode_token(d, ex, tok) != 0)
            goto job_failed;
        pb_exec_token_end(ex);
    }
    if (pb_sweep_snapshot(ex, &before) != 0) {
        pb_sweep_series_free(&x);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pb_sweep_mv_busy(ex, x.prev);
    char uerr[256];
    pb_sampler *s = pb_sampler_start(interval_ms, NULL, 0, uerr, sizeof uerr);
    long disp0 = ex->dispatches;
    for (int i = 0; i < tokens; i++, tok++) {
        uint64_t t0 = pb_now_ns();
        int rc = pb_decode_token(d, ex, tok);
        x.ms[i] = (double)(pb_now_ns() - t0) / 1e6;
        x.glue[i] = x.ms[i] - (double)d->dispatch_ns / 1e6;
        x.attn[i] = (double)d->attn_ns / 1e6;
        x.parts[i] = pb_sweep_token(d, ex, x.prev, x.ms[i]);
        dispatch_ns += d->dispatch_ns;
        if (rc == 0)
            rc = pb_sweep_between_tokens(&x, i, d, ex, s, between);
        if (rc != 0) {
            if (s) {
                pb_sampler_result r;
                pb_sampler_stop(s, &r);
                pb_sampler_result_free(&r);
            }
            goto job_failed;
        }
    }
    if (s) {
        /* A reading that failed mid-point still leaves what was gathered: keep it. */
        pb_sampler_stop(s, &out->util);
        out->have_util = true;
        pb_sweep_busy(&out->util, cpus, ncpus, out);
    }
    int rc = pb_sweep_conclude(out, &x, tokens, d, ex, &before, ex->dispatches - disp0 - x.cost_dispatches,
                               dispatch_ns, cpus);
    pb_sweep_series_free(&x);
    pb_slices_free(&before);
    if (rc != 0) {
        pb_sweep_meas_free(out);
        snprintf(err, errlen, "out of memory");
    }
    return rc;
job_failed:
    snprintf(err, errlen, "token %llu: %s", (unsigned long long)tok, strerror(errno));
    pb_sweep_series_free(&x);
    pb_slices_free(&before);
    return -1;
}

double pb_sweep_j_per_token(const pb_sweep_row *r)
{
    double w = r->watts_package + (isnan(r->watts_dram) ? 0 : r->watts_dram);
    return w * r->m.ms.median / 1e3 / (r->batch > 0 ? r->batch : 1);
}
