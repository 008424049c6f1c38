/* Findings on dispatch cost (pool_overhead.csv) and the read floor (memory_floor.csv, token_floor.csv). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pb_findings.h"
#include "pb_fmt.h"

/* What the round trip is: each ping-pong variant of the spin block, and why the fastest is the reference. */
static void round_trip_variants(pb_findings *f, const pb_dispatch_digest *spin)
{
    const double *v = spin->rt_var;
    if (isnan(v[0]) && isnan(v[1]) && isnan(v[2]))
        return; /* a CSV from before the variants */
    pb_findings_add(f, "The round trip is measured three ways in every block, and ratio_to_rt divides by the fastest "
                    "(rt_tight_ns): one line both cpus exchange (1line_rmw: %s), two lines each written by a store "
                    "(2line_store: %s), two lines each written by an exchange (2line_rmw: %s, the shape of a pool's "
                    "generation and completion counters). The fastest is the least any handshake between those two "
                    "cpus can cost, so a dispatch below 1x would mean the reference was not the floor.",
                    PB_NS(v[0]), PB_NS(v[1]), PB_NS(v[2]));
}

#define PB_BARRIER_PREFIX "barrier-"

static bool is_barrier(const pb_dispatch_digest *d)
{
    return strncmp(d->policy, PB_BARRIER_PREFIX, strlen(PB_BARRIER_PREFIX)) == 0;
}

/* One barrier among the threads inside a job, per algorithm: its cost, against the round trip and OpenMP's. */
static void barriers(pb_findings *f, const pb_pool_digest *p)
{
    char buf[640];
    size_t o = 0;
    int n = 0;
    for (int i = 0; i < p->n && o < sizeof buf - 96; i++) {
        const pb_dispatch_digest *d = &p->d[i];
        if (!is_barrier(d) || isnan(d->ns))
            continue;
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s %s (%s the round trip, %s OpenMP's)", n++ ? "; " : "",
                              d->policy + strlen(PB_BARRIER_PREFIX), PB_NS(d->ns), PB_X(d->x_rt), PB_X(d->x_omp));
    }
    if (n)
        pb_findings_add(f, "One barrier among %d thread%s inside a job costs: %s.", p->threads, PB_S(p->threads), buf);
}

static void dispatch_vs_spin(pb_findings *f, const pb_pool_digest *p)
{
    const pb_dispatch_digest *spin = pb_digest_pool_policy(p, "spin");
    if (!spin || !(spin->ns > 0))
        return;
    for (int i = 0; i < p->n; i++) {
        const pb_dispatch_digest *o = &p->d[i];
        if (o == spin || isnan(o->ns) || is_barrier(o))
            continue;
        pb_findings_add(f, "A%s %s dispatch costs %s a spin dispatch here (%s vs %s at %d thread%s, no gap, empty job).",
                        strcmp(o->policy, "omp") == 0 ? "n" : "", strcmp(o->policy, "omp") == 0 ? "OpenMP" : o->policy,
                        PB_X(o->ns / spin->ns), PB_NS(o->ns), PB_NS(spin->ns), p->threads, PB_S(p->threads));
    }
    if (!isnan(spin->x_rt))
        pb_findings_add(f, "A spin dispatch costs %s the tightest same-run core-to-core round trip (%s; round trip %s before "
                        "and %s after, placement %s).",
                        PB_X(spin->x_rt), PB_NS(spin->ns), PB_NS(spin->rt_before), PB_NS(spin->rt_after),
                        spin->placement[0] ? spin->placement : "untagged");
    round_trip_variants(f, spin);
}

/* hybrid / spin at each caller gap: where the hybrid budget runs out and the workers go to sleep. */
static void hybrid_by_gap(pb_findings *f, const pb_pool_digest *p)
{
    char buf[480];
    size_t o = 0;
    int n = 0;
    double first = NAN, last = NAN;
    for (int i = 0; i < p->ngap; i++) {
        if (strcmp(p->gap[i].policy, "hybrid") != 0)
            continue;
        for (int j = 0; j < p->ngap; j++) {
            if (strcmp(p->gap[j].policy, "spin") != 0 || p->gap[j].gap_us != p->gap[i].gap_us)
                continue;
            double r = p->gap[i].ns / p->gap[j].ns;
            if (o < sizeof buf - 64)
                o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s%s at %s µs", n ? ", " : "", PB_X(r),
                                      n ? "" : " a spin dispatch", PB_NUM(p->gap[i].gap_us, 0));
            if (n++ == 0)
                first = r;
            last = r;
        }
    }
    if (n < 2)
        return;
    pb_findings_add(f, "At %d threads, hybrid (spin budget %s µs) costs %s of caller gap%s.", p->threads,
                    PB_NUM(p->spin_us, 0), buf,
                    last > PB_ASLEEP_FACTOR * first ? ": its workers fall asleep once the caller's gap outlasts the budget" : "");
}

