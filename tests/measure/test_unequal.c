/* Unequal cores: --emulate-slow's parsing and its stretch (an emulated cpu's share takes 1/FACTOR of its time,
 * within 10%), the weighted split's shares (calibration, the weighted mean, the dead band, fixed capacities), its
 * outputs bit-exact against static and dynamic, the per-thread cliff of a point, and the default schedules a
 * hybrid fixture's core sets get (P-only static beside P+E static, weighted and dynamic). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emulation.h"
#include "kern.h"
#include "pb_exec.h"
#include "pb_shares.h"
#include "pb_slices.h"
#include "pb_stats.h"
#include "pb_sweep.h"
#include "pb_sweep_run.h"
#include "pb_time.h"

/* The live machine (file NULL) or a fixture of tests/data. */
static pb_topo *topo_of(const char *file)
{
    char path[256], err[256] = "";
    snprintf(path, sizeof path, "tests/data/%s", file ? file : "");
    pb_topo *t = pb_topo_load(file ? path : NULL, err, sizeof err);
    cr_assert_not_null(t, "%s: %s", file ? path : "this machine", err);
    return t;
}

Test(emulate, parse_accepts_cpu_factor_lists_and_names_what_is_wrong)
{
    pb_topo *t = topo_of(NULL);
    int cpu0 = t->pu[0].os;
    char spec[64], err[256];
    pb_emulate e;
    snprintf(spec, sizeof spec, "%d=0.5", cpu0);
    cr_assert_eq(pb_emulate_parse(spec, t, &e, err, sizeof err), 0, "%s", err);
    cr_expect_eq(e.n, 1);
    cr_expect_eq(pb_emulate_factor(&e, cpu0), 0.5);
    cr_expect_eq(pb_emulate_factor(&e, cpu0 + 1), 1.0, "a cpu not given keeps its speed");
    cr_expect_eq(pb_emulate_factor(NULL, cpu0), 1.0);
    char text[64];
    int cpus[2] = { cpu0 + 1, cpu0 };
    pb_emulate_text(&e, cpus, 2, text, sizeof text);
    snprintf(spec, sizeof spec, "%d=0.5", cpu0);
    cr_expect_str_eq(text, spec, "only the emulated cpus of the placement");
    pb_emulate_text(&e, cpus, 1, text, sizeof text);
    cr_expect_str_eq(text, "", "none among these cpus");
    cr_expect_eq(pb_emulate_parse(NULL, t, &e, err, sizeof err), 0);
    cr_expect_eq(e.n, 0);
    static const struct {
        const char *spec, *fragment;
    } bad[] = { { "0", "CPU=FACTOR" }, { "0=", "factor" }, { "0=0", "factor" }, { "0=1.5", "factor" },
                { "0=x", "factor" }, { "x=0.5", "CPU=FACTOR" }, { "1000=0.5", "cpu 1000" }, { "0=0.5,0=0.7", "twice" },
                { ",", "CPU=FACTOR" } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        cr_expect_eq(pb_emulate_parse(bad[i].spec, t, &e, err, sizeof err), -1, "'%s' accepted", bad[i].spec);
        cr_expect(strstr(err, bad[i].fragment), "'%s': '%s' does not say '%s'", bad[i].spec, err, bad[i].fragment);
    }
    pb_topo_free(t);
}

/* CPU-bound rows (no memory traffic): each row a fixed amount of arithmetic. */
static void spin_rows(void *ctx, size_t r0, size_t r1)
{
    volatile double *sink = ctx;
    double x = 1.0;
    for (size_t r = r0; r < r1; r++)
        for (int k = 0; k < 2000; k++)
            x = x * 1.0000001 + 1e-9;
    *sink = x;
}

