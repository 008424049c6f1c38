/* bench_kernels — the roofline: GB/s of weights streamed by every format x kernel variant with the weights
 * in L2, in L3 and in DRAM (working sets from hwloc's cache sizes), at 1..N threads and batch 1..16.
 *
 * Each (format, variant) is first checked against the scalar reference (a wrong kernel fails the run, exit 1,
 * before any timing). The activation is quantized once per point, outside the timed loop: the GB/s are the weight
 * stream's; the quantization's own cost per activation row is printed below the table. kernels.csv holds
 * one row per point; the summary under the table is the 1-thread, batch-1 roofline. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern.h"
#include "pb_cli.h"
#include "pb_csv.h"
#include "pb_harness.h"
#include "pb_schema.h"
#include "pb_kbench.h"
#include "pb_time.h"
#include "pb_tuning.h"

#define PROG "bench_kernels"
#define MIB (1024.0 * 1024.0)
/* An L3 instance larger than this, seen under a hypervisor, is the host's total, not what a vCPU owns. */
#define KB_L3_IMPLAUSIBLE (256ull << 20)
#define KB_L3_ASSUMED (32ull << 20)

static const char *const variant_names[KERN_VARIANT_COUNT + 1] = { "scalar", "avx2", "avx512", "neon", NULL };

typedef struct kb_opts {
    pb_list formats, variants, levels, threads, batches;
    long cols, l2_kib, l3_kib;
    double budget_ms;
    bool quick;
    const char *out, *run_dir;
} kb_opts;

typedef struct kb_row {
    pb_kbench_point pt;
    int threads;
    uint64_t bytes;
    pb_kbench_result r;
    double read_gbps; /* dram, 1 thread, batch 1: the plain read of the same buffer just before (NaN otherwise) */
} kb_row;

typedef struct kb_ctx {
    kb_opts o;
    uint64_t l2, l3, l3_total, dram; /* bytes: an L2 instance, an L3 instance, all L3, the DRAM working set */
    bool l3_guessed;
    int cpus[POOL_MAX_THREADS], ncpus;
    kb_row *rows;
    int nrows;
    double act_ns[KERN_FORMAT_COUNT];
    const char *read_kernel; /* pb_memread's kernel behind read_gbps */
    pb_harness h;
    pb_csv *csv;             /* kernels.csv, a row as each point is measured */
} kb_ctx;

/* ---------------------------------------------------------------- options */

