/* pb_sweep_run.c — see pb_sweep_run.h (the plan it walks: pb_sweep_plan.c). */
#include "pb_sweep_run.h"

#include "pb_poolclock.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_decode.h"
#include "pb_decode_floor.h"
#include "pb_decode_load.h"
#include "pb_err.h"
#include "pb_mapguard.h"
#include "pb_pairs.h"
#include "pb_placement.h"
#include "pb_progress.h"
#include "pb_roof.h"
#include "pb_stop.h"
#include "pb_time.h"
#include "pb_wformat.h"

#define RT_BATCHES 7
#define RT_ITERS 10000

/* ---------------------------------------------------------------- floors */

/* One block: a format's weights at one (set, threads). */
typedef struct sw_block {
    const pb_sweep_plan *p;
    pb_wformat fmt; /* a format or a mix (pb_wformat.h) */
    const pb_decode_weights *w;
    const pb_cpuset *set;
    const pb_cpulist *place, *pair; /* the threads' cpus; the set's first two, for the round trip */
    const pb_cpulist *held;         /* the distinct cpus among place (all of them unless oversubscribed) */
    bool oversubscribed;            /* more threads than the set's PUs: they wrap around held */
    pb_decode_floor floor;          /* the block's: from memory_floor.csv or measured */
    pb_kchoice kernel[KERN_FORMAT_COUNT]; /* each format's kernel at the block's thread count */
    size_t context;                 /* the points' depth: the cache pb_decode_set_context fills */
    pb_kv_type kv;
    double roof_gmacs;              /* the compute roof on the block's cpus (sw_block_roof; NaN: none) */
} sw_block;

/* The read floor through a spin pool pinned like the point, one thread per cpu (an oversubscribed point's floor is
 * its cpus', not a time-shared pool's) (only: one kernel), over the memory d's tokens read (pb_decode_read_spans),
 * or the block's weights before there is a decode (d NULL). */
static int sw_floor(const sw_block *b, const pb_decode *d, const char *only, pb_decode_floor *out, char *err,
                    size_t errlen)
{
    char why[512];
    pb_exec fl;
    int n = b->held->n;
    pb_memspan arena = { .p = b->w->arena, .bytes = (size_t)b->w->bytes };
    int nspans = 1;
    const pb_memspan *spans = d ? pb_decode_read_spans(d, &nspans) : &arena;
    if (pb_exec_open(&fl, PB_EXEC_SPIN, n, b->held->cpu, 0, 0) != 0)
        return pb_errf(err, errlen, "read floor at %d threads: %s", n, strerror(errno));
    int rc = pb_decode_floor_measure(fl.p, spans, nspans, b->p->timing.floor_passes, only, out, why, sizeof why);
    pb_exec_close(&fl);
    return rc == 0 ? 0 : pb_errf(err, errlen, "read floor at %d threads: %s", n, why);
}

/* A point's interleaved floor: its passes run on the point's own pool when its workers spin, else each on a
 * spin pool made for it (a sleeping pool would pay its wake-ups inside the pass, and a halted vCPU wakes
 * slowly). */
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

/* Opens lv's interleaved floor over the memory d's tokens read (pb_decode_read_spans) with the block's kernel
 * (own: the point's pool when its workers spin, else NULL: a spin pool per pass). False, with a line on stderr,
 * when it cannot: the point then takes the block's floor. */
static bool sw_live_open(sw_live *lv, const sw_block *b, const pb_decode *d, pool *own)
{
    *lv = (sw_live){ .place = b->place, .own = own };
    pool *first = own ? own : sw_spin_pool(b->place);
    char err[512];
    snprintf(err, sizeof err, "no spin pool: %s", strerror(errno));
    int nspans;
    const pb_memspan *spans = pb_decode_read_spans(d, &nspans);
    int tokens = pb_sweep_tokens(&b->p->timing, d->prompt);
    int rc = first ? pb_decode_floor_live_open(&lv->fl, first, spans, nspans, b->floor.kernel, tokens, err,
                                               sizeof err)
                   : -1;
    if (first && !own)
        pool_destroy(first);
    if (rc != 0)
        fprintf(stderr, "\n%s: interleaved floor: %s; the block's floor instead\n", b->p->sink.prog, err);
    return rc == 0;
}

/* ---------------------------------------------------------------- one point */

/* The matvecs' multiply-adds of one step of d: every row of each, lm_head's over the logits' rows. */
static uint64_t sw_macs(const pb_decode_weights *w, const pb_decode *d)
{
    uint64_t n = 0;
    for (int i = 0; i < w->nmv; i++)
        n += (uint64_t)w->mv[i].rows * (uint64_t)w->mv[i].cols * (i == w->nmv - 1 ? d->logit_rows : d->batch);
    return n;
}

