/* The tuner's choice (bench/measure/pb_tune.h), through its seam: figures from a table, nothing timed, so each test
 * asserts exactly what its table implies, on whatever ISAs this CPU runs (a test that needs two kernels or a
 * prefetching one skips, saying so, where there is none). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "pb_tune.h"
#include "tune_test_util.h"

/* A table seam: fig(cand) for kernels; counts its calls. */
typedef struct fake {
    double (*fig)(const pb_tune_cand *c);
    int calls;
} fake;

static double fake_kernel(void *ctx, const pb_tune_cand *c)
{
    fake *f = ctx;
    f->calls++;
    return f->fig(c);
}

static pb_tune_plan plan_of(kern_format f)
{
    return (pb_tune_plan){ .formats = { f }, .nformats = 1, .threads = { 1, 2 }, .nthreads = 2 };
}

static pb_wisdom run(const pb_tune_plan *p, fake *f)
{
    return tt_tune(p, &(pb_tune_seam){ .kernel = fake_kernel, .ctx = f });
}

/* One tuning of f's plan (plan_of) through a fake whose kernels measure fig: what the fake counted, the plan and
 * the wisdom. */
typedef struct tuned {
    fake fk;
    pb_tune_plan p;
    pb_wisdom w;
} tuned;

static tuned tune(kern_format f, double (*fig)(const pb_tune_cand *c))
{
    tuned t = { .fk = { .fig = fig }, .p = plan_of(f) };
    t.w = run(&t.p, &t.fk);
    return t;
}

/* t's entry for f at `threads`, which must be there. */
static const pb_wisdom_kernel *entry_at(const tuned *t, kern_format f, int threads)
{
    const pb_wisdom_kernel *k = pb_wisdom_kernel_at(&t->w, f, threads);
    cr_assert_not_null(k, "%s at %d threads: no entry", kern_format_names[f], threads);
    return k;
}

/* A format whose best ranked kernel is not scalar, or skip. */
static kern_format need_two_kernels(void)
{
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        if (kern_matvec_isa((kern_format)f, kern_isa_best()) != KERN_ISA_SCALAR)
            return (kern_format)f;
    cr_skip_test("this CPU runs only the scalar kernels: nothing to choose between");
    return KERN_FORMAT_COUNT;
}

/* A format whose best ranked kernel prefetches, or skip. */
static kern_format need_prefetch(void)
{
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        if (kern_matvec_prefetches((kern_format)f, kern_isa_best()))
            return (kern_format)f;
    cr_skip_test("no kernel this CPU runs prefetches (scalar or arm64 only): no streaming setting to choose");
    return KERN_FORMAT_COUNT;
}

Test(tune, candidates_are_each_kernel_once_best_ranked_first)
{
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        pb_tune_cand c[PB_TUNE_MAX_CANDS];
        int n = pb_tune_candidates((kern_format)f, 3, c, PB_TUNE_MAX_CANDS);
        cr_assert_gt(n, 0);
        cr_assert_eq(c[0].isa, kern_matvec_isa((kern_format)f, kern_isa_best()), "rank's choice first");
        bool seen[KERN_LAYOUT_COUNT][KERN_ISA_COUNT] = { { false } };
        bool repacked = false; /* a repacked layout's candidates come after every one of the file's */
        for (int i = 0; i < n; i += !c[i].layout && kern_matvec_prefetches((kern_format)f, c[i].isa) ? 3 : 1) {
            cr_assert(!seen[c[i].layout][c[i].isa], "%s: %s %s twice", kern_format_names[f],
                      kern_isa_name(c[i].isa), kern_layout_names[c[i].layout]);
            seen[c[i].layout][c[i].isa] = true;
            cr_assert_eq(c[i].threads, 3);
            cr_assert(!repacked || c[i].layout != KERN_LAYOUT_FILE, "%s: the file's after a repacked one",
                      kern_format_names[f]);
            repacked = repacked || c[i].layout != KERN_LAYOUT_FILE;
            if (c[i].layout != KERN_LAYOUT_FILE) {
                cr_assert(!c[i].prefetch && kern_layout_get(c[i].layout)->fmt == (kern_format)f);
                cr_assert_neq(c[i].isa, KERN_ISA_SCALAR, "%s: a layout's scalar oracle is no candidate",
                              kern_layout_names[c[i].layout]);
            } else if (kern_matvec_prefetches((kern_format)f, c[i].isa)) {
                cr_assert(c[i].prefetch && c[i + 1].prefetch && !c[i + 2].prefetch);
                cr_assert(c[i].temporal == kern_prefetch_vendor_temporal() && c[i + 1].temporal != c[i].temporal);
            } else {
                cr_assert(!c[i].prefetch);
            }
        }
        for (int v = 0; v < KERN_ISA_COUNT; v++)
            if (kern_isa_supported((kern_isa)v))
                cr_assert(seen[KERN_LAYOUT_FILE][kern_matvec_isa((kern_format)f, (kern_isa)v)],
                          "every kernel this CPU runs");
    }
    cr_assert_eq(pb_tune_candidates(KERN_FORMAT_COUNT, 1, NULL, 0), 0);
}

