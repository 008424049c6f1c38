/* pb_tune.c — the candidates and the choice (see pb_tune.h). */
#include "pb_tune.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_err.h"
#include "pb_tuning.h"

/* An ISA the tuning may time: one this CPU runs, and under POOLBENCH_ISA's cap when that is set (an AVX2 core's
 * figures on any x86: POOLBENCH_ISA=avx2). */
static bool pb_tune_isa_ok(kern_isa v)
{
    return kern_isa_supported(v) && (!kern_isa_forced() || kern_isa_under(v, kern_isa_chosen()));
}

int pb_tune_candidates(kern_format f, int threads, pb_tune_cand *out, int max)
{
    if (!kern_format_get(f))
        return 0;
    bool seen[KERN_ISA_COUNT] = { false };
    bool vendor = kern_prefetch_vendor_temporal(), near = kern_prefetch_vendor_near();
    int n = 0;
    for (int v = KERN_ISA_COUNT - 1; v >= 0; v--) { /* the ISAs are ranked fastest last (kern_isa.h) */
        if (!pb_tune_isa_ok((kern_isa)v))
            continue;
        kern_isa isa = kern_matvec_isa(f, (kern_isa)v);
        if (isa >= KERN_ISA_COUNT || seen[isa])
            continue;
        seen[isa] = true;
        pb_tune_cand c = { .fmt = f, .threads = threads, .isa = isa };
        if (!kern_matvec_prefetches(f, isa)) {
            if (n < max)
                out[n++] = c;
            continue;
        }
        const pb_tune_cand each[3] = {
            { .fmt = f, .threads = threads, .isa = isa, .prefetch = true, .temporal = vendor,
              .distance = KERN_PREFETCH_BYTES, .near = near },
            { .fmt = f, .threads = threads, .isa = isa, .prefetch = true, .temporal = !vendor,
              .distance = KERN_PREFETCH_BYTES, .near = near },
            c,
        };
        for (int k = 0; k < 3 && n < max; k++)
            out[n++] = each[k];
    }
    for (int l = 1; l < KERN_LAYOUT_COUNT; l++) { /* the repacked layouts of f, each distinct kernel once */
        bool had[KERN_ISA_COUNT] = { false };
        for (int v = KERN_ISA_COUNT - 1; v >= 0 && kern_layout_get((kern_layout)l)->fmt == f; v--) {
            if (!pb_tune_isa_ok((kern_isa)v))
                continue;
            kern_isa isa = kern_repack_isa((kern_layout)l, f, (kern_isa)v);
            /* a layout's scalar kernel is its oracle: it gathers every row's blocks back, several times slower than
             * the file's scalar rows, and one point of it at DRAM size outlasted the whole budget */
            if (isa >= KERN_ISA_COUNT || isa == KERN_ISA_SCALAR || had[isa])
                continue;
            had[isa] = true;
            if (n < max)
                out[n++] = (pb_tune_cand){ .fmt = f, .threads = threads, .isa = isa, .layout = (kern_layout)l };
        }
    }
    return n;
}

/* Whether any of the n candidates prefetches (then the point takes part in the distance's choice). */
static bool pb_tune_any_prefetch(const pb_tune_cand *c, int n)
{
    for (int i = 0; i < n; i++)
        if (c[i].prefetch)
            return true;
    return false;
}

int pb_tune_points(const pb_tune_plan *p)
{
    pb_tune_cand c[PB_TUNE_MAX_CANDS];
    int n = 0;
    for (int f = 0; f < p->nformats; f++) {
        for (int t = 0; t < p->nthreads; t++) {
            int k = pb_tune_candidates(p->formats[f], p->threads[t], c, PB_TUNE_MAX_CANDS);
            n += k + (pb_tune_any_prefetch(c, k) ? KERN_PREFETCH_NDIST : 0); /* the other distances, then near */
            n += PB_TUNE_CONFIGS * PB_TUNE_CONFIRM_ROUNDS; /* at most: the seam's left says how many once known */
        }
    }
    return n;
}

/* The index of the point's fastest candidate from index `from` on that runs under hint temporal (a candidate without
 * prefetch runs under either), -1 when none measured a figure. The first of equals: the better ranked. */
static int pb_tune_best(const pb_tune_point *pt, bool temporal, int from)
{
    int best = -1;
    for (int i = from; i < pt->n; i++) {
        if (pt->cand[i].prefetch && pt->cand[i].temporal != temporal)
            continue;
        if (isfinite(pt->gbps[i]) && pt->gbps[i] > 0 && (best < 0 || pt->gbps[i] > pt->gbps[best]))
            best = i;
    }
    return best;
}

/* Whether a setting whose points' sum of log GB/s is a beats the default's b over m points: a geometric mean higher
 * by the least gain a tuning acts on (pb_tuning.h), so a setting whose first timing was ahead within noise is not
 * even timed again against the default (pb_tune_confirm). */
static bool pb_tune_beats(double a, double b, int m)
{
    return m > 0 && a > b + m * log1p(PB_TUNE_MIN_GAIN);
}

