/* pb_overhead_report.c — see pb_overhead_report.h. */
#include "pb_overhead_report.h"

#include <string.h>

#include "pb_placement.h"
#include "pb_schema.h"
#include "pb_tuning.h"

static void orep_write_row(pb_overhead_report *r, const pb_overhead_plan *p, const pb_overhead_row *row)
{
    char cpus[256];
    pb_cpus_text(p->cpus, p->ncpus, row->kind < 0 ? 2 : row->threads, cpus, sizeof cpus);
    const pb_value v[PB_POOL_NCOLS] = {
        [PB_POOL_run_id].s = r->run->run_id, [PB_POOL_host].s = r->run->host,
        [PB_POOL_policy].s = pb_overhead_run_kind_name(row->kind), [PB_POOL_threads].i = row->threads,
        [PB_POOL_cpus].s = cpus,
        [PB_POOL_co_runner].s = p->co_runner,
        [PB_POOL_gap_us].i = row->gap_us, [PB_POOL_job_ns].i = row->job_ns,
        [PB_POOL_spin_us].i = row->kind == POOL_HYBRID ? p->spin_us : 0,
        [PB_POOL_reps].i = row->kind < 0 ? PB_OVERHEAD_RT_BATCHES : p->reps, [PB_POOL_k].i = row->r.k,
        [PB_POOL_ns_min].d = row->r.samples.min, [PB_POOL_ns_median].d = row->r.samples.median,
        [PB_POOL_ns_p90].d = row->r.samples.p90, [PB_POOL_ns_p99].d = row->r.samples.p99,
        [PB_POOL_ns_max].d = row->r.samples.max, [PB_POOL_ns_batch_mean].d = row->r.batch_mean_ns,
        [PB_POOL_ns_batch_min].d = row->r.batches.min, [PB_POOL_ns_batch_max].d = row->r.batches.max,
        [PB_POOL_rt_ns_before].d = row->rt_before, [PB_POOL_rt_ns_after].d = row->rt_after,
        [PB_POOL_placement].s = row->placement, [PB_POOL_ratio_to_rt].d = row->ratio_to_rt,
        [PB_POOL_ratio_to_omp].d = row->ratio_to_omp,
        [PB_POOL_rt_1line_rmw_ns].d = row->rt_variant[PB_RT_1LINE_RMW],
        [PB_POOL_rt_2line_store_ns].d = row->rt_variant[PB_RT_2LINE_STORE],
        [PB_POOL_rt_2line_rmw_ns].d = row->rt_variant[PB_RT_2LINE_RMW], [PB_POOL_rt_tight_ns].d = row->rt_tight,
    };
    pb_csv_values(r->csv, pb_schema_get(PB_K_POOL), v);
}

void pb_overhead_report_rows(pb_overhead_report *r, const pb_overhead_run *run)
{
    for (; r->written < run->rows.n; r->written++)
        orep_write_row(r, run->p, PB_VEC_AT(&run->rows, pb_overhead_row, r->written));
}

/* Every round trip measured, each variant beside the tightest: the reference is the fastest handshake two cpus
 * can make, not one particular way of making it. */
static void orep_print_round_trips(FILE *f, const pb_overhead_run *run)
{
    fprintf(f, "\nround trips (ns, batch mean):");
    for (int v = 0; v < PB_RT_VARIANTS; v++)
        fprintf(f, " %s", pb_rt_variant_name((pb_rt_variant)v));
    fprintf(f, " -> tightest, placement\n");
    for (size_t i = 0; i < run->rows.n; i++) {
        const pb_overhead_row *r = PB_VEC_AT(&run->rows, pb_overhead_row, i);
        if (r->kind >= 0)
            continue;
        fprintf(f, "  ");
        for (int v = 0; v < PB_RT_VARIANTS; v++)
            fprintf(f, " %9.1f", r->rt_variant[v]);
        fprintf(f, " -> %9.1f  %s\n", r->rt_tight, r->placement);
    }
}

void pb_overhead_report_table(FILE *f, const pb_overhead_run *run)
{
    const pb_overhead_plan *p = run->p;
    int w = 8; /* the policy column: as wide as its longest word (a barrier's) */
    for (size_t i = 0; i < run->rows.n; i++) {
        int len = (int)strlen(pb_overhead_run_kind_name(PB_VEC_AT(&run->rows, pb_overhead_row, i)->kind));
        w = len > w ? len : w;
    }
    fprintf(f, "\n%-*s %3s %6s %7s %11s %11s %11s %9s %6s %8s %8s\n", w, "policy", "thr", "gap_us", "job_ns",
            "batch_ns", "median_ns", "p99_ns", "rt_ns", "place", "x_rt", "x_omp");
    for (int t = 0; t < p->threads->n; t++) {
        for (size_t i = 0; i < run->rows.n; i++) {
            const pb_overhead_row *r = PB_VEC_AT(&run->rows, pb_overhead_row, i);
            if (r->kind < 0 || r->threads != p->threads->v[t])
                continue;
            double rt = (r->rt_before + r->rt_after) / 2;
            bool noisy = r->r.batches.spread > PB_NOISY_SPREAD;
            fprintf(f, "%-*s %3d %6u %7u %11.1f %11.1f %11.1f %9.1f %6s %8.2f %8.3f%s\n", w,
                    pb_overhead_run_kind_name(r->kind),
                    r->threads, r->gap_us, r->job_ns, r->r.batch_mean_ns, r->r.samples.median, r->r.samples.p99, rt,
                    r->placement, r->ratio_to_rt, r->ratio_to_omp, noisy ? PB_NOISY_NOTE : "");
        }
    }
    fprintf(f, "\nbatch_ns: median over %d batches of the mean dispatch in a batch; x_rt: batch_ns / the same block's "
               "tightest round trip (rt_ns: mean of before and after); x_omp: batch_ns / omp's at the same threads, gap "
               "and job. barrier-*: one barrier among the threads inside a job (batch_ns per barrier, median_ns and "
               "p99_ns between two on the caller's thread; x_omp against OpenMP's barrier).\n",
            p->reps);
    orep_print_round_trips(f, run);
}