/* One dispatch of `rows` rows on ex: its wall time, and its slice's work / busy (the thread's account). */
static double one_dispatch(pb_exec *ex, size_t rows, double *work_over_busy)
{
    double sink = 0;
    pb_thread_stat a0 = ex->slices.t[0];
    uint64_t t0 = pb_now_ns();
    pb_exec_rows(ex, rows, spin_rows, &sink);
    double ns = (double)(pb_now_ns() - t0);
    const pb_thread_stat *a = &ex->slices.t[0];
    *work_over_busy = (double)(a->work_ns - a0.work_ns) / (double)(a->busy_ns - a0.busy_ns);
    return ns;
}

static void open_one(pb_exec *ex, int *cpu, const pb_emulate *e)
{
    const pb_exec_cfg cfg = { .kind = PB_EXEC_SPIN, .threads = 1, .cpus = cpu, .emulate = e };
    cr_assert_eq(pb_exec_open_cfg(ex, &cfg), 0);
}

/* The emulation's promise: the emulated share's time ratio within 10% of the factor. Twice: the thread's own account
 * (its slice's work against its busy time, stretch included) and the wall time of the same dispatch on the same
 * cpu, emulated or not. Each is the least disturbed of interleaved repetitions (the largest work / busy, the
 * fastest dispatch): a preemption only ever adds time, and a shared test machine preempts often. */
Test(emulate, the_emulated_share_takes_one_over_factor_of_its_time, .timeout = 60)
{
    skip_if_emulated("it compares two dispatches' wall times within 10%, and qemu's translation of the busy-wait "
                     "and of the rows does not scale alike");
    pb_topo *t = topo_of(NULL);
    int cpu = t->pu[0].os;
    pb_topo_free(t);
    static const double factors[] = { 0.25, 0.5, 0.75 };
    for (size_t k = 0; k < sizeof factors / sizeof factors[0]; k++) {
        double f = factors[k], best_ratio = 0, plain = INFINITY, slow = INFINITY, ignored;
        pb_emulate e = { .n = 1, .cpu = { cpu }, .factor = { f } };
        pb_exec ex_slow, ex_plain;
        open_one(&ex_slow, &cpu, &e);
        open_one(&ex_plain, &cpu, NULL);
        for (int i = 0; i < 25; i++) {
            double r, ns = one_dispatch(&ex_slow, 100, &r);
            best_ratio = r > best_ratio ? r : best_ratio;
            slow = ns < slow ? ns : slow;
            ns = one_dispatch(&ex_plain, 100, &ignored);
            plain = ns < plain ? ns : plain;
        }
        cr_expect_eq(ex_slow.slices.t[0].rows, 25 * 100);
        pb_exec_close(&ex_slow);
        pb_exec_close(&ex_plain);
        cr_expect(fabs(best_ratio / f - 1) < 0.10, "factor %.2f: work / busy = %.3f", f, best_ratio);
        cr_expect(fabs(plain / slow / f - 1) < 0.10, "factor %.2f: the dispatch took %.0f ns emulated, %.0f plain (%.3f)",
                  f, slow, plain, plain / slow);
    }
}

/* ---------------------------------------------------------------- shares */

/* Counters as a token would leave them: each thread's busy ns and rows so far. */
static void feed(pb_slices *sl, const uint64_t *busy, const uint64_t *rows)
{
    for (int i = 0; i < sl->n; i++) {
        sl->t[i].busy_ns = busy[i];
        sl->t[i].rows = rows[i];
    }
}

