/* bench_overlap — when does overlapping serial CPU work with a helper's job pay?
 *
 * A pipeline of K steps. Each step has a "device" job (a q8_0 matvec, rows x cols) and a CPU prep (RMSNorm of
 * a vector, then its q8_0 quantization: the activation of a next matvec) on the caller. serial runs the prep,
 * then the job, on the caller; the async modes submit the job to a helper (pool_async_submit), run the prep, then
 * pool_async_wait: the prep overlaps the job, at best a step costs max(prep, job) instead of prep + job.
 *   async-spawn    pthread_create for every job, the thread pinned to the other cpu
 *   async-inherit  a persistent helper created after the caller pinned itself to one cpu: it inherits that
 *                  mask and time-shares the caller's core
 *   async-pinned   a persistent helper pinned to the other cpu
 * The prep's size is chosen per point so that prep / job hits each requested ratio (the job is timed alone,
 * the prep's cost per value measured, then its size refined once). Every repetition times, side by side:
 * prep alone, job alone, then each mode (the order rotating between repetitions); medians are quoted.
 * ceiling = serial / max(prep, job); speedup = serial / mode; pct_of_ceiling = speedup / ceiling. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern.h"
#include "pb_cli.h"
#include "pb_csv.h"
#include "pb_harness.h"
#include "pb_pingpong.h"
#include "pb_schema.h"
#include "pb_stats.h"
#include "pb_time.h"
#include "pb_tuning.h"
#include "pool.h"

#define PROG "bench_overlap"
#define OV_WARMUP_STEPS 3
#define OV_CALIB_REPS 15

typedef enum ov_mode { OV_SERIAL, OV_SPAWN, OV_INHERIT, OV_PINNED, OV_MODES } ov_mode;

static const char *const ov_mode_names[OV_MODES + 1] = {
    [OV_SERIAL] = "serial",
    [OV_SPAWN] = "async-spawn",
    [OV_INHERIT] = "async-inherit",
    [OV_PINNED] = "async-pinned",
    [OV_MODES] = NULL,
};

/* How each mode runs its job: on the caller, or through a pool_async of this policy and placement. */
typedef struct ov_mode_info {
    bool async;
    pool_policy policy;
    bool elsewhere; /* the helper on the other cpu (else it inherits the caller's one-cpu mask) */
} ov_mode_info;

static const ov_mode_info ov_modes[OV_MODES] = {
    [OV_SERIAL] = { .async = false },
    [OV_SPAWN] = { .async = true, .policy = POOL_SPAWN, .elsewhere = true },
    [OV_INHERIT] = { .async = true, .policy = POOL_SPIN, .elsewhere = false },
    [OV_PINNED] = { .async = true, .policy = POOL_SPIN, .elsewhere = true },
};

typedef struct ov_opts {
    pb_list modes, cpus;
    pb_dlist ratios;
    long rows, cols, steps, reps;
    bool quick;
    const char *out, *run_dir;
} ov_opts;

/* The data one step touches: the job's weights and activation, the prep's vector. */
typedef struct ov_work {
    kern_job job;
    kern_act job_act;
    void *w;
    float *y;
    size_t prep_n; /* values the prep normalises and quantizes */
    float *x, *gain, *normed;
    kern_act prep_act;
} ov_work;

/* One ratio: the sizes, the times alone, and each mode's time per step. */
typedef struct ov_point {
    double ratio;
    size_t prep_n;
    double rt_ns;                        /* caller-helper round trip measured before the point */
    pb_summary prep, job;                /* ns per step, alone */
    pb_summary mode[OV_MODES];           /* ns per step */
    bool measured[OV_MODES];
} ov_point;

typedef struct ov_run {
    ov_opts o;
    int caller_cpu, helper_cpu; /* helper_cpu -1: one cpu only, the modes that need a second are skipped */
    kern_variant variant;
    ov_work work;
    ov_point *points;
    int npoints;
    pb_harness h;
    pb_csv *csv; /* overlap.csv: a point's rows as the point ends */
} ov_run;

/* ---------------------------------------------------------------- the work */

static void ov_rmsnorm(const float *x, const float *gain, float *y, size_t n)
{
    float ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += x[i] * x[i];
    float scale = 1.0f / sqrtf(ss / (float)n + 1e-6f);
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] * scale * gain[i];
}

