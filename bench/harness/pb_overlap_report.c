/* pb_overlap_report.c — see pb_overlap_report.h. */
#include "pb_overlap_report.h"

#include "pb_schema.h"
#include "pb_tuning.h"

static bool ovrep_selected(const pb_overlap_report *r, pb_overlap_mode m)
{
    for (int i = 0; i < r->modes->n; i++)
        if (r->modes->v[i] == m)
            return true;
    return false;
}

/* A row of the CSV and the table: a mode measured at this point and asked for (serial always: the base of
 * every speedup). */
static bool ovrep_reported(const pb_overlap_report *r, const pb_overlap_point *pt, pb_overlap_mode m)
{
    return pt->measured[m] && (m == PB_OV_SERIAL || ovrep_selected(r, m));
}

static void ovrep_cpus_text(const pb_overlap_report *r, pb_overlap_mode m, char *buf, size_t len)
{
    const pb_overlap *ov = r->ov;
    if (!pb_overlap_modes[m].async)
        snprintf(buf, len, "%d", ov->caller_cpu);
    else
        snprintf(buf, len, "%d %d", ov->caller_cpu, pb_overlap_modes[m].elsewhere ? ov->helper_cpu : ov->caller_cpu);
}

void pb_overlap_write_point(const pb_overlap_report *r, const pb_overlap_point *pt)
{
    for (int m = 0; m < PB_OV_MODES; m++) {
        if (!ovrep_reported(r, pt, (pb_overlap_mode)m))
            continue;
        pb_overlap_figures f = pb_overlap_figures_of(pt, (pb_overlap_mode)m);
        char cpus[32];
        ovrep_cpus_text(r, (pb_overlap_mode)m, cpus, sizeof cpus);
        const pb_value v[PB_OVERLAP_NCOLS] = {
            [PB_OVERLAP_run_id].s = r->run->run_id, [PB_OVERLAP_host].s = r->run->host,
            [PB_OVERLAP_mode].s = pb_overlap_mode_names[m], [PB_OVERLAP_ratio].d = pt->ratio,
            [PB_OVERLAP_prep_us].d = pt->prep.median / 1e3, [PB_OVERLAP_job_us].d = pt->job.median / 1e3,
            [PB_OVERLAP_us_per_step].d = f.us, [PB_OVERLAP_speedup].d = f.speedup,
            [PB_OVERLAP_pct_of_ceiling].d = f.pct, [PB_OVERLAP_cpus].s = cpus, [PB_OVERLAP_ceiling].d = f.ceiling,
            [PB_OVERLAP_us_per_step_min].d = f.us_min, [PB_OVERLAP_us_per_step_max].d = f.us_max,
            [PB_OVERLAP_prep_ratio_measured].d = pt->prep.median / pt->job.median,
            [PB_OVERLAP_steps].i = r->ov->steps, [PB_OVERLAP_reps].i = r->ov->reps, [PB_OVERLAP_rows].i = r->rows,
            [PB_OVERLAP_cols].i = r->cols, [PB_OVERLAP_prep_n].i = (long long)pt->prep_n,
            [PB_OVERLAP_variant].s = kern_isa_name(kern_matvec_isa(KERN_Q8_0, r->kernel.isa)),
            [PB_OVERLAP_rt_ns].d = pt->rt_ns, [PB_OVERLAP_placement].s = pt->placement,
            [PB_OVERLAP_why].s = pb_kernel_why_names[r->kernel.why],
        };
        pb_csv_values(r->csv, pb_schema_get(PB_K_OVERLAP), v);
    }
}

/* One mode's line; the point's own figures lead its serial line. */
static void ovrep_print_line(FILE *f, const pb_overlap_point *pt, pb_overlap_mode m)
{
    pb_overlap_figures g = pb_overlap_figures_of(pt, m);
    bool noisy = pt->mode[m].spread > PB_NOISY_SPREAD;
    if (m == PB_OV_SERIAL)
        fprintf(f, "%6.2f %8.1f %8.1f %7.2fx ", pt->ratio, pt->prep.median / 1e3, pt->job.median / 1e3, g.ceiling);
    else
        fprintf(f, "%6s %8s %8s %8s ", "", "", "", "");
    fprintf(f, "%-14s %10.1f %9.1f - %9.1f %7.2fx %8.0f%%%s\n", pb_overlap_mode_names[m], g.us, g.us_min, g.us_max,
            g.speedup, g.pct, noisy ? "  (noisy)" : "");
}

void pb_overlap_print_table(FILE *f, const pb_overlap_report *r, const pb_overlap_point *points, int n)
{
    const pb_overlap *ov = r->ov;
    fprintf(f, "\nq8_0 matvec %ld x %ld (%s) on the helper, prep on the caller (cpu %d); %ld steps, median of %ld "
               "reps\n", r->rows, r->cols, kern_isa_name(r->kernel.isa), ov->caller_cpu, ov->steps, ov->reps);
    fprintf(f, "\n%6s %8s %8s %8s %-14s %10s %21s %8s %9s\n", "ratio", "prep_us", "job_us", "ceiling", "mode",
            "us/step", "(min - max)", "speedup", "%ceiling");
    for (int p = 0; p < n; p++)
        for (int m = 0; m < PB_OV_MODES; m++)
            if (ovrep_reported(r, &points[p], (pb_overlap_mode)m))
                ovrep_print_line(f, &points[p], (pb_overlap_mode)m);
    fprintf(f, "\nratio: the prep / job time asked for (prep_ratio_measured in the CSV is what the sizing reached); "
               "ceiling = serial / max(prep, job); %%ceiling = speedup / ceiling; (noisy): the reps spread over "
               "%.0f%%.\n", 100 * PB_NOISY_SPREAD);
    if (ov->helper_cpu < 0)
        fprintf(f, "one cpu only: async-spawn and async-pinned need a second cpu and were skipped.\n");
}
