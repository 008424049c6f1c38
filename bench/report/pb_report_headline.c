/* The headline tables of report.md: dispatch per policy, the read floor per thread count, the best decode per
 * format, kernel GB/s per format, overlap per mode. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_fmt.h"
#include "pb_md_escape.h"
#include "pb_report.h"

static void dispatch_table(FILE *o, const pb_pool_digest *p)
{
    fprintf(o, "**Dispatch** at %d threads, no caller gap, empty job (batch mean; pingpong median %s):\n\n",
            p->threads, PB_NS(p->pingpong_ns));
    fprintf(o, "| policy | per dispatch | median | p99 | round trip before / after | placement | × round trip | × omp |\n");
    fprintf(o, "|---|---:|---:|---:|---:|---|---:|---:|\n");
    for (int i = 0; i < p->n; i++) {
        const pb_dispatch_digest *d = &p->d[i];
        fprintf(o, "| %s | %s | %s | %s | %s / %s | %s | %s | %s |\n", PB_MD(d->policy), PB_NS(d->ns),
                PB_NS(d->ns_median), PB_NS(d->ns_p99), PB_NS(d->rt_before), PB_NS(d->rt_after), PB_MD(d->placement),
                PB_X(d->x_rt), PB_X(d->x_omp));
    }
    fprintf(o, "\n");
}

static void floor_table(FILE *o, const pb_floor_digest *f)
{
    fprintf(o, "**Read floor** (streaming read, best kernel per thread count; GB/s = 1e9 B/s):\n\n");
    fprintf(o, "| threads | GB/s best | kernel | median | min | cpus | placement | round trip |\n");
    fprintf(o, "|---:|---:|---|---:|---:|---|---|---:|\n");
    for (int i = 0; i < f->n; i++) {
        const pb_floor_point *p = &f->pt[i];
        fprintf(o, "| %d | %s | %s | %s | %s | %s | %s | %s |\n", p->threads, PB_NUM(p->best, 1), PB_MD(p->kernel),
                PB_NUM(p->median, 1), PB_NUM(p->min, 1), PB_MD(p->cpus), PB_MD(p->placement), PB_NS(p->rt_ns));
    }
    fprintf(o, "\n");
}

static void decode_table(FILE *o, const pb_sweep_digest *s)
{
    fprintf(o, "**Decode** (best point per model and format, batch 1):\n\n");
    fprintf(o, "| model | format | tok/s | ms/token | %% of floor | GB/s effective | policy | schedule | threads | core set |\n");
    fprintf(o, "|---|---|---:|---:|---:|---:|---|---|---:|---|\n");
    for (int i = 0; i < s->nbest; i++) {
        const pb_decode_point *d = &s->best[i];
        fprintf(o, "| %s | %s | %s | %s | %s | %s | %s | %s | %d | %s |\n", PB_MD(d->model), PB_MD(d->format),
                PB_NUM(d->tok_s, 1), PB_NUM(d->ms_median, 2), PB_PCT(d->pct_floor), PB_NUM(d->gbps, 1),
                PB_MD(d->policy), PB_MD(d->schedule), d->threads, PB_MD(d->cpuset));
    }
    fprintf(o, "\n");
}

/* The 1-thread read floor's median pass, NaN without one. */
static double floor_one_thread(const pb_floor_digest *f)
{
    for (int i = 0; f->have && i < f->n; i++)
        if (f->pt[i].threads == 1)
            return f->pt[i].median;
    return NAN;
}

static void kernel_table(FILE *o, const pb_kernels_digest *k, const pb_floor_digest *f)
{
    int nthr = 0;
    for (int i = 0; i < k->n; i++)
        if (k->k[i].nthr > nthr)
            nthr = k->k[i].nthr;
    double floor1 = floor_one_thread(f);
    fprintf(o, "**Kernels** (matvec, batch 1, best variant; median GB/s of weights):\n\n");
    fprintf(o, "| format | L2, 1 thread | × floor | variant | L2, quantizing the activation every call | "
               "L3, 1 thread | DRAM size, 1 thread | ÷ read beside | variant | DRAM size, %d threads |\n",
            nthr);
    fprintf(o, "|---|---:|---:|---|---:|---:|---:|---:|---|---:|\n");
    for (int i = 0; i < k->n; i++) {
        const pb_kernel_digest *e = &k->k[i];
        fprintf(o, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", PB_MD(e->format), PB_NUM(e->l2, 1),
                PB_X(e->l2 / floor1), PB_MD(e->isa_l2), PB_NUM(e->l2_act, 1), PB_NUM(e->l3, 1),
                PB_NUM(e->dram, 1), PB_PCT(100 * e->dram / e->dram_read), PB_MD(e->isa_dram),
                PB_NUM(e->dram_nthr, 1));
    }
    fprintf(o, "\nThe activation is quantized once per matvec input in a decode: the quantizing column pays it on "
               "every call of an L2-sized matrix (bench_kernels' +act), the others not at all. × floor: the L2 "
               "figure over the 1-thread read floor's median (%s GB/s); ÷ read beside: the DRAM-size figure over the "
               "read measured just before it (kernels.csv's read_gbps). A kernel under about 1.5× the floor in L2, "
               "or under 90%% of the read at DRAM size, is what a decode of that format waits on, not the "
               "memory.\n\n",
            PB_NUM(floor1, 1));
}