static void ov_prep(ov_work *w)
{
    ov_rmsnorm(w->x, w->gain, w->normed, w->prep_n);
    kern_act_set(&w->prep_act, w->normed, 1); /* cannot fail: batch 1 <= cap 1 */
}

/* The helper's job: a pool_task_fn. ctx is the ov_work the pipeline owns; the job writes only w->y. */
static void ov_job(void *ctx)
{
    ov_work *w = ctx;
    kern_job_rows(&w->job, 0, w->job.rows);
}

static uint32_t ov_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static void ov_fill(float *v, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (float)(ov_rand(&seed) % 2001) / 1000.0f - 1.0f;
}

static void ov_oom(void)
{
    fprintf(stderr, PROG ": out of memory\n");
    exit(1);
}

static void ov_work_init(ov_work *w, kern_variant v, size_t rows, size_t cols)
{
    memset(w, 0, sizeof *w);
    size_t row_bytes = (size_t)kern_format_matrix_bytes(KERN_Q8_0, 1, cols);
    float *row = malloc(cols * sizeof *row);
    w->w = malloc(rows * row_bytes);
    w->y = malloc(rows * sizeof *w->y);
    if (!row || !w->w || !w->y || kern_act_init(&w->job_act, KERN_Q8_0, cols, 1) != 0)
        ov_oom();
    for (size_t r = 0; r < rows; r++) { /* writing every row also pages the weights in */
        ov_fill(row, cols, (uint32_t)r * 2654435761u + 1);
        kern_quantize_row(KERN_Q8_0, row, (char *)w->w + r * row_bytes, cols);
    }
    ov_fill(row, cols, 7);
    kern_act_set(&w->job_act, row, 1);
    free(row);
    w->job = (kern_job){ .fmt = KERN_Q8_0, .variant = v, .w = w->w, .rows = rows, .act = &w->job_act, .y = w->y,
                         .ldy = rows };
    if (kern_job_check(&w->job) != 0) {
        fprintf(stderr, PROG ": the q8_0 %s kernel cannot run: %s\n", kern_variant_name(v), strerror(errno));
        exit(1);
    }
}

/* Sizes the prep for n values (a multiple of the q8_0 block). */
static void ov_work_prep(ov_work *w, size_t n)
{
    free(w->x);
    free(w->gain);
    free(w->normed);
    kern_act_free(&w->prep_act);
    w->prep_n = n;
    w->x = malloc(n * sizeof *w->x);
    w->gain = malloc(n * sizeof *w->gain);
    w->normed = malloc(n * sizeof *w->normed);
    if (!w->x || !w->gain || !w->normed || kern_act_init(&w->prep_act, KERN_Q8_0, n, 1) != 0)
        ov_oom();
    ov_fill(w->x, n, 11);
    ov_fill(w->gain, n, 13);
}

static void ov_work_free(ov_work *w)
{
    free(w->x);
    free(w->gain);
    free(w->normed);
    kern_act_free(&w->prep_act);
    kern_act_free(&w->job_act);
    free(w->w);
    free(w->y);
}

/* ---------------------------------------------------------------- timing */

/* What one timed loop runs per step. */
typedef enum ov_loop { OV_LOOP_PREP, OV_LOOP_JOB, OV_LOOP_MODE } ov_loop;

static void ov_step(ov_work *w, ov_loop loop, ov_mode m, pool_async *a)
{
    if (loop == OV_LOOP_PREP) {
        ov_prep(w);
    } else if (loop == OV_LOOP_JOB || !ov_modes[m].async) {
        if (loop == OV_LOOP_MODE)
            ov_prep(w);
        ov_job(w);
    } else {
        if (pool_async_submit(a, ov_job, w) != 0) {
            fprintf(stderr, PROG ": %s: pool_async_submit: %s\n", ov_mode_names[m], strerror(errno));
            exit(1);
        }
        ov_prep(w);
        pool_async_wait(a);
    }
}

