/* pb_sweep.c — see pb_sweep.h. */
#include "pb_sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A copy of the executor's accounts (the counters when the timed tokens begin). 0, or -1 (ENOMEM). */
static int pb_sweep_snapshot(const pb_exec *ex, pb_slices *copy)
{
    if (pb_slices_init(copy, ex->slices.n, NULL, NULL) != 0)
        return -1;
    memcpy(copy->t, ex->slices.t, (size_t)copy->n * sizeof *copy->t);
    return 0;
}

int pb_sweep_measure(pb_decode *d, pb_exec *ex, int warmup, int tokens, int interval_ms, const int *cpus, int ncpus,
                     const pb_sweep_between *between, pb_sweep_meas *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->busy_mean = out->busy_min = out->busy_max = NAN;
    double *ms = malloc(3 * (size_t)tokens * sizeof *ms);
    if (!ms) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    double *glue = ms + tokens; /* the second third: each token's time outside its dispatches */
    double *attn = glue + tokens; /* the last: each token's time in attention */
    uint64_t tok = 0, dispatch_ns = 0;
    for (int i = 0; i < warmup; i++, tok++) {
        if (pb_decode_token(d, ex, tok) != 0)
            goto job_failed;
        pb_exec_token_end(ex);
    }
    pb_slices before;
    if (pb_sweep_snapshot(ex, &before) != 0) {
        free(ms);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char uerr[256];
    pb_sampler *s = pb_sampler_start(interval_ms, NULL, 0, uerr, sizeof uerr);
    long disp0 = ex->dispatches;
    for (int i = 0; i < tokens; i++, tok++) {
        uint64_t t0 = pb_now_ns();
        int rc = pb_decode_token(d, ex, tok);
        ms[i] = (double)(pb_now_ns() - t0) / 1e6;
        glue[i] = ms[i] - (double)d->dispatch_ns / 1e6;
        attn[i] = (double)d->attn_ns / 1e6;
        dispatch_ns += d->dispatch_ns;
        if (rc != 0) {
            if (s) {
                pb_sampler_result r;
                pb_sampler_stop(s, &r);
                pb_sampler_result_free(&r);
            }
            pb_slices_free(&before);
            goto job_failed;
        }
        pb_exec_token_end(ex); /* outside the token's time: the split's shares move between tokens only */
        if (between && between->fn) {
            if (s) /* the floor pass is not the token's: keep it out of busy % */
                pb_sampler_pause(s);
            between->fn(between->ctx);
            if (s)
                pb_sampler_resume(s);
        }
    }
    out->dispatches_per_token = (double)(ex->dispatches - disp0) / tokens;
    if (s) {
        /* A reading that failed mid-point still leaves what was gathered: keep it. */
        pb_sampler_stop(s, &out->util);
        out->have_util = true;
        pb_sweep_busy(&out->util, cpus, ncpus, out);
    }
    out->ms = pb_summarize(ms, (size_t)tokens);
    out->glue_ms = pb_summarize(glue, (size_t)tokens);
    out->attn_ms = pb_summarize(attn, (size_t)tokens);
    free(ms);
    int rc = pb_sweep_cliff_of(&ex->slices, &before, cpus, tokens, dispatch_ns, ex->dispatches - disp0, &out->cliff);
    pb_slices_free(&before);
    out->cliff.share_source = ex->split == PB_SCHED_WEIGHTED ? pb_shares_source(&ex->shares) : NULL;
    if (rc != 0) {
        pb_sweep_meas_free(out);
        snprintf(err, errlen, "out of memory");
    }
    return rc;
job_failed:
    snprintf(err, errlen, "token %llu: %s", (unsigned long long)tok, strerror(errno));
    free(ms);
    return -1;
}
