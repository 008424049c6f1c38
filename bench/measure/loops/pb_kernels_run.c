/* pb_kernels_run.c — see pb_kernels_run.h. */
#include "pb_kernels_run.h"

#include "pb_poolclock.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_err.h"
#include "pb_kernel_choice.h"
#include "pb_progress.h"
#include "pb_stop.h"
#include "pb_time.h"

#define MIB (1024.0 * 1024.0)
/* DRAM samples are windows of up to this many bytes (a few ms of streaming): long enough that the prefetcher's
 * ramp at a window's start and the timer do not show. */
#define DRAM_WINDOW(p) ((size_t)((p)->quick ? 16 : 32) << 20)

/* ---------------------------------------------------------------- sizes */

/* A cache level's size per instance from hwloc (pb_topo), its total in *total. 0 when there is no such level. */
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

void pb_kernels_run_sizes(pb_kernels_sizes *s, const pb_topo *t, const pb_machine *m, long l2_kib, long l3_kib, bool quick)
{
    uint64_t l2_total;
    *s = (pb_kernels_sizes){ .l2 = l2_kib ? (uint64_t)l2_kib << 10 : topo_cache(t, 2, &l2_total) };
    if (s->l2 == 0)
        s->l2 = 256u << 10;
    s->l3 = topo_cache(t, 3, &s->l3_total);
    uint64_t instances = s->l3 ? s->l3_total / s->l3 : 1;
    /* dram must be out of every cache the hardware may have: sized from the L3 hwloc reports, even when the l3
     * level below takes a smaller guess. A host total under a hypervisor may be real to the guest, and a window
     * sized from a smaller guess then runs from the L3 (docs/kernels.md, reading a kernel figure). */
    uint64_t reported_total = s->l3_total;
    if (l3_kib) {
        s->l3 = (uint64_t)l3_kib << 10;
    } else if (m->hypervisor && s->l3 > PB_KERNELS_L3_IMPLAUSIBLE) {
        s->l3 = PB_KERNELS_L3_ASSUMED;
        s->l3_guessed = true;
    }
    s->l3_total = s->l3 * (instances ? instances : 1);
    uint64_t largest = s->l3_total > reported_total ? s->l3_total : reported_total;
    uint64_t floor = (uint64_t)(quick ? 128 : 256) << 20;
    uint64_t want = (quick ? 2 : 4) * (largest ? largest : s->l2 * 8);
    s->dram = want > floor ? want : floor;
    uint64_t memory = pb_machine_alloc_bytes(m);
    if (memory && s->dram > memory / 4)
        s->dram = memory / 4;
}

static uint64_t level_bytes(const pb_kernels_sizes *s, pb_kernel_timing_level level, int threads)
{
    switch (level) {
    case PB_KERNEL_TIMING_L2:
        return s->l2 / 2 * (uint64_t)threads;
    case PB_KERNEL_TIMING_L3:
        return s->l3 / 2;
    default:
        return s->dram;
    }
}

int pb_kernels_run_verify(const pb_kernels_plan *p, char *err, size_t errlen)
{
    char why[512];
    for (int f = 0; f < p->formats->n; f++)
        for (int v = 0; v < p->isas->n; v++)
            if (pb_kernel_timing_verify((kern_format)p->formats->v[f], (kern_isa)p->isas->v[v], p->cols, why,
                                        sizeof why) != 0)
                return pb_errf(err, errlen, "verification failed: %s", why);
    return 0;
}

/* ---------------------------------------------------------------- points */

