/* bench_sweep — where a decode token's time goes: a model preset's token (every matvec in order, one pool
 * dispatch each, with serial glue between) over formats x core sets x threads x batch x policies x schedules,
 * held against the read floor of the same cpus measured in the same run, with busy % per cpu per point. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_cli.h"
#include "pb_decode.h"
#include "pb_decode_floor.h"
#include "pb_harness.h"
#include "pb_membuf.h"
#include "pb_pingpong.h"
#include "pb_sweep.h"
#include "pb_time.h"

#define PROG "bench_sweep"
#define SW_MAX_SETS 16
#define SW_MAX_SCHED 16
#define RT_BATCHES 7
#define RT_ITERS 10000

typedef struct sw_opts {
    long model;
    pb_list formats, policies, glues, threads, batches;
    const char *schedule, *cpus, *out, *run_dir;
    long tokens, warmup, seed, spin_us, interval_ms, floor_passes;
    bool quick;
} sw_opts;

typedef struct sw_set {
    char name[1024];
    pb_cpulist cpus; /* the set, logical order */
} sw_set;

typedef struct sw_run {
    sw_opts o;
    const pb_model *model;
    kern_variant variant;
    size_t chunk[SW_MAX_SCHED]; /* 0 = static, k = dynamic:k */
    int nsched;
    sw_set set[SW_MAX_SETS];
    int nsets;
    pb_harness h; /* its topo: the live machine */
    pb_sweep_out out; /* sweep.csv, cpu_util.csv, sweep_cpu.csv: a point's rows as it ends */
    pb_sweep_row *rows;
    int nrows, cap;
    float *ref[KERN_FORMAT_COUNT][KERN_BATCH_MAX + 1]; /* the first point's logits per format and batch */
} sw_run;

/* ---------------------------------------------------------------- options */

