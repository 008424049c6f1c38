/* pb_memfloor_report.c — see pb_memfloor_report.h. */
#include "pb_memfloor_report.h"

#include "pb_placement.h"
#include "pb_schema.h"
#include "pb_tuning.h"

void pb_memfloor_report_rows(pb_memfloor_report *r, const pb_memfloor_run *run)
{
    for (; r->written < run->nrows; r->written++) {
        const pb_memfloor_row *row = &run->rows[r->written];
        const pb_value v[PB_MEMORY_NCOLS] = {
            [PB_MEMORY_run_id].s = r->run->run_id, [PB_MEMORY_host].s = r->run->host,
            [PB_MEMORY_op].s = pb_memop_name(row->pt.kern->op), [PB_MEMORY_kernel].s = row->pt.kern->name,
            [PB_MEMORY_threads].i = row->pt.threads, [PB_MEMORY_cpus].s = row->cpus,
            [PB_MEMORY_size_mib].u = run->p->size_mib, [PB_MEMORY_thp_mib].u = row->thp_bytes >> 20,
            [PB_MEMORY_passes].i = row->pt.passes, [PB_MEMORY_gbps_best].d = row->pt.gbps.max,
            [PB_MEMORY_gbps_median].d = row->pt.gbps.median, [PB_MEMORY_gbps_min].d = row->pt.gbps.min,
            [PB_MEMORY_rt_ns].d = pb_rt_between(row->rt_before, row->rt_after),
            [PB_MEMORY_placement].s = row->placement,
            [PB_MEMORY_why].s = pb_kernel_why_names[run->p->kerns_named ? PB_KERNEL_WHY_FORCED : PB_KERNEL_WHY_ALL],
        };
        pb_csv_values(r->csv, pb_schema_get(PB_K_MEMORY), v);
    }
}

void pb_memfloor_report_tokens(const pb_memfloor_report *r, const pb_memfloor_run *run)
{
    for (int i = 0; i < run->ntokens; i++) {
        const pb_memfloor_token *tk = &run->tokens[i];
        const pb_value v[PB_TOKEN_NCOLS] = {
            [PB_TOKEN_run_id].s = r->run->run_id, [PB_TOKEN_host].s = r->run->host,
            [PB_TOKEN_model].s = tk->model->name, [PB_TOKEN_format].s = tk->format_name,
            [PB_TOKEN_threads].i = tk->floor->threads, [PB_TOKEN_weight_bytes].u = tk->weight_bytes,
            [PB_TOKEN_context].i = tk->context, [PB_TOKEN_kv_bytes].u = tk->kv_bytes,
            [PB_TOKEN_floor_gbps].d = tk->floor->gbps, [PB_TOKEN_ms_per_token].d = tk->ms_per_token,
            [PB_TOKEN_tok_per_s_ceiling].d = tk->tok_per_s, [PB_TOKEN_floor_kernel].s = tk->floor->kern->name,
            [PB_TOKEN_placement].s = tk->floor->placement,
        };
        pb_csv_values(r->token_csv, pb_schema_get(PB_K_TOKEN), v);
    }
}

static void mrep_print_rows(FILE *f, const pb_memfloor_run *run)
{
    fprintf(f, "%-6s %-16s %3s %-12s %9s %9s %9s %8s %8s %-6s\n", "op", "kernel", "thr", "cpus", "best", "median",
            "min", "thp_MiB", "rt_ns", "place");
    for (int i = 0; i < run->nrows; i++) {
        const pb_memfloor_row *row = &run->rows[i];
        fprintf(f, "%-6s %-16s %3d %-12s %9.2f %9.2f %9.2f %8llu %8.1f %-6s%s%s\n", pb_memop_name(row->pt.kern->op),
                row->pt.kern->name, row->pt.threads, row->cpus, row->pt.gbps.max, row->pt.gbps.median,
                row->pt.gbps.min, (unsigned long long)(row->thp_bytes >> 20),
                pb_rt_between(row->rt_before, row->rt_after), row->placement,
                pb_memfloor_run_is_floor(run, row) ? "  <- floor" : "",
                row->pt.gbps.spread > PB_NOISY_SPREAD ? PB_NOISY_NOTE : "");
    }
}

static void mrep_print_floors(FILE *f, const pb_memfloor_run *run)
{
    fprintf(f, "\nread floor (best read kernel, best pass):\n");
    for (int t = 0; t < run->nfloors; t++)
        fprintf(f, "  %3d threads: %7.2f GB/s  %-10s %s\n", run->floors[t].threads, run->floors[t].gbps,
                run->floors[t].kern->name, run->floors[t].placement);
    fprintf(f, "\nper-token floor: weight and f16 KV bytes per token at a context / read floor -> ms per token (tok/s "
               "ceiling)\n%-11s %-6s %7s %9s", "model", "format", "context", "MB/token");
    for (int t = 0; t < run->nfloors; t++)
        fprintf(f, "  %7s%-3d %8s", "thr=", run->floors[t].threads, "");
    fprintf(f, "\n");
    for (int i = 0; i < run->ntokens; i += run->nfloors) {
        const pb_memfloor_token *tk = &run->tokens[i];
        fprintf(f, "%-11s %-6s %7d %9.1f", tk->model->name, tk->format_name, tk->context,
                (double)(tk->weight_bytes + tk->kv_bytes) / 1e6);
        for (int t = 0; t < run->nfloors; t++)
            fprintf(f, "  %7.2f ms (%6.1f)", tk[t].ms_per_token, tk[t].tok_per_s);
        fprintf(f, "\n");
    }
}

void pb_memfloor_report_print(FILE *f, const pb_memfloor_report *r, const pb_memfloor_run *run)
{
    uint64_t size_mib = run->p->size_mib;
    fprintf(f, "\nbuffer %llu MiB, %d timed passes per point after one warm-up; GB/s = 1e9 B/s (copy counts read + "
               "write)\n\n", (unsigned long long)size_mib, run->p->passes);
    if (r->llc_bytes && (size_mib << 20) < PB_BUFFER_MIN_LLC_FACTOR * r->llc_bytes)
        fprintf(f, "WARNING: the buffer is less than " PB_STR(PB_BUFFER_MIN_LLC_FACTOR) "x the last-level cache "
                   "(%llu MiB): these are cache figures, not a memory floor\n\n",
                (unsigned long long)(r->llc_bytes >> 20));
    mrep_print_rows(f, run);
    mrep_print_floors(f, run);
}
