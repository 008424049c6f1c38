/* Findings on decode (sweep.csv): thread scaling, policies, core sets, formats and imbalance. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_exec.h"
#include "pb_findings.h"
#include "pb_pairs_find.h"
#include "pb_fmt.h"

static void thread_scaling(pb_findings *f, const pb_sweep_digest *s)
{
    if (s->nthr < 2)
        return;
    const pb_decode_point *a = &s->by_thr[0], *b = &s->by_thr[s->nthr - 1];
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
    const pb_decode_point *peak = a;
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

/* A sweep point as a pairs.csv key (any cache depth its rounds hold one of). */
static pb_pair_key pair_key(const pb_decode_point *p)
{
    return (pb_pair_key){ .model = p->model, .format = p->format, .cpuset = p->cpuset, .policy = p->policy,
                          .schedule = p->schedule, .glue = p->glue, .threads = p->threads, .context = -1 };
}

/* b against a from the interleaved rounds, as the words after a finding's figures: "; interleaved: -9% (-12% to
 * -6%) over 20 rounds", or ", measured apart" without pairs; *cmp the comparison (n 0: none). Whether the
 * interval shows a difference (true, too, where no pairing was possible: the figures then speak as before). */
static bool paired_words(const pb_sweep_digest *s, const pb_decode_point *a, const pb_decode_point *b,
                         pb_paired *cmp, char *buf, size_t len)
{
    pb_pair_key ka = pair_key(a), kb = pair_key(b);
    int aside;
    *cmp = (pb_paired){ .n = 0, .ratio = NAN, .lo = NAN, .hi = NAN };
    if (!pb_pairs_compare(s->pairs, &ka, &kb, cmp, &aside)) {
        snprintf(buf, len, ", measured apart");
        return true;
    }
    char t[128];
    pb_paired_text(cmp, t, sizeof t);
    snprintf(buf, len, "; interleaved: %s over %d round%s%s", t, cmp->n, PB_S(cmp->n),
             aside ? ", some set aside (steal, or a placement change)" : "");
    return pb_paired_differs(cmp);
}

static void policies(pb_findings *f, const pb_sweep_digest *s)
{
    const pb_decode_point *spin = NULL;
    for (int i = 0; i < s->npol; i++)
        if (strcmp(s->by_pol[i].policy, "spin") == 0)
            spin = &s->by_pol[i];
    if (!spin)
        return;
    for (int i = 0; i < s->npol; i++) {
        const pb_decode_point *o = &s->by_pol[i];
        if (o == spin)
            continue;
        char pair[256];
        pb_paired cmp;
        if (!paired_words(s, spin, o, &cmp, pair, sizeof pair)) {
            pb_findings_add(f, "At %d threads, %s and spin decode alike (%s vs %s tok/s measured apart, %s%s).",
                            o->threads, o->policy, PB_NUM(o->tok_s, 1), PB_NUM(spin->tok_s, 1), o->format, pair);
            continue;
        }
        /* interleaved, the paired ratio is the finding; the points' own figures follow */
        double ratio = cmp.n ? cmp.ratio : o->tok_s / spin->tok_s;
        pb_findings_add(f, "At %d threads, %s decodes at %s of spin's speed (%s vs %s tok/s, %s, %s dispatches per "
                        "token%s).",
                        o->threads, o->policy, PB_PCT(100 * ratio), PB_NUM(o->tok_s, 1), PB_NUM(spin->tok_s, 1),
                        o->format, PB_NUM(o->dispatches, 0), pair);
    }
}

static const pb_decode_point *set_named(const pb_sweep_digest *s, const char *name)
{
    for (int i = 0; i < s->nset; i++)
        if (strcmp(s->by_set[i].cpuset, name) == 0)
            return &s->by_set[i];
    return NULL;
}

/* "adding E-cores lowers tok/s by 18%": a set against the one it extends. */
static void set_pair(pb_findings *f, const pb_sweep_digest *s, const char *base, const char *more, const char *what)
{
    const pb_decode_point *a = set_named(s, base), *b = set_named(s, more);
    if (!a || !b)
        return;
    double r = b->tok_s / a->tok_s;
    pb_findings_add(f, "Adding %s %s tok/s by %s (%s: %s tok/s at %d threads; %s: %s tok/s at %d threads).", what,
                    r < 1 ? "lowers" : "raises", PB_PCT(100 * fabs(1 - r)), more, PB_NUM(b->tok_s, 1), b->threads,
                    base, PB_NUM(a->tok_s, 1), a->threads);
}