Test(shares, calibration_then_weighted_mean_then_dead_band)
{
    pb_slices sl;
    pb_shares s;
    cr_assert_eq(pb_slices_init(&sl, 2, NULL, NULL), 0);
    cr_assert_eq(pb_shares_init(&s, 2, NULL), 0);
    cr_expect(s.measured && s.equal, "no capacities: measured, equal until the calibration token");
    cr_expect_str_eq(pb_shares_source(&s), "measured");
    /* Calibration token: equal rows, thread 1 took twice the time: it runs at half the rate. */
    feed(&sl, (const uint64_t[]){ 1000, 2000 }, (const uint64_t[]){ 500, 500 });
    cr_assert(pb_shares_token(&s, &sl));
    cr_expect(!s.equal);
    cr_expect_float_eq(s.share[0], 2.0 / 3, 1e-9, "share %f", s.share[0]);
    cr_expect_float_eq(s.share[1], 1.0 / 3, 1e-9);
    /* Next token at the new shares: thread 1 now as fast as thread 0 (rate 0.5 each): the weighted mean moves a
     * quarter of the way (PB_WEIGHTED_EWMA). */
    feed(&sl, (const uint64_t[]){ 2000, 3000 }, (const uint64_t[]){ 1000, 1000 });
    pb_shares_token(&s, &sl);
    double r1 = PB_WEIGHTED_EWMA * 0.5 + (1 - PB_WEIGHTED_EWMA) * 0.25;
    cr_expect_float_eq(s.rate[1], r1, 1e-12, "rate %f, want %f", s.rate[1], r1);
    cr_expect_float_eq(s.share[1], r1 / (0.5 + r1), 1e-9);
    /* Rates within the dead band: the equal split. */
    for (int i = 0; i < 40; i++) {
        uint64_t b = 3000 + 1000 * (uint64_t)i, r = 1500 + 500 * (uint64_t)i;
        feed(&sl, (const uint64_t[]){ b, b }, (const uint64_t[]){ r, r });
        pb_shares_token(&s, &sl);
    }
    cr_expect(s.equal, "rates %f and %f: within %g of each other", s.rate[0], s.rate[1], PB_WEIGHTED_DEADBAND);
    /* A reset of the counters is a new baseline, not a negative token. */
    pb_slices_reset(&sl);
    double before = s.rate[0];
    pb_shares_token(&s, &sl);
    cr_expect_eq(s.rate[0], before);
    pb_shares_free(&s);
    pb_slices_free(&sl);
}

Test(shares, capacities_from_the_topology_are_fixed)
{
    pb_shares s;
    cr_assert_eq(pb_shares_init(&s, 3, (const double[]){ 1024, 1024, 512 }), 0);
    cr_expect(!s.measured && !s.equal);
    cr_expect_str_eq(pb_shares_source(&s), "cpukinds");
    cr_expect_float_eq(s.share[2], 0.2, 1e-12);
    pb_slices sl;
    cr_assert_eq(pb_slices_init(&sl, 3, NULL, NULL), 0);
    feed(&sl, (const uint64_t[]){ 1, 1000, 1 }, (const uint64_t[]){ 100, 1, 100 });
    cr_expect(!pb_shares_token(&s, &sl), "fixed shares ignore the tokens");
    cr_expect_float_eq(s.share[2], 0.2, 1e-12);
    pb_shares_free(&s);
    /* One kind (all equal) or an unknown capacity: nothing to weigh by, so measured. */
    cr_assert_eq(pb_shares_init(&s, 2, (const double[]){ 1024, 1024 }), 0);
    cr_expect(s.measured);
    pb_shares_free(&s);
    cr_assert_eq(pb_shares_init(&s, 2, (const double[]){ 1024, 0 }), 0);
    cr_expect(s.measured);
    pb_shares_free(&s);
    pb_slices_free(&sl);
}

/* Where the OS gives capacities (rk3588-capacity-only.xml: LinuxCapacity 1024 and 397, no frequencies), a weighted
 * split takes fixed shares from them; where it gives none (hybrid-4p4e.xml: ranks only) it measures. */
