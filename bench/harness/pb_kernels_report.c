/* pb_kernels_report.c — see pb_kernels_report.h. */
#include "pb_kernels_report.h"

#include <math.h>

#include "pb_schema.h"
#include "pb_tuning.h"

#define MIB (1024.0 * 1024.0)

/* Cycles one thread spends on a weight block (all batch vectors): the row's time times the threads that share
 * the rows, at the mean clock around the point, over the row's blocks. */
static double krep_cycles_per_block(const pb_kernels_row *r)
{
    const kern_format_info *fi = kern_format_get(r->pt.fmt);
    double ghz = (r->ghz_before + r->ghz_after) / 2;
    if (!fi || r->pt.cols == 0 || !isfinite(ghz))
        return NAN;
    double blocks = (double)r->pt.cols / fi->block;
    return r->r.ns_per_row * r->threads * ghz / blocks;
}

/* The format's multiply-adds per byte of its blocks, for one activation row. */
static double krep_macs_per_byte(kern_format f)
{
    const kern_format_info *fi = kern_format_get(f);
    return fi ? (double)fi->block / fi->block_bytes : NAN;
}

/* The roof of what the point's kernel multiplies (f32 for the float formats, int8 for the quantized ones). */
static double krep_roof(const pb_kernels_report *k, const pb_kernels_row *r)
{
    bool flt = r->pt.fmt == KERN_F32 || r->pt.fmt == KERN_F16;
    return k->roof ? pb_roof_report_gmacs(k->roof, r->r.ran, flt ? KERN_PEAK_F32 : KERN_PEAK_INT8, r->threads) : NAN;
}

void pb_kernels_report_row(void *ctx, const pb_kernels_row *r)
{
    const pb_kernels_report *k = ctx;
    double roof = krep_roof(k, r);
    const pb_value v[PB_KERNELS_NCOLS] = {
        [PB_KERNELS_run_id].s = k->run->run_id, [PB_KERNELS_host].s = k->run->host,
        [PB_KERNELS_format].s = kern_format_names[r->pt.fmt], [PB_KERNELS_variant].s = kern_isa_name(r->r.ran),
        [PB_KERNELS_rows].i = (long long)r->pt.rows, [PB_KERNELS_cols].i = (long long)r->pt.cols,
        [PB_KERNELS_batch].i = r->pt.batch, [PB_KERNELS_threads].i = r->threads, [PB_KERNELS_bytes].u = r->bytes,
        [PB_KERNELS_level].s = pb_kernel_timing_level_names[r->pt.level], [PB_KERNELS_gbps_min].d = r->r.gbps.min,
        [PB_KERNELS_gbps_median].d = r->r.gbps.median, [PB_KERNELS_gbps_max].d = r->r.gbps.max,
        [PB_KERNELS_gbps_act_median].d = r->r.gbps_act.median,
        [PB_KERNELS_gops_median].d = r->r.gops_median, [PB_KERNELS_ns_per_row].d = r->r.ns_per_row,
        [PB_KERNELS_emulate_slow].s = r->emulate, [PB_KERNELS_ghz_before].d = r->ghz_before,
        [PB_KERNELS_ghz_after].d = r->ghz_after, [PB_KERNELS_cycles_per_block].d = krep_cycles_per_block(r),
        [PB_KERNELS_counters].s = r->counters, [PB_KERNELS_ipc].d = r->ipc,
        [PB_KERNELS_why].s = r->why, [PB_KERNELS_stream].s = r->stream,
        [PB_KERNELS_layout].s = kern_layout_names[r->pt.layout], [PB_KERNELS_repack_ms].d = r->repack_ms,
        [PB_KERNELS_layout_bytes].u = r->layout_bytes, [PB_KERNELS_read_gbps].d = r->read_gbps,
        [PB_KERNELS_read_kernel].s = r->read_kernel, [PB_KERNELS_macs_per_byte].d = krep_macs_per_byte(r->pt.fmt),
        [PB_KERNELS_roof_gmacs].d = roof, [PB_KERNELS_roof_share].d = r->r.gops_median / roof,
    };
    pb_csv_values(k->csv, pb_schema_get(PB_K_KERNELS), v);
}