static void core_sets(pb_findings *f, const pb_sweep_digest *s)
{
    if (s->nset < 2)
        return;
    const pb_decode_point *best = &s->by_set[0];
    for (int i = 1; i < s->nset; i++)
        if (s->by_set[i].tok_s > best->tok_s)
            best = &s->by_set[i];
    char rest[400];
    size_t o = 0;
    rest[0] = '\0';
    for (int i = 0; i < s->nset && o < sizeof rest - 80; i++) {
        const pb_decode_point *x = &s->by_set[i];
        if (x != best)
            o += (size_t)snprintf(rest + o, sizeof rest - o, "%s%s %s tok/s at %d threads (%s lower)", o ? ", " : "",
                                  x->cpuset, PB_NUM(x->tok_s, 1), x->threads, PB_PCT(100 * (1 - x->tok_s / best->tok_s)));
    }
    pb_findings_add(f, "Core set %s decodes fastest (%s tok/s at %d threads, %s); %s.", best->cpuset,
                    PB_NUM(best->tok_s, 1), best->threads, best->format, rest);
    set_pair(f, s, "p", "p+e", "E-cores");
    set_pair(f, s, "physical", "smt", "SMT siblings");
}

static void formats(pb_findings *f, const pb_sweep_digest *s)
{
    const pb_decode_point *ref = NULL;
    for (int i = 0; i < s->nbest; i++)
        if (strcmp(s->best[i].format, s->focus) == 0 && strcmp(s->best[i].model, s->best[0].model) == 0)
            ref = &s->best[i];
    if (!ref)
        return;
    for (int i = 0; i < s->nbest; i++) {
        const pb_decode_point *o = &s->best[i];
        if (o == ref || strcmp(o->model, ref->model) != 0)
            continue;
        pb_findings_add(f, "%s decodes %s as fast as %s (%s vs %s tok/s) with %s its weight bytes (%s vs %s).",
                        o->format, PB_X(o->tok_s / ref->tok_s), ref->format, PB_NUM(o->tok_s, 1), PB_NUM(ref->tok_s, 1),
                        PB_X(o->weight_bytes / ref->weight_bytes), PB_BYTES(o->weight_bytes),
                        PB_BYTES(ref->weight_bytes));
    }
}

static void imbalance(pb_findings *f, const pb_sweep_digest *s)
{
    if (!s->nbusy)
        return;
    if (!s->nimbalanced) {
        pb_findings_add(f, "None of the %d decode points ran imbalanced: in each, the pinned cpus' busy shares stayed "
                        "within 40 points of each other.", s->nbusy);
        return;
    }
    const pb_decode_point *w = &s->worst_imb;
    pb_findings_add(f, "%d of %d decode points ran imbalanced (busiest and idlest pinned cpu more than 40 points "
                    "apart); the widest was %s %s at %d thread%s on %s, busy %s to %s.",
                    s->nimbalanced, s->npoints, w->policy, w->format, w->threads, PB_S(w->threads), w->cpuset[0] ? w->cpuset : "?",
                    PB_PCT(s->worst_busy_min), PB_PCT(s->worst_busy_max));
}

static void glue(pb_findings *f, const pb_sweep_digest *s)
{
    const pb_decode_point *fu = &s->glue_fused, *se = &s->glue_serial;
    char pair[256];
    pb_paired cmp;
    bool differs = paired_words(s, se, fu, &cmp, pair, sizeof pair);
    pb_findings_add(f, "Fused glue (SiLU and activation quantization inside the dispatches) against serial glue, "
                    "same point (%s %s, %s, %d thread%s): %s vs %s tok/s (%s%s); the serial part of a token %s%% vs "
                    "%s%%.",
                    fu->model, fu->format, fu->policy, fu->threads, PB_S(fu->threads), PB_NUM(fu->tok_s, 1),
                    PB_NUM(se->tok_s, 1), differs ? PB_X(fu->tok_s / se->tok_s) : "no difference to state", pair,
                    PB_NUM(fu->glue_pct, 1), PB_NUM(se->glue_pct, 1));
}

/* ---------------------------------------------------------------- unequal cores */