/* ns per step over `steps` steps (after a short warm-up). Persistent helpers live for the one loop. */
static double ov_time(ov_run *r, ov_loop loop, ov_mode m)
{
    pool_async *a = NULL;
    if (loop == OV_LOOP_MODE && ov_modes[m].async) {
        pool_async_config cfg = pool_async_config_default(ov_modes[m].elsewhere ? r->helper_cpu : POOL_ASYNC_INHERIT);
        cfg.policy = ov_modes[m].policy;
        a = pool_async_create(&cfg);
        if (!a) {
            fprintf(stderr, PROG ": %s: pool_async_create: %s\n", ov_mode_names[m], strerror(errno));
            exit(1);
        }
    }
    for (int k = 0; k < OV_WARMUP_STEPS; k++)
        ov_step(&r->work, loop, m, a);
    uint64_t t0 = pb_now_ns();
    for (long k = 0; k < r->o.steps; k++)
        ov_step(&r->work, loop, m, a);
    double ns = (double)(pb_now_ns() - t0) / (double)r->o.steps;
    pool_async_destroy(a);
    return ns;
}

/* Median ns of one fn(w) (after an untimed call), timed one by one. */
static double ov_median_ns(ov_work *w, void (*fn)(ov_work *))
{
    double t[OV_CALIB_REPS];
    fn(w);
    for (int i = 0; i < OV_CALIB_REPS; i++) {
        uint64_t t0 = pb_now_ns();
        fn(w);
        t[i] = (double)(pb_now_ns() - t0);
    }
    return pb_summarize(t, OV_CALIB_REPS).median;
}

/* ov_job typed for ov_median_ns (a pool_task_fn takes void *). */
static void ov_job_alone(ov_work *w)
{
    ov_job(w);
}

/* One prep of the current size, and one job. */
static double ov_prep_ns(ov_work *w) { return ov_median_ns(w, ov_prep); }
static double ov_job_ns(ov_work *w) { return ov_median_ns(w, ov_job_alone); }

static size_t ov_round_block(double n)
{
    double b = floor(n / QK8_0 + 0.5);
    return b < 1 ? QK8_0 : (size_t)b * QK8_0;
}

/* Sizes the prep so that prep / job ≈ ratio: its cost per value at the job's width, then one refinement at
 * the size that predicts (caches make the cost per value size-dependent). */
static void ov_calibrate(ov_run *r, double ratio, double job_ns)
{
    ov_work *w = &r->work;
    ov_work_prep(w, ov_round_block((double)w->job_act.cols));
    double target = ratio * job_ns;
    size_t n = ov_round_block(target / (ov_prep_ns(w) / (double)w->prep_n));
    ov_work_prep(w, n);
    n = ov_round_block((double)n * target / ov_prep_ns(w));
    if (n != w->prep_n)
        ov_work_prep(w, n);
}

static bool ov_mode_runs(const ov_run *r, ov_mode m)
{
    return !ov_modes[m].elsewhere || r->helper_cpu >= 0;
}

static void ov_measure_point(ov_run *r, ov_point *pt, double job_ns)
{
    ov_calibrate(r, pt->ratio, job_ns);
    pt->prep_n = r->work.prep_n;
    pb_rt rt;
    pt->rt_ns = NAN;
    if (r->helper_cpu >= 0 && pb_pingpong(r->caller_cpu, r->helper_cpu, 11, r->o.quick ? 2000 : 5000, &rt) == 0)
        pt->rt_ns = rt.ns_batch_mean;
    long reps = r->o.reps;
    double *prep = calloc((size_t)reps * (OV_MODES + 2), sizeof *prep), *job = prep + reps, *mode = job + reps;
    if (!prep)
        ov_oom();
    for (long rep = 0; rep < reps; rep++) {
        prep[rep] = ov_time(r, OV_LOOP_PREP, OV_SERIAL);
        job[rep] = ov_time(r, OV_LOOP_JOB, OV_SERIAL);
        for (int i = 0; i < OV_MODES; i++) {
            ov_mode m = (ov_mode)((i + rep) % OV_MODES); /* rotate: no mode always runs first or last */
            if (ov_mode_runs(r, m))
                mode[m * reps + rep] = ov_time(r, OV_LOOP_MODE, m);
        }
    }
    pt->prep = pb_summarize(prep, (size_t)reps);
    pt->job = pb_summarize(job, (size_t)reps);
    for (int m = 0; m < OV_MODES; m++) {
        pt->measured[m] = ov_mode_runs(r, (ov_mode)m);
        if (pt->measured[m])
            pt->mode[m] = pb_summarize(mode + m * reps, (size_t)reps);
    }
    free(prep);
}