static void sw_parse(sw_run *sr, int argc, char **argv)
{
    sw_opts *o = &sr->o;
    *o = (sw_opts){ .model = PB_MODEL_QWEN3_0_6B, .tokens = 0, .warmup = 3, .seed = 1,
                    .spin_us = POOL_DEFAULT_SPIN_US, .interval_ms = PB_SAMPLER_INTERVAL_DEFAULT_MS };
    const pb_opt opts[] = {
        { .name = "model", .kind = PB_OPT_CHOICE, .dest = &o->model, .choices = pb_model_names, .metavar = "NAME",
          .help = "model preset (qwen3-0.6b, qwen3-8b, llama3-8b)", .dflt = "qwen3-0.6b" },
        { .name = "format", .kind = PB_OPT_CHOICES, .dest = &o->formats, .choices = kern_format_names,
          .metavar = "LIST", .help = "weight formats (f32, f16, q8_0, q4_0, q1_0, tq2_0, or all)", .dflt = "q8_0" },
        { .name = "policy", .kind = PB_OPT_CHOICES, .dest = &o->policies, .choices = pb_exec_kind_names,
          .metavar = "LIST", .help = "spin, condvar, hybrid, spawn, omp (OpenMP parallel for, pinned alike), or all",
          .dflt = "all (spin,condvar,spawn with --quick)" },
        { .name = "schedule", .kind = PB_OPT_WORDS, .dest = &o->schedule, .metavar = "LIST",
          .help = "row split of each matvec: static, dynamic:N (claims of N rows), comma-separated", .dflt = "static" },
        { .name = "glue", .kind = PB_OPT_CHOICES, .dest = &o->glues, .choices = pb_glue_mode_names,
          .metavar = "LIST", .help = "serial (all glue on the calling thread between dispatches) or fused (row-local "
          "glue in the dispatch that made the rows: SiLU(gate)*up and activation quantization), or all",
          .dflt = "fused" },
        { .name = "threads", .kind = PB_OPT_LIST, .dest = &o->threads, .min = 1, .max = POOL_MAX_THREADS,
          .metavar = "LIST", .help = "thread counts, e.g. 1,2,4 or 1-8 (each within its core set)",
          .dflt = "1..the set's PUs (1..2 with --quick)" },
        { .name = "cpus", .kind = PB_OPT_STRING, .dest = &o->cpus, .metavar = "SETS",
          .help = "core sets: p, e, p+e, physical, smt, all, numa:N, or cpu lists (0-3,8; ';' between two lists)",
          .dflt = "this machine's distinct sets among p, e, p+e, physical, smt" },
        { .name = "batch", .kind = PB_OPT_LIST, .dest = &o->batches, .min = 1, .max = KERN_BATCH_MAX,
          .metavar = "LIST", .help = "activation rows per matvec (M; tok/s counts M tokens a step)", .dflt = "1" },
        { .name = "tokens", .kind = PB_OPT_INT, .dest = &o->tokens, .min = 1, .max = 100000, .metavar = "N",
          .help = "timed tokens per point", .dflt = "20 (8 with --quick)" },
        { .name = "warmup", .kind = PB_OPT_INT, .dest = &o->warmup, .min = 0, .max = 1000, .metavar = "N",
          .help = "untimed tokens before each point", .dflt = "3" },
        { .name = "seed", .kind = PB_OPT_INT, .dest = &o->seed, .min = 0, .max = 0, .metavar = "N",
          .help = "seed of the synthetic weights and inputs", .dflt = "1" },
        { .name = "spin-us", .kind = PB_OPT_INT, .dest = &o->spin_us, .min = 0, .max = 1000000, .metavar = "N",
          .help = "hybrid policy's spin budget before sleeping, µs", .dflt = "50" },
        { .name = "interval-ms", .kind = PB_OPT_INT, .dest = &o->interval_ms, .min = PB_SAMPLER_INTERVAL_MIN_MS,
          .max = PB_SAMPLER_INTERVAL_MAX_MS, .metavar = "MS", .help = "/proc/stat sampling interval during each point",
          .dflt = "100" },
        { .name = "floor-passes", .kind = PB_OPT_INT, .dest = &o->floor_passes, .min = 3, .max = 1000,
          .metavar = "N", .help = "timed passes per read kernel of the memory floor", .dflt = "10 (5 with --quick)" },
        PB_OPT_QUICK(&o->quick, "a short run (CI): spin, condvar, spawn at 1..2 threads, 8 tokens"),
        PB_OPT_OUT(&o->out),
        { .name = "run-dir", .kind = PB_OPT_STRING, .dest = &o->run_dir, .metavar = "DIR",
          .help = "add the results to an existing run directory (its memory_floor.csv, if any, chooses the floor's "
                  "read kernel)" },
        { 0 },
    };
    const pb_cli cli = {
        .prog = PROG,
        .opts = opts,
        .summary =
            "Decode-token budget of a model preset: every layer's q, k, v, o, gate, up, down matvecs in order, one\n"
            "dispatch each, with the glue between them (RMSNorm, SiLU(gate)*up, residual adds), then lm_head.\n"
            "NO ATTENTION: k and v are computed and discarded, o takes q's output. Synthetic seeded weights.\n"
            "Per point: ms/token, tok/s, effective GB/s against the read floor of the same cpus (one read pass of\n"
            "the weights after each timed token, on the point's own pool when its workers spin, else on a spin\n"
            "pool made for the pass; for omp, measured just before the point), busy % per pinned cpu over the\n"
            "tokens alone, the core-to-core round trip. With --run-dir, memory_floor.csv names the read kernel.",
    };
    pb_cli_parse(&cli, argc, argv);
}

