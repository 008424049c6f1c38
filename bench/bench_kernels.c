/* bench_kernels — the roofline: GB/s of weights streamed by every format x ISA with the weights
 * in L2, in L3 and in DRAM (working sets from hwloc's cache sizes), at 1..N threads and batch 1..16.
 *
 * Each (format, ISA) is first checked against the scalar reference (a wrong kernel fails the run, exit 1,
 * before any timing). The activation is quantized once per point, outside the timed loop: the GB/s are the weight
 * stream's; the quantization's own cost per activation row is printed below the table. kernels.csv holds
 * one row per point; the summary under the table is the 1-thread, batch-1 roofline. */
#include <stdio.h>
#include <string.h>

#include "kern.h"
#include "kern_repack.h"
#include "pb_cli.h"
#include "pb_harness.h"
#include "pb_kernels_report.h"
#include "pb_kernels_run.h"
#include "pb_roof_report.h"
#include "pb_schema.h"

#define PROG "bench_kernels"

typedef struct kb_opts {
    pb_list formats, isas, levels, threads, batches, layouts;
    long cols, l2_kib, l3_kib;
    double budget_ms;
    const char *emulate;
    const char *counters; /* --counters LIST, NULL: none */
    const char *wisdom;   /* --wisdom FILE: its streaming settings */
} kb_opts;

typedef struct kb_ctx {
    kb_opts o;
    int cpus[POOL_MAX_THREADS];
    pb_kernels_plan plan;
    pb_kernels_run run;
    pb_harness h;
    pb_kernels_report report; /* kernels.csv, a row as each point is measured */
    pb_emulate emu;       /* --emulate-slow */
    pb_counters counters; /* --counters, on the main thread: the caller's share of every point */
    pb_wisdom wisdom;     /* --wisdom's, for its prefetch hint and distance */
    pb_roof_report roof;  /* the compute roof, of the ISAs the run measures */
    pb_csv *roof_csv;
} kb_ctx;

/* ---------------------------------------------------------------- options */

static int kb_parse(kb_ctx *c, int argc, char **argv)
{
    kb_opts *o = &c->o;
    o->cols = 4096;
    const pb_opt opts[] = {
        { .name = "format", .kind = PB_OPT_CHOICES, .dest = &o->formats, .choices = kern_format_names,
          .metavar = "LIST", .help = "weight formats, or all",
          .dflt = "all" },
        { .name = "isa", .kind = PB_OPT_CHOICES, .dest = &o->isas, .choices = kern_isa_names, .metavar = "LIST",
          .help = "the ISAs whose kernels run; one this CPU lacks is an error", .dflt = "every ISA this CPU runs",
          .env = KERN_ISA_ENV, .old_name = "variant", .old_env = KERN_ISA_ENV_OLD },
        { .name = "level", .kind = PB_OPT_CHOICES, .dest = &o->levels, .choices = pb_kernel_timing_level_names,
          .metavar = "LIST", .help = "working sets: l2 (half an L2 per thread), l3 (half an L3), dram", .dflt = "all" },
        { .name = "layout", .kind = PB_OPT_CHOICES, .dest = &o->layouts, .choices = kern_layout_names,
          .metavar = "LIST",
          .help = "weight layouts: file (the format's blocks as stored) or one repacked at load (docs/kernels.md); "
                  "each format runs those that fit it",
          .dflt = "all" },
        PB_OPT_THREADS(&o->threads, "", "1 and every PU"),
        { .name = "batch", .kind = PB_OPT_LIST, .dest = &o->batches, .min = 1, .max = KERN_GEMM_MAX,
          .metavar = "LIST", .help = "activation rows per weight pass (1 = matvec; up to 512, a prompt's GEMM)",
          .dflt = "1,4,16 (1,16 with --quick)" },
        { .name = "cols", .kind = PB_OPT_INT, .dest = &o->cols, .min = 256, .max = 1 << 20, .metavar = "N",
          .help = "weights per row, a multiple of 256", .dflt = "4096" },
        { .name = "l2-kib", .kind = PB_OPT_INT, .dest = &o->l2_kib, .min = 16, .max = 1 << 20, .metavar = "KIB",
          .help = "L2 size per core, overriding hwloc's", .dflt = "hwloc" },
        { .name = "l3-kib", .kind = PB_OPT_INT, .dest = &o->l3_kib, .min = 64, .max = 1 << 24, .metavar = "KIB",
          .help = "L3 size per instance, overriding hwloc's", .dflt = "hwloc" },
        { .name = "budget-ms", .kind = PB_OPT_DOUBLE, .dest = &o->budget_ms, .dmin = 1, .dmax = 60000,
          .metavar = "MS", .help = "sampling time per point", .dflt = "150 (30 with --quick)" },
        PB_OPT_EMULATE_SLOW(&o->emulate),
        PB_OPT_WISDOM(&o->wisdom),
        PB_OPT_COUNTERS(&o->counters),
        { 0 },
    };
    const pb_cli cli = { .prog = PROG, .opts = opts,
                         .summary = "Roofline of the matvec kernels: GB/s of weights per format and ISA with\n"
                                    "the weights in L2, L3 and DRAM, at 1..N threads and batch 1..16." };
    return pb_harness_setup(&c->h, &cli, "a short run (CI): under a minute", NULL, argc, argv);
}