static int kb_parse(kb_ctx *c, int argc, char **argv)
{
    kb_opts *o = &c->o;
    o->cols = 4096;
    const pb_opt opts[] = {
        { .name = "format", .kind = PB_OPT_CHOICES, .dest = &o->formats, .choices = kern_format_names,
          .metavar = "LIST", .help = "weight formats (f32, f16, q8_0, q4_0, q1_0, tq2_0, or all)", .dflt = "all" },
        { .name = "variant", .kind = PB_OPT_CHOICES, .dest = &o->variants, .choices = variant_names,
          .metavar = "LIST", .help = "kernel variants (scalar, avx2, avx512, neon); one this CPU lacks is an error",
          .dflt = "every variant this CPU runs", .env = "POOLBENCH_KERNEL" },
        { .name = "level", .kind = PB_OPT_CHOICES, .dest = &o->levels, .choices = pb_kbench_level_names,
          .metavar = "LIST", .help = "working sets: l2 (half an L2 per thread), l3 (half an L3), dram", .dflt = "all" },
        { .name = "threads", .kind = PB_OPT_LIST, .dest = &o->threads, .min = 1, .max = POOL_MAX_THREADS,
          .metavar = "LIST", .help = "thread counts, e.g. 1,2 or 1-8", .dflt = "1 and every PU" },
        { .name = "batch", .kind = PB_OPT_LIST, .dest = &o->batches, .min = 1, .max = KERN_BATCH_MAX,
          .metavar = "LIST", .help = "activation rows per weight pass (1 = matvec)",
          .dflt = "1,4,16 (1,16 with --quick)" },
        { .name = "cols", .kind = PB_OPT_INT, .dest = &o->cols, .min = 256, .max = 1 << 20, .metavar = "N",
          .help = "weights per row, a multiple of 256", .dflt = "4096" },
        { .name = "l2-kib", .kind = PB_OPT_INT, .dest = &o->l2_kib, .min = 16, .max = 1 << 20, .metavar = "KIB",
          .help = "L2 size per core, overriding hwloc's", .dflt = "hwloc" },
        { .name = "l3-kib", .kind = PB_OPT_INT, .dest = &o->l3_kib, .min = 64, .max = 1 << 24, .metavar = "KIB",
          .help = "L3 size per instance, overriding hwloc's", .dflt = "hwloc" },
        { .name = "budget-ms", .kind = PB_OPT_DOUBLE, .dest = &o->budget_ms, .dmin = 1, .dmax = 60000,
          .metavar = "MS", .help = "sampling time per point", .dflt = "150 (30 with --quick)" },
        PB_OPT_QUICK(&o->quick, "a short run (CI): under a minute"),
        PB_OPT_OUT(&o->out),
        PB_OPT_RUN_DIR(&o->run_dir),
        { 0 },
    };
    const pb_cli cli = { .prog = PROG, .opts = opts,
                         .summary = "Roofline of the matvec kernels: GB/s of weights per format and variant with\n"
                                    "the weights in L2, L3 and DRAM, at 1..N threads and batch 1..16." };
    if (pb_harness_parse(&c->h, &cli, argc, argv, NULL) != 0)
        return -1;
    return pb_harness_begin(&c->h, PROG, o->out, o->run_dir);
}

static void add_all(pb_list *l, int n)
{
    for (int i = 0; i < n; i++)
        l->v[l->n++] = i;
}

static int kb_defaults(kb_ctx *c, const pb_topo *topo)
{
    kb_opts *o = &c->o;
    if (o->cols % 256 != 0)
        return pb_harness_refusef(&c->h, "--cols %ld: must be a multiple of 256 (tq2_0's block, the largest)",
                                  o->cols);
    if (o->formats.n == 0)
        add_all(&o->formats, KERN_FORMAT_COUNT);
    if (o->levels.n == 0)
        add_all(&o->levels, PB_KB_LEVELS);
    if (o->variants.n == 0) {
        for (int v = 0; v < KERN_VARIANT_COUNT; v++)
            if (kern_variant_supported((kern_variant)v))
                o->variants.v[o->variants.n++] = v;
    }
    for (int i = 0; i < o->variants.n; i++) {
        kern_variant v = (kern_variant)o->variants.v[i];
        if (!kern_variant_supported(v)) {
            char ok[64] = "";
            for (int k = 0; k < KERN_VARIANT_COUNT; k++)
                if (kern_variant_supported((kern_variant)k))
                    snprintf(ok + strlen(ok), sizeof ok - strlen(ok), "%s%s", *ok ? "," : "", variant_names[k]);
            return pb_harness_refusef(&c->h, "--variant %s: this CPU or build cannot run it; this one runs %s",
                                      variant_names[v], ok);
        }
    }
    if (o->batches.n == 0) {
        static const long quick[] = { 1, 16 }, full[] = { 1, 4, 16 };
        const long *b = o->quick ? quick : full;
        for (int i = 0; i < (o->quick ? 2 : 3); i++)
            o->batches.v[o->batches.n++] = b[i];
    }
    if (o->budget_ms == 0)
        o->budget_ms = o->quick ? 30 : 150;

    /* Placement: one thread per core first (pb_topo), wrapping for more threads than PUs. */
    static pb_cpulist all, placed;
    char err[256];
    if (pb_topo_set(topo, "smt", &all, err, sizeof err) != 0 ||
        pb_topo_place(topo, &all, all.n, &placed, err, sizeof err) != 0)
        return pb_harness_refusef(&c->h, "topology: %s", err);
    for (int i = 0; i < placed.n; i++)
        c->cpus[c->ncpus++] = placed.cpu[i];
    if (o->threads.n == 0) {
        o->threads.v[o->threads.n++] = 1;
        if (c->ncpus > 1)
            o->threads.v[o->threads.n++] = c->ncpus;
    }
    return 0;
}

