/* Findings on decode (sweep.csv): thread scaling, policies, core sets, formats and imbalance. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_findings.h"
#include "pb_fmt.h"

static void thread_scaling(pb_findings *f, const pb_dg_sweep *s)
{
    if (s->nthr < 2)
        return;
    const pb_dg_decode *a = &s->by_thr[0], *b = &s->by_thr[s->nthr - 1];
    double r = b->tok_s / a->tok_s;
    char how[64];
    if (r >= 1)
        snprintf(how, sizeof how, "%s faster than", PB_X(r));
    else
        snprintf(how, sizeof how, "%s slower than", PB_PCT(100 * (1 - r)));
    char why[200];
    if (b->pct_floor >= PB_MEMORY_BOUND_PCT)
        snprintf(why, sizeof why, ": memory-bound at %s GB/s, %s of the floor", PB_NUM(b->gbps, 1),
                 PB_PCT(b->pct_floor));
    else
        snprintf(why, sizeof why, ": %s GB/s, %s of the floor, so not memory-bound", PB_NUM(b->gbps, 1),
                 PB_PCT(b->pct_floor));
    const pb_dg_decode *peak = a;
    for (int i = 0; i < s->nthr; i++)
        if (s->by_thr[i].tok_s > peak->tok_s)
            peak = &s->by_thr[i];
    char more[200] = "";
    if (peak != b)
        snprintf(more, sizeof more, "; decode peaks at %d thread%s (%s tok/s): more threads than that are %s slower",
                 peak->threads, PB_S(peak->threads), PB_NUM(peak->tok_s, 1), PB_PCT(100 * (1 - b->tok_s / peak->tok_s)));
    pb_findings_add(f, "%d thread%s decode %s %d (%s vs %s tok/s, %s %s, best policy and core set at each)%s%s.",
                    b->threads, PB_S(b->threads), how, a->threads, PB_NUM(b->tok_s, 1), PB_NUM(a->tok_s, 1), b->model,
                    b->format, why, more);
}

static void policies(pb_findings *f, const pb_dg_sweep *s)
{
    const pb_dg_decode *spin = NULL;
    for (int i = 0; i < s->npol; i++)
        if (strcmp(s->by_pol[i].policy, "spin") == 0)
            spin = &s->by_pol[i];
    if (!spin)
        return;
    for (int i = 0; i < s->npol; i++) {
        const pb_dg_decode *o = &s->by_pol[i];
        if (o == spin)
            continue;
        pb_findings_add(f, "At %d threads, %s decodes at %s of spin's speed (%s vs %s tok/s, %s, %s dispatches per "
                        "token).",
                        o->threads, o->policy, PB_PCT(100 * o->tok_s / spin->tok_s), PB_NUM(o->tok_s, 1),
                        PB_NUM(spin->tok_s, 1), o->format, PB_NUM(o->dispatches, 0));
    }
}

static const pb_dg_decode *set_named(const pb_dg_sweep *s, const char *name)
{
    for (int i = 0; i < s->nset; i++)
        if (strcmp(s->by_set[i].cpuset, name) == 0)
            return &s->by_set[i];
    return NULL;
}

/* "adding E-cores lowers tok/s by 18%": a set against the one it extends. */
static void set_pair(pb_findings *f, const pb_dg_sweep *s, const char *base, const char *more, const char *what)
{
    const pb_dg_decode *a = set_named(s, base), *b = set_named(s, more);
    if (!a || !b)
        return;
    double r = b->tok_s / a->tok_s;
    pb_findings_add(f, "Adding %s %s tok/s by %s (%s: %s tok/s at %d threads; %s: %s tok/s at %d threads).", what,
                    r < 1 ? "lowers" : "raises", PB_PCT(100 * fabs(1 - r)), more, PB_NUM(b->tok_s, 1), b->threads,
                    base, PB_NUM(a->tok_s, 1), a->threads);
}

