/* pb_overhead_run.c — see pb_overhead_run.h. */
#include "pb_overhead_run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_err.h"
#include "pb_progress.h"
#include "pb_stop.h"
#include "pb_time.h"

void pb_overhead_run_begin(pb_overhead_run *run, const pb_overhead_plan *p)
{
    *run = (pb_overhead_run){ .p = p, .rows = PB_VEC(pb_overhead_row), .t0 = pb_now_ns() };
    run->total = p->threads->n * p->policies->n * p->gaps->n * p->jobs->n;
    for (int t = 0; p->barriers && t < p->threads->n; t++)
        run->total += p->threads->v[t] >= 2 ? p->barriers->n : 0;
}

/* The barrier rows' policy words: "barrier-" and the barrier's name (pb_barrier_names), written once. */
#define PB_OVERHEAD_BARRIER_WORD(kind, name) [kind] = "barrier-" name,
static const char *const pb_overhead_run_barrier_words[PB_BARRIER_IDS] = {
    POOL_BARRIER_NAMES(PB_OVERHEAD_BARRIER_WORD)
    [PB_BARRIER_OMP] = "barrier-omp",
};
#undef PB_OVERHEAD_BARRIER_WORD

const char *pb_overhead_run_kind_name(int kind)
{
    if (kind < 0)
        return "pingpong";
    return kind < PB_OVERHEAD_BARRIER ? pb_exec_kind_names[kind]
                                      : pb_overhead_run_barrier_words[kind - PB_OVERHEAD_BARRIER];
}

/* The round trips between the first two cpus of the placement (the traffic of one dispatch), every variant,
 * kept as a pingpong row whose figure is the tightest (its batch means stand in for single samples: pb_pingpong
 * times batches only). *rt stays NaN for one cpu or a thread that could not be pinned (no row); -1 in *rc when the
 * row cannot be kept. */
static void po_roundtrip(pb_overhead_run *run, pb_rt_tight *rt, int *rc, char *err, size_t errlen)
{
    const pb_overhead_plan *p = run->p;
    int iters = p->quick ? PB_OVERHEAD_RT_ITERS / 4 : PB_OVERHEAD_RT_ITERS;
    rt->tight_ns = NAN;
    for (int v = 0; v < PB_RT_VARIANTS; v++)
        rt->v[v].ns_batch_mean = NAN;
    if (p->ncpus < 2 || pb_pingpong_tight(p->cpus[0], p->cpus[1], PB_OVERHEAD_RT_BATCHES, iters, rt) != 0) {
        rt->tight_ns = NAN;
        return;
    }
    pb_overhead_row *row = pb_vec_push(&run->rows);
    if (!row) {
        *rc = pb_errf(err, errlen, "the rows: %s", strerror(errno));
        return;
    }
    const pb_rt *t = &rt->v[rt->tightest];
    *row = (pb_overhead_row){ .kind = -1, .threads = 2, .rt_before = rt->tight_ns, .rt_after = rt->tight_ns,
                        .rt_tight = rt->tight_ns, .ratio_to_rt = 1.0, .ratio_to_omp = NAN,
                        .r = { .batch_mean_ns = rt->tight_ns, .batches = t->batches, .samples = t->batches,
                               .k = iters / PB_RT_VARIANTS } };
    for (int v = 0; v < PB_RT_VARIANTS; v++)
        row->rt_variant[v] = rt->v[v].ns_batch_mean;
    snprintf(row->placement, sizeof row->placement, "%s",
             pb_placement_block(p->where, p->cpus[0], p->cpus[1], rt->tight_ns, rt->tight_ns));
}

/* A new row from init, or NULL with the error in err. */
static pb_overhead_row *po_push(pb_overhead_run *run, pb_overhead_row init, char *err, size_t errlen)
{
    pb_overhead_row *row = pb_vec_push(&run->rows);
    if (!row)
        pb_errf(err, errlen, "the rows: %s", strerror(errno));
    else
        *row = init;
    return row;
}

