/* pb_tune_confirm.c — each point's choice timed again against the rank's default, interleaved (see pb_tune.h). */
#include "pb_tune_confirm.h"

#include <math.h>
#include <string.h>

#include "pb_err.h"
#include "pb_stats.h"
#include "pb_tuning.h"

#define PB_TUNE_JUDGE_MAX 64 /* ratios pb_tune_judge looks at: far more than any comparison times */

static int pb_tune_default_distance(void)
{
    int d = 0;
    while (kern_prefetch_distances[d] != KERN_PREFETCH_BYTES)
        d++;
    return d;
}

pb_tune_settings pb_tune_vendor(void)
{
    return (pb_tune_settings){ .temporal = kern_prefetch_vendor_temporal(), .distance = pb_tune_default_distance(),
                               .near = kern_prefetch_vendor_near() };
}

pb_tune_verdict pb_tune_judge(const double *ratio, int n, double min_gain)
{
    double v[PB_TUNE_JUDGE_MAX];
    pb_tune_verdict r = { .median = NAN, .spread = NAN };
    for (int i = 0; i < n && r.pairs < PB_TUNE_JUDGE_MAX; i++)
        if (isfinite(ratio[i]) && ratio[i] > 0)
            v[r.pairs++] = ratio[i];
    if (r.pairs == 0)
        return r;
    r.median = pb_summarize(v, (size_t)r.pairs).median;
    pb_sort_doubles(v, (size_t)r.pairs);
    int trim = r.pairs >= PB_TUNE_TRIM_PAIRS;
    r.spread = (v[r.pairs - 1 - trim] - v[trim]) / 2;
    r.gain = r.pairs >= PB_TUNE_MIN_PAIRS && r.median > 1 + (min_gain > r.spread ? min_gain : r.spread);
    r.open = !r.gain && r.median > 1 + min_gain;
    return r;
}

/* One point's configurations, timed round by round: [0] is the rank's default. */
typedef struct pb_tune_trial {
    pb_tune_cand cfg[PB_TUNE_CONFIGS];
    int n;
    int kv, rs, ks; /* the fastest under the vendor's settings, the default under the tuned ones, the fastest under
                     * them: indices into cfg (0 where it is the default itself) */
    double fig[PB_TUNE_CONFIGS][PB_TUNE_CONFIRM_ROUNDS + PB_TUNE_EXTRA_ROUNDS];
    int rounds;     /* timed so far */
    bool timed;     /* the default had a first figure: there is something to compare with */
} pb_tune_trial;

/* Whether a and b run the same kernel the same way (the streaming settings count only where it prefetches). */
static bool pb_tune_same(const pb_tune_cand *a, const pb_tune_cand *b)
{
    if (a->isa != b->isa || a->layout != b->layout || a->prefetch != b->prefetch)
        return false;
    return !a->prefetch || (a->temporal == b->temporal && a->distance == b->distance && a->near == b->near);
}

/* c's index in t, added when new. */
static int pb_tune_add(pb_tune_trial *t, const pb_tune_cand *c)
{
    for (int i = 0; i < t->n; i++)
        if (pb_tune_same(&t->cfg[i], c))
            return i;
    t->cfg[t->n] = *c;
    return t->n++;
}

/* Candidate c under settings st (a kernel without prefetch runs the same under any). */
static pb_tune_cand pb_tune_under(pb_tune_cand c, const pb_tune_settings *st)
{
    if (c.prefetch) {
        c.temporal = st->temporal;
        c.distance = kern_prefetch_distances[st->distance];
        c.near = st->near;
    }
    return c;
}

/* The trial of a point: its default, beside its rival under the vendor's settings (kv), the default under the tuned
 * ones and its fastest there (ks). kv and ks name only candidates that measured a figure (pb_tune.c), and each is
 * timed again whatever that figure: a first timing is one figure, far off at times on a shared host, so any gate on
 * it drops candidates the pairs would choose; only the pairs decide. */