/* ---------------------------------------------------------------- reporting */

/* The derived figures of one mode at one point. */
typedef struct ov_figures {
    double us, us_min, us_max, speedup, ceiling, pct;
} ov_figures;

static ov_figures ov_figures_of(const ov_point *pt, ov_mode m)
{
    double serial = pt->mode[OV_SERIAL].median, best = fmax(pt->prep.median, pt->job.median);
    ov_figures f = {
        .us = pt->mode[m].median / 1e3,
        .us_min = pt->mode[m].min / 1e3,
        .us_max = pt->mode[m].max / 1e3,
        .speedup = serial / pt->mode[m].median,
        .ceiling = serial / best,
    };
    f.pct = 100.0 * f.speedup / f.ceiling;
    return f;
}

static bool ov_selected(const ov_run *r, ov_mode m)
{
    for (int i = 0; i < r->o.modes.n; i++)
        if (r->o.modes.v[i] == m)
            return true;
    return false;
}

/* A row of the CSV and the table: a mode measured at this point and asked for (serial always: the base of
 * every speedup). */
static bool ov_reported(const ov_run *r, const ov_point *pt, ov_mode m)
{
    return pt->measured[m] && (m == OV_SERIAL || ov_selected(r, m));
}

static void ov_cpus_text(const ov_run *r, ov_mode m, char *buf, size_t len)
{
    if (!ov_modes[m].async)
        snprintf(buf, len, "%d", r->caller_cpu);
    else
        snprintf(buf, len, "%d %d", r->caller_cpu, ov_modes[m].elsewhere ? r->helper_cpu : r->caller_cpu);
}

#define OV_HEADER pb_schema_header(PB_K_OVERLAP)

static void ov_write_point(const ov_run *r, const ov_point *pt)
{
    for (int m = 0; m < OV_MODES; m++) {
        if (!ov_reported(r, pt, (ov_mode)m))
            continue;
        ov_figures f = ov_figures_of(pt, (ov_mode)m);
        char cpus[32];
        ov_cpus_text(r, (ov_mode)m, cpus, sizeof cpus);
        const pb_value v[PB_OVERLAP_NCOLS] = {
            [PB_OVERLAP_run_id].s = r->h.run.run_id, [PB_OVERLAP_host].s = r->h.run.host,
            [PB_OVERLAP_mode].s = ov_mode_names[m], [PB_OVERLAP_ratio].d = pt->ratio,
            [PB_OVERLAP_prep_us].d = pt->prep.median / 1e3, [PB_OVERLAP_job_us].d = pt->job.median / 1e3,
            [PB_OVERLAP_us_per_step].d = f.us, [PB_OVERLAP_speedup].d = f.speedup,
            [PB_OVERLAP_pct_of_ceiling].d = f.pct, [PB_OVERLAP_cpus].s = cpus, [PB_OVERLAP_ceiling].d = f.ceiling,
            [PB_OVERLAP_us_per_step_min].d = f.us_min, [PB_OVERLAP_us_per_step_max].d = f.us_max,
            [PB_OVERLAP_prep_ratio_measured].d = pt->prep.median / pt->job.median, [PB_OVERLAP_steps].i = r->o.steps,
            [PB_OVERLAP_reps].i = r->o.reps, [PB_OVERLAP_rows].i = r->o.rows, [PB_OVERLAP_cols].i = r->o.cols,
            [PB_OVERLAP_prep_n].i = (long long)pt->prep_n, [PB_OVERLAP_variant].s = kern_variant_name(r->variant),
            [PB_OVERLAP_rt_ns].d = pt->rt_ns, [PB_OVERLAP_placement].s = pb_placement(pt->rt_ns),
        };
        pb_csv_values(r->csv, pb_schema_get(PB_K_OVERLAP), v);
    }
}