/* The hint whose points' best figures have the higher geometric mean by the least gain; the vendor's otherwise, or
 * when no point has a figure under either. *any: some candidate prefetches at all (else the hint changes nothing and is not kept). */
static bool pb_tune_hint(const pb_tune_point *pts, int npts, bool *any)
{
    bool vendor = kern_prefetch_vendor_temporal();
    double score[2] = { 0, 0 }; /* [hint]: sum of log GB/s */
    int m = 0;                  /* the points in it */
    *any = false;
    for (int i = 0; i < npts; i++) {
        for (int k = 0; k < pts[i].n; k++)
            *any = *any || pts[i].cand[k].prefetch;
        int b[2] = { pb_tune_best(&pts[i], false, 0), pb_tune_best(&pts[i], true, 0) };
        if (b[0] < 0 || b[1] < 0) /* a point only one hint could run says nothing about the other */
            continue;
        for (int h = 0; h < 2; h++)
            score[h] += log(pts[i].gbps[b[h]]);
        m++;
    }
    return pb_tune_beats(score[!vendor], score[vendor], m) ? !vendor : vendor;
}

/* Whether a is a figure and beats b (NaN or not). */
static bool pb_tune_faster(double a, double b)
{
    return isfinite(a) && a > 0 && !(isfinite(b) && b >= a);
}

/* The point's fastest candidate without prefetch, -1 when none measured. */
static int pb_tune_best_off(const pb_tune_point *pt)
{
    int best = -1;
    for (int i = 0; i < pt->n; i++)
        if (!pt->cand[i].prefetch && pb_tune_faster(pt->gbps[i], best >= 0 ? pt->gbps[best] : NAN))
            best = i;
    return best;
}

/* The distance (an index into kern_prefetch_distances): each point's fastest prefetching candidate under the hint
 * timed at every other distance, then the one under which the points' best figures have the higher geometric mean
 * (the default unless another beats it by the least gain). */
static int pb_tune_distance(pb_tune_point *pts, int npts, bool temporal, const pb_tune_seam *s)
{
    int def = pb_tune_vendor().distance;
    for (int i = 0; i < npts; i++) {
        pb_tune_point *pt = &pts[i];
        pt->pf = -1; /* the fastest prefetching candidate under the hint (every prefetching kernel has one of each) */
        for (int k = 0; k < pt->n; k++)
            if (pt->cand[k].prefetch && pt->cand[k].temporal == temporal &&
                (pt->pf < 0 || pb_tune_faster(pt->gbps[k], pt->gbps[pt->pf])))
                pt->pf = k;
        for (int d = 0; d < KERN_PREFETCH_NDIST; d++) {
            pt->at[d] = NAN;
            if (pt->pf < 0)
                continue;
            pb_tune_cand c = pt->cand[pt->pf];
            c.distance = kern_prefetch_distances[d];
            pt->at[d] = d == def ? pt->gbps[pt->pf] : s->kernel(s->ctx, &c);
        }
    }
    double score[KERN_PREFETCH_NDIST] = { 0 };
    int m = 0;
    for (int i = 0; i < npts; i++) {
        if (pts[i].pf < 0)
            continue;
        int off = pb_tune_best_off(&pts[i]);
        double g[KERN_PREFETCH_NDIST];
        bool all = true;
        for (int d = 0; d < KERN_PREFETCH_NDIST; d++) {
            g[d] = off >= 0 && !pb_tune_faster(pts[i].at[d], pts[i].gbps[off]) ? pts[i].gbps[off] : pts[i].at[d];
            all = all && isfinite(g[d]) && g[d] > 0;
        }
        for (int d = 0; all && d < KERN_PREFETCH_NDIST; d++) /* a point some distance could not run says nothing */
            score[d] += log(g[d]);
        m += all;
    }
    int best = def;
    for (int d = 0; d < KERN_PREFETCH_NDIST; d++)
        if (score[d] > score[best] && pb_tune_beats(score[d], score[def], m))
            best = d;
    return best;
}

/* The near prefetch: each point's fastest prefetching candidate timed at distance d with it the other way than the
 * vendor's, then the way under which the points' best figures (prefetching or not) have the higher geometric mean
 * by the least gain (else the vendor's). Where the other way wins, at[d] takes its figure. */
static bool pb_tune_near(pb_tune_point *pts, int npts, int d, const pb_tune_seam *s)
{
    bool vendor = kern_prefetch_vendor_near();
    double score[2] = { 0, 0 }; /* [0]: the vendor's way, [1]: the other */
    int m = 0;
    for (int i = 0; i < npts; i++) {
        pb_tune_point *pt = &pts[i];
        pt->other_near = NAN;
        if (pt->pf < 0)
            continue;
        pb_tune_cand c = pt->cand[pt->pf];
        c.distance = kern_prefetch_distances[d];
        c.near = !vendor;
        pt->other_near = s->kernel(s->ctx, &c);
        int off = pb_tune_best_off(pt);
        double g[2] = { pt->at[d], pt->other_near };
        bool all = true;
        for (int k = 0; k < 2; k++) {
            g[k] = off >= 0 && !pb_tune_faster(g[k], pt->gbps[off]) ? pt->gbps[off] : g[k];
            all = all && isfinite(g[k]) && g[k] > 0;
        }
        for (int k = 0; all && k < 2; k++)
            score[k] += log(g[k]);
        m += all;
    }
    bool other = pb_tune_beats(score[1], score[0], m);
    for (int i = 0; other && i < npts; i++)
        pts[i].at[d] = pts[i].other_near;
    return other ? !vendor : vendor;
}