static double scalar_fastest(const pb_tune_cand *c)
{
    return c->isa == KERN_ISA_SCALAR ? 100.0 : 10.0;
}

/* The kernel that measured fastest is chosen, not the best ranked one. */
Test(tune, picks_by_measurement_not_rank)
{
    kern_format f = need_two_kernels();
    tuned t = tune(f, scalar_fastest);
    cr_assert_eq(t.w.nkernels, 2);
    for (int threads = 1; threads <= 2; threads++) {
        const pb_wisdom_kernel *k = entry_at(&t, f, threads);
        cr_assert_eq(k->isa, KERN_ISA_SCALAR, "%s at %d threads: %s", kern_format_names[f], threads,
                     kern_isa_name(k->isa));
        cr_assert_eq(k->gbps, 100.0);
    }
    cr_assert_leq(t.fk.calls, pb_tune_points(&t.p), "every candidate timed, the winner again against rank's");
    cr_assert(pb_wisdom_kernel_at(&t.w, f, 1)->tuned && pb_wisdom_kernel_at(&t.w, f, 1)->vs_rank == 10.0);
}

static double ranked(const pb_tune_cand *c)
{
    (void)c;
    return 10.0; /* all equal: the better ranked wins the tie */
}

/* Equal figures: the better ranked kernel, with the vendor's prefetch setting (the first candidate). */
Test(tune, ties_go_to_rank)
{
    kern_format f = need_two_kernels();
    tuned t = tune(f, ranked);
    const pb_wisdom_kernel *k = entry_at(&t, f, 1);
    cr_assert_eq(k->isa, kern_matvec_isa(f, kern_isa_best()));
    cr_assert_eq(k->prefetch, kern_matvec_prefetches(f, k->isa));
    cr_assert(!k->tuned, "rank's default, and said so");
    if (t.w.has_hint)
        cr_assert_eq(t.w.temporal, kern_prefetch_vendor_temporal());
}

static double no_prefetch_fastest(const pb_tune_cand *c)
{
    return c->prefetch ? 10.0 : 12.0;
}

/* The twin without prefetch, where it streamed faster. */
Test(tune, prefetch_off_when_it_streams_faster)
{
    kern_format f = need_prefetch();
    tuned t = tune(f, no_prefetch_fastest);
    const pb_wisdom_kernel *k = entry_at(&t, f, 2);
    cr_assert(!k->prefetch);
    cr_assert(kern_matvec_prefetches(f, k->isa), "the best ranked kernel that has a twin: %s", kern_isa_name(k->isa));
}

/* The streaming settings the tuner chooses by measuring. */
typedef enum setting { HINT, DISTANCE, NEAR } setting;

static setting favoured;
static unsigned wanted;
static double won;

/* A fig under which the prefetching candidates whose setting `favoured` is `wanted` measure `won`, the other
 * prefetching ones 10 and the rest 5. */
static double setting_fastest(const pb_tune_cand *c)
{
    unsigned v = favoured == HINT ? c->temporal : favoured == DISTANCE ? c->distance : c->near;
    return !c->prefetch ? 5.0 : v == wanted ? won : 10.0;
}

/* One tuning of f (tune) through setting_fastest, favouring `value` of setting s: that value becomes the process's
 * setting, and the entry at `threads` is a prefetching kernel that measured gbps. */
static tuned tune_favouring(kern_format f, setting s, unsigned value, int threads, double gbps)
{
    favoured = s;
    wanted = value;
    won = gbps;
    tuned t = tune(f, setting_fastest);
    bool has = s == HINT ? t.w.has_hint : s == DISTANCE ? t.w.has_distance : t.w.has_near;
    unsigned got = s == HINT ? t.w.temporal : s == DISTANCE ? t.w.distance : t.w.near;
    cr_assert(has, "setting %d: none chosen", (int)s);
    cr_assert_eq(got, value, "setting %d: %u chosen, %u favoured", (int)s, got, value);
    const pb_wisdom_kernel *k = entry_at(&t, f, threads);
    cr_assert(k->prefetch && k->gbps == gbps, "%s", kern_isa_name(k->isa));
    return t;
}

