/* pb_latency_report.c — see pb_latency_report.h. */
#include "pb_latency_report.h"

#include <math.h>

#include "pb_chase.h"
#include "pb_tuning.h"

static const char *const phase_names[] = { [PB_LATENCY_LADDER] = "ladder", [PB_LATENCY_LOADED] = "loaded" };

/* The chase's own traffic: one line a hop. */
static double lrep_chase_gbps(const pb_latency_row *row) { return PB_CHASE_LINE / row->ns.median; }

static double lrep_cycles(const pb_latency_row *row)
{
    double ghz = (row->ghz_before + row->ghz_after) / 2; /* NaN where the clock is not measured: so is this */
    return row->ns.median * ghz;
}

void pb_latency_report_values(const pb_latency_report *r, const pb_latency_run *run, const pb_latency_row *row, pb_value *v)
{
    v[PB_LATENCY_run_id].s = r->run->run_id;
    v[PB_LATENCY_host].s = r->run->host;
    v[PB_LATENCY_phase].s = phase_names[row->phase];
    v[PB_LATENCY_level].s = row->level;
    v[PB_LATENCY_size_kib].u = row->bytes >> 10;
    v[PB_LATENCY_thp_mib].u = run->thp_bytes >> 20;
    v[PB_LATENCY_cpu].i = row->cpu;
    v[PB_LATENCY_duty_pct].i = row->duty;
    v[PB_LATENCY_load_threads].i = row->load_threads;
    v[PB_LATENCY_load_cpus].s = row->load_cpus;
    v[PB_LATENCY_load_kernel].s = row->kern ? row->kern->name : "";
    v[PB_LATENCY_hops].u = row->hops;
    v[PB_LATENCY_rounds].i = row->rounds;
    v[PB_LATENCY_run_pct].d = row->run_pct;
    v[PB_LATENCY_ns_median].d = row->ns.median;
    v[PB_LATENCY_ns_min].d = row->ns.min;
    v[PB_LATENCY_ns_max].d = row->ns.max;
    v[PB_LATENCY_load_gbps].d = row->load_gbps;
    v[PB_LATENCY_total_gbps].d = row->load_gbps + lrep_chase_gbps(row);
    v[PB_LATENCY_ghz_before].d = row->ghz_before;
    v[PB_LATENCY_ghz_after].d = row->ghz_after;
    v[PB_LATENCY_cycles_median].d = lrep_cycles(row);
}

void pb_latency_report_rows(pb_latency_report *r, const pb_latency_run *run)
{
    for (; r->written < run->nrows; r->written++) {
        pb_value v[PB_LATENCY_NCOLS];
        pb_latency_report_values(r, run, &run->rows[r->written], v);
        pb_csv_values(r->csv, pb_schema_get(PB_K_LATENCY), v);
    }
}

void pb_latency_report_print(FILE *f, const pb_latency_run *run)
{
    uint64_t mib = run->buf.bytes >> 20;
    fprintf(f, "\npointer chase on cpu %d: one random cycle through every 64 B line of the working set; %d rounds of "
               "about 10 ms of hops (5 with --quick); buffer %llu MiB, %llu MiB of it in huge pages%s\n\n",
            run->p->set->cpu[0], run->rounds, (unsigned long long)mib,
            (unsigned long long)(run->thp_bytes >> 20),
            run->thp_bytes ? "" : " (none granted: every hop may miss the TLB too)");
    fprintf(f, "%-7s %-5s %10s %5s %9s %9s %9s %9s %9s %7s %6s\n", "phase", "level", "KiB", "duty", "ns_med",
            "ns_min", "ns_max", "load_GB/s", "total", "cycles", "on_cpu");
    for (int i = 0; i < run->nrows; i++) {
        const pb_latency_row *row = &run->rows[i];
        fprintf(f, "%-7s %-5s %10llu %4d%% %9.2f %9.2f %9.2f %9.2f %9.2f %7.1f %5.0f%%%s\n", phase_names[row->phase],
                row->level, (unsigned long long)(row->bytes >> 10), row->duty, row->ns.median, row->ns.min,
                row->ns.max, row->load_gbps, row->load_gbps + lrep_chase_gbps(row), lrep_cycles(row), row->run_pct,
                row->ns.spread > PB_NOISY_SPREAD ? PB_NOISY_NOTE : "");
    }
    if (run->p->set->n < 2)
        fprintf(f, "\nno loaded curve: the cpu set has one cpu (--cpus: the first chases, the others stream)\n");
}