static void core_sets(pb_findings *f, const pb_dg_sweep *s)
{
    if (s->nset < 2)
        return;
    const pb_dg_decode *best = &s->by_set[0];
    for (int i = 1; i < s->nset; i++)
        if (s->by_set[i].tok_s > best->tok_s)
            best = &s->by_set[i];
    char rest[400];
    size_t o = 0;
    rest[0] = '\0';
    for (int i = 0; i < s->nset && o < sizeof rest - 80; i++) {
        const pb_dg_decode *x = &s->by_set[i];
        if (x != best)
            o += (size_t)snprintf(rest + o, sizeof rest - o, "%s%s %s tok/s at %d threads (%s lower)", o ? ", " : "",
                                  x->cpuset, PB_NUM(x->tok_s, 1), x->threads, PB_PCT(100 * (1 - x->tok_s / best->tok_s)));
    }
    pb_findings_add(f, "Core set %s decodes fastest (%s tok/s at %d threads, %s); %s.", best->cpuset,
                    PB_NUM(best->tok_s, 1), best->threads, best->format, rest);
    set_pair(f, s, "p", "p+e", "E-cores");
    set_pair(f, s, "physical", "smt", "SMT siblings");
}

static void formats(pb_findings *f, const pb_dg_sweep *s)
{
    const pb_dg_decode *ref = NULL;
    for (int i = 0; i < s->nbest; i++)
        if (strcmp(s->best[i].format, s->focus) == 0 && strcmp(s->best[i].model, s->best[0].model) == 0)
            ref = &s->best[i];
    if (!ref)
        return;
    for (int i = 0; i < s->nbest; i++) {
        const pb_dg_decode *o = &s->best[i];
        if (o == ref || strcmp(o->model, ref->model) != 0)
            continue;
        pb_findings_add(f, "%s decodes %s as fast as %s (%s vs %s tok/s) with %s its weight bytes (%s vs %s).",
                        o->format, PB_X(o->tok_s / ref->tok_s), ref->format, PB_NUM(o->tok_s, 1), PB_NUM(ref->tok_s, 1),
                        PB_X(o->weight_bytes / ref->weight_bytes), PB_BYTES(o->weight_bytes),
                        PB_BYTES(ref->weight_bytes));
    }
}

static void imbalance(pb_findings *f, const pb_dg_sweep *s)
{
    if (!s->nbusy)
        return;
    if (!s->nimbalanced) {
        pb_findings_add(f, "None of the %d decode points ran imbalanced: in each, the pinned cpus' busy shares stayed "
                        "within 40 points of each other.", s->nbusy);
        return;
    }
    const pb_dg_decode *w = &s->worst_imb;
    pb_findings_add(f, "%d of %d decode points ran imbalanced (busiest and idlest pinned cpu more than 40 points "
                    "apart); the widest was %s %s at %d thread%s on %s, busy %s to %s.",
                    s->nimbalanced, s->npoints, w->policy, w->format, w->threads, PB_S(w->threads), w->cpuset[0] ? w->cpuset : "?",
                    PB_PCT(s->worst_busy_min), PB_PCT(s->worst_busy_max));
}

static void glue(pb_findings *f, const pb_dg_sweep *s)
{
    const pb_dg_decode *fu = &s->glue_fused, *se = &s->glue_serial;
    pb_findings_add(f, "Fused glue (SiLU and activation quantization inside the dispatches) against serial glue, "
                    "same point (%s %s, %s, %d thread%s): %s vs %s tok/s (%s); the serial part of a token %s%% vs %s%%.",
                    fu->model, fu->format, fu->policy, fu->threads, PB_S(fu->threads), PB_NUM(fu->tok_s, 1),
                    PB_NUM(se->tok_s, 1), PB_X(fu->tok_s / se->tok_s), PB_NUM(fu->glue_pct, 1),
                    PB_NUM(se->glue_pct, 1));
}

void pb_findings_decode(pb_findings *f, const pb_digest *d)
{
    const pb_dg_sweep *s = &d->sweep;
    if (!s->have)
        return;
    thread_scaling(f, s);
    policies(f, s);
    core_sets(f, s);
    formats(f, s);
    imbalance(f, s);
    if (s->have_glue)
        glue(f, s);
}