static void ov_print_table(const ov_run *r)
{
    printf("\nq8_0 matvec %ld x %ld (%s) on the helper, prep on the caller (cpu %d); %ld steps, median of %ld reps\n",
           r->o.rows, r->o.cols, kern_variant_name(r->variant), r->caller_cpu, r->o.steps, r->o.reps);
    printf("\n%6s %8s %8s %8s %-14s %10s %21s %8s %9s\n", "ratio", "prep_us", "job_us", "ceiling", "mode",
           "us/step", "(min - max)", "speedup", "%ceiling");
    for (int p = 0; p < r->npoints; p++) {
        const ov_point *pt = &r->points[p];
        for (int m = 0; m < OV_MODES; m++) {
            if (!ov_reported(r, pt, (ov_mode)m))
                continue;
            ov_figures f = ov_figures_of(pt, (ov_mode)m);
            bool noisy = pt->mode[m].spread > PB_NOISY_SPREAD;
            if (m == OV_SERIAL)
                printf("%6.2f %8.1f %8.1f %7.2fx ", pt->ratio, pt->prep.median / 1e3, pt->job.median / 1e3, f.ceiling);
            else
                printf("%6s %8s %8s %8s ", "", "", "", "");
            printf("%-14s %10.1f %9.1f - %9.1f %7.2fx %8.0f%%%s\n", ov_mode_names[m], f.us, f.us_min, f.us_max,
                   f.speedup, f.pct, noisy ? "  (noisy)" : "");
        }
    }
    printf("\nratio: the prep / job time asked for (prep_ratio_measured in the CSV is what the sizing reached); "
           "ceiling = serial / max(prep, job); %%ceiling = speedup / ceiling; (noisy): the reps spread over %.0f%%.\n",
           100 * PB_NOISY_SPREAD);
    if (r->helper_cpu < 0)
        printf("one cpu only: async-spawn and async-pinned need a second cpu and were skipped.\n");
}

/* ---------------------------------------------------------------- options */

static void ov_parse(ov_run *r, int argc, char **argv)
{
    ov_opts *o = &r->o;
    o->rows = 2048;
    o->cols = 2048;
    const pb_opt opts[] = {
        { .name = "modes", .kind = PB_OPT_CHOICES, .dest = &o->modes, .choices = ov_mode_names, .metavar = "LIST",
          .help = "modes to measure, or all (serial is always measured: the others are relative to it)",
          .dflt = "all" },
        { .name = "ratios", .kind = PB_OPT_DLIST, .dest = &o->ratios, .dmin = 0, .dmax = 100, .dmin_open = true,
          .metavar = "LIST", .help = "prep / job time ratios to size the prep for (> 0)",
          .dflt = "0.1,0.25,0.5,0.75,1,1.5,2 (0.25,1,2 with --quick)" },
        { .name = "rows", .kind = PB_OPT_INT, .dest = &o->rows, .min = 1, .max = 1 << 20, .metavar = "N",
          .help = "rows of the helper's q8_0 matvec", .dflt = "2048" },
        { .name = "cols", .kind = PB_OPT_INT, .dest = &o->cols, .min = QK8_0, .max = 1 << 20, .metavar = "N",
          .help = "columns of the matvec, a multiple of the q8_0 block (32)", .dflt = "2048" },
        { .name = "steps", .kind = PB_OPT_INT, .dest = &o->steps, .min = 10, .max = 1000000, .metavar = "K",
          .help = "pipeline steps per timed run", .dflt = "100 (40 with --quick)" },
        { .name = "reps", .kind = PB_OPT_INT, .dest = &o->reps, .min = 3, .max = 1000, .metavar = "N",
          .help = "timed runs per mode and ratio (the median is quoted)", .dflt = "11 (5 with --quick)" },
        { .name = "cpus", .kind = PB_OPT_LIST, .dest = &o->cpus, .min = 0, .max = 1000000, .metavar = "A,B",
          .help = "the caller's cpu, then the helper's (OS ids, different)", .dflt = "two physical cores" },
        PB_OPT_QUICK(&o->quick, "a short run (CI): 3 ratios, fewer steps"),
        PB_OPT_OUT(&o->out),
        PB_OPT_RUN_DIR(&o->run_dir),
        { 0 },
    };
    const pb_cli cli = { .prog = PROG, .opts = opts,
                         .summary = "Submit a q8_0 matvec to a helper, prepare the next activation meanwhile, wait:\n"
                                    "serial vs a thread per job vs a helper that inherited the caller's one-cpu\n"
                                    "mask vs a persistent helper pinned to another core, across prep/job ratios." };
    pb_cli_parse(&cli, argc, argv);
}