/* The hint under which the points stream fastest becomes the process's, whichever the vendor's is. */
Test(tune, hint_by_measurement)
{
    kern_format f = need_prefetch();
    for (unsigned h = 0; h < 2; h++)
        tune_favouring(f, HINT, h, 1, 20.0);
}

/* The distance under which the points stream fastest becomes the process's; every point's best prefetching candidate
 * is timed at each distance (no more: pb_tune_points says how many), and its entry carries that distance's figure.
 * Equal figures keep the default. */
Test(tune, distance_by_measurement)
{
    kern_format f = need_prefetch();
    for (int d = 0; d < KERN_PREFETCH_NDIST; d++) {
        unsigned want = kern_prefetch_distances[d];
        tuned t = tune_favouring(f, DISTANCE, want, 2, 30.0);
        cr_assert_leq(t.fk.calls, pb_tune_points(&t.p));
        cr_assert_eq(kern_prefetch_ahead, KERN_PREFETCH_BYTES, "the default put back");
        cr_assert_eq(t.w.streaming_tuned, want != KERN_PREFETCH_BYTES);
    }
    tuned t = tune(f, ranked);
    cr_assert(t.w.has_distance && t.w.distance == KERN_PREFETCH_BYTES, "a tie keeps the default");
}

/* The near prefetch into L1 as measured, either way of the vendor's; the entry carries the figure with it. */
Test(tune, near_by_measurement)
{
    kern_format f = need_prefetch();
    for (unsigned n = 0; n < 2; n++) {
        tuned t = tune_favouring(f, NEAR, n, 1, 25.0);
        cr_assert_leq(t.fk.calls, pb_tune_points(&t.p));
        cr_assert_eq(kern_prefetch_near, kern_prefetch_vendor_near(), "the vendor's put back");
    }
}

static double best_ranked_fails(const pb_tune_cand *c)
{
    return c->isa == kern_matvec_isa(c->fmt, kern_isa_best()) ? NAN : 1.0;
}

static double all_fail(const pb_tune_cand *c)
{
    (void)c;
    return NAN;
}

/* A candidate that could not run is never chosen; a point none could run gets no entry (it goes by rank). */
Test(tune, a_kernel_that_failed_is_never_chosen)
{
    kern_format f = need_two_kernels();
    tuned t = tune(f, best_ranked_fails);
    const pb_wisdom_kernel *k = entry_at(&t, f, 1);
    cr_assert_neq(k->isa, kern_matvec_isa(f, kern_isa_best()));
    fake none = { .fig = all_fail };
    t.w = run(&t.p, &none);
    cr_assert_eq(t.w.nkernels, 0);
}

/* Entries of formats the plan did not time stay. */
Test(tune, entries_of_other_formats_kept)
{
    fake fk = { .fig = scalar_fastest };
    pb_tune_plan p = plan_of(KERN_Q8_0);
    pb_wisdom w = { .nkernels = 0 };
    pb_wisdom_put_kernel(&w, &(pb_wisdom_kernel){ .fmt = KERN_Q1_0, .threads = 1, .isa = KERN_ISA_SCALAR });
    char err[256];
    pb_tune_seam s = { .kernel = fake_kernel, .ctx = &fk };
    cr_assert_eq(pb_tune_run(&p, &s, &w, err, sizeof err), 0, "%s", err);
    cr_assert_not_null(pb_wisdom_kernel_at(&w, KERN_Q1_0, 1), "an entry the plan did not time stays");
    cr_assert_eq(w.nkernels, 3);
    cr_assert_leq(fk.calls, pb_tune_points(&p));
}

/* q1_0's repacked layout takes part: wisdom names it where it measured faster, never on a tie (the file's is
 * ranked first) nor where it was slower. */
static double repacked_gbps;
static double repacked_vs_ten(const pb_tune_cand *c)
{
    return c->layout != KERN_LAYOUT_FILE ? repacked_gbps : 10.0;
}