static pb_tune_trial pb_tune_trial_of(const pb_tune_point *pt, const pb_tune_settings *tuned, bool differ)
{
    pb_tune_trial t = { .n = 1, .cfg = { pt->cand[0] } };
    double base = pt->gbps[0];
    t.timed = isfinite(base) && base > 0;
    if (!t.timed)
        return t;
    if (pt->kv > 0)
        t.kv = pb_tune_add(&t, &pt->cand[pt->kv]);
    if (differ) {
        pb_tune_cand rs = pb_tune_under(pt->cand[0], tuned);
        t.rs = pb_tune_add(&t, &rs);
    }
    t.ks = t.rs;
    if (pt->ks >= 0)
        t.ks = pb_tune_add(&t, &pt->ks_cand);
    return t;
}

/* n more rounds: every configuration once a round, in the order reversed every other round (A B, B A, A B), so a
 * machine's drift falls on both sides of every pair. */
static void pb_tune_rounds(pb_tune_trial *t, int n, const pb_tune_seam *s)
{
    for (int r = t->rounds; r < t->rounds + n; r++) {
        for (int j = 0; j < t->n; j++) {
            int k = r % 2 == 0 ? j : t->n - 1 - j;
            t->fig[k][r] = s->kernel(s->ctx, &t->cfg[k]);
        }
    }
    t->rounds += n;
}

/* Configuration a against b over the rounds. */
static pb_tune_verdict pb_tune_vs(const pb_tune_trial *t, int a, int b)
{
    double ratio[PB_TUNE_CONFIRM_ROUNDS + PB_TUNE_EXTRA_ROUNDS];
    for (int r = 0; r < t->rounds; r++)
        ratio[r] = t->fig[a][r] / t->fig[b][r];
    return pb_tune_judge(ratio, t->rounds, PB_TUNE_MIN_GAIN);
}

/* Whether a candidate's verdict against the default is open after the first rounds (pb_tune_verdict.open). */
static bool pb_tune_open(const pb_tune_trial *t)
{
    int cand[] = { t->kv, t->ks };
    for (int i = 0; i < 2; i++)
        if (cand[i] > 0 && pb_tune_vs(t, cand[i], 0).open)
            return true;
    return false;
}

/* The point's choice under the vendor's settings (vendor) or the tuned ones: the fastest there where it really beat
 * the default, else the default under those settings. */
static int pb_tune_pick(const pb_tune_trial *t, bool vendor)
{
    int k = vendor ? t->kv : t->ks, dflt = vendor ? 0 : t->rs;
    return k != dflt && pb_tune_vs(t, k, 0).gain ? k : dflt;
}

/* Whether the tuned settings are kept: on no point is their choice slower than the vendor's (median of the pairs),
 * and on one at least it is really faster. *best: the best point's median ratio (the `streaming` line's). */
static bool pb_tune_keep_settings(const pb_tune_trial *t, int n, double *best)
{
    bool gain = false;
    *best = 1;
    for (int i = 0; i < n; i++) {
        if (!t[i].timed)
            continue;
        int s = pb_tune_pick(&t[i], false), v = pb_tune_pick(&t[i], true);
        if (s == v)
            continue;
        pb_tune_verdict sv = pb_tune_vs(&t[i], s, v);
        if (!(sv.median >= 1)) /* slower somewhere, or no figure to say it is not */
            return false;
        gain = gain || sv.gain;
        *best = sv.median > *best ? sv.median : *best;
    }
    return gain;
}

/* The median of configuration k's figures over the rounds. */
static double pb_tune_median(const pb_tune_trial *t, int k)
{
    double g[PB_TUNE_CONFIRM_ROUNDS + PB_TUNE_EXTRA_ROUNDS];
    int n = 0;
    for (int r = 0; r < t->rounds; r++)
        if (isfinite(t->fig[k][r]))
            g[n++] = t->fig[k][r];
    return n ? pb_summarize(g, (size_t)n).median : NAN;
}

/* The entry of a point that was timed again: its pick k, tuned where its kernel is not the default's; vs_rank its
 * median ratio to the default (for the default itself, the best other's: what fell short). */