static void ov_defaults(ov_run *r, const pb_topo *topo)
{
    ov_opts *o = &r->o;
    char err[256];
    if (o->cols % QK8_0 != 0)
        pb_cli_fail(PROG, "--cols %ld is not a multiple of the q8_0 block: accepted multiples of %d", o->cols, QK8_0);
    if (kern_variant_select(&r->variant, err, sizeof err) != 0)
        pb_cli_fail(PROG, "%s", err);
    if (o->modes.n == 0)
        for (int m = 0; m < OV_MODES; m++)
            o->modes.v[o->modes.n++] = m;
    if (o->ratios.n == 0) {
        static const double full[] = { 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2 }, quick[] = { 0.25, 1, 2 };
        const double *v = o->quick ? quick : full;
        int n = o->quick ? 3 : 7;
        for (int i = 0; i < n; i++)
            o->ratios.v[o->ratios.n++] = v[i];
    }
    if (o->steps == 0)
        o->steps = o->quick ? 40 : 100;
    if (o->reps == 0)
        o->reps = o->quick ? 5 : 11;
    r->helper_cpu = -1;
    if (o->cpus.n) {
        if (o->cpus.n > 2)
            pb_cli_fail_opt(PROG, "cpus", o->cpus.text, "give the caller's cpu and the helper's (two ids), not %d",
                            o->cpus.n);
        for (int i = 0; i < o->cpus.n; i++)
            if (pb_topo_check_cpu(topo, (int)o->cpus.v[i], err, sizeof err) != 0)
                pb_cli_fail_opt(PROG, "cpus", o->cpus.text, "%s", err);
        if (o->cpus.n == 2 && o->cpus.v[0] == o->cpus.v[1])
            pb_cli_fail_opt(PROG, "cpus", o->cpus.text, "the helper's cpu must differ from the caller's (%ld)",
                            o->cpus.v[0]);
        r->caller_cpu = (int)o->cpus.v[0];
        if (o->cpus.n == 2)
            r->helper_cpu = (int)o->cpus.v[1];
    } else {
        static pb_cpulist placed;
        int n = pb_topo_npus(topo) >= 2 ? 2 : 1;
        if (pb_topo_place_named(topo, "physical", n, &placed, err, sizeof err) != 0 &&
            pb_topo_place_named(topo, "all", n, &placed, err, sizeof err) != 0)
            pb_cli_fail(PROG, "topology: %s", err);
        r->caller_cpu = placed.cpu[0];
        if (placed.n == 2)
            r->helper_cpu = placed.cpu[1];
    }
}

static void ov_pin_caller(const ov_run *r)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(r->caller_cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, PROG ": pinning the caller to cpu %d: %s\n", r->caller_cpu, strerror(errno));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    static ov_run r;
    ov_parse(&r, argc, argv);
    pb_harness_begin(&r.h, PROG, r.o.out, r.o.run_dir);
    ov_defaults(&r, r.h.topo);
    pb_harness_open(&r.h);
    r.csv = pb_harness_csv(&r.h, "overlap.csv", OV_HEADER);
    if (r.helper_cpu < 0)
        fprintf(stderr, PROG ": WARNING one cpu only: async-spawn and async-pinned are skipped\n");

    /* Pinned before anything is timed: async-inherit's helper inherits exactly this one-cpu mask. */
    ov_pin_caller(&r);
    ov_work_init(&r.work, r.variant, (size_t)r.o.rows, (size_t)r.o.cols);
    r.points = calloc((size_t)r.o.ratios.n, sizeof *r.points);
    if (!r.points)
        ov_oom();
    uint64_t t0 = pb_now_ns();
    for (int p = 0; p < r.o.ratios.n && !pb_stop_signal(); p++) {
        ov_point *pt = &r.points[r.npoints++];
        pt->ratio = r.o.ratios.v[p];
        double job_ns = ov_job_ns(&r.work); /* again per point: the machine's state drifts */
        pb_progress(p, r.o.ratios.n, t0, "ratio %.2f (job %.0f us)", pt->ratio, job_ns / 1e3);
        ov_measure_point(&r, pt, job_ns);
        ov_write_point(&r, pt);
    }
    pb_progress_done(r.npoints, "ratios", t0);
    ov_print_table(&r);
    static const char *const plots[] = { "overlap.png", "overlap.svg", NULL };
    int rc = pb_harness_close(&r.h, "overlap.gp", plots);
    ov_work_free(&r.work);
    free(r.points);
    return rc;
}
