/* bench_tune — wisdom (pb_wisdom.h): per format, every matvec kernel this CPU runs and each of its streaming settings
 * timed at the size a decode streams (DRAM-size weights, 1 thread and all threads), the fastest kept; and the spin
 * pool's shape (flat or tree) by its dispatch at each thread count from 2.
 * The choices go to a wisdom file keyed by this cpu and build, which every harness that
 * runs kernels then reads (--wisdom, POOLBENCH_WISDOM; default results/<host>/wisdom). Each kernel is checked against
 * the scalar reference first: a wrong one fails the run (exit 1) before any timing. */
#include <stdio.h>
#include <string.h>

#include "pb_cli.h"
#include "pb_harness.h"
#include "pb_kernels_run.h"
#include "pb_sampler.h"
#include "pb_time.h"
#include "pb_tune_measure.h"

#define PROG "bench_tune"
/* The row width the kernels are timed at: the default decode's (qwen3-0.6b: all but its down matrices are 1024
 * wide). At 4096 a file kernel's per-row costs weigh a quarter as much, so its choices missed repacked layouts
 * that make the decode faster. */
#define BT_COLS 1024
/* Of the budget, the points' sampling gets this share; filling the buffer once per format takes the rest (and each
 * point's warm-up and its least 3 samples, which a point takes however short its share). */
#define BT_POINTS_SHARE 0.8
/* The steal the wisdom records is the worst of these intervals on a tuned cpu: a burst of a second that takes
 * half a core moves the pairs it lands on, where the tuning's mean would hide it. */
#define BT_STEAL_INTERVAL_MS 1000

typedef struct bt_opts {
    pb_list formats, threads;
    double budget_s;
    long size_mib;
    const char *wisdom;
    bool quick, if_missing;
} bt_opts;

typedef struct bt_run {
    bt_opts o;
    pb_harness h;
    int cpus[POOL_MAX_THREADS], ncpus;
    pb_tune_plan plan;
    char cpu[PB_WISDOM_ID], build[PB_WISDOM_ID];
    pb_wisdom w;
    uint64_t t0; /* the start: the budget counts from it */
} bt_run;

static int bt_parse(bt_run *r, int argc, char **argv)
{
    bt_opts *o = &r->o;
    const pb_opt opts[] = {
        { .name = "format", .kind = PB_OPT_CHOICES, .dest = &o->formats, .choices = kern_format_names,
          .metavar = "LIST", .help = "weight formats to tune (the others' entries in the file stay)", .dflt = "all" },
        PB_OPT_THREADS(&o->threads, " (at most " PB_STR(PB_TUNE_MAX_THREADS) " counts)", "1 and every PU"),
        { .name = "budget-s", .kind = PB_OPT_DOUBLE, .dest = &o->budget_s, .dmin = 1, .dmax = 3600, .metavar = "S",
          .help = "about how long the whole tuning takes", .dflt = "30 (10 with --quick)" },
        { .name = "size-mib", .kind = PB_OPT_INT, .dest = &o->size_mib, .min = 1, .max = 1 << 20, .metavar = "MIB",
          .help = "weights streamed per point (smaller than the last-level cache times the cache, not memory)",
          .dflt = "bench_kernels' dram level: 4 x the last-level cache (2 x with --quick), at least 256 MiB" },
        PB_OPT_WISDOM(&o->wisdom),
        { .name = "if-missing", .kind = PB_OPT_FLAG, .dest = &o->if_missing,
          .help = "measure only when the file holds no wisdom of this cpu and build (make report)" },
        PB_OPT_QUICK(&o->quick, "a short tuning: a smaller buffer, 10 s"),
        { 0 },
    };
    const pb_cli cli = {
        .prog = PROG,
        .opts = opts,
        .summary = "Wisdom: every kernel variant this CPU runs, with and without its software prefetch and under\n"
                   "each prefetch hint, timed per format at DRAM size, 1 thread and all (then the prefetch\n"
                   "distance and the near prefetch into L1 on the fastest); the fastest of each is\n"
                   "written to the wisdom file the harnesses read, with the spin pool's faster shape (flat or\n"
                   "tree, by its dispatch) at each thread count from 2.",
    };
    if (pb_harness_parse(&r->h, &cli, argc, argv, NULL) != 0)
        return -1;
    return pb_harness_begin(&r->h, PROG, NULL, NULL);
}