/* Cache sizes from hwloc (pb_topo), or the options. 0 when the machine has no such level. */
static uint64_t topo_cache(const pb_topo *t, int level, uint64_t *total)
{
    for (int i = 0; i < t->ncaches; i++) {
        if (t->cache[i].level == level) {
            *total = t->cache[i].total_bytes;
            return t->cache[i].bytes[0];
        }
    }
    *total = 0;
    return 0;
}

static void kb_sizes(kb_ctx *c, const pb_topo *topo, const pb_machine *m)
{
    uint64_t l2_total;
    c->l2 = c->o.l2_kib ? (uint64_t)c->o.l2_kib << 10 : topo_cache(topo, 2, &l2_total);
    if (c->l2 == 0)
        c->l2 = 256u << 10;
    c->l3 = topo_cache(topo, 3, &c->l3_total);
    uint64_t instances = c->l3 ? c->l3_total / c->l3 : 1;
    if (c->o.l3_kib) {
        c->l3 = (uint64_t)c->o.l3_kib << 10;
    } else if (m->hypervisor && c->l3 > KB_L3_IMPLAUSIBLE) {
        c->l3 = KB_L3_ASSUMED;
        c->l3_guessed = true;
    }
    c->l3_total = c->l3 * (instances ? instances : 1);
    uint64_t floor = (uint64_t)(c->o.quick ? 128 : 256) << 20;
    uint64_t want = (c->o.quick ? 2 : 4) * (c->l3_total ? c->l3_total : c->l2 * 8);
    c->dram = want > floor ? want : floor;
    if (m->memory && c->dram > m->memory / 4)
        c->dram = m->memory / 4;
}

static uint64_t level_bytes(const kb_ctx *c, pb_kbench_level level, int threads)
{
    switch (level) {
    case PB_KB_L2:
        return c->l2 / 2 * (uint64_t)threads;
    case PB_KB_L3:
        return c->l3 / 2;
    default:
        return c->dram;
    }
}

/* ---------------------------------------------------------------- measuring */

/* NULL after pb_harness_fail. */
static pool *make_pool(kb_ctx *c, int threads)
{
    char err[256];
    pool_config cfg = pool_config_default();
    if (pool_config_from_env(&cfg, err, sizeof err) != 0) {
        pb_harness_fail(&c->h, "%s", err);
        return NULL;
    }
    int cpus[POOL_MAX_THREADS];
    for (int i = 0; i < threads; i++)
        cpus[i] = c->cpus[i % c->ncpus];
    cfg.threads = threads;
    cfg.cpus = cpus;
    pool *p = pool_create(&cfg);
    if (!p)
        pb_harness_fail(&c->h, "a pool of %d threads: %s", threads, strerror(errno));
    return p;
}

#define KB_HEADER pb_schema_header(PB_K_KERNELS)

static void kb_write_row(const kb_ctx *c, const kb_row *r)
{
    const pb_value v[PB_KERNELS_NCOLS] = {
        [PB_KERNELS_run_id].s = c->h.run.run_id, [PB_KERNELS_host].s = c->h.run.host,
        [PB_KERNELS_format].s = kern_format_names[r->pt.fmt], [PB_KERNELS_variant].s = kern_variant_name(r->r.ran),
        [PB_KERNELS_rows].i = (long long)r->pt.rows, [PB_KERNELS_cols].i = (long long)r->pt.cols,
        [PB_KERNELS_batch].i = r->pt.batch, [PB_KERNELS_threads].i = r->threads, [PB_KERNELS_bytes].u = r->bytes,
        [PB_KERNELS_level].s = pb_kbench_level_names[r->pt.level], [PB_KERNELS_gbps_min].d = r->r.gbps.min,
        [PB_KERNELS_gbps_median].d = r->r.gbps.median, [PB_KERNELS_gbps_max].d = r->r.gbps.max,
        [PB_KERNELS_gops_median].d = r->r.gops_median, [PB_KERNELS_ns_per_row].d = r->r.ns_per_row,
    };
    pb_csv_values(c->csv, pb_schema_get(PB_K_KERNELS), v);
}