static void floor_scaling(pb_findings *f, const pb_floor_digest *fl)
{
    const pb_floor_point *one = pb_digest_floor_at(fl, 1), *top = &fl->pt[fl->n - 1];
    if (one && top->threads > 1) {
        double r = top->best / one->best;
        pb_findings_add(f, "%d thread%s read %s the 1-thread floor (%s vs %s GB/s, placement %s)%s.", top->threads, PB_S(top->threads),
                        PB_X(r), PB_NUM(top->best, 1), PB_NUM(one->best, 1), top->placement[0] ? top->placement : "untagged",
                        r < PB_SATURATED_FACTOR ? ": one thread nearly saturates the memory path" : "");
    } else if (one) {
        pb_findings_add(f, "One thread reads %s GB/s (%s kernel, placement %s).", PB_NUM(one->best, 1), one->kernel,
                        one->placement);
    }
    if (!isnan(fl->copy_best) || !isnan(fl->write_best))
        pb_findings_add(f, "Copy peaks at %s GB/s (%d thread%s) and write at %s GB/s (%d thread%s), against a read floor "
                        "of %s GB/s at %d thread%s; neither is mixed into the read floor.",
                        PB_NUM(fl->copy_best, 1), fl->copy_threads, PB_S(fl->copy_threads), PB_NUM(fl->write_best, 1),
                        fl->write_threads, PB_S(fl->write_threads), PB_NUM(top->best, 1), top->threads, PB_S(top->threads));
}

/* The per-token ceiling at the most threads for the focus format, against the decode the sweep reached. */
static void token_ceiling(pb_findings *f, const pb_digest *d)
{
    const pb_token_digest *tk = &d->token;
    const char *fmt = d->sweep.have ? d->sweep.focus : "q8_0";
    int best = -1;
    for (int i = 0; i < tk->n; i++)
        if (strcmp(tk->t[i].format, fmt) == 0 && (best < 0 || tk->t[i].threads > tk->t[best].threads))
            best = i;
    if (best < 0)
        return;
    char tail[480] = "";
    const pb_floor_point *fp = pb_digest_floor_at(&d->floor, tk->t[best].threads);
    for (int i = 0; i < d->sweep.nbest; i++) {
        const pb_decode_point *b = &d->sweep.best[i];
        if (strcmp(b->model, tk->model) != 0 || strcmp(b->format, fmt) != 0)
            continue;
        size_t o = (size_t)snprintf(tail, sizeof tail, "; the best decode measured reached %s tok/s, %s of that "
                                    "ceiling (%s of the floor measured beside it, which the sweep's %% of floor "
                                    "quotes)", PB_NUM(b->tok_s, 1), PB_PCT(100 * b->tok_s / tk->t[best].ceiling),
                                    PB_PCT(b->pct_floor));
        /* Minutes apart, a VM's vCPUs may sit on one chiplet for the floor and on two for the decode. */
        bool known = fp && fp->placement[0] && b->placement[0] && strcmp(fp->placement, "n/a") != 0 &&
                     strcmp(b->placement, "n/a") != 0;
        if (known && b->threads == fp->threads && strcmp(fp->placement, b->placement) != 0 && o < sizeof tail)
            snprintf(tail + o, sizeof tail - o, "; but bench_memory_floor ran %s and that decode %s, so the "
                     "ceiling is another placement's", fp->placement, b->placement);
    }
    pb_findings_add(f, "bench_memory_floor's best read caps %s in %s at %s tok/s on %d thread%s (%s ms per token for %s of "
                    "weights)%s.",
                    tk->model, fmt, PB_NUM(tk->t[best].ceiling, 1), tk->t[best].threads, PB_S(tk->t[best].threads), PB_NUM(tk->t[best].ms, 2),
                    PB_BYTES(tk->t[best].weight_bytes), tail);
}

void pb_findings_pool(pb_findings *f, const pb_digest *d)
{
    if (d->pool.have) {
        dispatch_vs_spin(f, &d->pool);
        barriers(f, &d->pool);
        hybrid_by_gap(f, &d->pool);
    }
    if (d->floor.have)
        floor_scaling(f, &d->floor);
    if (d->token.have)
        token_ceiling(f, d);
}