/* The lower of a and b where finite (NaN when neither is). */
static double pb_tune_min(double a, double b)
{
    return !isfinite(a) ? b : !isfinite(b) ? a : a < b ? a : b;
}

/* The flat and tree spin pools at each thread count from 2, alternated; the tree only where it really dispatched
 * faster (pb_tune_judge over the rounds' flat / tree), each shape's best round remembered. */
static int pb_tune_dispatch(const pb_tune_plan *p, const pb_tune_seam *s, pb_wisdom *w, char *err, size_t errlen)
{
    for (int t = 0; t < p->nthreads; t++) {
        if (p->threads[t] < 2)
            continue;
        pb_wisdom_dispatch d = { .threads = p->threads[t], .flat_ns = NAN, .tree_ns = NAN };
        double ratio[PB_TUNE_DISPATCH_ROUNDS];
        for (int r = 0; r < PB_TUNE_DISPATCH_ROUNDS; r++) {
            double flat = s->dispatch(s->ctx, d.threads, false), tree = s->dispatch(s->ctx, d.threads, true);
            ratio[r] = flat / tree;
            d.flat_ns = pb_tune_min(d.flat_ns, flat);
            d.tree_ns = pb_tune_min(d.tree_ns, tree);
        }
        if (!isfinite(d.flat_ns) || !isfinite(d.tree_ns))
            continue;
        d.tree = pb_tune_judge(ratio, PB_TUNE_DISPATCH_ROUNDS, PB_TUNE_MIN_GAIN).gain;
        if (pb_wisdom_put_dispatch(w, &d) != 0)
            return pb_errf(err, errlen, "wisdom holds at most %d dispatch lines", PB_WISDOM_MAX_DISPATCH);
    }
    return 0;
}

/* Each point's fastest other than the default under the vendor's settings (kv: its candidates were timed under
 * them; the default's rival, even where the default's one figure came first) and its fastest under the tuned ones
 * (ks: its fastest without prefetch, or its fastest prefetching one at the tuned distance and near). */
static void pb_tune_fastest(pb_tune_point *pt, const pb_tune_settings *st)
{
    pt->kv = pb_tune_best(pt, kern_prefetch_vendor_temporal(), 1);
    int b = pb_tune_best_off(pt);
    double g = b >= 0 ? pt->gbps[b] : NAN;
    int d = st->distance;
    /* prefetch on when faster, or as fast and better ranked (its kernel's candidates come before its twin) */
    if (pt->pf >= 0 && (pb_tune_faster(pt->at[d], g) || (pt->at[d] == g && pt->pf < b))) {
        b = pt->pf;
        g = pt->at[d];
    }
    pt->ks = b;
    pt->ks_gbps = g;
    if (b < 0)
        return;
    pt->ks_cand = pt->cand[b];
    if (pt->ks_cand.prefetch) {
        pt->ks_cand.distance = kern_prefetch_distances[d];
        pt->ks_cand.near = st->near;
    }
}

int pb_tune_run(const pb_tune_plan *p, const pb_tune_seam *s, pb_wisdom *w, char *err, size_t errlen)
{
    enum { MAXPTS = KERN_FORMAT_COUNT * PB_TUNE_MAX_THREADS };
    _Static_assert(MAXPTS <= PB_WISDOM_MAX_KERNELS, "every point fits the wisdom table");
    pb_tune_point pts[MAXPTS];
    int npts = 0;
    for (int f = 0; f < p->nformats; f++) {
        for (int t = 0; t < p->nthreads && npts < MAXPTS; t++) {
            pb_tune_point *pt = &pts[npts++];
            pt->n = pb_tune_candidates(p->formats[f], p->threads[t], pt->cand, PB_TUNE_MAX_CANDS);
            pt->pf = -1;
            for (int i = 0; i < pt->n; i++)
                pt->gbps[i] = s->kernel(s->ctx, &pt->cand[i]);
        }
    }
    bool any;
    pb_tune_settings st = pb_tune_vendor();
    st.temporal = pb_tune_hint(pts, npts, &any);
    if (any) {
        st.distance = pb_tune_distance(pts, npts, st.temporal, s);
        st.near = pb_tune_near(pts, npts, st.distance, s);
    }
    for (int i = 0; i < npts; i++)
        pb_tune_fastest(&pts[i], &st);
    if (pb_tune_confirm(pts, npts, &st, any, s, w, err, errlen) != 0)
        return -1;
    return p->dispatch && s->dispatch ? pb_tune_dispatch(p, s, w, err, errlen) : 0;
}