Test(shares, capacities_from_the_fixtures_cpukinds)
{
    static const struct {
        const char *file;
        bool fixed;
    } cases[] = { { "rk3588-capacity-only.xml", true }, { "hybrid-4p4e.xml", false } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pb_topo *t = topo_of(cases[c].file);
        pb_cpulist *place = malloc(sizeof *place);
        char err[256];
        cr_assert_eq(pb_topo_place_named(t, "p+e", t->npus, place, err, sizeof err), 0, "%s", err);
        pb_sweep_plan p = { .cores = { .topo = t } };
        double cap[PB_MAX_CPUS];
        cr_assert_eq(pb_sweep_capacities(&p.cores, place, cap), 0);
        pb_shares s;
        cr_assert_eq(pb_shares_init(&s, place->n, cap), 0);
        cr_expect_eq(!s.measured, cases[c].fixed, "%s: %s", cases[c].file, pb_shares_source(&s));
        if (cases[c].fixed) /* 4 big cores first, then 4 LITTLE */
            cr_expect_float_eq(s.share[0], 1024.0 / (4 * 1024 + 4 * 397), 1e-9, "%s: share %f", cases[c].file,
                               s.share[0]);
        pb_emulate e = { .n = 1, .cpu = { place->cpu[1] }, .factor = { 0.5 } };
        p.cores.emulate = &e;
        cr_expect_eq(pb_sweep_capacities(&p.cores, place, cap), -1, "an emulated cpu: the OS's capacities do not hold");
        pb_shares_free(&s);
        free(place);
        pb_topo_free(t);
    }
}

/* ---------------------------------------------------------------- bits and the cliff */

/* One matvec (q8_0, 1001 rows of 512: the rows not a multiple of anything) as a decode runs it, four times with a
 * token boundary after each (the weighted split recomputes its shares there). */
typedef struct mv {
    void *w;
    kern_act act;
    float y[1001];
    kern_job job;
} mv;

static void mv_init(mv *m)
{
    enum { ROWS = 1001, COLS = 512 };
    float x[COLS];
    m->w = malloc((size_t)kern_format_matrix_bytes(KERN_Q8_0, ROWS, COLS));
    cr_assert_not_null(m->w);
    uint32_t s = 12345;
    for (size_t r = 0; r < ROWS; r++) {
        for (size_t c = 0; c < COLS; c++)
            x[c] = (float)((s = s * 1664525u + 1013904223u) >> 8) / 16777216.0f - 0.5f;
        kern_quantize_row(KERN_Q8_0, x, (char *)m->w + r * (size_t)kern_format_matrix_bytes(KERN_Q8_0, 1, COLS), COLS);
    }
    cr_assert_eq(kern_act_init(&m->act, KERN_Q8_0, COLS, 1), 0);
    cr_assert_eq(kern_act_set(&m->act, x, 1), 0);
    m->job = (kern_job){ .fmt = KERN_Q8_0, .isa = kern_isa_best(), .w = m->w, .rows = ROWS, .act = &m->act,
                         .y = m->y, .ldy = ROWS };
}

/* y after TOKENS tokens of one matvec through an executor of cfg. *least is thread 1's smallest share of a token's
 * rows after the first (calibration) token, *last its share of the last token. The least, not the last: the
 * weighted split follows measured speed, and on a shared 2-core machine (CI runs the suite two tests at a time)
 * a token in which thread 0 was preempted makes thread 1 look fast for that token and, through the running mean,
 * a few after it; a preemption only adds time, so the least disturbed token is the one that shows the weights. */
enum { TOKENS = 12 };
static void mv_run(mv *m, const pb_exec_cfg *cfg, double *least, double *last)
{
    pb_exec ex;
    cr_assert_eq(pb_exec_open_cfg(&ex, cfg), 0);
    memset(m->y, 0, sizeof m->y);
    *least = 1;
    for (int tok = 0; tok < TOKENS; tok++) {
        uint64_t rows0 = ex.slices.t[0].rows, rows1 = ex.slices.t[1].rows;
        for (int k = 0; k < 20; k++) /* a token's dispatches */
            pb_exec_rows(&ex, m->job.rows, kern_job_rows, &m->job);
        pb_exec_token_end(&ex);
        *last = (double)(ex.slices.t[1].rows - rows1) /
                (double)(ex.slices.t[0].rows - rows0 + ex.slices.t[1].rows - rows1);
        if (tok > 0 && *last < *least)
            *least = *last;
    }
    pb_exec_close(&ex);
}