/* What the point is: its names and sizes, its pinned cpus and how they split into core kinds. */
static void sw_label(const sw_block *b, const pb_decode *d, int kind, int s, pb_sweep_row *r)
{
    const pb_sweep_plan *p = b->p;
    r->model = p->work.model->name;
    r->format = p->work.file ? pb_model_file_format(p->work.file) : pb_wformat_name(b->fmt);
    kern_format first = b->w->mfmt[0]; /* a mix's kernel columns: its first format's */
    r->kernel = kern_isa_name(kern_repack_isa(d->kernel[first].layout, first, d->kernel[first].isa)); /* that ran */
    r->kernel_why = pb_kwhy_names[d->kernel[first].why];
    r->kernel_layout = kern_layout_names[d->kernel[first].layout];
    r->repack_ms = d->repack_ms;
    r->repacked_bytes = d->repacked_bytes;
    r->kernel_stream = pb_kchoice_stream(first, &d->kernel[first]);
    r->floor_why = pb_kwhy_names[PB_KWHY_ALL]; /* sw_block_floor: always the best of every read kernel */
    r->policy = pb_exec_kind_names[kind];
    pb_sched_name(p->dispatch.sched[s], r->schedule, sizeof r->schedule);
    pb_emulate_text(p->cores.emulate, b->place->cpu, b->place->n, r->emulate, sizeof r->emulate);
    r->glue = pb_glue_mode_names[d->glue];
    r->cpuset = b->set->name;
    r->threads = b->place->n;
    r->batch = (int)d->batch;
    r->prompt = d->prompt ? (int)d->batch : 0;
    r->macs = sw_macs(b->w, d);
    r->roof_gmacs = b->roof_gmacs;
    r->tokens = pb_sweep_tokens(&p->timing, d->prompt);
    r->weight_bytes = b->w->bytes;
    r->context = (int)d->cache.context;
    r->kv_type = pb_kv_type_names[d->cache.type];
    r->kv_bytes = pb_decode_kv_bytes(d);
    r->weights = b->w->source;
    r->model_file = p->work.file ? p->work.file->g.name : "";
    r->arch = p->work.file ? p->work.file->arch : "";
    r->type_mix = p->work.file ? p->work.file->mix : "";
    pb_cpus_text(b->place->cpu, b->place->n, b->place->n, r->cpus, sizeof r->cpus);
    r->oversubscribed = b->oversubscribed;
    r->co_runner = p->cores.co_runner ? p->cores.co_runner : "";
    for (int i = 0; i < b->held->n; i++) { /* the cores, each once however many threads share it */
        const pb_topo_pu *pu = &p->cores.topo->pu[pb_topo_find(p->cores.topo, b->held->cpu[i])];
        if (pu->smt > 0)
            r->smt_threads++;
        else if (pu->kind == 0)
            r->p_cores++;
        else
            r->e_cores++;
    }
}

/* How a point of policy `kind` (pb_sweep_point_kind's) and schedule s runs on block b (cap: room for its
 * threads' capacities). */
static pb_exec_cfg sw_exec_cfg(const sw_block *b, int kind, int s, double *cap)
{
    const pb_sweep_plan *p = b->p;
    return (pb_exec_cfg){ .kind = kind, .threads = b->place->n, .cpus = b->place->cpu, .sched = p->dispatch.sched[s],
                          .spin_us = p->dispatch.spin_us, .emulate = p->cores.emulate,
                          .capacity = pb_sweep_capacities(&p->cores, b->place, cap) == 0 ? cap : NULL,
                          .topo = p->cores.topo };
}

/* The timed tokens through the point's open executor, with their floor. The floor is measured again beside every
 * point, with the kernel the block chose: on a shared machine the bandwidth moves within seconds, and a ratio
 * holds only side by side. A pool point interleaves one floor pass after each timed token (sw_live: on its own
 * pool when the workers spin: spin, hybrid within its budget, any pool at 1 thread; else on a spin pool made for
 * the pass). OpenMP's team spins on after a region, so a pool beside it would fight it for the cpus: its floor is
 * measured just before the point, never taken from memory_floor.csv (minutes old, perhaps in another placement,
 * and so no floor for the tokens beside it). */