static int bt_defaults(bt_run *r)
{
    bt_opts *o = &r->o;
    pb_tune_plan *p = &r->plan;
    char err[256];
    pool_config env = pool_config_default();
    if (pool_config_from_env(&env, err, sizeof err) != 0)
        return pb_harness_refusef(&r->h, "%s", err);
    if (pb_harness_spread(&r->h, r->cpus, &r->ncpus) != 0)
        return -1;
    *p = (pb_tune_plan){ .dispatch = true };
    for (int i = 0; i < (o->formats.n ? o->formats.n : KERN_FORMAT_COUNT); i++)
        p->formats[p->nformats++] = (kern_format)(o->formats.n ? o->formats.v[i] : i);
    if (o->threads.n == 0) {
        p->threads[p->nthreads++] = 1;
        if (r->ncpus > 1)
            p->threads[p->nthreads++] = r->ncpus;
    }
    if (o->threads.n > PB_TUNE_MAX_THREADS)
        return pb_harness_refuse_opt(&r->h, "threads", o->threads.text, "at most %d thread counts",
                                     PB_TUNE_MAX_THREADS);
    for (int i = 0; i < o->threads.n; i++) {
        if (o->threads.v[i] > r->ncpus)
            return pb_harness_refuse_opt(&r->h, "threads", o->threads.text, "%ld is more than the %d PUs here",
                                         o->threads.v[i], r->ncpus);
        p->threads[p->nthreads++] = (int)o->threads.v[i];
    }
    if (o->budget_s == 0)
        o->budget_s = o->quick ? 10 : 30;
    pb_harness_probe(&r->h);
    uint64_t memory = pb_machine_alloc_bytes(&r->h.machine);
    if (o->size_mib && memory && (uint64_t)o->size_mib << 20 > memory / 2)
        return pb_harness_refuse_opt(&r->h, "size-mib", NULL, "%ld MiB is more than half of this machine's %llu MiB",
                                     o->size_mib, (unsigned long long)(memory >> 20));
    /* a capped tuning's choices are not this machine's best: they go to a file of their own */
    const char *var;
    if (kern_isa_env(&var) && (!o->wisdom || !o->wisdom[0]))
        return pb_harness_refusef(&r->h, "%s=%s caps the tuning at %s: give its wisdom a file of its own (--wisdom "
                                         "FILE), not this machine's results/<host>/wisdom",
                                  var, kern_isa_name(kern_isa_chosen()), kern_isa_name(kern_isa_chosen()));
    return pb_harness_wisdom_path(&r->h, o->wisdom, true);
}

/* Every kernel the plan times, against the scalar reference. 0, or -1 with the reason in err. */
static int bt_verify(const bt_run *r, char *err, size_t errlen)
{
    for (int f = 0; f < r->plan.nformats; f++) {
        pb_tune_cand c[PB_TUNE_MAX_CANDS];
        int n = pb_tune_candidates(r->plan.formats[f], 1, c, PB_TUNE_MAX_CANDS);
        for (int i = 0; i < n; i++)
            if (pb_kernel_timing_verify(c[i].fmt, c[i].isa, BT_COLS, err, errlen) != 0)
                return -1;
    }
    return 0;
}

static void bt_print(const pb_wisdom *w, FILE *f)
{
    if (w->has_streaming)
        fprintf(f, "\nstreaming: %s, %s (%s; the best point's median ratio to the vendor's %.3f)\n",
                kern_prefetch_setting_name(w->temporal, w->distance, w->near),
                w->streaming_tuned ? "tuned" : "rank", w->streaming_tuned ? "they really beat the vendor's"
                                                                          : "the vendor's kept",
                w->streaming_vs);
    fprintf(f, "\n%-7s %7s  %-11s %-10s %9s  %-12s %-5s %s\n", "format", "threads", "kernel", "prefetch", "GB/s",
            "layout", "why", "x rank");
    for (int i = 0; i < w->nkernels; i++) {
        const pb_wisdom_kernel *k = &w->kernel[i];
        fprintf(f, "%-7s %7d  %-11s %-10s %9.2f  %-12s %-5s %.3f\n", kern_format_names[k->fmt], k->threads,
                kern_isa_name(k->isa),
                k->prefetch && w->has_hint ? kern_prefetch_setting_name(w->temporal, w->has_distance ? w->distance
                                                                                                     : KERN_PREFETCH_BYTES,
                                                                        w->has_near ? w->near : kern_prefetch_vendor_near())
                : k->prefetch              ? "on"
                                           : "off",
                k->gbps, kern_layout_names[k->layout], k->tuned ? "tuned" : "rank", k->vs_rank);
    }
    for (int i = 0; i < w->ndispatch; i++) {
        const pb_wisdom_dispatch *d = &w->dispatch[i];
        fprintf(f, "%-8s %6d  %-4s (flat %.1f ns, tree %.1f ns)\n", "dispatch", d->threads, d->tree ? "tree" : "flat",
                d->flat_ns, d->tree_ns);
    }
}

/* The worst interval's steal on any of the tuned cpus from sampler s (stopped and freed here) into w; w keeps no
 * figure when none was sampled. */
static void bt_steal(pb_sampler *s, pb_wisdom *w)
{
    pb_sampler_result res;
    pb_sampler_stop(s, &res); /* what it gathered, even where a reading failed */
    w->has_steal = res.nsamples > 0;
    w->steal_pct = 0;
    for (size_t i = 0; i < res.nsamples; i++)
        if (res.samples[i].steal > w->steal_pct) /* a NaN (no tick) is not above */
            w->steal_pct = res.samples[i].steal;
    pb_sampler_result_free(&res);
    if (w->has_steal)
        printf("steal: the hypervisor took up to %.1f%% of a tuned cpu in a %d ms interval of the tuning\n",
               w->steal_pct, BT_STEAL_INTERVAL_MS);
    if (pb_wisdom_noisy(w))
        fprintf(stderr, "%s: the hypervisor took up to %.1f%% of a tuned cpu (over %.0f%%): choices made under it "
                "may be its noise; bench_tune --if-missing (make report) measures them again\n", PROG, w->steal_pct,
                PB_STEAL_NOISY_PCT);
}

