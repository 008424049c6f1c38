/* test_sweep_walk.c — bench_sweep's walk over its points (pb_sweep_next) against the nested loops it replaces: the
 * same points in the same order, each saying the outermost dimension that changed (a format's first point says so
 * even when that format's first block is passed over), blocks with more threads than their set passed over unless
 * oversubscribed, and pb_sweep_plan_points counting what runs. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pb_sweep_plan.h"

typedef struct walk_fix {
    pb_topo *topo;
    pb_cpusets sets;
    pb_list formats, contexts, kv_types, batches, prompts, threads, policies, prompt_policies, glues;
    pb_sweep_plan plan;
} walk_fix;

static pb_list list_of(int n, const long *v)
{
    pb_list l = { .n = n };
    memcpy(l.v, v, (size_t)n * sizeof *v);
    return l;
}

/* The hybrid fixture's p and p+e sets, p+e's count of threads then 1, two formats, two depths, two batches and a
 * prompt, two policies (the prompt's one), the default schedules (static, weighted, dynamic on a hybrid). */
static walk_fix *walk_fix_new(bool oversubscribe)
{
    walk_fix *f = calloc(1, sizeof *f);
    char err[256] = "";
    f->topo = pb_topo_load("tests/data/hybrid-4p4e.xml", err, sizeof err);
    cr_assert_not_null(f->topo, "%s", err);
    cr_assert_eq(pb_cpusets_parse(f->topo, "p,p+e", &f->sets, err, sizeof err), 0, "%s", err);
    f->formats = list_of(2, (long[]){ KERN_Q8_0, KERN_Q4_0 });
    f->contexts = list_of(2, (long[]){ 0, 64 });
    f->kv_types = list_of(1, (long[]){ PB_KV_F16 });
    f->batches = list_of(2, (long[]){ 1, 2 });
    f->prompts = list_of(1, (long[]){ 4 });
    int most = f->sets.set[1].cpus.n; /* p+e's: more than p's */
    cr_assert_gt(most, f->sets.set[0].cpus.n);
    f->threads = list_of(2, (long[]){ most, 1 });
    f->policies = list_of(2, (long[]){ PB_EXEC_SPIN, PB_EXEC_CONDVAR });
    f->prompt_policies = list_of(1, (long[]){ PB_EXEC_SPIN });
    f->glues = list_of(1, (long[]){ PB_GLUE_FUSED });
    f->plan = (pb_sweep_plan){
        .work = { .formats = &f->formats, .contexts = &f->contexts, .kv_types = &f->kv_types,
                  .batches = &f->batches, .prompts = &f->prompts },
        .cores = { .topo = f->topo, .sets = &f->sets, .threads = &f->threads, .oversubscribe = oversubscribe },
        .dispatch = { .policies = &f->policies, .prompt_policies = &f->prompt_policies, .glues = &f->glues },
    };
    cr_assert_eq(pb_sweep_schedules(&f->plan.dispatch, &f->plan.cores, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(f->plan.dispatch.nsched, 3);
    return f;
}

static void walk_fix_free(walk_fix *f)
{
    pb_topo_free(f->topo);
    free(f);
}

enum { MAX_POINTS = 1024 };

typedef struct walk_seen {
    int at[PB_SWEEP_DIMS];
    int changed;
} walk_seen;

/* The nested loops, outermost first, as the sweep ran them before the walk: the expected points and the outermost
 * index that changed since the last point (0 for the first). */
static int walk_expected(const walk_fix *f, walk_seen *out)
{
    const pb_sweep_plan *p = &f->plan;
    int n = 0, last[PB_SWEEP_DIMS];
    for (int fm = 0; fm < f->formats.n; fm++)
        for (int s = 0; s < f->sets.n; s++)
            for (int t = 0; t < f->threads.n; t++) {
                if (f->threads.v[t] > f->sets.set[s].cpus.n && !p->cores.oversubscribe)
                    continue;
                for (int k = 0; k < f->kv_types.n; k++)
                    for (int c = 0; c < f->contexts.n; c++)
                        for (int st = 0; st < f->batches.n + f->prompts.n; st++) {
                            const pb_list *pol = st < f->batches.n ? &f->policies : &f->prompt_policies;
                            for (int po = 0; po < pol->n; po++)
                                for (int sg = 0; sg < p->dispatch.nsched * f->glues.n; sg++) {
                                    walk_seen *w = &out[n];
                                    int at[PB_SWEEP_DIMS] = { fm, s, t, k, c, st, po, sg };
                                    memcpy(w->at, at, sizeof at);
                                    w->changed = 0;
                                    while (n > 0 && w->changed < PB_SWEEP_DIMS && at[w->changed] == last[w->changed])
                                        w->changed++;
                                    memcpy(last, at, sizeof at);
                                    cr_assert_lt(++n, MAX_POINTS);
                                }
                        }
            }
    return n;
}

static void walk_check(bool oversubscribe, int want_points)
{
    walk_fix *f = walk_fix_new(oversubscribe);
    walk_seen *want = calloc(MAX_POINTS, sizeof *want);
    int n = walk_expected(f, want), i = 0, runs = 0, rc;
    cr_assert_eq(n, want_points, "the fixture's points: %d", n);
    pb_sweep_point *pt = calloc(1, sizeof *pt);
    char err[256] = "";
    while ((rc = pb_sweep_next(&f->plan, pt, err, sizeof err)) > 0) {
        cr_assert_lt(i, n, "the walk goes past the last point");
        cr_expect_arr_eq(pt->at, want[i].at, sizeof pt->at, "point %d: another point", i);
        cr_expect_eq(pt->changed, want[i].changed, "point %d: changed %d, not %d", i, pt->changed, want[i].changed);
        cr_expect_eq(pt->threads, (int)f->threads.v[pt->at[PB_SWEEP_THREADS]]);
        cr_expect_eq(pt->place.n, pt->threads, "point %d: every thread placed", i);
        cr_expect_eq(pt->prompt, pt->at[PB_SWEEP_STEP] >= f->batches.n);
        cr_expect_eq((long)pt->rows, pt->prompt ? f->prompts.v[0] : f->batches.v[pt->at[PB_SWEEP_STEP]]);
        runs += pb_sweep_sched_runs(&f->plan, pt->sched, &pt->place);
        i++;
    }
    cr_expect_eq(rc, 0, "%s", err);
    cr_expect_eq(i, n, "the walk stopped at %d of %d points", i, n);
    cr_expect_eq(pb_sweep_plan_points(&f->plan), runs);
    cr_expect_lt(runs, n, "some schedules do not run on P-cores alone");
    free(pt);
    free(want);
    walk_fix_free(f);
}

/* 2 formats x (p at 1 thread, p+e at all and 1) x 2 depths x (2 batches x 2 policies + 1 prompt x 1) x 3 schedules */
Test(sweep_walk, visits_the_nested_loops_points_in_order_past_a_block_that_does_not_fit)
{
    walk_check(false, 2 * 3 * 2 * 5 * 3);
}

Test(sweep_walk, oversubscribed_blocks_are_visited)
{
    walk_check(true, 2 * 4 * 2 * 5 * 3);
}