static int sw_time(const sw_block *b, pb_decode *d, pb_exec *ex, pb_sweep_row *r, char *err, size_t errlen)
{
    const pb_sweep_plan *p = b->p;
    int threads = b->place->n;
    /* omp's floor: measured by sw_point just before; an oversubscribed point's: the block's, one thread a cpu */
    bool omp = ex->kind == PB_EXEC_OMP, live = !omp && !b->oversubscribed;
    bool spinning = pb_exec_kind_spins(ex->kind) || threads == 1;
    sw_live lv;
    if (live && !sw_live_open(&lv, b, d, spinning ? ex->p : NULL))
        live = false;
    if (!live && !omp)
        r->floor = b->floor;
    pb_sweep_between between = { .fn = live ? sw_floor_pass : NULL, .ctx = &lv };
    char why[512];
    r->ghz_before = ex->p ? pb_poolclock_ghz(ex->p) : NAN;
    if (p->timing.counters)
        pb_counters_start(p->timing.counters);
    int rc = pb_sweep_measure(d, ex, pb_sweep_warmup(&p->timing, d->prompt), pb_sweep_tokens(&p->timing, d->prompt),
                              p->timing.interval_ms, b->place->cpu, threads, &between, &r->m, why, sizeof why);
    r->ipc = pb_counters_finish(p->timing.counters, r->counters, sizeof r->counters);
    r->ghz_after = ex->p ? pb_poolclock_ghz(ex->p) : NAN;
    if (rc != 0)
        pb_errf(err, errlen, "%s %s: %s", r->format, r->policy, why);
    /* closed whether or not the tokens ran: a failed point leaves no floor context behind */
    if (live && pb_decode_floor_live_close(&lv.fl, &r->floor, why, sizeof why) != 0 && rc == 0)
        rc = pb_errf(err, errlen, "read floor at %d threads: %s", threads, why);
    return rc;
}

/* The logits of the first point of a format, batch (or prompt), cache type and context: every later one must match
 * them. */
typedef struct sw_ref {
    pb_wformat fmt;
    size_t batch, context;
    bool prompt;
    pb_kv_type kv;
    kern_isa ran[KERN_FORMAT_COUNT]; /* the ISA whose kernel ran each format the weights hold (COUNT: none) */
    kern_layout lay[KERN_FORMAT_COUNT]; /* and the layout it read (a repacked one gives the reference's bits) */
    float *logits;
} sw_ref;

/* The kernels that ran each format of b's weights (their ISAs: the prefetch never changes a bit). Kernels of two
 * ISAs agree within a tolerance, not bit for bit, and wisdom may pick another at another thread count. */
static void sw_ran(const sw_block *b, const pb_decode *d, kern_isa ran[KERN_FORMAT_COUNT],
                   kern_layout lay[KERN_FORMAT_COUNT])
{
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        ran[f] = KERN_ISA_COUNT;
        lay[f] = KERN_LAYOUT_FILE;
    }
    for (int i = 0; i < b->w->nmv; i++) {
        const pb_kchoice *k = &d->kernel[b->w->mfmt[i]];
        ran[b->w->mfmt[i]] = kern_repack_isa(k->layout, b->w->mfmt[i], k->isa);
        lay[b->w->mfmt[i]] = k->layout;
    }
}

/* Every point ends on the same token: its logits must match the first point's of its format, batch, depth (cache
 * type and context) and kernels bit for bit. -1 (ENOMEM) when the first copy cannot be kept. */
static int sw_verify(pb_sweep_run *run, const sw_block *b, const pb_decode *d, pb_sweep_row *r)
{
    size_t nl = d->logit_rows * (size_t)b->p->work.model->vocab;
    kern_isa ran[KERN_FORMAT_COUNT];
    kern_layout lay[KERN_FORMAT_COUNT];
    sw_ran(b, d, ran, lay);
    sw_ref *ref = NULL;
    for (size_t i = 0; i < run->refs.n && !ref; i++) {
        sw_ref *x = PB_VEC_AT(&run->refs, sw_ref, i);
        if (x->fmt == b->fmt && x->batch == d->batch && x->prompt == d->prompt && x->context == d->cache.context &&
            x->kv == d->cache.type &&
            memcmp(x->ran, ran, sizeof ran) == 0 && memcmp(x->lay, lay, sizeof lay) == 0)
            ref = x;
    }
    if (!ref) {
        float *copy = malloc(nl * sizeof *copy);
        if (!copy || !(ref = pb_vec_push(&run->refs))) {
            free(copy);
            return -1;
        }
        *ref = (sw_ref){ .fmt = b->fmt, .batch = d->batch, .prompt = d->prompt, .context = d->cache.context,
                         .kv = d->cache.type, .logits = copy };
        memcpy(ref->ran, ran, sizeof ran);
        memcpy(ref->lay, lay, sizeof lay);
        memcpy(copy, d->logits, nl * sizeof *copy);
    }
    r->verified = memcmp(ref->logits, d->logits, nl * sizeof *d->logits) == 0;
    return 0;
}

