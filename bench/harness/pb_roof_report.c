/* pb_roof_report.c — see pb_roof_report.h. */
#include "pb_roof_report.h"

#include <math.h>
#include <string.h>

#include "pb_placement.h"
#include "pb_progress.h"
#include "pb_schema.h"
#include "pb_stop.h"
#include "pb_time.h"

/* Whether an earlier point already ran the same kernel (another ISA's, fallen back to) at these threads. */
static bool pb_roof_seen(const pb_roof_report *r, kern_isa ran, kern_peak_op op, int threads)
{
    for (int i = 0; i < r->n; i++)
        if (r->pt[i].ran == ran && r->pt[i].op == op && r->pt[i].threads == threads)
            return true;
    return false;
}

/* Every point measured once more, after all of them, each keeping the better of its two measures: the roof is a
 * best run, steal only lowers one, and a burst of it can outlast a point's 21 runs (a make report's 1-thread
 * roof read 91 GMAC/s where its sweep's read 100 a minute later). */
static int pb_roof_report_again(pb_roof_report *r, const int *cpus, char *err, size_t errlen)
{
    uint64_t t0 = pb_now_ns();
    for (int i = 0; i < r->n && !pb_stop_signal(); i++) {
        pb_roof_point again;
        pb_progress(i, r->n, t0, "roof again %s %s threads=%d", kern_isa_name(r->pt[i].isa),
                    kern_peak_op_names[r->pt[i].op], r->pt[i].threads);
        if (pb_roof_measure(r->pt[i].isa, r->pt[i].op, cpus, r->pt[i].threads, &again, err, errlen) != 0)
            return -1;
        if (pb_roof_bound(&again) > pb_roof_bound(&r->pt[i]))
            r->pt[i] = again;
    }
    pb_progress_done(r->n, "roof points again", t0);
    return 0;
}

int pb_roof_report_measure(pb_roof_report *r, const pb_list *isas, const pb_list *threads, const int *cpus,
                           int ncpus, char *err, size_t errlen)
{
    r->n = 0;
    int total = 0, done = 0;
    uint64_t t0 = pb_now_ns();
    for (int pass = 0; pass < 2; pass++) /* the first pass counts the points, for the progress line */
        for (int i = 0; i < (isas->n ? isas->n : KERN_ISA_COUNT); i++) {
            kern_isa isa = (kern_isa)(isas->n ? isas->v[i] : i);
            if (!kern_isa_supported(isa))
                continue;
            for (int op = 0; op < KERN_PEAK_NOPS; op++)
                for (int t = 0; t < threads->n && !pb_stop_signal(); t++) {
                    int n = (int)threads->v[t] < ncpus ? (int)threads->v[t] : ncpus;
                    kern_isa ran;
                    if (!kern_peak_get(isa, (kern_peak_op)op, &ran) || pb_roof_seen(r, ran, (kern_peak_op)op, n) ||
                        r->n == PB_ROOF_MAX_POINTS)
                        continue;
                    if (pass == 0) {
                        total++;
                        continue;
                    }
                    pb_progress(done++, total, t0, "roof %s %s threads=%d", kern_isa_name(isa),
                                kern_peak_op_names[op], n);
                    if (pb_roof_measure(isa, (kern_peak_op)op, cpus, n, &r->pt[r->n], err, errlen) != 0)
                        return -1;
                    pb_cpus_text(cpus, n, n, r->cpus[r->n], sizeof r->cpus[r->n]);
                    r->n++;
                }
        }
    pb_progress_done(done, "roof points", t0);
    return pb_roof_report_again(r, cpus, err, errlen);
}

double pb_roof_report_gmacs(const pb_roof_report *r, kern_isa isa, kern_peak_op op, int threads)
{
    kern_isa ran;
    if (!kern_peak_get(isa, op, &ran))
        return NAN;
    for (int i = 0; i < r->n; i++)
        if (r->pt[i].ran == ran && r->pt[i].op == op && r->pt[i].threads == threads)
            return pb_roof_bound(&r->pt[i]);
    return NAN;
}

void pb_roof_report_write(const pb_roof_report *r, pb_csv *csv, const pb_run *run)
{
    for (int i = 0; i < r->n; i++) {
        const pb_roof_point *p = &r->pt[i];
        const pb_value v[PB_ROOF_NCOLS] = {
            [PB_ROOF_run_id].s = run->run_id, [PB_ROOF_host].s = run->host, [PB_ROOF_isa].s = kern_isa_name(p->isa),
            [PB_ROOF_ran].s = kern_isa_name(p->ran), [PB_ROOF_op].s = kern_peak_op_names[p->op],
            [PB_ROOF_instr].s = p->instr, [PB_ROOF_threads].i = p->threads, [PB_ROOF_cpus].s = r->cpus[i],
            [PB_ROOF_gmacs_median].d = p->gmacs_median, [PB_ROOF_gmacs_min].d = p->gmacs_min,
            [PB_ROOF_gmacs_max].d = p->gmacs_max, [PB_ROOF_gflops].d = 2 * pb_roof_bound(p),
            [PB_ROOF_ghz].d = p->ghz, [PB_ROOF_macs_per_cycle].d = p->macs_per_cycle,
        };
        pb_csv_values(csv, pb_schema_get(PB_K_ROOF), v);
    }
}

void pb_roof_report_print(FILE *f, const pb_roof_report *r)
{
    if (!r->n)
        return;
    fprintf(f, "\ncompute roof (operands in registers, every thread at once; best of %d runs, the better of two "
               "measures)\n", PB_ROOF_REPS);
    fprintf(f, "%-11s %-5s %-24s %7s %10s %7s %12s\n", "isa", "op", "instruction", "threads", "GMAC/s", "GHz",
            "MACs/cycle");
    for (int i = 0; i < r->n; i++) {
        const pb_roof_point *p = &r->pt[i];
        fprintf(f, "%-11s %-5s %-24s %7d %10.1f %7.2f %12.1f\n", kern_isa_name(p->ran), kern_peak_op_names[p->op],
                p->instr, p->threads, pb_roof_bound(p), p->ghz, p->macs_per_cycle);
    }
}