static void krep_print_sizes(FILE *f, const pb_kernels_plan *p)
{
    const pb_kernels_sizes *s = &p->sizes;
    fprintf(f, "\nworking sets: l2 %.2f MiB per thread (half of %.0f KiB), l3 %.1f MiB (half of %.0f MiB%s), "
               "dram %.0f MiB; %zu columns\n",
            (double)s->l2 / 2 / MIB, (double)s->l2 / 1024, (double)s->l3 / 2 / MIB, (double)s->l3 / MIB,
            s->l3_guessed ? ", assumed" : "", (double)s->dram / MIB, p->cols);
    if (s->l3_guessed)
        fprintf(f, "***WARNING*** hwloc reports an L3 over %llu MiB per instance under a hypervisor, which is the "
                   "host's total; %llu MiB assumed for the l3 level (set --l3-kib), the reported size for dram's\n",
                PB_KERNELS_L3_IMPLAUSIBLE >> 20, PB_KERNELS_L3_ASSUMED >> 20);
}

static void krep_print_points(FILE *f, const pb_kernels_run *run)
{
    fprintf(f, "\n%-6s %-10s %-11s %-5s %3s %5s %9s %9s %17s %9s %9s %9s %7s\n", "format", "variant", "layout",
            "level", "thr", "batch", "MiB", "GB/s", "(min-max)", "+act", "Gop/s", "ns/row", "x_read");
    for (int i = 0; i < run->nrows; i++) {
        const pb_kernels_row *r = &run->rows[i];
        bool noisy = r->r.gbps.spread > PB_NOISY_SPREAD;
        char ratio[16] = "-";
        if (!isnan(r->read_gbps))
            snprintf(ratio, sizeof ratio, "%.0f%%", 100 * pb_kernels_row_x_read(r));
        fprintf(f, "%-6s %-10s %-11s %-5s %3d %5d %9.2f %9.2f %8.2f-%-8.2f %9.2f %9.2f %9.1f %7s%s\n",
                kern_format_names[r->pt.fmt], kern_isa_name(r->pt.isa), kern_layout_names[r->pt.layout],
                pb_kernel_timing_level_names[r->pt.level],
                r->threads, r->pt.batch, (double)r->bytes / MIB, r->r.gbps.median, r->r.gbps.min, r->r.gbps.max,
                r->r.gbps_act.median, r->r.gops_median, r->r.ns_per_row, ratio, noisy ? PB_NOISY_NOTE : "");
    }
    fprintf(f, "\nGB/s: weight bytes per second, median over samples (1e9 B/s), the activation quantized once\n"
               "beforehand; +act: the same quantizing it before every call, as a decode does for each matvec input\n"
               "(a call: the whole matrix in l2, a window in l3 and dram); Gop/s: weights x batch per second;\n"
               "x_read (dram, 1 thread, batch 1): GB/s over the median of pb_memread's '%s' read of the same\n"
               "buffer, measured just before each point (the memory floor side by side: a vCPU move between runs\n"
               "cannot skew the ratio).\n",
            run->read_kern ? run->read_kern->name : "-");
}

/* A DRAM point that read faster than the floor beside it: the floor is not the best read here, or the two did not
 * see the same machine. */
static void krep_print_over_floor(FILE *f, const pb_kernels_run *run)
{
    int n;
    const pb_kernels_row *r = pb_kernels_run_over_floor(run, PB_KERNELS_OVER_FLOOR_PCT, &n);
    if (!r)
        return;
    fprintf(f, "***WARNING*** %d dram point(s) read over %d%% of pb_memread's '%s' read beside them (the most: %s %s "
               "%s at %.0f%%): that read is not this machine's best, or the machine changed between the two (other "
               "work, a vCPU moved); either way a %% of floor measured against it is too high\n",
            n, PB_KERNELS_OVER_FLOOR_PCT, run->read_kern ? run->read_kern->name : "-", kern_format_names[r->pt.fmt],
            kern_isa_name(r->r.ran), kern_layout_names[r->pt.layout], 100 * pb_kernels_row_x_read(r));
}