/* A point's schedule kind (the executor's own words: pb_sched_parse), -1 for a column it does not know. */
static int sched_kind(const pb_decode_point *d)
{
    pb_sched s;
    return pb_sched_parse(d->schedule, &s) == 0 ? (int)s.kind : -1;
}

static bool same_but_schedule(const pb_decode_point *a, const pb_decode_point *b)
{
    return a->threads == b->threads && strcmp(a->policy, b->policy) == 0 && strcmp(a->cpuset, b->cpuset) == 0 &&
           strcmp(a->glue, b->glue) == 0 && strcmp(a->emulate, b->emulate) == 0;
}

/* "<open>EMULATED slow cpu 1=0.5<close>" for an emulated point, "" otherwise. */
static const char *emulated_note(const pb_decode_point *d, const char *open, const char *close, char *buf, size_t len)
{
    if (!d->emulate[0])
        return "";
    snprintf(buf, len, "%sEMULATED slow cpu %s%s", open, d->emulate, close);
    return buf;
}

/* The static point whose others waited longest for its slowest thread, as a share of the token: who held the
 * barriers up, and what it cost; where that is a tenth of the token or more and no point ran a balancing split,
 * the split that shows the token without the wait. */
static void slowest_thread(pb_findings *f, const pb_sweep_digest *s)
{
    const pb_decode_point *w = NULL;
    bool balanced = false;
    for (int i = 0; i < s->ncliff; i++) {
        const pb_decode_point *c = &s->cliff[i];
        balanced |= sched_kind(c) > PB_SCHED_STATIC;
        if (sched_kind(c) == PB_SCHED_STATIC && c->wait_slowest_ms >= 0 && c->slowest_cpu >= 0 &&
            (!w || c->wait_slowest_ms / c->ms_median > w->wait_slowest_ms / w->ms_median))
            w = c;
    }
    if (!w)
        return;
    char em[PB_DIGEST_NAME + 40];
    double pct = 100 * w->wait_slowest_ms / w->ms_median;
    bool hint = pct >= 9.5 && !balanced; /* a tenth of the token as the sentence prints it, a whole percent */
    pb_findings_add(f, "The barrier's slowest thread: at %d threads on %s (%s, static split%s), cpu %d was the slowest, "
                    "%s ms per token in its slices against %s ms for the least busy; the others waited %s ms per token "
                    "for it, %s of the token (%s ms).%s",
                    w->threads, w->cpuset, w->policy, emulated_note(w, "; ", "", em, sizeof em), w->slowest_cpu,
                    PB_NUM(w->busy_hi_ms, 2), PB_NUM(w->busy_lo_ms, 2), PB_NUM(w->wait_slowest_ms, 2),
                    PB_PCT(pct), PB_NUM(w->ms_median, 2),
                    hint ? " To see the token without that wait, run the sweep with --schedule static,steal:64 "
                           "(docs/reading-results.md)."
                         : "");
}

/* One point's part of a side-by-side sentence: "weighted 4.0 tok/s (1.81x static; the others waited 2.6 ms)". */
static size_t sched_part(char *buf, size_t len, const pb_decode_point *c, const pb_decode_point *stat)
{
    char vs[64] = "";
    if (stat && c != stat)
        snprintf(vs, sizeof vs, "%s static; ", PB_X(c->tok_s / stat->tok_s));
    return (size_t)snprintf(buf, len, "%s %s tok/s (%sthe others waited %s ms per token for cpu %d)", c->schedule,
                            PB_NUM(c->tok_s, 1), vs, PB_NUM(c->wait_slowest_ms, 2), c->slowest_cpu);
}

/* The schedules of one point side by side (members of s->cliff, count m); returns the winner's kind. */
static int sched_group(pb_findings *f, const pb_sweep_digest *s, const int *member, int m, bool say)
{
    const pb_decode_point *stat = NULL, *best = &s->cliff[member[0]];
    for (int k = 0; k < m; k++) {
        const pb_decode_point *c = &s->cliff[member[k]];
        stat = sched_kind(c) == PB_SCHED_STATIC ? c : stat;
        best = c->tok_s > best->tok_s ? c : best;
    }
    char parts[480] = "", em[PB_DIGEST_NAME + 40];
    size_t o = 0;
    for (int k = 0; k < m && o < sizeof parts; k++) {
        o += k ? (size_t)snprintf(parts + o, sizeof parts - o, "; ") : 0;
        if (o < sizeof parts)
            o += sched_part(parts + o, sizeof parts - o, &s->cliff[member[k]], stat);
    }
    if (say)
        pb_findings_add(f, "Schedules side by side, %s at %d threads on %s%s: %s. %s is fastest here.", best->policy,
                        best->threads, best->cpuset, emulated_note(best, " (", ")", em, sizeof em), parts,
                        best->schedule);
    return sched_kind(best);
}

