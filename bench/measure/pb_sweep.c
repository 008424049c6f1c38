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
    uint64_t tok = 0;
    for (int i = 0; i < warmup; i++, tok++) {
        if (pb_decode_token(d, ex, tok) != 0)
            goto job_failed;
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
        if (rc != 0) {
            if (s) {
                pb_sampler_result r;
                pb_sampler_stop(s, &r);
                pb_sampler_result_free(&r);
            }
            goto job_failed;
        }
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
    return 0;
job_failed:
    snprintf(err, errlen, "token %llu: %s", (unsigned long long)tok, strerror(errno));
    free(ms);
    return -1;
}