static void kb_add_all(pb_list *l, int n)
{
    for (int i = 0; i < n; i++)
        l->v[l->n++] = i;
}

static int kb_defaults(kb_ctx *c)
{
    kb_opts *o = &c->o;
    char err[256];
    pool_config env = pool_config_default(); /* the pools read POOLBENCH_POLICY etc.: refused here, before any work */
    if (pool_config_from_env(&env, err, sizeof err) != 0)
        return pb_harness_refusef(&c->h, "%s", err);
    if (pb_harness_wisdom_path(&c->h, o->wisdom, false) != 0)
        return -1;
    if (pb_harness_emulate(&c->h, o->emulate, &c->emu) != 0)
        return -1;
    if (o->counters && pb_counters_open(&c->counters, o->counters, err, sizeof err) != 0)
        return pb_harness_refusef(&c->h, "%s", err);
    if (o->cols % 256 != 0)
        return pb_harness_refusef(&c->h, "--cols %ld: must be a multiple of 256 (tq2_0's block, the largest)",
                                  o->cols);
    if (o->formats.n == 0)
        kb_add_all(&o->formats, KERN_FORMAT_COUNT);
    if (o->levels.n == 0)
        kb_add_all(&o->levels, PB_KERNEL_TIMING_LEVELS);
    if (o->isas.n == 0) {
        for (int v = 0; v < KERN_ISA_COUNT; v++)
            if (kern_isa_supported((kern_isa)v))
                o->isas.v[o->isas.n++] = v;
    }
    for (int i = 0; i < o->isas.n; i++) {
        kern_isa v = (kern_isa)o->isas.v[i];
        if (!kern_isa_supported(v)) {
            char ok[64] = "";
            for (int k = 0; k < KERN_ISA_COUNT; k++)
                if (kern_isa_supported((kern_isa)k))
                    snprintf(ok + strlen(ok), sizeof ok - strlen(ok), "%s%s", *ok ? "," : "", kern_isa_names[k]);
            return pb_harness_refusef(&c->h, "--isa %s: this CPU or build cannot run it; this one runs %s",
                                      kern_isa_names[v], ok);
        }
    }
    if (o->batches.n == 0) {
        static const long quick[] = { 1, 16 }, full[] = { 1, 4, 16 };
        const long *b = c->h.quick ? quick : full;
        for (int i = 0; i < (c->h.quick ? 2 : 3); i++)
            o->batches.v[o->batches.n++] = b[i];
    }
    if (o->budget_ms == 0)
        o->budget_ms = c->h.quick ? 30 : 150;

    pb_kernels_plan *p = &c->plan;
    *p = (pb_kernels_plan){ .formats = &o->formats, .isas = &o->isas, .levels = &o->levels,
                        .threads = &o->threads, .batches = &o->batches, .layouts = &o->layouts,
                        .cols = (size_t)o->cols,
                        .budget_ms = o->budget_ms, .quick = c->h.quick, .cpus = c->cpus, .row = pb_kernels_report_row,
                        .ctx = &c->report, .emulate = c->emu.n ? &c->emu : NULL,
                        .counters = o->counters ? &c->counters : NULL,
                        .forced = o->isas.text != NULL };
    /* Placement: one thread per core first (pb_topo), wrapping for more threads than PUs. */
    if (pb_harness_spread(&c->h, c->cpus, &p->ncpus) != 0)
        return -1;
    if (o->threads.n == 0) {
        o->threads.v[o->threads.n++] = 1;
        if (p->ncpus > 1)
            o->threads.v[o->threads.n++] = p->ncpus;
    }
    return 0;
}



int main(int argc, char **argv)
{
    static kb_ctx c;
    if (kb_parse(&c, argc, argv) != 0 || kb_defaults(&c) != 0 || pb_harness_open(&c.h) != 0 ||
        !(c.report.csv = pb_harness_csv(&c.h, "kernels.csv", pb_schema_header(PB_K_KERNELS))) ||
        !(c.roof_csv = pb_harness_csv(&c.h, "roof.csv", pb_schema_header(PB_K_ROOF))))
        return pb_harness_refused(&c.h);
    c.report.run = &c.h.run;
    c.report.roof = &c.roof;
    pb_harness_wisdom_stream(&c.h, &c.wisdom); /* the dram points stream as a tuned decode would */
    pb_kernels_run_sizes(&c.plan.sizes, c.h.topo, &c.h.machine, c.o.l2_kib, c.o.l3_kib, c.h.quick);
    char err[512];
    if (pb_kernels_run_verify(&c.plan, err, sizeof err) != 0 ||
        pb_roof_report_measure(&c.roof, &c.o.isas, &c.o.threads, c.cpus, c.plan.ncpus, err, sizeof err) != 0 ||
        pb_kernels_run_all(&c.run, &c.plan, err, sizeof err) != 0)
        pb_harness_fail(&c.h, "%s", err);
    pb_roof_report_write(&c.roof, c.roof_csv, &c.h.run);
    pb_kernels_report_print(stdout, &c.plan, &c.run);
    pb_roof_report_print(stdout, &c.roof);
    static const char *const plots[] = { "kernels.png", "kernels_threads.png", "roofline.png", NULL };
    int rc = pb_harness_close(&c.h, "kernels.gp", plots);
    pb_kernels_run_free(&c.run);
    pb_counters_close(&c.counters);
    return rc;
}