/* DRAM samples are windows of up to this many bytes (a few ms of streaming): long enough that the
 * prefetcher's ramp at a window's start and the timer do not show. */
#define DRAM_WINDOW(o) ((size_t)((o)->quick ? 16 : 32) << 20)

/* One point: the weights already in buf (rows of fmt); its row measured, kept and written to kernels.csv. 0, or
 * -1 after pb_harness_fail. */
static int kb_point(kb_ctx *c, pb_kbench_buf *buf, pool *p, pb_kbench_point pt, int threads, int total, uint64_t t0)
{
    const kb_opts *o = &c->o;
    kb_row *row = &c->rows[c->nrows];
    row->threads = threads;
    row->read_gbps = NAN;
    if (pt.level == PB_KB_DRAM && threads == 1 && pt.batch == 1) /* the floor just before */
        row->read_gbps = pb_kbench_read_gbps(buf, pt.rows * (size_t)kern_format_matrix_bytes(pt.fmt, 1, pt.cols),
                                             DRAM_WINDOW(o), o->budget_ms / 1e3, o->quick ? 3 : 5, &c->read_kernel);
    pt.pool = threads > 1 ? p : NULL;
    pt.window_bytes = pt.level == PB_KB_DRAM ? DRAM_WINDOW(o) : (size_t)8 << 20;
    pt.budget_s = o->budget_ms / 1e3;
    pt.min_samples = o->quick ? 3 : 5;
    pt.max_samples = 1000;
    pt.min_sample_us = pt.level == PB_KB_DRAM ? 1000 : o->quick ? 100 : 200;
    row->pt = pt;
    row->bytes = kern_format_matrix_bytes(pt.fmt, pt.rows, pt.cols);
    char what[64];
    snprintf(what, sizeof what, "%s %s %s threads=%d batch=%d", kern_format_names[pt.fmt],
             kern_variant_name(pt.variant), pb_kbench_level_names[pt.level], threads, pt.batch);
    pb_progress(c->nrows, total, t0, "%-44s", what);
    if (pb_kbench_measure(buf, &row->pt, &row->r) != 0)
        return pb_harness_fail(&c->h, "%s: %s", what, strerror(errno));
    kb_write_row(c, row);
    c->nrows++;
    return 0;
}

/* Every variant x batch at one (format, level, threads); false when a signal asked to stop or a point failed. */
static bool kb_block(kb_ctx *c, pb_kbench_buf *buf, pool *p, kern_format fmt, pb_kbench_level level, int threads,
                     int total, uint64_t t0)
{
    const kb_opts *o = &c->o;
    size_t rows = pb_kbench_buf_fill(buf, fmt, (size_t)o->cols, level_bytes(c, level, threads));
    for (int v = 0; v < o->variants.n; v++) {
        for (int b = 0; b < o->batches.n; b++) {
            if (!pb_harness_going(&c->h))
                return false;
            pb_kbench_point pt = { .fmt = fmt, .variant = (kern_variant)o->variants.v[v], .level = level,
                                   .cols = (size_t)o->cols, .rows = rows, .batch = (int)o->batches.v[b] };
            if (kb_point(c, buf, p, pt, threads, total, t0) != 0)
                return false;
        }
    }
    return true;
}