/* One (format, ISA, layout) line of the roofline: GB/s per level at 1 thread, batch 1, and DRAM's x_read. */
static void krep_print_roofline_line(FILE *f, const pb_kernels_plan *p, const pb_kernels_run *run, kern_format fmt,
                                    kern_isa v, kern_layout lay)
{
    fprintf(f, "%-6s %-10s %-11s", kern_format_names[fmt], kern_isa_name(v), kern_layout_names[lay]);
    for (int l = 0; l < p->levels->n; l++) {
        const pb_kernels_row *r = pb_kernels_run_find(run, fmt, v, lay, (pb_kernel_timing_level)p->levels->v[l], 1, 1);
        if (r)
            fprintf(f, " %8.2f %8.2f", r->r.gbps.median, r->r.gbps_act.median);
        else
            fprintf(f, " %8s %8s", "-", "-");
    }
    const pb_kernels_row *d = pb_kernels_run_find(run, fmt, v, lay, PB_KERNEL_TIMING_DRAM, 1, 1);
    if (d && !isnan(d->read_gbps))
        fprintf(f, " %7.0f%%", 100 * pb_kernels_row_x_read(d));
    fprintf(f, "\n");
}

/* The repacked layouts' cost at load: the largest matrix each was made for, and the time it took. */
static void krep_print_repacks(FILE *f, const pb_kernels_run *run)
{
    for (int k = 1; k < KERN_LAYOUT_COUNT; k++) {
        const pb_kernels_row *big = NULL;
        for (int i = 0; i < run->nrows; i++)
            if (run->rows[i].pt.layout == (kern_layout)k && (!big || run->rows[i].layout_bytes > big->layout_bytes))
                big = &run->rows[i];
        if (big)
            fprintf(f, "repacked at load: %s, %.1f MiB in %.1f ms (%.2f GB/s), a copy beside the file's\n",
                    kern_layout_names[k], (double)big->layout_bytes / MIB, big->repack_ms,
                    (double)big->layout_bytes / (big->repack_ms * 1e6));
    }
}

void pb_kernels_report_print(FILE *f, const pb_kernels_plan *p, const pb_kernels_run *run)
{
    krep_print_sizes(f, p);
    krep_print_points(f, run);
    krep_print_over_floor(f, run);
    fprintf(f, "\nroofline, 1 thread, batch 1 (GB/s median):\n%-6s %-10s %-11s", "format", "variant", "layout");
    for (int l = 0; l < p->levels->n; l++)
        fprintf(f, " %8s %8s", pb_kernel_timing_level_names[p->levels->v[l]], "+act");
    fprintf(f, " %8s\n", "x_read");
    for (int i = 0; i < p->formats->n; i++)
        for (int v = 0; v < p->isas->n; v++)
            for (int l = 0; l < pb_kernels_run_layouts(p); l++)
                if (pb_kernels_run_measures_layout(p, (kern_format)p->formats->v[i], v, l))
                    krep_print_roofline_line(f, p, run, (kern_format)p->formats->v[i], (kern_isa)p->isas->v[v],
                                            pb_kernels_run_layout(p, l));
    krep_print_repacks(f, run);
    fprintf(f, "\nactivation quantization, in +act's GB/s and not in the others (ns per %zu-value row):", p->cols);
    for (int i = 0; i < p->formats->n; i++) {
        double ns = run->act_ns[p->formats->v[i]]; /* 0: the run stopped before this format */
        if (ns > 0)
            fprintf(f, " %s %.0f", kern_format_names[p->formats->v[i]], ns);
    }
    fprintf(f, "\n");
}