static pb_wisdom_kernel pb_tune_entry(const pb_tune_trial *t, int k)
{
    const pb_tune_cand *c = &t->cfg[k], *d = &t->cfg[0];
    pb_wisdom_kernel e = { .fmt = c->fmt, .threads = c->threads, .isa = c->isa, .prefetch = c->prefetch,
                           .layout = c->layout, .gbps = t->n > 1 ? pb_tune_median(t, k) : NAN, .vs_rank = 1 };
    e.tuned = c->isa != d->isa || c->layout != d->layout || c->prefetch != d->prefetch;
    if (k != 0) {
        e.vs_rank = pb_tune_vs(t, k, 0).median;
        return e;
    }
    double fell = NAN;
    for (int j = 1; j < t->n; j++) {
        double m = pb_tune_vs(t, j, 0).median;
        if (isfinite(m) && !(m <= fell))
            fell = m;
    }
    e.vs_rank = isfinite(fell) ? fell : 1;
    return e;
}

/* Where the default could not run there is nothing to compare with: the fastest of the first timings, tuned. */
static pb_wisdom_kernel pb_tune_untimed(const pb_tune_point *pt, bool vendor)
{
    const pb_tune_cand *c = vendor ? (pt->kv >= 0 ? &pt->cand[pt->kv] : NULL) : (pt->ks >= 0 ? &pt->ks_cand : NULL);
    if (!c)
        return (pb_wisdom_kernel){ .threads = 0 };
    return (pb_wisdom_kernel){ .fmt = c->fmt, .threads = c->threads, .isa = c->isa, .prefetch = c->prefetch,
                               .layout = c->layout, .gbps = vendor ? pt->gbps[pt->kv] : pt->ks_gbps, .tuned = true };
}

int pb_tune_confirm(pb_tune_point *pts, int npts, const pb_tune_settings *tuned, bool any, const pb_tune_seam *s,
                    pb_wisdom *w, char *err, size_t errlen)
{
    enum { MAXPTS = KERN_FORMAT_COUNT * PB_TUNE_MAX_THREADS };
    pb_tune_trial t[MAXPTS]; /* ~250 bytes each */
    pb_tune_settings v = pb_tune_vendor();
    bool differ = any && (tuned->temporal != v.temporal || tuned->distance != v.distance || tuned->near != v.near);
    int left = 0;
    for (int i = 0; i < npts && i < MAXPTS; i++) {
        t[i] = pb_tune_trial_of(&pts[i], tuned, differ);
        left += t[i].n > 1 ? t[i].n * PB_TUNE_CONFIRM_ROUNDS : 0;
    }
    if (s->left)
        s->left(s->ctx, left);
    for (int i = 0; i < npts && i < MAXPTS; i++)
        if (t[i].n > 1)
            pb_tune_rounds(&t[i], PB_TUNE_CONFIRM_ROUNDS, s);
    bool open[MAXPTS];
    int more = 0;
    for (int i = 0; i < npts && i < MAXPTS; i++) {
        open[i] = t[i].n > 1 && pb_tune_open(&t[i]);
        more += open[i] ? t[i].n * PB_TUNE_EXTRA_ROUNDS : 0;
    }
    if (more && s->left)
        s->left(s->ctx, more);
    for (int i = 0; i < npts && i < MAXPTS; i++)
        if (open[i])
            pb_tune_rounds(&t[i], PB_TUNE_EXTRA_ROUNDS, s);
    double best = 1;
    bool keep = differ && pb_tune_keep_settings(t, npts < MAXPTS ? npts : MAXPTS, &best);
    const pb_tune_settings *st = keep ? tuned : &v;
    if (any) {
        w->has_hint = w->has_distance = w->has_near = w->has_streaming = true;
        w->temporal = st->temporal;
        w->distance = kern_prefetch_distances[st->distance];
        w->near = st->near;
        w->streaming_tuned = keep;
        w->streaming_vs = differ ? best : 1;
    }
    for (int i = 0; i < npts && i < MAXPTS; i++) {
        pb_wisdom_kernel e = t[i].timed ? pb_tune_entry(&t[i], pb_tune_pick(&t[i], !keep))
                                        : pb_tune_untimed(&pts[i], !keep);
        if (t[i].timed && t[i].n == 1)
            e.gbps = pts[i].gbps[0];
        if (e.threads == 0) /* none could run: the point goes by rank */
            continue;
        if (pb_wisdom_put_kernel(w, &e) != 0)
            return pb_errf(err, errlen, "wisdom holds at most %d kernels", PB_WISDOM_MAX_KERNELS);
    }
    return 0;
}