/* The round trip between the set's first two placed cpus (NaN for a one-cpu set). */
static double sw_roundtrip(const sw_block *b)
{
    const pb_cpulist *pair = b->pair;
    return pb_roundtrip_ns(pair->cpu[0], pair->n > 1 ? pair->cpu[1] : -1, RT_BATCHES,
                           b->p->timing.quick ? RT_ITERS / 4 : RT_ITERS);
}

/* RAPL's counters around a point's timed stretch (its tokens and the floor passes between them). */
typedef struct sw_power {
    pb_powercap_sample before;
    uint64_t t0;
    bool ok;
} sw_power;

static void sw_power_start(const pb_sweep_run *run, sw_power *pw)
{
    char why[256];
    pw->ok = run->power_ok && pb_powercap_read(&run->power, &pw->before, why, sizeof why) == 0;
    pw->t0 = pb_now_ns();
}

static void sw_power_end(const pb_sweep_run *run, const sw_block *b, const sw_power *pw, pb_sweep_row *r)
{
    pb_powercap_sample after;
    char why[256];
    double s = (double)(pb_now_ns() - pw->t0) / 1e9;
    r->watts_package = r->watts_dram = NAN;
    if (!pw->ok || s <= 0 || pb_powercap_read(&run->power, &after, why, sizeof why) != 0)
        return;
    why[0] = '\0';
    r->watts_package = pb_powercap_joules_of(&run->power, "package", &pw->before, &after, s, why, sizeof why) / s;
    r->watts_dram = pb_powercap_joules_of(&run->power, "dram", &pw->before, &after, s, why, sizeof why) / s;
    if (why[0]) /* a counter that cannot be true: its watts empty, and the reason said */
        fprintf(stderr, "\n%s: point %d: %s\n", b->p->sink.prog, r->point, why);
}

/* Before a point's executor opens: the progress line, the round trip and the power counters. */
static void sw_before(pb_sweep_run *run, const sw_block *b, pb_sweep_row *r, sw_power *pw)
{
    pb_progress(run->done, run->total, run->t0, "%s %s %s %s glue threads=%d cpus=%s M=%d ctx=%d", r->format,
                r->policy, r->schedule, r->glue, r->threads, b->set->name, r->batch, r->context);
    r->rt_before = sw_roundtrip(b);
    sw_power_start(run, pw);
}

/* After it closed: the power, the budget (its floor is known now), the round trip and the placement's tag. */
static void sw_after(const pb_sweep_run *run, const sw_block *b, const sw_power *pw, pb_sweep_row *r, int rc)
{
    sw_power_end(run, b, pw, r);
    if (rc == 0)
        pb_sweep_row_budget(r);
    r->rt_after = sw_roundtrip(b);
    snprintf(r->placement, sizeof r->placement, "%s",
             pb_placement_block(b->p->cores.where, b->pair->cpu[0], b->pair->n > 1 ? b->pair->cpu[1] : -1,
                                r->rt_before, r->rt_after));
}

/* A point's row kept and handed on when it measured (rc 0) something real that reproduced its reference logits;
 * else dropped from the table (it never reached the CSVs, or only in part). */
static int sw_keep(pb_sweep_run *run, const sw_block *b, const pb_decode *d, pb_sweep_row *r, int rc, char *err,
                   size_t errlen)
{
    const pb_sweep_plan *p = b->p;
    if (pb_mapguard_tripped()) /* zeros stood in for the weights: the point measured nothing real */
        rc = pb_errf(err, errlen, "%s: the file was truncated while the run read it (byte %llu of its mapping is "
                     "past its new end): point %d dropped", p->work.file ? p->work.file->g.name : "the model file",
                     (unsigned long long)pb_mapguard_offset(), r->point);
    if (rc == 0 && sw_verify(run, b, d, r) != 0)
        rc = pb_errf(err, errlen, "the reference logits: %s", strerror(errno));
    if (rc == 0 && p->sink.row(p->sink.ctx, r) != 0)
        rc = pb_errf(err, errlen, "writing point %d: %s", r->point, strerror(errno));
    if (rc != 0) {
        pb_sweep_meas_free(&r->m);
        pb_vec_pop(&run->rows);
        return -1;
    }
    run->done++;
    return 0;
}