/* One point: the weights already in buf (rows of pt.fmt); its row measured, kept and handed to the caller. */
static int krun_point(pb_kernels_run *run, const pb_kernels_plan *p, pb_kernel_timing_buf *buf, pool *pl,
                      pb_kernel_timing_point pt, int threads, char *err, size_t errlen)
{
    pb_kernels_row *row = &run->rows[run->nrows];
    row->threads = threads;
    row->read_gbps = NAN;
    row->read_kernel = "";
    if (pt.level == PB_KERNEL_TIMING_DRAM && threads == 1 && pt.batch == 1) { /* the floor just before */
        size_t bytes = pt.rows * (size_t)kern_format_matrix_bytes(pt.fmt, 1, pt.cols);
        double budget = p->budget_ms / 1e3;
        int samples = p->quick ? 3 : 5;
        if (!run->read_kern) /* chosen once, at the first such point, then measured beside every one */
            run->read_kern = pb_kernel_timing_best_read(buf, bytes, DRAM_WINDOW(p), budget, samples);
        row->read_gbps = pb_kernel_timing_read_gbps(buf, run->read_kern, bytes, DRAM_WINDOW(p), budget, samples);
        row->read_kernel = run->read_kern ? run->read_kern->name : "";
    }
    pt.pool = threads > 1 || p->emulate ? pl : NULL; /* an emulated cpu is stretched by its pool's observer */
    int cpus[POOL_MAX_THREADS];
    for (int i = 0; i < threads; i++)
        cpus[i] = p->cpus[i % p->ncpus];
    pb_emulate_text(p->emulate, cpus, threads, row->emulate, sizeof row->emulate);
    pt.window_bytes = pt.level == PB_KERNEL_TIMING_DRAM ? DRAM_WINDOW(p) : (size_t)8 << 20;
    pt.budget_s = p->budget_ms / 1e3;
    pt.min_samples = p->quick ? 3 : 5;
    pt.max_samples = 1000;
    pt.min_sample_us = pt.level == PB_KERNEL_TIMING_DRAM ? 1000 : p->quick ? 100 : 200;
    row->pt = pt;
    row->bytes = kern_format_matrix_bytes(pt.fmt, pt.rows, pt.cols);
    row->layout_bytes = kern_repack_bytes(pt.layout, pt.fmt, pt.rows, pt.cols);
    if (pb_kernel_timing_buf_repack(buf, pt.layout, pt.rows) != 0)
        return pb_errf(err, errlen, "%s: repacking %zu rows: %s", kern_layout_names[pt.layout], pt.rows,
                       strerror(errno));
    row->repack_ms = pt.layout == KERN_LAYOUT_FILE ? NAN : buf->repack_ms;
    char what[80];
    snprintf(what, sizeof what, "%s %s %s %s threads=%d batch=%d", kern_format_names[pt.fmt],
             kern_isa_name(pt.isa), kern_layout_names[pt.layout], pb_kernel_timing_level_names[pt.level], threads,
             pt.batch);
    pb_progress(run->nrows, run->total, run->t0, "%-44s", what);
    row->ghz_before = pb_poolclock_ghz(pt.pool);
    if (p->counters)
        pb_counters_start(p->counters);
    if (pb_kernel_timing_measure(buf, &row->pt, &row->r) != 0)
        return pb_errf(err, errlen, "%s: %s", what, strerror(errno));
    row->ipc = pb_counters_finish(p->counters, row->counters, sizeof row->counters);
    row->ghz_after = pb_poolclock_ghz(pt.pool);
    row->why = pb_kernel_why_names[p->forced ? PB_KERNEL_WHY_FORCED : PB_KERNEL_WHY_ALL];
    /* the file's passes prefetch at DRAM size only (the cache levels run their cached twins); a repacked
     * layout's kernel prefetches at every level */
    bool streams = pt.layout != KERN_LAYOUT_FILE || pt.level == PB_KERNEL_TIMING_DRAM;
    row->stream = streams && kern_repack_prefetches(pt.layout, pt.fmt, row->r.ran)
                      ? kern_prefetch_setting_name(kern_prefetch_temporal, kern_prefetch_ahead, kern_prefetch_near)
                      : "off";
    p->row(p->ctx, row);
    run->nrows++;
    return 0;
}

/* Whether ISA v measures the ISA that ran for it: itself, or a fallback no other asked-for ISA measures. */
static bool krun_ran_is_own(const pb_kernels_plan *p, int v, kern_isa ran)
{
    if (ran == (kern_isa)p->isas->v[v])
        return true;
    for (int i = 0; i < p->isas->n; i++)
        if ((kern_isa)p->isas->v[i] == ran)
            return false;
    return true;
}

bool pb_kernels_run_measures(const pb_kernels_plan *p, kern_format fmt, int v)
{
    return krun_ran_is_own(p, v, kern_matvec_isa(fmt, (kern_isa)p->isas->v[v]));
}

int pb_kernels_run_layouts(const pb_kernels_plan *p)
{
    return p->layouts && p->layouts->n > 0 ? p->layouts->n : KERN_LAYOUT_COUNT;
}