Test(weighted, bits_exact_against_static_and_dynamic, .timeout = 60)
{
    pb_topo *t = topo_of(NULL);
    int cpus[2] = { t->pu[0].os, t->pu[t->npus > 1 ? 1 : 0].os };
    pb_topo_free(t);
    if (cpus[0] == cpus[1])
        cr_skip_test("one cpu: nothing to weigh");
    pb_emulate e = { .n = 1, .cpu = { cpus[1] }, .factor = { 0.25 } };
    static mv m;
    mv_init(&m);
    pb_exec_cfg cfg = { .kind = PB_EXEC_SPIN, .threads = 2, .cpus = cpus, .emulate = &e };
    double least, last;
    mv_run(&m, &cfg, &least, &last);
    float ref[1001];
    memcpy(ref, m.y, sizeof ref);
    static const pb_exec_kind kinds[] = { PB_EXEC_SPIN, PB_EXEC_CONDVAR, PB_EXEC_OMP };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int s = 0; s < 3; s++) {
            cfg.kind = kinds[k];
            cfg.sched = (pb_sched){ .kind = (pb_sched_kind)s, .chunk = s == PB_SCHED_DYNAMIC ? 16 : 0 };
            mv_run(&m, &cfg, &least, &last);
            cr_expect(memcmp(ref, m.y, sizeof ref) == 0, "%s schedule %d: the outputs differ",
                      pb_exec_kind_names[kinds[k]], s);
            /* thread 1 runs at a quarter of its speed: weighted gives it about a fifth of the rows */
            if (s == PB_SCHED_WEIGHTED)
                cr_expect(least < 0.4, "%s weighted: the slow thread ran at least %.0f%% of every token's rows",
                          pb_exec_kind_names[kinds[k]], 100 * least);
            else if (s == PB_SCHED_STATIC)
                cr_expect(fabs(last - 0.5) < 0.01, "static: %.0f%% of the rows", 100 * last);
        }
    kern_act_free(&m.act);
    free(m.w);
}

Test(cliff, per_thread_figures_and_the_slowest)
{
    pb_slices before, now;
    cr_assert_eq(pb_slices_init(&before, 3, NULL, NULL), 0);
    cr_assert_eq(pb_slices_init(&now, 3, NULL, NULL), 0);
    feed(&before, (const uint64_t[]){ 500, 500, 500 }, (const uint64_t[]){ 10, 10, 10 });
    /* 2 tokens, 10 dispatches, 40 ms in dispatches: busy 10, 16, 4 ms per token; rows 50/30/20 % */
    feed(&now, (const uint64_t[]){ 500 + 20000000, 500 + 32000000, 500 + 8000000 },
         (const uint64_t[]){ 10 + 500, 10 + 300, 10 + 200 });
    now.t[1].factor = 0.5;
    pb_sweep_cliff c;
    cr_assert_eq(pb_sweep_cliff_of(&now, &before, (const int[]){ 4, 5, 6 }, 2, 40000000, 10, &c), 0);
    cr_assert_eq(c.nthr, 3);
    cr_expect_eq(c.slowest, 1);
    cr_expect_eq(c.thr[1].cpu, 5);
    cr_expect_float_eq(c.thr[1].busy_ms, 16.0, 1e-9);
    cr_expect_float_eq(c.thr[1].slice_us, 3200.0, 1e-9, "32 ms over 10 dispatches");
    cr_expect_float_eq(c.thr[0].wait_ms, 10.0, 1e-9, "20 ms per token in dispatches, 10 busy");
    cr_expect_float_eq(c.thr[2].rows_pct, 20.0, 1e-9);
    cr_expect_eq(c.thr[1].factor, 0.5);
    cr_expect_float_eq(c.wait_for_slowest_ms, ((16.0 - 10) + (16.0 - 4)) / 2, 1e-9);
    free(c.thr);
    pb_slices_free(&before);
    pb_slices_free(&now);
}