/* One point of block b: pt's policy, schedule and glue mode over d's step. */
static int sw_point(pb_sweep_run *run, const sw_block *b, pb_decode *d, const pb_sweep_point *pt, char *err,
                    size_t errlen)
{
    pb_sweep_row *r = pb_vec_push(&run->rows);
    if (!r)
        return pb_errf(err, errlen, "the rows: %s", strerror(errno));
    r->point = (int)run->rows.n;
    int kind = pb_sweep_point_kind(&b->p->dispatch, pt->policy, pt->threads);
    d->glue = pt->glue;
    sw_label(b, d, kind, pt->sched, r);
    double cap[PB_MAX_CPUS];
    const pb_exec_cfg cfg = sw_exec_cfg(b, kind, pt->sched, cap);
    pb_exec ex;
    sw_power power;
    int rc = kind == PB_EXEC_OMP ? sw_floor(b, d, b->floor.kernel, &r->floor, err, errlen) : 0;
    if (rc == 0) {
        sw_before(run, b, r, &power);
        if (pb_exec_open_cfg(&ex, &cfg) != 0)
            rc = pb_errf(err, errlen, "%s with %d threads: %s", r->policy, cfg.threads, strerror(errno));
        else {
            rc = sw_time(b, d, &ex, r, err, errlen);
            pb_exec_close(&ex);
        }
        sw_after(run, b, &power, r, rc);
    }
    return sw_keep(run, b, d, r, rc, err, errlen);
}

/* The points' KV cache: b's context and type, filled by a spin pool on the block's cpus (first-touched where the
 * points read it). */
static int sw_depth(const sw_block *b, pb_decode *d, char *err, size_t errlen)
{
    pb_exec ex;
    if (pb_exec_open(&ex, PB_EXEC_SPIN, b->held->n, b->held->cpu, 0, 0) != 0)
        return pb_errf(err, errlen, "KV cache filler: %s", strerror(errno));
    int rc = pb_decode_set_context(d, b->context, b->kv, &ex);
    pb_exec_close(&ex);
    return rc == 0 ? 0 : pb_errf(err, errlen, "a KV cache of %zu positions (%s): %s", b->context,
                                 pb_kv_type_names[b->kv], strerror(errno));
}

/* ---------------------------------------------------------------- interleaved rounds */

/* The block's alternatives at d's batch, as its points ran them: their executors into alts, their names into
 * labels. How many. */
static int sw_alternatives(const sw_block *b, pb_decode *d, pb_pairs_alt *alts, pb_sweep_row *labels, double *cap)
{
    const pb_sweep_dispatch *dp = &b->p->dispatch;
    int n = 0, glues = dp->glues->n;
    const pb_list *policies = pb_sweep_policies(dp, d->prompt);
    for (int k = 0; k < policies->n; k++)
        for (int sg = 0; sg < dp->nsched * glues && n < PB_PAIRS_MAX_ALTS; sg++) {
            int s = sg / glues, kind = pb_sweep_point_kind(dp, (int)policies->v[k], b->place->n);
            if (!pb_sweep_sched_runs(b->p, s, b->place))
                continue;
            alts[n] = (pb_pairs_alt){ .glue = (pb_glue_mode)dp->glues->v[sg % glues],
                                      .cfg = sw_exec_cfg(b, kind, s, cap) };
            d->glue = alts[n].glue;
            sw_label(b, d, kind, s, &labels[n]);
            n++;
        }
    return n;
}

/* The placement of a block's first two cpus between two interleaved rounds: the tag of a round trip taken now. */
typedef struct sw_place {
    const sw_block *b;
    char tag[8];
    bool have;
} sw_place;

static bool sw_place_moved(void *ctx)
{
    sw_place *pl = ctx; /* pb_pairs hands back the sw_place sw_pairs gave it */
    const pb_cpulist *pair = pl->b->pair;
    int a = pair->cpu[0], c = pair->n > 1 ? pair->cpu[1] : -1;
    double rt = pb_roundtrip_ns(a, c, 3, pl->b->p->timing.quick ? RT_ITERS / 10 : RT_ITERS / 5);
    const char *tag = pb_placement_block(pl->b->p->cores.where, a, c, rt, rt);
    bool moved = pl->have && strcmp(pl->tag, tag) != 0;
    snprintf(pl->tag, sizeof pl->tag, "%s", tag);
    pl->have = true;
    return moved;
}

/* The block's alternatives at d's batch measured interleaved (pb_pairs.h), every token a pairs.csv row. A block
 * of one alternative, or a run without --pair-s, has none. */