/* "static" or "dynamic:N" (N >= 1), comma-separated. */
static void sw_schedules(sw_run *sr)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", sr->o.schedule ? sr->o.schedule : "static");
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (sr->nsched == SW_MAX_SCHED)
            pb_cli_fail_opt(PROG, "schedule", sr->o.schedule, "at most %d schedules", SW_MAX_SCHED);
        char *end = NULL;
        long n = 0;
        if (strcmp(t, "static") == 0) {
            sr->chunk[sr->nsched++] = 0;
            continue;
        }
        if (strncmp(t, "dynamic:", 8) == 0) {
            errno = 0;
            n = strtol(t + 8, &end, 10);
        }
        if (!end || end == t + 8 || *end || errno || n < 1 || n > 1000000000L)
            pb_cli_fail_opt(PROG, "schedule", sr->o.schedule,
                            "'%s' is not static or dynamic:N with N from 1 to 1000000000", t);
        sr->chunk[sr->nsched++] = (size_t)n;
    }
    if (sr->nsched == 0)
        pb_cli_fail_opt(PROG, "schedule", sr->o.schedule, "give static or dynamic:N");
}

static void sw_add_set(sw_run *sr, const char *name, const pb_cpulist *cpus)
{
    if (sr->nsets == SW_MAX_SETS)
        pb_cli_fail_opt(PROG, "cpus", sr->o.cpus, "at most %d sets", SW_MAX_SETS);
    sw_set *s = &sr->set[sr->nsets++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->cpus = *cpus;
}

static bool sw_same_set(const pb_cpulist *a, const pb_cpulist *b)
{
    return a->n == b->n && memcmp(a->cpu, b->cpu, (size_t)a->n * sizeof *a->cpu) == 0;
}

/* The named sets of --cpus. Names are comma-separated; consecutive numeric items form one cpu list
 * ("0-3,8" is one set), and ';' ends a list. Default: the distinct sets among p, e, p+e, physical, smt. */
static void sw_sets(sw_run *sr)
{
    static pb_cpulist l;
    char err[512];
    if (!sr->o.cpus) {
        static const char *const cand[] = { "p", "e", "p+e", "physical", "smt" };
        for (size_t i = 0; i < sizeof cand / sizeof *cand; i++) {
            if (pb_topo_set(sr->h.topo, cand[i], &l, err, sizeof err) != 0)
                continue; /* e with one kind: not a set this machine has */
            bool dup = false;
            for (int k = 0; k < sr->nsets && !dup; k++)
                dup = sw_same_set(&sr->set[k].cpus, &l);
            if (!dup)
                sw_add_set(sr, cand[i], &l);
        }
        if (sr->nsets == 0)
            pb_cli_fail(PROG, "--cpus: this machine has none of the sets p, physical, smt");
        return;
    }
    char buf[1024], item[1024];
    snprintf(buf, sizeof buf, "%s", sr->o.cpus);
    item[0] = '\0';
    for (char *p = buf;; p++) {
        /* A numeric item joins the list being gathered; anything else (or ';', or the end) closes it. */
        char *e = p + strcspn(p, ",;");
        char sep = *e;
        *e = '\0';
        bool numeric = *p >= '0' && *p <= '9';
        if (numeric && strlen(item) + strlen(p) + 2 <= sizeof item) {
            if (item[0])
                strcat(item, ",");
            strcat(item, p);
        }
        if (item[0] && (!numeric || sep != ',')) {
            if (pb_topo_set(sr->h.topo, item, &l, err, sizeof err) != 0)
                pb_cli_fail_opt(PROG, "cpus", sr->o.cpus, "%s", err);
            sw_add_set(sr, item, &l);
            item[0] = '\0';
        }
        if (!numeric) {
            if (*p == '\0')
                pb_cli_fail_opt(PROG, "cpus", sr->o.cpus, "an empty set name in '%s'", sr->o.cpus);
            if (pb_topo_set(sr->h.topo, p, &l, err, sizeof err) != 0)
                pb_cli_fail_opt(PROG, "cpus", sr->o.cpus, "%s", err);
            sw_add_set(sr, p, &l);
        }
        if (sep == '\0')
            break;
        p = e;
    }
}

static void sw_defaults(sw_run *sr)
{
    sw_opts *o = &sr->o;
    char err[512];
    sr->model = pb_model_get((pb_model_id)o->model);
    if (o->formats.n == 0)
        o->formats.v[o->formats.n++] = KERN_Q8_0;
    if (o->policies.n == 0) {
        static const int quick[] = { POOL_SPIN, POOL_CONDVAR, POOL_SPAWN };
        for (int k = 0; k < (o->quick ? 3 : PB_EXEC_KINDS); k++)
            o->policies.v[o->policies.n++] = o->quick ? quick[k] : k;
    }
    if (o->batches.n == 0)
        o->batches.v[o->batches.n++] = 1;
    if (o->glues.n == 0)
        o->glues.v[o->glues.n++] = PB_GLUE_FUSED;
    if (o->tokens == 0)
        o->tokens = o->quick ? 8 : 20;
    if (o->floor_passes == 0)
        o->floor_passes = o->quick ? 5 : 10;
    sw_schedules(sr);
    if (kern_variant_select(&sr->variant, err, sizeof err) != 0)
        pb_cli_fail(PROG, "POOLBENCH_KERNEL: %s", err);
    sw_sets(sr);
    int largest = 0;
    for (int s = 0; s < sr->nsets; s++)
        largest = sr->set[s].cpus.n > largest ? sr->set[s].cpus.n : largest;
    if (o->threads.n == 0) {
        for (int t = 1; t <= (o->quick && largest > 2 ? 2 : largest) && t <= PB_LIST_MAX; t++)
            o->threads.v[o->threads.n++] = t;
    }
    for (int t = 0; t < o->threads.n; t++)
        if (o->threads.v[t] > largest)
            pb_cli_fail_opt(PROG, "threads", o->threads.text, "%ld is more than the largest core set's %d PUs",
                            o->threads.v[t], largest);
    /* Weights are built one format at a time: the largest must fit in half of what is available, so the
     * run neither swaps nor pushes everything else on the machine out of the page cache. */
    uint64_t avail = 0;
    pb_mem_available(&avail); /* unknown: 0, and the check is skipped */
    for (int f = 0; f < o->formats.n; f++) {
        kern_format fmt = (kern_format)o->formats.v[f];
        uint64_t bytes = pb_model_token_bytes(sr->model, fmt);
        if (bytes == 0)
            pb_cli_fail(PROG, "--format %s: %s's widths are not multiples of its block", kern_format_names[fmt],
                        sr->model->name);
        if (avail && bytes > avail / 2)
            pb_cli_fail(PROG, "--model %s --format %s: the weights need %.2f GiB, more than half of MemAvailable "
                        "(%.2f GiB); choose a smaller preset or format",
                        sr->model->name, kern_format_names[fmt], (double)bytes / (1 << 30), (double)avail / (1 << 30));
    }
}

/* ---------------------------------------------------------------- measuring */

typedef struct sw_progress {
    uint64_t t0, last; /* start, and the last line drawn */
    const char *what;
} sw_progress;

static void sw_build_progress(void *ctx, uint64_t done, uint64_t total)
{
    /* ctx is the caller's sw_progress; called on the caller's thread between dispatches. A terminal gets a
     * redraw twice a second, a log a line every 5 s. */
    sw_progress *p = ctx;
    uint64_t now = pb_now_ns(), every = isatty(STDERR_FILENO) ? 500000000ull : 5000000000ull;
    if (done < total && p->last && now - p->last < every)
        return;
    p->last = now;
    pb_status("building %s weights: %5.1f%% of %.2f GiB, %.1f s", p->what, 100.0 * (double)done / (double)total,
              (double)total / (1 << 30), (double)(now - p->t0) / 1e9);
}

static pb_sweep_row *sw_add(sw_run *sr)
{
    if (sr->nrows == sr->cap) {
        sr->cap = sr->cap ? 2 * sr->cap : 64;
        sr->rows = realloc(sr->rows, (size_t)sr->cap * sizeof *sr->rows);
        if (!sr->rows) {
            perror(PROG);
            exit(1);
        }
    }
    pb_sweep_row *r = &sr->rows[sr->nrows++];
    memset(r, 0, sizeof *r);
    return r;
}

/* The round trip between the set's first two placed cpus (NaN for a one-cpu set). */
static double sw_roundtrip(const sw_run *sr, const pb_cpulist *pair)
{
    pb_rt rt;
    if (pair->n < 2 || pb_pingpong(pair->cpu[0], pair->cpu[1], RT_BATCHES, sr->o.quick ? RT_ITERS / 4 : RT_ITERS, &rt) != 0)
        return NAN;
    return rt.ns_batch_mean;
}

static void sw_describe(const sw_run *sr, const pb_cpulist *place, pb_sweep_row *r)
{
    size_t o = 0;
    for (int i = 0; i < place->n && o + 12 < sizeof r->cpus; i++)
        o += (size_t)snprintf(r->cpus + o, sizeof r->cpus - o, "%s%d", i ? " " : "", place->cpu[i]);
    for (int i = 0; i < place->n; i++) {
        const pb_topo_pu *pu = &sr->h.topo->pu[pb_topo_find(sr->h.topo, place->cpu[i])];
        if (pu->smt > 0)
            r->smt_threads++;
        else if (pu->kind == 0)
            r->p_cores++;
        else
            r->e_cores++;
    }
}

static void sw_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void sw_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("\n" PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* The read floor over the weight arena through a spin pool pinned like the point (only: one kernel). */
static void sw_floor(const sw_run *sr, const pb_decode_weights *w, const pb_cpulist *place, const char *only,
                     pb_decode_floor *out)
{
    char err[512];
    pb_exec fl;
    if (pb_exec_open(&fl, PB_EXEC_SPIN, place->n, place->cpu, 0, 0) != 0)
        sw_fail("read floor at %d threads: %s", place->n, strerror(errno));
    if (pb_decode_floor_measure(fl.p, w->arena, (size_t)w->bytes, (int)sr->o.floor_passes, only, out, err, sizeof err) != 0)
        sw_fail("read floor at %d threads: %s", place->n, err);
    pb_exec_close(&fl);
}

/* A point's interleaved floor: its passes run on the point's own pool when its workers spin, else each on a
 * spin pool made for it (a sleeping pool would pay its wake-ups inside the pass: on this VM its halted vCPUs
 * measured 10% lower floors). */
typedef struct sw_live {
    pb_decode_floor_live fl;
    const pb_cpulist *place;
    pool *own; /* NULL: a fresh spin pool per pass */
} sw_live;

static void sw_noop(void *ctx, int id, int n)
{
    (void)ctx;
    (void)id;
    (void)n;
}

/* A spin pool pinned like the point, its workers already running (one empty dispatch first, so that no pass
 * waits for a thread to start), or NULL. */
static pool *sw_spin_pool(const pb_cpulist *place)
{
    pool_config cfg = pool_config_default();
    cfg.threads = place->n;
    cfg.policy = POOL_SPIN;
    cfg.cpus = place->cpu;
    pool *p = pool_create_bound(&cfg); /* inside the point's binding, to the same cpu */
    if (p)
        pool_run(p, sw_noop, NULL);
    return p;
}

/* pb_sweep_between's hook: one interleaved floor pass (ctx: the point's sw_live). */
static void sw_floor_pass(void *ctx)
{
    sw_live *lv = ctx;
    if (lv->own) {
        pb_decode_floor_live_pass(&lv->fl, lv->own);
        return;
    }
    pool *p = sw_spin_pool(lv->place);
    if (p) {
        pb_decode_floor_live_pass(&lv->fl, p);
        pool_destroy(p);
    }
}

typedef struct sw_block {
    kern_format fmt;
    const pb_decode_weights *w;
    const sw_set *set;
    const pb_cpulist *place, *pair;
    pb_decode_floor floor;
} sw_block;

/* Opens lv's interleaved floor over the block's weights with the block's kernel (own: the point's pool when its
 * workers spin, else NULL: a spin pool per pass). False, with a line on stderr, when it cannot: the point then
 * takes the block's floor. */
static bool sw_live_open(sw_live *lv, const sw_block *b, pool *own, int tokens)
{
    *lv = (sw_live){ .place = b->place, .own = own };
    pool *first = own ? own : sw_spin_pool(b->place);
    char err[512];
    snprintf(err, sizeof err, "no spin pool: %s", strerror(errno));
    int rc = first ? pb_decode_floor_live_open(&lv->fl, first, b->w->arena, (size_t)b->w->bytes, b->floor.kernel, tokens,
                                        err, sizeof err)
                   : -1;
    if (first && !own)
        pool_destroy(first);
    if (rc != 0)
        fprintf(stderr, "\n" PROG ": interleaved floor: %s; the block's floor instead\n", err);
    return rc == 0;
}

/* Every batch x policy x schedule x glue mode at one (format, set, threads). */
static void sw_points(sw_run *sr, const sw_block *b, int *done, int total, uint64_t t0)
{
    int threads = b->place->n;
    for (int bi = 0; bi < sr->o.batches.n; bi++) {
        size_t batch = (size_t)sr->o.batches.v[bi];
        pb_decode d;
        if (pb_decode_init(&d, b->w, sr->variant, batch) != 0)
            sw_fail("%s with %s, batch %zu: %s", kern_format_names[b->fmt], kern_variant_name(sr->variant), batch,
                    strerror(errno));
        for (int k = 0; k < sr->o.policies.n && !pb_stop_signal(); k++) {
            for (int sg = 0; sg < sr->nsched * sr->o.glues.n && !pb_stop_signal(); sg++) { /* schedule x glue */
                int kind = (int)sr->o.policies.v[k], s = sg / sr->o.glues.n;
                d.glue = (pb_glue_mode)sr->o.glues.v[sg % sr->o.glues.n];
                pb_sweep_row *r = sw_add(sr);
                r->point = sr->nrows;
                r->model = sr->model->name;
                r->format = kern_format_names[b->fmt];
                r->kernel = kern_isa_name(kern_matvec_isa(b->fmt, sr->variant)); /* the ISA that ran for this format */
                r->policy = pb_exec_kind_names[kind];
                if (sr->chunk[s])
                    snprintf(r->schedule, sizeof r->schedule, "dynamic:%zu", sr->chunk[s]);
                else
                    snprintf(r->schedule, sizeof r->schedule, "static");
                r->glue = pb_glue_mode_names[d.glue];
                r->cpuset = b->set->name;
                r->threads = threads;
                r->batch = (int)batch;
                r->tokens = (int)sr->o.tokens;
                r->weight_bytes = b->w->bytes;
                /* The floor is measured again beside every point, with the kernel the block chose: on a shared
                 * machine the bandwidth moves within seconds, and a ratio holds only side by side. A pool point
                 * interleaves one floor pass after each timed token (sw_live: on its own pool when the workers
                 * spin: spin, hybrid within its budget, any pool at 1 thread; else on a spin pool made for the
                 * pass). OpenMP's team spins on after a region, so a pool beside it would fight it for the cpus:
                 * its floor is measured just before the point, never taken from memory_floor.csv (minutes old,
                 * perhaps in another placement: it once made an omp point 147% of its floor). */
                bool live = kind != PB_EXEC_OMP;
                bool spinning = kind == POOL_SPIN || kind == POOL_HYBRID || threads == 1;
                if (!live)
                    sw_floor(sr, b->w, b->place, b->floor.kernel, &r->floor);
                sw_describe(sr, b->place, r);
                pb_progress(*done, total, t0, "%s %s %s %s glue threads=%d cpus=%s M=%zu", r->format, r->policy,
                            r->schedule, r->glue, threads, b->set->name, batch);
                r->rt_before = sw_roundtrip(sr, b->pair);
                pb_exec ex;
                if (pb_exec_open(&ex, kind, threads, b->place->cpu, sr->chunk[s], (unsigned)sr->o.spin_us) != 0)
                    sw_fail("%s with %d threads: %s", r->policy, threads, strerror(errno));
                char err[512];
                sw_live lv;
                if (live && !sw_live_open(&lv, b, spinning ? ex.p : NULL, (int)sr->o.tokens)) {
                    live = false;
                    r->floor = b->floor;
                }
                pb_sweep_between between = { .fn = live ? sw_floor_pass : NULL, .ctx = &lv };
                if (pb_sweep_measure(&d, &ex, (int)sr->o.warmup, (int)sr->o.tokens, (int)sr->o.interval_ms,
                                     b->place->cpu, threads, &between, &r->m, err, sizeof err) != 0)
                    sw_fail("%s %s: %s", r->format, r->policy, err);
                if (live && pb_decode_floor_live_close(&lv.fl, &r->floor, err, sizeof err) != 0)
                    sw_fail("read floor at %d threads: %s", threads, err);
                pb_exec_close(&ex);
                r->rt_after = sw_roundtrip(sr, b->pair);
                const char *pa = pb_placement(r->rt_before), *pz = pb_placement(r->rt_after);
                snprintf(r->placement, sizeof r->placement, "%s", strcmp(pa, pz) == 0 ? pa : "mixed");
                /* Every point ends on the same token: its logits must match the first point's bit for bit. */
                size_t nl = batch * (size_t)sr->model->vocab;
                float **ref = &sr->ref[b->fmt][batch];
                if (!*ref) {
                    *ref = malloc(nl * sizeof **ref);
                    if (!*ref)
                        sw_fail("out of memory");
                    memcpy(*ref, d.logits, nl * sizeof **ref);
                }
                r->verified = memcmp(*ref, d.logits, nl * sizeof **ref) == 0;
                if (pb_sweep_out_row(&sr->out, r) != 0)
                    sw_fail("writing point %d: %s", r->point, strerror(errno));
                (*done)++;
            }
        }
        pb_decode_free(&d);
    }
}

static void sw_measure(sw_run *sr)
{
    sw_opts *o = &sr->o;
    int total = 0;
    for (int s = 0; s < sr->nsets; s++)
        for (int t = 0; t < o->threads.n; t++)
            total += o->threads.v[t] <= sr->set[s].cpus.n;
    total *= o->formats.n * o->batches.n * o->policies.n * sr->nsched * o->glues.n;
    int done = 0;
    uint64_t t0 = pb_now_ns();
    static pb_cpulist build_place, place, pair;
    char err[512];
    /* Weights are generated by every cpu of the largest set (first-touched where the points read them). */
    int big = 0;
    for (int s = 1; s < sr->nsets; s++)
        big = sr->set[s].cpus.n > sr->set[big].cpus.n ? s : big;
    if (pb_topo_place(sr->h.topo, &sr->set[big].cpus, sr->set[big].cpus.n, &build_place, err, sizeof err) != 0)
        sw_fail("%s", err);
    for (int f = 0; f < o->formats.n && !pb_stop_signal(); f++) {
        kern_format fmt = (kern_format)o->formats.v[f];
        pb_decode_weights w;
        pb_exec gen;
        if (pb_exec_open(&gen, PB_EXEC_SPIN, build_place.n, build_place.cpu, 0, 0) != 0)
            sw_fail("weight builder: %s", strerror(errno));
        sw_progress pg = { .t0 = pb_now_ns(), .what = kern_format_names[fmt] };
        if (pb_decode_weights_build(&w, sr->model, fmt, (uint64_t)o->seed, &gen, sw_build_progress, &pg) != 0)
            sw_fail("building %s %s weights: %s", sr->model->name, kern_format_names[fmt], strerror(errno));
        pb_exec_close(&gen);
        for (int s = 0; s < sr->nsets && !pb_stop_signal(); s++) {
            const sw_set *set = &sr->set[s];
            if (pb_topo_place(sr->h.topo, &set->cpus, set->cpus.n < 2 ? 1 : 2, &pair, err, sizeof err) != 0)
                sw_fail("%s", err);
            for (int t = 0; t < o->threads.n && !pb_stop_signal(); t++) {
                int threads = (int)o->threads.v[t];
                if (threads > set->cpus.n)
                    continue;
                if (pb_topo_place(sr->h.topo, &set->cpus, threads, &place, err, sizeof err) != 0)
                    sw_fail("%s", err);
                sw_block b = { .fmt = fmt, .w = &w, .set = set, .place = &place, .pair = &pair };
                int rc = pb_decode_floor_from_csv(sr->h.run.dir, place.cpu, threads, &b.floor, err, sizeof err);
                if (rc < 0)
                    fprintf(stderr, "\n" PROG ": %s; measuring the floor instead\n", err);
                if (rc != 0) {
                    pb_status("[%d/%d] read floor: %s threads=%d cpus=%s", done + 1, total, kern_format_names[fmt],
                              threads, set->name);
                    sw_floor(sr, &w, &place, NULL, &b.floor);
                }
                sw_points(sr, &b, &done, total, t0);
            }
        }
        pb_decode_weights_free(&w);
    }
    pb_progress_done(done, "points", t0);
}

/* Claims the three CSVs before anything is measured; a row's series label names the dimensions the options
 * vary. */
static void sw_open_outputs(sw_run *sr)
{
    pb_sweep_out *o = &sr->out;
    o->run = &sr->h.run;
    o->varies = (pb_sweep_varies){ .format = sr->o.formats.n > 1, .schedule = sr->nsched > 1,
                                   .glue = sr->o.glues.n > 1, .cpuset = sr->nsets > 1, .batch = sr->o.batches.n > 1 };
    o->sweep = pb_harness_csv(&sr->h, "sweep.csv", PB_SWEEP_HEADER);
    o->util = pb_harness_csv(&sr->h, "cpu_util.csv", PB_SWEEP_UTIL_HEADER);
    o->cpu = pb_harness_csv(&sr->h, "sweep_cpu.csv", PB_SWEEP_CPU_HEADER);
}

int main(int argc, char **argv)
{
    static sw_run sr;
    sw_parse(&sr, argc, argv);
    pb_harness_begin(&sr.h, PROG, sr.o.out, sr.o.run_dir);
    sw_defaults(&sr);
    pb_harness_open(&sr.h);
    sw_open_outputs(&sr);
    printf("model %s, kernel %s, %ld timed tokens after %ld warm-up, seed %ld\n", sr.model->name,
           kern_variant_name(sr.variant), sr.o.tokens, sr.o.warmup, sr.o.seed);
    fflush(stdout);
    sw_measure(&sr);
    pb_sweep_print_table(stdout, sr.rows, sr.nrows);
    int status = 0;
    for (int i = 0; i < sr.nrows; i++)
        status |= !sr.rows[i].verified;
    static const char *const plots[] = { "sweep.png", "sweep.svg", NULL };
    int rc = pb_harness_close(&sr.h, "sweep.gp", plots);
    pb_sweep_out_free(&sr.out);
    for (int i = 0; i < sr.nrows; i++)
        pb_sampler_result_free(&sr.rows[i].m.util);
    free(sr.rows);
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        for (int b = 0; b <= KERN_BATCH_MAX; b++)
            free(sr.ref[f][b]);
    if (status)
        fprintf(stderr, PROG ": some points did not reproduce the reference logits (see LOGITS DIFFER)\n");
    return rc ? rc : status;
}