static void kb_measure_all(kb_ctx *c)
{
    const kb_opts *o = &c->o;
    int nt = o->threads.n;
    pool **pools = calloc((size_t)nt, sizeof *pools);
    uint64_t cap = 0;
    for (int l = 0; l < o->levels.n; l++)
        for (int t = 0; t < nt; t++) {
            uint64_t b = level_bytes(c, (pb_kbench_level)o->levels.v[l], (int)o->threads.v[t]);
            cap = b > cap ? b : cap;
        }
    int total = o->formats.n * o->levels.n * nt * o->variants.n * o->batches.n;
    c->rows = calloc((size_t)total, sizeof *c->rows);
    pb_kbench_buf buf;
    if (!pools || !c->rows || pb_kbench_buf_init(&buf, (size_t)cap + (1u << 20)) != 0) {
        pb_harness_fail(&c->h, "%.0f MiB of weights: %s", (double)cap / MIB, strerror(errno));
        free(pools);
        return;
    }
    bool go = true;
    for (int t = 0; t < nt && go; t++)
        go = (pools[t] = make_pool(c, (int)o->threads.v[t])) != NULL;
    uint64_t t0 = pb_now_ns();
    for (int f = 0; go && f < o->formats.n; f++) {
        kern_format fmt = (kern_format)o->formats.v[f];
        for (int l = 0; go && l < o->levels.n; l++)
            for (int t = 0; go && t < nt; t++) {
                /* The pools live together: the caller is bound to this one's cpus[0] for its block only. */
                if (pool_bind_caller(pools[t]) != 0) {
                    go = pb_harness_fail(&c->h, "binding to cpu %d: %s", c->cpus[0], strerror(errno)) == 0;
                    break;
                }
                go = kb_block(c, &buf, pools[t], fmt, (pb_kbench_level)o->levels.v[l], (int)o->threads.v[t], total,
                              t0);
                pool_unbind_caller(pools[t]);
            }
        if (go)
            c->act_ns[fmt] = pb_kbench_act_ns(fmt, (size_t)o->cols);
    }
    pb_progress_done(c->nrows, "points", t0);
    for (int t = 0; t < nt; t++)
        if (pools[t])
            pool_destroy(pools[t]);
    free(pools);
    pb_kbench_buf_free(&buf);
}

/* ---------------------------------------------------------------- reporting */

static const kb_row *find_row(const kb_ctx *c, kern_format f, kern_variant v, pb_kbench_level l, int threads,
                              int batch)
{
    for (int i = 0; i < c->nrows; i++) {
        const kb_row *r = &c->rows[i];
        if (r->pt.fmt == f && r->pt.variant == v && r->pt.level == l && r->threads == threads && r->pt.batch == batch)
            return r;
    }
    return NULL;
}