static int sw_pairs(const sw_block *b, pb_decode *d, char *err, size_t errlen)
{
    const pb_sweep_plan *p = b->p;
    if (p->timing.pair_s <= 0 || b->oversubscribed)
        return 0;
    pb_pairs_alt alts[PB_PAIRS_MAX_ALTS];
    double cap[PB_MAX_CPUS];
    pb_sweep_row *labels = calloc(PB_PAIRS_MAX_ALTS, sizeof *labels);
    pb_pairs_result *res = malloc(sizeof *res);
    pb_glue_mode glue = d->glue;
    int n = labels && res ? sw_alternatives(b, d, alts, labels, cap) : 0, rc = 0;
    d->glue = glue;
    if (!labels || !res)
        rc = pb_errf(err, errlen, "interleaved rounds: out of memory");
    else if (n >= 2) {
        /* seconds without a point ending: the progress line says what runs meanwhile */
        pb_status("%s: %d alternatives interleaved, a token each a round, up to %.0f s", labels[0].format, n,
                  p->timing.pair_s);
        sw_place place = { .b = b };
        const pb_pairs_hook hook = { .moved = sw_place_moved, .ctx = &place };
        rc = pb_pairs_run(d, alts, n, b->held->cpu, b->held->n, p->timing.pair_s, p->timing.procstat, &hook, res, err, errlen);
    }
    for (int r = 0; rc == 0 && n >= 2 && r < res->rounds; r++)
        for (int a = 0; a < n && rc == 0; a++) {
            const pb_sweep_pair pr = { .label = &labels[a], .round = r + 1, .slot = res->slot[r][a],
                                       .ms = res->ms[r][a], .steal_pct = res->steal[r][a],
                                       .aside = res->aside[r][a], .moved = res->moved[r],
                                       .stopped = res->narrow ? "narrow" : "budget" };
            if (p->sink.pair_row(p->sink.ctx, &pr) != 0)
                rc = pb_errf(err, errlen, "writing pairs.csv: %s", strerror(errno));
        }
    free(labels);
    free(res);
    return rc;
}

/* ---------------------------------------------------------------- the walk */

/* What the walk holds open: a format's weights, a block (its own copy of the point's placement: the walk places the
 * next block before the last step's interleaved rounds run), a step's decode at its depth. */
typedef struct sw_walk {
    pb_sweep_point pt;
    pb_cpulist builders, place, held, pair;
    pb_decode_weights w;
    bool have_w, have_d;
    sw_block b;
    pb_decode d;
} sw_walk;

/* A step: pt's batch of decode rows, or its prompt of that many tokens, over a cache of its depth. */
static int sw_step_open(sw_walk *wk, char *err, size_t errlen)
{
    const pb_sweep_point *pt = &wk->pt;
    sw_block *b = &wk->b;
    pb_kchoice gemm[KERN_FORMAT_COUNT]; /* a prompt's: each format's GEMM tiles where it has them */
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        gemm[f] = b->kernel[f];
        kern_layout l = kern_gemm_layout((kern_format)f, b->kernel[f].isa);
        gemm[f].layout = l != KERN_LAYOUT_FILE ? l : gemm[f].layout;
    }
    b->kv = pt->kv;
    b->context = pt->context;
    if ((pt->prompt ? pb_decode_init_prompt(&wk->d, b->w, gemm, pt->rows)
                    : pb_decode_init_with(&wk->d, b->w, b->kernel, pt->rows)) != 0)
        return pb_errf(err, errlen, "%s with %s, %s %zu: %s", pb_wformat_name(b->fmt),
                       kern_isa_name(b->kernel[b->w->mfmt[0]].isa), pt->prompt ? "prompt" : "batch", pt->rows,
                       strerror(errno));
    wk->have_d = true;
    return sw_depth(b, &wk->d, err, errlen);
}

/* The step ends: a decode's alternatives interleaved when its points all ran (pairs; a prompt's step is seconds
 * long: its rounds would be few), and its decode freed. */
static int sw_step_close(sw_walk *wk, bool pairs, char *err, size_t errlen)
{
    if (!wk->have_d)
        return 0;
    int rc = pairs && !wk->d.prompt && !pb_stop_signal() ? sw_pairs(&wk->b, &wk->d, err, errlen) : 0;
    pb_decode_free(&wk->d);
    wk->have_d = false;
    return rc;
}

/* ---------------------------------------------------------------- blocks and formats */

/* The block's floor: memory_floor.csv's for these very cpus when the run has one, else the best of every read
 * kernel measured now. Not wisdom's read kernel alone: a tuning's pick can read slower than another kernel at the
 * moment of the decode, and a floor below the best read would flatter every % of floor over it. */