/* Times the plan into r->w (kept entries first: the file's, when it is this machine's). 0, 1 (a point failed, or
 * nothing could be timed), or 128 + a signal. */
static int bt_tune(bt_run *r)
{
    char err[512];
    pb_kernels_sizes sizes;
    pb_kernels_run_sizes(&sizes, r->h.topo, &r->h.machine, 0, 0, r->o.quick);
    if (r->o.size_mib)
        sizes.dram = (uint64_t)r->o.size_mib << 20;
    int points = pb_tune_points(&r->plan);
    double budget = r->o.budget_s - (double)(pb_now_ns() - r->t0) / 1e9; /* what verifying left */
    pb_tune_bench b;
    if (pb_tune_bench_open(&b, (size_t)sizes.dram, BT_COLS, r->cpus, r->ncpus, budget * BT_POINTS_SHARE,
                           (size_t)(r->o.quick ? 16 : 32) << 20, points, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return 1;
    }
    printf("tuning %d formats at %d thread count%s: %d points in about %.0f s, on %zu MiB of weights\n",
           r->plan.nformats, r->plan.nthreads, r->plan.nthreads == 1 ? "" : "s", points, budget,
           (size_t)sizes.dram >> 20);
    fflush(stdout);
    b.topo = r->h.topo;
    pb_tune_seam seam = pb_tune_bench_seam(&b);
    char serr[256];
    pb_sampler *steal = pb_sampler_start(BT_STEAL_INTERVAL_MS, r->cpus, r->ncpus, serr, sizeof serr);
    if (!steal)
        fprintf(stderr, "%s: no steal figure for this tuning: %s\n", PROG, serr);
    uint64_t t0 = pb_now_ns();
    int rc = pb_tune_run(&r->plan, &seam, &r->w, err, sizeof err);
    pb_progress_done(b.done, "points", t0);
    r->w.has_steal = false;
    if (steal)
        bt_steal(steal, &r->w);
    int failed = b.failed;
    if (failed)
        fprintf(stderr, "%s: %d point%s could not run (their formats go by rank): %s\n", PROG, failed,
                failed == 1 ? "" : "s", b.err);
    pb_tune_bench_close(&b);
    if (pb_stop_signal())
        return 128 + pb_stop_signal();
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return 1;
    }
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    static bt_run r;
    r.t0 = pb_now_ns();
    if (bt_parse(&r, argc, argv) != 0 || bt_defaults(&r) != 0)
        return pb_harness_refused(&r.h);
    pb_harness_wisdom_ids(&r.h, r.cpu, sizeof r.cpu, r.build, sizeof r.build);
    char msg[PB_WISDOM_MSG], err[PB_WISDOM_MSG];
    pb_wisdom_status st = pb_wisdom_load(r.h.wisdom, r.cpu, r.build, &r.w, msg, sizeof msg);
    if (st == PB_WISDOM_OK && r.o.if_missing && !pb_wisdom_noisy(&r.w)) {
        printf("%s: %s: up to date, nothing measured\n", PROG, msg);
        pb_topo_free(r.h.topo);
        return 0;
    }
    if (st == PB_WISDOM_OK && r.o.if_missing)
        fprintf(stderr, "%s: %s (over %.0f%%): measured again\n", PROG, msg, PB_STEAL_NOISY_PCT);
    if (st != PB_WISDOM_OK && st != PB_WISDOM_MISSING)
        fprintf(stderr, "%s: %s (it is measured again)\n", PROG, msg);
    pb_stop_install();
    pb_machine_print_header(&r.h.machine, stdout);
    if (bt_verify(&r, err, sizeof err) != 0) {
        fprintf(stderr, "%s: verification failed: %s\n", PROG, err);
        pb_topo_free(r.h.topo);
        return 1;
    }
    snprintf(r.w.cpu, sizeof r.w.cpu, "%s", r.cpu);
    snprintf(r.w.build, sizeof r.w.build, "%s", r.build);
    int rc = bt_tune(&r);
    pb_topo_free(r.h.topo);
    if (rc > 1) /* a signal: nothing written, the file stays as it was */
        return rc;
    bt_print(&r.w, stdout);
    /* The formats and counts measured replace the file's entries; another tuning's, finished meanwhile, stay. */
    if (pb_wisdom_update(r.h.wisdom, &r.w, r.plan.formats, r.plan.nformats, r.plan.threads, r.plan.nthreads, err,
                         sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return 1;
    }
    printf("wisdom: %s (delete it to measure again)\n", r.h.wisdom);
    return rc;
}