/* Every point run with more than one schedule: side by side (the first few), then which won how often. */
static void schedules(pb_findings *f, const pb_sweep_digest *s)
{
    bool done[PB_DIGEST_MAX] = { false };
    int groups = 0, wins[PB_SCHED_KINDS] = { 0 };
    for (int i = 0; i < s->ncliff; i++) {
        int member[PB_DIGEST_MAX], m = 0;
        for (int j = i; j < s->ncliff; j++)
            if (!done[j] && same_but_schedule(&s->cliff[i], &s->cliff[j]) && sched_kind(&s->cliff[j]) >= 0) {
                member[m++] = j;
                done[j] = true;
            }
        if (m < 2)
            continue;
        int k = sched_group(f, s, member, m, groups < 4);
        groups++;
        wins[k >= 0 ? k : PB_SCHED_STATIC]++;
    }
    if (groups > 1)
        pb_findings_add(f, "Of %d points run with several schedules, static was fastest in %d, weighted in %d, dynamic "
                        "in %d, steal in %d. Weighted wins where the inequality is steady (a slower core stays slower: "
                        "it pays no claims and no wait); dynamic and steal where it moves within a token (claims "
                        "follow the moment's speed; steal's move only a slow thread's tail, and restart fewer "
                        "streams); static where the cores are equal (nothing to rebalance, nothing to pay).",
                        groups, wins[PB_SCHED_STATIC], wins[PB_SCHED_WEIGHTED], wins[PB_SCHED_DYNAMIC],
                        wins[PB_SCHED_STEAL]);
}

/* A hybrid machine's P-only against P+E: the cliff a static split falls off and what each schedule recovers. */
static void p_and_e(pb_findings *f, const pb_sweep_digest *s)
{
    const pb_decode_point *p = NULL, *pe[PB_SCHED_KINDS] = { NULL };
    for (int i = 0; i < s->ncliff; i++) {
        const pb_decode_point *c = &s->cliff[i];
        int k = sched_kind(c);
        if (k == PB_SCHED_STATIC && strcmp(c->cpuset, "p") == 0 && (!p || c->tok_s > p->tok_s))
            p = c;
        if (k >= 0 && strcmp(c->cpuset, "p+e") == 0 && (!pe[k] || c->tok_s > pe[k]->tok_s))
            pe[k] = c;
    }
    const pb_decode_point *st = pe[PB_SCHED_STATIC], *we = pe[PB_SCHED_WEIGHTED], *dy = pe[PB_SCHED_DYNAMIC],
                          *sl = pe[PB_SCHED_STEAL];
    if (!p || !st)
        return;
    pb_findings_add(f, "P-cores only (static) decode at %s tok/s on %d threads; P+E static at %s tok/s on %d (cpu %d "
                    "slowest, the others waited %s ms per token for it), P+E weighted at %s, P+E dynamic at %s, P+E "
                    "steal at %s tok/s.",
                    PB_NUM(p->tok_s, 1), p->threads, PB_NUM(st->tok_s, 1), st->threads, st->slowest_cpu,
                    PB_NUM(st->wait_slowest_ms, 2), we ? PB_NUM(we->tok_s, 1) : "not measured",
                    dy ? PB_NUM(dy->tok_s, 1) : "not measured", sl ? PB_NUM(sl->tok_s, 1) : "not measured");
}

void pb_findings_decode(pb_findings *f, const pb_digest *d)
{
    const pb_sweep_digest *s = &d->sweep;
    if (!s->have)
        return;
    thread_scaling(f, s);
    policies(f, s);
    core_sets(f, s);
    formats(f, s);
    imbalance(f, s);
    if (s->have_glue)
        glue(f, s);
    slowest_thread(f, s);
    schedules(f, s);
    p_and_e(f, s);
}
