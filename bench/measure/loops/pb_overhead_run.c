/* pb_overhead_run.c — see pb_overhead_run.h. */
#include "pb_overhead_run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_err.h"
#include "pb_pingpong.h"
#include "pb_placement.h"
#include "pb_progress.h"
#include "pb_stop.h"
#include "pb_time.h"

void pb_po_begin(pb_po_run *run, const pb_po_plan *p)
{
    *run = (pb_po_run){ .p = p, .rows = PB_VEC(pb_po_row), .t0 = pb_now_ns() };
    run->total = p->threads->n * p->policies->n * p->gaps->n * p->jobs->n;
}

const char *pb_po_kind_name(int kind)
{
    return kind < 0 ? "pingpong" : pb_exec_kind_names[kind];
}

/* The round trip between the first two cpus of the placement (the traffic of one dispatch), kept as a pingpong
 * row (its batch means stand in for single samples: pb_pingpong times batches only). NaN for one cpu or a
 * thread that could not be pinned (no row); -1 in *rc when the row cannot be kept. */
static double po_roundtrip(pb_po_run *run, int *rc, char *err, size_t errlen)
{
    const pb_po_plan *p = run->p;
    int iters = p->quick ? PB_PO_RT_ITERS / 4 : PB_PO_RT_ITERS;
    pb_rt rt;
    if (p->ncpus < 2 || pb_pingpong(p->cpus[0], p->cpus[1], PB_PO_RT_BATCHES, iters, &rt) != 0)
        return NAN;
    pb_po_row *row = pb_vec_push(&run->rows);
    if (!row) {
        *rc = pb_errf(err, errlen, "the rows: %s", strerror(errno));
        return rt.ns_batch_mean;
    }
    *row = (pb_po_row){ .kind = -1, .threads = 2, .rt_before = rt.ns_batch_mean, .rt_after = rt.ns_batch_mean,
                        .ratio_to_rt = 1.0, .ratio_to_omp = NAN,
                        .r = { .batch_mean_ns = rt.ns_batch_mean, .batches = rt.batches, .samples = rt.batches,
                               .k = iters } };
    snprintf(row->placement, sizeof row->placement, "%s", pb_placement(rt.ns_batch_mean));
    return rt.ns_batch_mean;
}

/* One gap x job point of a block: its row pushed, and dropped again when the point failed. */
static int po_point(pb_po_run *run, const pb_dispatch_cost_point *pt, char *err, size_t errlen)
{
    pb_progress(run->done++, run->total, run->t0, "%s threads=%d gap=%uus job=%uns", pb_exec_kind_names[pt->kind],
                pt->threads, pt->gap_us, pt->job_ns);
    pb_po_row *row = pb_vec_push(&run->rows);
    if (!row)
        return pb_errf(err, errlen, "the rows: %s", strerror(errno));
    *row = (pb_po_row){ .kind = pt->kind, .threads = pt->threads, .gap_us = pt->gap_us, .job_ns = pt->job_ns };
    if (pb_dispatch_cost_measure(pt, &row->r) == 0)
        return 0;
    int e = errno;
    pb_vec_pop(&run->rows); /* not measured */
    return pb_errf(err, errlen, "%s with %d threads: %s", pb_exec_kind_names[pt->kind], pt->threads, strerror(e));
}

/* The block's points against its round trips: before, after, their mean, and near/far/mixed. */
static void po_rt_ratios(pb_po_run *run, size_t first, double before, double after)
{
    double rt = pb_rt_between(before, after);
    for (size_t i = first; i < run->rows.n; i++) {
        pb_po_row *row = PB_VEC_AT(&run->rows, pb_po_row, i);
        if (row->kind < 0)
            continue;
        row->rt_before = before;
        row->rt_after = after;
        row->ratio_to_rt = row->r.batch_mean_ns / rt;
        snprintf(row->placement, sizeof row->placement, "%s", pb_placement_between(before, after));
    }
}

/* One (threads, kind) block: round trip, every gap x job, round trip. */
static int po_block(pb_po_run *run, int threads, int kind, char *err, size_t errlen)
{
    const pb_po_plan *p = run->p;
    int cpus[POOL_MAX_THREADS];
    for (int i = 0; i < threads; i++)
        cpus[i] = p->cpus[i % p->ncpus];
    int rc = 0;
    double before = po_roundtrip(run, &rc, err, errlen);
    size_t first = run->rows.n;
    for (int g = 0; g < p->gaps->n && rc == 0 && !pb_stop_signal(); g++)
        for (int j = 0; j < p->jobs->n && rc == 0 && !pb_stop_signal(); j++) {
            pb_dispatch_cost_point pt = { .kind = kind, .threads = threads, .cpus = cpus,
                                          .gap_us = (unsigned)p->gaps->v[g], .job_ns = (unsigned)p->jobs->v[j],
                                          .spin_us = p->spin_us, .reps = p->reps, .batch_ms = p->batch_ms };
            rc = po_point(run, &pt, err, errlen);
        }
    double after = po_roundtrip(run, &rc, err, errlen);
    po_rt_ratios(run, first, before, after);
    return rc;
}

/* ratio_to_omp of rows[from..): omp's point at the same threads, gap and job, NaN when it was not measured (not
 * asked for, or the run stopped first). */
static void po_ratios_to_omp(pb_po_run *run, size_t from)
{
    for (size_t i = from; i < run->rows.n; i++) {
        pb_po_row *a = PB_VEC_AT(&run->rows, pb_po_row, i);
        a->ratio_to_omp = NAN;
        for (size_t k = from; k < run->rows.n && a->kind >= 0; k++) {
            const pb_po_row *b = PB_VEC_AT(&run->rows, pb_po_row, k);
            if (b->kind == PB_EXEC_OMP && b->threads == a->threads && b->gap_us == a->gap_us && b->job_ns == a->job_ns)
                a->ratio_to_omp = a->r.batch_mean_ns / b->r.batch_mean_ns;
        }
    }
}

int pb_po_threads(pb_po_run *run, int threads, char *err, size_t errlen)
{
    size_t from = run->rows.n;
    int rc = 0;
    for (int k = 0; k < run->p->policies->n && rc == 0 && !pb_stop_signal(); k++)
        rc = po_block(run, threads, (int)run->p->policies->v[k], err, errlen);
    po_ratios_to_omp(run, from);
    return rc;
}

void pb_po_free(pb_po_run *run)
{
    pb_vec_free(&run->rows);
}