/* A point's end: 0 when it was measured (rc 0), else its row dropped again and the error in err. */
static int po_done(pb_overhead_run *run, int rc, const char *name, int threads, char *err, size_t errlen)
{
    if (rc == 0)
        return 0;
    int e = errno;
    pb_vec_pop(&run->rows); /* not measured */
    return pb_errf(err, errlen, "%s with %d threads: %s", name, threads, strerror(e));
}

/* One gap x job point of a block. */
static int po_point(pb_overhead_run *run, const pb_dispatch_cost_point *pt, char *err, size_t errlen)
{
    const char *name = pb_exec_kind_names[pt->kind];
    pb_progress(run->done++, run->total, run->t0, "%s threads=%d gap=%uus job=%uns", name, pt->threads, pt->gap_us,
                pt->job_ns);
    pb_overhead_row *row = po_push(
        run, (pb_overhead_row){ .kind = pt->kind, .threads = pt->threads, .gap_us = pt->gap_us, .job_ns = pt->job_ns },
        err, errlen);
    return row ? po_done(run, pb_dispatch_cost_measure(pt, &row->r), name, pt->threads, err, errlen) : -1;
}

/* One barrier point. */
static int po_barrier_point(pb_overhead_run *run, const pb_barrier_cost_point *pt, char *err, size_t errlen)
{
    const char *name = pb_overhead_run_kind_name(PB_OVERHEAD_BARRIER + pt->barrier);
    pb_progress(run->done++, run->total, run->t0, "%s threads=%d", name, pt->threads);
    pb_overhead_row *row =
        po_push(run, (pb_overhead_row){ .kind = PB_OVERHEAD_BARRIER + pt->barrier, .threads = pt->threads }, err, errlen);
    return row ? po_done(run, pb_barrier_cost_measure(pt, &row->r), name, pt->threads, err, errlen) : -1;
}

/* The block's points against its round trips: before, after, each variant's mean, the tightest's mean (the
 * reference of ratio_to_rt), and the placement. */
static void po_rt_ratios(pb_overhead_run *run, size_t first, const pb_rt_tight *before, const pb_rt_tight *after)
{
    const pb_overhead_plan *p = run->p;
    double rt = pb_rt_between(before->tight_ns, after->tight_ns);
    const char *place = pb_placement_block(p->where, p->cpus[0], p->ncpus > 1 ? p->cpus[1] : -1, before->tight_ns,
                                           after->tight_ns);
    for (size_t i = first; i < run->rows.n; i++) {
        pb_overhead_row *row = PB_VEC_AT(&run->rows, pb_overhead_row, i);
        if (row->kind < 0)
            continue;
        row->rt_before = before->tight_ns;
        row->rt_after = after->tight_ns;
        row->rt_tight = rt;
        for (int v = 0; v < PB_RT_VARIANTS; v++)
            row->rt_variant[v] = pb_rt_between(before->v[v].ns_batch_mean, after->v[v].ns_batch_mean);
        row->ratio_to_rt = row->r.batch_mean_ns / rt;
        snprintf(row->placement, sizeof row->placement, "%s", place);
    }
}

/* The cpus of a block of `threads`: the plan's pinning order, wrapping past its cpus. */
static void po_cpus(const pb_overhead_plan *p, int threads, int *cpus)
{
    for (int i = 0; i < threads; i++)
        cpus[i] = p->cpus[i % p->ncpus];
}

/* A block's points (kind: the policy, unused by the barriers' block) on cpus; 0, or -1 with err. */
typedef int po_points_fn(pb_overhead_run *run, int threads, const int *cpus, int kind, char *err, size_t errlen);