static int sw_block_floor(pb_sweep_run *run, sw_block *b, char *err, size_t errlen)
{
    char why[512];
    int rc = b->p->timing.run_dir ? pb_decode_floor_from_csv(b->p->timing.run_dir, b->held->cpu, b->held->n, &b->floor, why,
                                                      sizeof why)
                           : 1;
    if (rc < 0)
        fprintf(stderr, "\n%s: %s; measuring the floor instead\n", b->p->sink.prog, why);
    if (rc == 0)
        return 0;
    pb_status("[%d/%d] read floor: %s threads=%d cpus=%s", run->done + 1, run->total, pb_wformat_name(b->fmt),
              b->place->n, b->set->name);
    return sw_floor(b, NULL, NULL, &b->floor, err, errlen);
}

/* The block's compute roof: the best ISA this run may use (kern_isa_chosen: a POOLBENCH_ISA cap holds), int8,
 * or f32 for float weights, one thread per held cpu (pb_roof.h). NaN, with a line on stderr, where it cannot run:
 * the points' budgets then take the floor as their bound. */
static void sw_block_roof(pb_sweep_run *run, sw_block *b)
{
    kern_format f = b->w->mfmt[0];
    kern_peak_op op = f == KERN_F32 || f == KERN_F16 ? KERN_PEAK_F32 : KERN_PEAK_INT8;
    pb_roof_point pt;
    char why[256];
    pb_status("[%d/%d] compute roof: %s %s threads=%d cpus=%s", run->done + 1, run->total,
              kern_isa_name(kern_isa_chosen()), kern_peak_op_names[op], b->held->n, b->set->name);
    b->roof_gmacs = NAN;
    if (pb_roof_measure(kern_isa_chosen(), op, b->held->cpu, b->held->n, &pt, why, sizeof why) == 0)
        b->roof_gmacs = pt.gmacs_median;
    else
        fprintf(stderr, "\n%s: compute roof at %d threads: %s; the budgets take the floor as their bound\n",
                b->p->sink.prog, b->held->n, why);
}

/* A block: the point's placement, the set's round-trip pair, each format's kernel at the thread count (wisdom's at
 * the nearest count it timed), the floor and the compute roof. */
static int sw_block_open(pb_sweep_run *run, sw_walk *wk, char *err, size_t errlen)
{
    const pb_sweep_point *pt = &wk->pt;
    sw_block *b = &wk->b;
    wk->place = pt->place;
    wk->held = pt->held;
    b->set = pt->set;
    b->oversubscribed = pt->threads > pt->held.n;
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        b->kernel[f] = pb_kchoice_for(&b->p->dispatch.kernels, (kern_format)f, pt->threads);
    if (pb_topo_place(b->p->cores.topo, &b->set->cpus, b->set->cpus.n < 2 ? 1 : 2, &wk->pair, err, errlen) != 0 ||
        sw_block_floor(run, b, err, errlen) != 0)
        return -1;
    sw_block_roof(run, b);
    return 0;
}

typedef struct sw_build {
    uint64_t t0, last; /* start, and the last line drawn */
    const char *what;
} sw_build;

static void sw_build_progress(void *ctx, uint64_t done, uint64_t total)
{
    /* ctx is the caller's sw_build; called on the caller's thread between dispatches. A terminal gets a redraw
     * twice a second, a log a line every 5 s. */
    sw_build *p = ctx;
    uint64_t now = pb_now_ns(), every = isatty(STDERR_FILENO) ? 500000000ull : 5000000000ull;
    if (done < total && p->last && now - p->last < every)
        return;
    p->last = now;
    pb_status("building %s weights: %5.1f%% of %.2f GiB, %.1f s", p->what, 100.0 * (double)done / (double)total,
              (double)total / (1 << 30), (double)(now - p->t0) / 1e9);
}

/* A format's weights, built (or the model file's loaded) by every cpu of the largest set (first-touched where the
 * points read them); the last format's freed first. */