static void kb_print(const kb_ctx *c)
{
    printf("\nworking sets: l2 %.2f MiB per thread (half of %.0f KiB), l3 %.1f MiB (half of %.0f MiB%s), "
           "dram %.0f MiB; %ld columns\n",
           (double)c->l2 / 2 / MIB, (double)c->l2 / 1024, (double)c->l3 / 2 / MIB, (double)c->l3 / MIB,
           c->l3_guessed ? ", assumed" : "", (double)c->dram / MIB, c->o.cols);
    if (c->l3_guessed)
        printf("***WARNING*** hwloc reports an L3 over %llu MiB per instance under a hypervisor, which is the host's "
               "total; %llu MiB assumed (set --l3-kib)\n",
               KB_L3_IMPLAUSIBLE >> 20, KB_L3_ASSUMED >> 20);
    printf("\n%-6s %-7s %-5s %3s %5s %9s %9s %17s %9s %9s %7s\n", "format", "variant", "level", "thr", "batch", "MiB",
           "GB/s", "(min-max)", "Gop/s", "ns/row", "x_read");
    for (int i = 0; i < c->nrows; i++) {
        const kb_row *r = &c->rows[i];
        bool noisy = r->r.gbps.spread > PB_NOISY_SPREAD;
        char ratio[16] = "-";
        if (!isnan(r->read_gbps))
            snprintf(ratio, sizeof ratio, "%.0f%%", 100 * r->r.gbps.median / r->read_gbps);
        printf("%-6s %-7s %-5s %3d %5d %9.2f %9.2f %8.2f-%-8.2f %9.2f %9.1f %7s%s\n", kern_format_names[r->pt.fmt],
               kern_variant_name(r->pt.variant), pb_kbench_level_names[r->pt.level], r->threads, r->pt.batch,
               (double)r->bytes / MIB, r->r.gbps.median, r->r.gbps.min, r->r.gbps.max, r->r.gops_median,
               r->r.ns_per_row, ratio, noisy ? PB_NOISY_NOTE : "");
    }
    printf("\nGB/s: weight bytes per second, median over samples (1e9 B/s); Gop/s: weights x batch per second;\n"
           "x_read (dram, 1 thread, batch 1): GB/s over the median of pb_memread's '%s' read of the same\n"
           "buffer, measured just before each point (the memory floor side by side: a vCPU move between runs\n"
           "cannot skew the ratio).\n",
           c->read_kernel ? c->read_kernel : "-");

    printf("\nroofline, 1 thread, batch 1 (GB/s median):\n%-6s %-7s", "format", "variant");
    for (int l = 0; l < c->o.levels.n; l++)
        printf(" %8s", pb_kbench_level_names[c->o.levels.v[l]]);
    printf(" %8s\n", "x_read");
    for (int f = 0; f < c->o.formats.n; f++) {
        for (int v = 0; v < c->o.variants.n; v++) {
            printf("%-6s %-7s", kern_format_names[c->o.formats.v[f]], variant_names[c->o.variants.v[v]]);
            for (int l = 0; l < c->o.levels.n; l++) {
                const kb_row *r = find_row(c, (kern_format)c->o.formats.v[f], (kern_variant)c->o.variants.v[v],
                                           (pb_kbench_level)c->o.levels.v[l], 1, 1);
                if (r)
                    printf(" %8.2f", r->r.gbps.median);
                else
                    printf(" %8s", "-");
            }
            const kb_row *d = find_row(c, (kern_format)c->o.formats.v[f], (kern_variant)c->o.variants.v[v], PB_KB_DRAM,
                                       1, 1);
            if (d && !isnan(d->read_gbps))
                printf(" %7.0f%%", 100 * d->r.gbps.median / d->read_gbps);
            printf("\n");
        }
    }
    printf("\nactivation quantization, once per matvec and not in the GB/s above (ns per %ld-value row):", c->o.cols);
    for (int f = 0; f < c->o.formats.n; f++) {
        double ns = c->act_ns[c->o.formats.v[f]]; /* 0: a signal stopped the run before this format */
        if (ns > 0)
            printf(" %s %.0f", kern_format_names[c->o.formats.v[f]], ns);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    static kb_ctx c;
    if (kb_parse(&c, argc, argv) != 0 || kb_defaults(&c, c.h.topo) != 0 || pb_harness_open(&c.h) != 0 ||
        !(c.csv = pb_harness_csv(&c.h, "kernels.csv", KB_HEADER)))
        return pb_harness_refused(&c.h);
    kb_sizes(&c, c.h.topo, &c.h.machine);

    char err[512];
    /* The scalar kernel is the oracle: a variant that disagrees is not worth timing. */
    for (int f = 0; f < c.o.formats.n && pb_harness_going(&c.h); f++)
        for (int v = 0; v < c.o.variants.n && pb_harness_going(&c.h); v++)
            if (pb_kbench_verify((kern_format)c.o.formats.v[f], (kern_variant)c.o.variants.v[v], (size_t)c.o.cols,
                                 err, sizeof err) != 0)
                pb_harness_fail(&c.h, "verification failed: %s", err);
    if (pb_harness_going(&c.h))
        kb_measure_all(&c);
    kb_print(&c);
    static const char *const plots[] = { "kernels.png", "kernels_threads.png", NULL };
    int rc = pb_harness_close(&c.h, "kernels.gp", plots);
    free(c.rows);
    return rc;
}