Test(tune, a_repacked_layout_only_where_it_measured_faster)
{
    if (kern_repack_isa(KERN_LAYOUT_Q1_0_R32LUT, KERN_Q1_0, kern_isa_best()) == KERN_ISA_SCALAR) {
        printf("tune::a_repacked_layout_only_where_it_measured_faster: skipped: q1_0_r32lut has only its scalar "
               "oracle on this CPU, no candidate\n");
        cr_skip_test("q1_0_r32lut has no SIMD kernel here");
    }
    pb_tune_cand c[PB_TUNE_MAX_CANDS];
    int n = pb_tune_candidates(KERN_Q1_0, 1, c, PB_TUNE_MAX_CANDS);
    int repacked = 0;
    for (int i = 0; i < n; i++)
        repacked += c[i].layout == KERN_LAYOUT_Q1_0_R32LUT;
    cr_assert_geq(repacked, 1, "q1_0_r32lut among q1_0's candidates");
    cr_assert_eq(c[0].layout, KERN_LAYOUT_FILE, "the file's layout first");
    const double figs[] = { 20.0, 10.0, 9.0 };
    const kern_layout want[] = { KERN_LAYOUT_Q1_0_R32LUT, KERN_LAYOUT_FILE, KERN_LAYOUT_FILE };
    for (int k = 0; k < 3; k++) {
        repacked_gbps = figs[k];
        tuned t = tune(KERN_Q1_0, repacked_vs_ten);
        const pb_wisdom_kernel *e = entry_at(&t, KERN_Q1_0, 1);
        cr_assert_eq(e->layout, want[k], "repacked %.0f GB/s against 10: %s", figs[k], kern_layout_names[e->layout]);
        if (want[k] != KERN_LAYOUT_FILE)
            cr_assert(e->gbps == 20.0 && !e->prefetch);
    }
}

/* A dispatch seam: per thread count, each call's figure from a script (flat and tree rounds in the order asked). */
typedef struct fake_dispatch {
    char order[32]; /* 'f' or 't' per call, in call order */
    int calls, at_one;
} fake_dispatch;

static double fake_dispatch_ns(void *ctx, int threads, bool tree)
{
    fake_dispatch *f = ctx;
    if (threads < 2)
        f->at_one++;
    int round = 0;
    for (int i = 0; i < f->calls; i++)
        round += f->order[i] == (tree ? 't' : 'f');
    if (f->calls < (int)sizeof f->order - 1)
        f->order[f->calls++] = tree ? 't' : 'f';
    if (threads == 2) /* tree the faster in every round */
        return tree ? 200.0 : 300.0;
    if (threads == 4) /* flat's second round hit by noise: the other two pairs say flat */
        return tree ? 450.0 : (round % 3 == 1 ? 900.0 : 400.0);
    if (threads == 5) /* the tree 1% faster in every round: within the least gain, so flat */
        return tree ? 297.0 : 300.0;
    return NAN; /* 3: the tree could not run */
}

/* From 2 threads, flat and tree alternated; the tree only where the rounds' flat / tree says it is really faster
 * (pb_tune_judge), each shape's best round remembered. */
Test(tune, dispatch_shape_by_measurement)
{
    fake_dispatch fd = { .calls = 0 };
    pb_tune_plan p = { .nformats = 0, .threads = { 2, 3, 4, 5 }, .nthreads = 4, .dispatch = true };
    pb_tune_seam s = { .dispatch = fake_dispatch_ns, .ctx = &fd };
    pb_wisdom w = tt_tune(&p, &s);
    char err[256];
    cr_assert_str_eq(fd.order, "ftftftftftftftftftftftft", "alternated, PB_TUNE_DISPATCH_ROUNDS rounds per count");
    const pb_wisdom_dispatch *d2 = pb_wisdom_dispatch_at(&w, 2), *d4 = pb_wisdom_dispatch_at(&w, 4);
    cr_assert(d2 && d2->tree && d2->flat_ns == 300.0 && d2->tree_ns == 200.0);
    cr_assert(d4 && !d4->tree && d4->flat_ns == 400.0 && d4->tree_ns == 450.0, "each shape's best round");
    const pb_wisdom_dispatch *d5 = pb_wisdom_dispatch_at(&w, 5);
    cr_assert(d5 && !d5->tree, "a tree 1%% faster is within the noise: flat");
    cr_assert_null(pb_wisdom_dispatch_at(&w, 3), "no figure for a shape: no entry (flat)");
    p = (pb_tune_plan){ .nformats = 0, .threads = { 1 }, .nthreads = 1, .dispatch = true };
    cr_assert_eq(pb_tune_run(&p, &s, &w, err, sizeof err), 0, "%s", err);
    cr_assert_eq(fd.at_one, 0, "one thread dispatches nothing: not measured");
    p.dispatch = false;
    pb_wisdom none = { .nkernels = 0 };
    cr_assert_eq(pb_tune_run(&p, &s, &none, err, sizeof err), 0);
    cr_assert_eq(none.ndispatch, 0, "not asked: not measured");
}