/* Every gap x job of one policy. */
static int po_dispatch_points(pb_overhead_run *run, int threads, const int *cpus, int kind, char *err, size_t errlen)
{
    const pb_overhead_plan *p = run->p;
    int rc = 0;
    for (int g = 0; g < p->gaps->n && rc == 0 && !pb_stop_signal(); g++)
        for (int j = 0; j < p->jobs->n && rc == 0 && !pb_stop_signal(); j++) {
            pb_dispatch_cost_point pt = { .kind = kind, .threads = threads, .cpus = cpus,
                                          .gap_us = (unsigned)p->gaps->v[g], .job_ns = (unsigned)p->jobs->v[j],
                                          .spin_us = p->spin_us, .reps = p->reps, .batch_ms = p->batch_ms,
                                          .topo = p->where ? p->where->topo : NULL };
            rc = po_point(run, &pt, err, errlen);
        }
    return rc;
}

/* Each barrier asked for. */
static int po_barrier_points(pb_overhead_run *run, int threads, const int *cpus, int kind, char *err, size_t errlen)
{
    (void)kind;
    const pb_overhead_plan *p = run->p;
    int rc = 0;
    for (int b = 0; b < p->barriers->n && rc == 0 && !pb_stop_signal(); b++) {
        pb_barrier_cost_point pt = { .barrier = (int)p->barriers->v[b], .threads = threads, .cpus = cpus,
                                     .topo = p->where ? p->where->topo : NULL, .reps = p->reps,
                                     .batch_ms = p->batch_ms };
        rc = po_barrier_point(run, &pt, err, errlen);
    }
    return rc;
}

/* One block at this thread count: a round trip, the points, a round trip, so each row has the tightest round
 * trip around it (ratio_to_rt). */
static int po_block(pb_overhead_run *run, int threads, int kind, po_points_fn *points, char *err, size_t errlen)
{
    int cpus[POOL_MAX_THREADS];
    po_cpus(run->p, threads, cpus);
    int rc = 0;
    pb_rt_tight before, after;
    po_roundtrip(run, &before, &rc, err, errlen);
    size_t first = run->rows.n;
    if (rc == 0)
        rc = points(run, threads, cpus, kind, err, errlen);
    po_roundtrip(run, &after, &rc, err, errlen);
    po_rt_ratios(run, first, &before, &after);
    return rc;
}

/* The peer a row's ratio_to_omp is against: omp's dispatch for a dispatch, OpenMP's barrier for a barrier. */
static int po_omp_peer(int kind)
{
    return kind >= PB_OVERHEAD_BARRIER ? PB_OVERHEAD_BARRIER + PB_BARRIER_OMP : PB_EXEC_OMP;
}

/* ratio_to_omp of rows[from..): the OpenMP peer's point at the same threads, gap and job, NaN when it was not
 * measured (not asked for, or the run stopped first). */
static void po_ratios_to_omp(pb_overhead_run *run, size_t from)
{
    for (size_t i = from; i < run->rows.n; i++) {
        pb_overhead_row *a = PB_VEC_AT(&run->rows, pb_overhead_row, i);
        a->ratio_to_omp = NAN;
        for (size_t k = from; k < run->rows.n && a->kind >= 0; k++) {
            const pb_overhead_row *b = PB_VEC_AT(&run->rows, pb_overhead_row, k);
            if (b->kind == po_omp_peer(a->kind) && b->threads == a->threads && b->gap_us == a->gap_us &&
                b->job_ns == a->job_ns)
                a->ratio_to_omp = a->r.batch_mean_ns / b->r.batch_mean_ns;
        }
    }
}

int pb_overhead_run_threads(pb_overhead_run *run, int threads, char *err, size_t errlen)
{
    size_t from = run->rows.n;
    int rc = 0;
    for (int k = 0; k < run->p->policies->n && rc == 0 && !pb_stop_signal(); k++)
        rc = po_block(run, threads, (int)run->p->policies->v[k], po_dispatch_points, err, errlen);
    if (rc == 0 && threads >= 2 && run->p->barriers && run->p->barriers->n > 0 && !pb_stop_signal())
        rc = po_block(run, threads, 0, po_barrier_points, err, errlen);
    po_ratios_to_omp(run, from);
    return rc;
}

void pb_overhead_run_free(pb_overhead_run *run)
{
    pb_vec_free(&run->rows);
}