/* Which roof binds the kernel of a format in L2 at 1 thread, in words, and its share of the compute roof. */
static const char *binding_roof(double x_floor, double pct_roof)
{
    if (pct_roof >= 100 * PB_ROOF_NEAR)
        return "the core's arithmetic (at its compute roof)";
    if (x_floor >= 1)
        return "memory (it computes faster than the floor streams)";
    if (isnan(x_floor))
        return "no floor measured to tell";
    return isnan(pct_roof) ? "the kernel (under the floor; no roof measured)"
                           : "poolbench's kernel (under both roofs)";
}

/* Every format under both roofs: its MACs per byte, the MACs its best L2 kernel does at 1 thread, that kernel's
 * ISA's roof for them (int8 for the quantized formats, f32 for f32 and f16) and the share reached. */
static void roofs_table(FILE *o, const pb_kernels_digest *k, const pb_roof_digest *r, const pb_floor_digest *f)
{
    double floor1 = floor_one_thread(f);
    fprintf(o, "**Two roofs** (L2, 1 thread: the kernel's multiply-accumulates against its ISA's compute roof, and "
               "its bytes against the read floor):\n\n");
    fprintf(o, "| format | MACs/byte | GMAC/s | roof GMAC/s | %% of roof | roof's instruction | × floor | bound by |\n");
    fprintf(o, "|---|---:|---:|---:|---:|---|---:|---|\n");
    for (int i = 0; i < k->n; i++) {
        const pb_kernel_digest *e = &k->k[i];
        double mpb = pb_roof_macs_per_byte(e->format), gmacs = e->l2 * mpb;
        bool flt = strcmp(e->format, "f32") == 0 || strcmp(e->format, "f16") == 0;
        int at = pb_roof_find(r, e->isa_l2, flt ? "f32" : "int8", 1);
        double roof = at >= 0 ? r->r[at].gmacs : NAN, pct = 100 * gmacs / roof;
        fprintf(o, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", PB_MD(e->format), PB_NUM(mpb, 2),
                PB_NUM(gmacs, 1), PB_NUM(roof, 1), PB_PCT(pct), at >= 0 ? PB_MD(r->r[at].instr) : "—",
                PB_X(e->l2 / floor1), binding_roof(e->l2 / floor1, pct));
    }
    fprintf(o, "\n");
}

static void overlap_table(FILE *o, const pb_overlap_digest *ov)
{
    fprintf(o, "**Overlap** (each mode at the prep/job ratio nearest 1):\n\n");
    fprintf(o, "| mode | ratio | µs per step | speed-up | %% of ceiling |\n|---|---:|---:|---:|---:|\n");
    for (int i = 0; i < ov->n; i++)
        fprintf(o, "| %s | %s | %s | %s | %s |\n", PB_MD(ov->m[i].mode), PB_NUM(ov->m[i].ratio, 2),
                PB_NUM(ov->m[i].us_per_step, 1), PB_X(ov->m[i].speedup), PB_PCT(ov->m[i].pct_ceiling));
    fprintf(o, "\n");
}

void pb_report_headline(FILE *o, const pb_digest *d)
{
    int parts = 0;
    if (d->pool.have && ++parts)
        dispatch_table(o, &d->pool);
    if (d->floor.have && ++parts)
        floor_table(o, &d->floor);
    if (d->sweep.have && ++parts)
        decode_table(o, &d->sweep);
    if (d->kern.have && ++parts)
        kernel_table(o, &d->kern, &d->floor);
    if (d->kern.have && d->roof.have)
        roofs_table(o, &d->kern, &d->roof, &d->floor);
    if (d->overlap.have && ++parts)
        overlap_table(o, &d->overlap);
    if (!parts)
        fprintf(o, "No headline figures: none of the CSVs they come from is in this run directory.\n\n");
}