kern_layout pb_kernels_run_layout(const pb_kernels_plan *p, int l)
{
    return p->layouts && p->layouts->n > 0 ? (kern_layout)p->layouts->v[l] : (kern_layout)l;
}

bool pb_kernels_run_measures_layout(const pb_kernels_plan *p, kern_format fmt, int v, int l)
{
    kern_layout lay = pb_kernels_run_layout(p, l);
    if (lay == KERN_LAYOUT_FILE)
        return pb_kernels_run_measures(p, fmt, v);
    if (!kern_layout_fits(lay, fmt, p->cols))
        return false;
    /* a layout's scalar kernel is its oracle, not a contender (bench_tune never picks it): only asked by name */
    kern_isa want = (kern_isa)p->isas->v[v], ran = kern_repack_isa(lay, fmt, want);
    return (ran != KERN_ISA_SCALAR || want == KERN_ISA_SCALAR) && krun_ran_is_own(p, v, ran);
}

/* Every ISA x layout x batch at one (format, level, threads). A repacked layout takes whole groups of rows. */
static int krun_block(pb_kernels_run *run, const pb_kernels_plan *p, pb_kernel_timing_buf *buf, pool *pl,
                      kern_format fmt, pb_kernel_timing_level level, int threads, char *err, size_t errlen)
{
    size_t rows = pb_kernel_timing_buf_fill(buf, fmt, p->cols, level_bytes(&p->sizes, level, threads));
    for (int v = 0; v < p->isas->n; v++) {
        for (int l = 0; l < pb_kernels_run_layouts(p); l++) {
            if (!pb_kernels_run_measures_layout(p, fmt, v, l))
                continue;
            kern_layout lay = pb_kernels_run_layout(p, l);
            size_t g = (size_t)kern_layout_get(lay)->rows;
            if (rows < g) /* not one group fits this level */
                continue;
            for (int b = 0; b < p->batches->n && !pb_stop_signal(); b++) {
                pb_kernel_timing_point pt = { .fmt = fmt, .isa = (kern_isa)p->isas->v[v], .layout = lay,
                                              .level = level, .cols = p->cols, .rows = rows / g * g,
                                              .batch = (int)p->batches->v[b] };
                if (krun_point(run, p, buf, pl, pt, threads, err, errlen) != 0)
                    return -1;
            }
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- pools and formats */

/* A pool of `threads` pinned in the plan's order (POOLBENCH_POLICY and friends apply), its slices observed by sl
 * (the emulated slow cpus), or NULL with err. */
static pool *krun_pool(const pb_kernels_plan *p, int threads, pb_slices *sl, char *err, size_t errlen)
{
    char why[256];
    pool_config cfg = pool_config_default();
    if (pool_config_from_env(&cfg, why, sizeof why) != 0) {
        pb_errf(err, errlen, "%s", why);
        return NULL;
    }
    int cpus[POOL_MAX_THREADS];
    for (int i = 0; i < threads; i++)
        cpus[i] = p->cpus[i % p->ncpus];
    cfg.threads = threads;
    cfg.cpus = cpus;
    if (pb_slices_init(sl, threads, cpus, p->emulate) != 0) {
        pb_errf(err, errlen, "a pool of %d threads: %s", threads, strerror(errno));
        return NULL;
    }
    cfg.hook = pb_slices_hook(sl);
    pool *pl = pool_create(&cfg);
    if (!pl)
        pb_errf(err, errlen, "a pool of %d threads: %s", threads, strerror(errno));
    return pl;
}

/* Every level x thread count of one format. The pools live together: the caller is bound to one's cpus[0] for
 * its block only. */
static int krun_format(pb_kernels_run *run, const pb_kernels_plan *p, pb_kernel_timing_buf *buf, pool **pools,
                       kern_format fmt, char *err, size_t errlen)
{
    for (int l = 0; l < p->levels->n; l++)
        for (int t = 0; t < p->threads->n && !pb_stop_signal(); t++) {
            if (pool_bind_caller(pools[t]) != 0)
                return pb_errf(err, errlen, "binding to cpu %d: %s", p->cpus[0], strerror(errno));
            int rc = krun_block(run, p, buf, pools[t], fmt, (pb_kernel_timing_level)p->levels->v[l],
                               (int)p->threads->v[t], err, errlen);
            pool_unbind_caller(pools[t]);
            if (rc != 0)
                return -1;
        }
    if (!pb_stop_signal())
        run->act_ns[fmt] = pb_kernel_timing_act_ns(fmt, p->cols);
    return 0;
}

/* The largest working set any point needs: the buffer's size. */
static uint64_t krun_cap(const pb_kernels_plan *p)
{
    uint64_t cap = 0;
    for (int l = 0; l < p->levels->n; l++)
        for (int t = 0; t < p->threads->n; t++) {
            uint64_t b = level_bytes(&p->sizes, (pb_kernel_timing_level)p->levels->v[l], (int)p->threads->v[t]);
            cap = b > cap ? b : cap;
        }
    return cap;
}

int pb_kernels_run_all(pb_kernels_run *run, const pb_kernels_plan *p, char *err, size_t errlen)
{
    int nt = p->threads->n;
    memset(run, 0, sizeof *run);
    for (int f = 0; f < p->formats->n; f++) /* run->total: 0 from the memset */
        for (int v = 0; v < p->isas->n; v++)
            for (int l = 0; l < pb_kernels_run_layouts(p); l++)
                run->total += pb_kernels_run_measures_layout(p, (kern_format)p->formats->v[f], v, l)
                                  ? p->levels->n * nt * p->batches->n
                                  : 0;
    run->rows = calloc((size_t)run->total, sizeof *run->rows);
    pool **pools = calloc((size_t)nt, sizeof *pools);
    pb_slices *slices = calloc((size_t)nt, sizeof *slices); /* one per pool: its observer's accounts */
    uint64_t cap = krun_cap(p);
    pb_kernel_timing_buf buf;
    if (!pools || !slices || !run->rows || pb_kernel_timing_buf_init(&buf, (size_t)cap + (1u << 20)) != 0) {
        free(pools);
        free(slices);
        return pb_errf(err, errlen, "%.0f MiB of weights: %s", (double)cap / MIB, strerror(errno));
    }
    int rc = 0;
    for (int t = 0; t < nt && rc == 0; t++)
        rc = (pools[t] = krun_pool(p, (int)p->threads->v[t], &slices[t], err, errlen)) ? 0 : -1;
    run->t0 = pb_now_ns();
    for (int f = 0; f < p->formats->n && rc == 0 && !pb_stop_signal(); f++)
        rc = krun_format(run, p, &buf, pools, (kern_format)p->formats->v[f], err, errlen);
    pb_progress_done(run->nrows, "points", run->t0);
    for (int t = 0; t < nt; t++) {
        if (pools[t])
            pool_destroy(pools[t]);
        pb_slices_free(&slices[t]); /* after its pool: the observer writes into it until then */
    }
    free(pools);
    free(slices);
    pb_kernel_timing_buf_free(&buf);
    return rc;
}

const pb_kernels_row *pb_kernels_run_find(const pb_kernels_run *run, kern_format f, kern_isa v, kern_layout layout,
                              pb_kernel_timing_level level, int threads, int batch)
{
    for (int i = 0; i < run->nrows; i++) {
        const pb_kernels_row *r = &run->rows[i];
        if (r->pt.fmt == f && r->pt.isa == v && r->pt.layout == layout && r->pt.level == level &&
            r->threads == threads &&
            r->pt.batch == batch)
            return r;
    }
    return NULL;
}

void pb_kernels_run_free(pb_kernels_run *run)
{
    free(run->rows);
    run->rows = NULL;
}

double pb_kernels_row_x_read(const pb_kernels_row *r)
{
    return r->r.gbps.median / r->read_gbps; /* NaN without a read beside it */
}

const pb_kernels_row *pb_kernels_run_over_floor(const pb_kernels_run *run, double pct, int *count)
{
    const pb_kernels_row *worst = NULL;
    double worst_x = pct / 100;
    *count = 0;
    for (int i = 0; i < run->nrows; i++) {
        const pb_kernels_row *r = &run->rows[i];
        double x = pb_kernels_row_x_read(r); /* NaN: never above */
        if (!(x > pct / 100))
            continue;
        ++*count;
        if (x > worst_x) {
            worst_x = x;
            worst = r;
        }
    }
    return worst;
}