static int sw_weights(sw_walk *wk, char *err, size_t errlen)
{
    const pb_sweep_plan *p = wk->b.p;
    pb_wformat fmt = wk->pt.fmt;
    if (wk->have_w)
        pb_decode_weights_free(&wk->w);
    wk->have_w = false;
    pb_exec gen;
    if (pb_exec_open(&gen, PB_EXEC_SPIN, wk->builders.n, wk->builders.cpu, 0, 0) != 0)
        return pb_errf(err, errlen, "weight builder: %s", strerror(errno));
    sw_build pg = { .t0 = pb_now_ns(), .what = p->work.file ? p->work.file->name : pb_wformat_name(fmt) };
    int rc = p->work.file
                 ? pb_decode_weights_load(&wk->w, p->work.file, p->work.mmap, p->work.seed, &gen, sw_build_progress,
                                          &pg)
                 : pb_wformat_build(&wk->w, p->work.model, fmt, p->work.seed, &gen, sw_build_progress, &pg);
    pb_exec_close(&gen);
    if (rc != 0)
        return pb_errf(err, errlen, "building %s %s weights: %s", p->work.model->name, pb_wformat_name(fmt),
                       strerror(errno));
    wk->have_w = true;
    wk->b.fmt = fmt;
    return 0;
}

/* What a point needs open, by the outermost dimension that changed since the last: the last step closed, then a
 * format's weights, a block, a step. */
static int sw_enter(pb_sweep_run *run, sw_walk *wk, char *err, size_t errlen)
{
    int changed = wk->pt.changed;
    int rc = changed <= PB_SWEEP_STEP ? sw_step_close(wk, true, err, errlen) : 0;
    if (rc == 0 && changed == PB_SWEEP_FORMAT)
        rc = sw_weights(wk, err, errlen);
    if (rc == 0 && changed <= PB_SWEEP_THREADS)
        rc = sw_block_open(run, wk, err, errlen);
    if (rc == 0 && changed <= PB_SWEEP_STEP)
        rc = sw_step_open(wk, err, errlen);
    return rc;
}

/* The run's rows and references started, its power counters opened, and the weights' builders placed. NULL, with
 * the reason, when they cannot be. */
static sw_walk *sw_walk_open(pb_sweep_run *run, const pb_sweep_plan *p, char *err, size_t errlen)
{
    run->rows = PB_VEC(pb_sweep_row);
    run->refs = PB_VEC(sw_ref);
    run->done = 0;
    run->total = pb_sweep_plan_points(p);
    run->t0 = pb_now_ns();
    char why[256];
    run->power_ok = pb_powercap_open(&run->power, NULL, why, sizeof why) > 0; /* machine.csv says why not */
    sw_walk *wk = calloc(1, sizeof *wk); /* 16 KiB of cpu lists: off the stack */
    if (!wk) {
        pb_errf(err, errlen, "the sweep: %s", strerror(errno));
        return NULL;
    }
    wk->b = (sw_block){ .p = p, .w = &wk->w, .place = &wk->place, .held = &wk->held, .pair = &wk->pair };
    const pb_cpuset *big = &p->cores.sets->set[pb_cpusets_largest(p->cores.sets)];
    if (pb_topo_place(p->cores.topo, &big->cpus, big->cpus.n, &wk->builders, err, errlen) != 0) {
        free(wk);
        return NULL;
    }
    return wk;
}

int pb_sweep_run_all(pb_sweep_run *run, const pb_sweep_plan *p, char *err, size_t errlen)
{
    sw_walk *wk = sw_walk_open(run, p, err, errlen);
    int rc = wk ? 0 : -1, more = 0;
    while (rc == 0 && !pb_stop_signal() && (more = pb_sweep_next(p, &wk->pt, err, errlen)) != 0) {
        rc = more < 0 ? -1 : sw_enter(run, wk, err, errlen);
        if (rc == 0 && pb_sweep_sched_runs(p, wk->pt.sched, wk->b.place))
            rc = sw_point(run, &wk->b, &wk->d, &wk->pt, err, errlen);
    }
    if (wk) {
        int end = sw_step_close(wk, rc == 0, err, errlen); /* the last step's rounds */
        rc = rc ? rc : end;
        if (wk->have_w)
            pb_decode_weights_free(&wk->w);
        free(wk);
    }
    pb_progress_done(run->done, "points", run->t0);
    return rc;
}

int pb_sweep_run_unverified(const pb_sweep_run *run)
{
    int n = 0;
    for (size_t i = 0; i < run->rows.n; i++)
        n += !PB_VEC_AT(&run->rows, pb_sweep_row, i)->verified;
    return n;
}

void pb_sweep_run_free(pb_sweep_run *run)
{
    for (size_t i = 0; i < run->rows.n; i++)
        pb_sweep_meas_free(&PB_VEC_AT(&run->rows, pb_sweep_row, i)->m);
    pb_vec_free(&run->rows);
    for (size_t i = 0; i < run->refs.n; i++)
        free(PB_VEC_AT(&run->refs, sw_ref, i)->logits);
    pb_vec_free(&run->refs);
}