/* ---------------------------------------------------------------- the default schedules */

/* How many of the default schedules run on `set` placed at n threads. */
static int runs_on(const pb_sweep_plan *p, const pb_topo *t, const char *set, int n, int want_kind)
{
    pb_cpulist *place = malloc(sizeof *place);
    char err[256];
    cr_assert_eq(pb_topo_place_named(t, set, n, place, err, sizeof err), 0, "%s: %s", set, err);
    int count = 0;
    for (int s = 0; s < p->dispatch.nsched; s++)
        count += (want_kind < 0 || (int)p->dispatch.sched[s].kind == want_kind) && pb_sweep_sched_runs(p, s, place);
    free(place);
    return count;
}

Test(schedules, hybrid_fixtures_get_p_only_static_beside_p_plus_e_static_weighted_dynamic)
{
    static const char *const files[] = { "hybrid-4p4e.xml", "hybrid-4p4e-caches.xml", "apple-6p4e.xml" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        pb_topo *t = topo_of(files[i]);
        pb_cpulist *all = malloc(sizeof *all);
        char err[256];
        cr_assert_eq(pb_topo_set(t, "p+e", all, err, sizeof err), 0, "%s", err);
        pb_sweep_plan p = { .cores = { .topo = t } };
        cr_assert_eq(pb_sweep_schedules(&p.dispatch, &p.cores, NULL, err, sizeof err), 0, "%s", err);
        cr_assert_eq(p.dispatch.nsched, 3, "%s: static, weighted, dynamic by default on a hybrid", files[i]);
        cr_expect_eq(runs_on(&p, t, "p", 2, -1), 1, "%s: P-only runs static alone", files[i]);
        cr_expect_eq(runs_on(&p, t, "p+e", all->n, PB_SCHED_STATIC), 1, "%s", files[i]);
        cr_expect_eq(runs_on(&p, t, "p+e", all->n, PB_SCHED_WEIGHTED), 1, "%s: P+E weighted", files[i]);
        cr_expect_eq(runs_on(&p, t, "p+e", all->n, PB_SCHED_DYNAMIC), 1, "%s: P+E dynamic", files[i]);
        cr_expect_eq(runs_on(&p, t, "p+e", 2, -1), 1, "%s: 2 threads of P+E are two P-cores: static only", files[i]);
        /* Asked for: every schedule everywhere. */
        cr_assert_eq(pb_sweep_schedules(&p.dispatch, &p.cores, "static,weighted", err, sizeof err), 0);
        cr_expect_eq(runs_on(&p, t, "p", 2, -1), 2);
        free(all);
        pb_topo_free(t);
    }
    /* One kind, nothing emulated: static only; an emulated cpu brings the others back. */
    pb_topo *t = topo_of("smt-8c16t.xml");
    char err[256];
    pb_sweep_plan p = { .cores = { .topo = t } };
    cr_assert_eq(pb_sweep_schedules(&p.dispatch, &p.cores, NULL, err, sizeof err), 0);
    cr_expect_eq(p.dispatch.nsched, 1);
    pb_emulate e = { .n = 1, .cpu = { 4 }, .factor = { 0.5 } };
    p.cores.emulate = &e;
    cr_assert_eq(pb_sweep_schedules(&p.dispatch, &p.cores, NULL, err, sizeof err), 0);
    cr_expect_eq(p.dispatch.nsched, 3);
    cr_expect_eq(runs_on(&p, t, "physical", 2, -1), 1, "cpus 0 and 2: neither emulated, static alone");
    cr_expect_eq(runs_on(&p, t, "physical", 3, -1), 3, "cpus 0, 2 and 4: cpu 4 is slow, every schedule");
    pb_topo_free(t);
}
