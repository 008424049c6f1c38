/* pb_sweep_point.c — see pb_sweep_point.h. */
#include "pb_sweep_point.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_err.h"
#include "pb_mapguard.h"
#include "pb_placement.h"
#include "pb_poolclock.h"
#include "pb_progress.h"
#include "pb_time.h"
#include "pb_weight_format.h"

/* The matvecs' multiply-adds of one step of d: every row of each, lm_head's over the logits' rows. */
static uint64_t spt_macs(const pb_decode_weights *w, const pb_decode *d)
{
    uint64_t n = 0;
    for (int i = 0; i < w->nmv; i++)
        n += (uint64_t)w->mv[i].rows * (uint64_t)w->mv[i].cols * (i == w->nmv - 1 ? d->logit_rows : d->batch);
    return n;
}

void pb_sweep_point_label(const pb_sweep_block *b, const pb_decode *d, int kind, int s, pb_sweep_row *r)
{
    const pb_sweep_plan *p = b->p;
    r->model = p->work.model->name;
    r->format = p->work.file ? pb_model_file_format(p->work.file) : pb_weight_format_name(b->fmt);
    kern_format first = b->w->mfmt[0]; /* a mix's kernel columns: its first format's */
    r->kernel = kern_isa_name(kern_repack_isa(d->kernel[first].layout, first, d->kernel[first].isa)); /* that ran */
    r->kernel_why = pb_kernel_why_names[d->kernel[first].why];
    r->kernel_layout = kern_layout_names[d->kernel[first].layout];
    r->repack_ms = d->repack_ms;
    r->repacked_bytes = d->repacked_bytes;
    r->kernel_stream = pb_kernel_choice_stream(first, &d->kernel[first]);
    r->floor_why = pb_kernel_why_names[PB_KERNEL_WHY_ALL]; /* pb_sweep_block_floor: always the best read kernel */
    r->policy = pb_exec_kind_names[kind];
    pb_sched_name(p->dispatch.sched[s], r->schedule, sizeof r->schedule);
    pb_emulate_text(p->cores.emulate, b->place->cpu, b->place->n, r->emulate, sizeof r->emulate);
    r->glue = pb_glue_mode_names[d->glue];
    r->cpuset = b->set->name;
    r->threads = b->place->n;
    r->batch = (int)d->batch;
    r->prompt = d->prompt ? (int)d->batch : 0;
    r->macs = spt_macs(b->w, d);
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

pb_exec_cfg pb_sweep_point_cfg(const pb_sweep_block *b, int kind, int s)
{
    const pb_sweep_plan *p = b->p;
    return (pb_exec_cfg){ .kind = kind, .threads = b->place->n, .cpus = b->place->cpu, .sched = p->dispatch.sched[s],
                          .spin_us = p->dispatch.spin_us, .emulate = p->cores.emulate, .capacity = b->capacity,
                          .topo = p->cores.topo };
}

/* The timed tokens through the point's open executor, with their floor. The floor is measured again beside every
 * point, with the kernel the block chose: on a shared machine the bandwidth moves within seconds, and a ratio
 * holds only side by side. A pool point interleaves one floor pass after each timed token (pb_sweep_live: on its own
 * pool when the workers spin: spin, hybrid within its budget, any pool at 1 thread; else on a spin pool made for
 * the pass). OpenMP's team spins on after a region, so a pool beside it would fight it for the cpus: its floor is
 * measured just before the point, never taken from memory_floor.csv (minutes old, perhaps in another placement,
 * and so no floor for the tokens beside it). */
static int spt_time(const pb_sweep_block *b, pb_decode *d, pb_exec *ex, pb_sweep_row *r, char *err, size_t errlen)
{
    const pb_sweep_plan *p = b->p;
    int threads = b->place->n;
    /* omp's floor: measured by pb_sweep_point_measure just before; an oversubscribed point's: the block's, one
     * thread a cpu */
    bool omp = ex->kind == PB_EXEC_OMP, live = !omp && !b->oversubscribed;
    bool spinning = pb_exec_kind_spins(ex->kind) || threads == 1;
    pb_sweep_live lv;
    if (live && !pb_sweep_block_live_open(&lv, b, d, spinning ? ex->p : NULL))
        live = false;
    if (!live && !omp)
        r->floor = b->floor;
    pb_sweep_between between = { .fn = live ? pb_sweep_block_live_pass : NULL, .ctx = &lv };
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
typedef struct spt_ref {
    pb_weight_format fmt;
    size_t batch, context;
    bool prompt;
    pb_kv_type kv;
    kern_isa ran[KERN_FORMAT_COUNT]; /* the ISA whose kernel ran each format the weights hold (COUNT: none) */
    kern_layout lay[KERN_FORMAT_COUNT]; /* and the layout it read (a repacked one gives the reference's bits) */
    float *logits;
} spt_ref;

/* The kernels that ran each format of b's weights (their ISAs: the prefetch never changes a bit). Kernels of two
 * ISAs agree within a tolerance, not bit for bit, and wisdom may pick another at another thread count. */
static void spt_ran(const pb_sweep_block *b, const pb_decode *d, kern_isa ran[KERN_FORMAT_COUNT],
                   kern_layout lay[KERN_FORMAT_COUNT])
{
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        ran[f] = KERN_ISA_COUNT;
        lay[f] = KERN_LAYOUT_FILE;
    }
    for (int i = 0; i < b->w->nmv; i++) {
        const pb_kernel_choice *k = &d->kernel[b->w->mfmt[i]];
        ran[b->w->mfmt[i]] = kern_repack_isa(k->layout, b->w->mfmt[i], k->isa);
        lay[b->w->mfmt[i]] = k->layout;
    }
}

/* Every point ends on the same token: its logits must match the first point's of its format, batch, depth (cache
 * type and context) and kernels bit for bit. -1 (ENOMEM) when the first copy cannot be kept. */
static int spt_verify(pb_sweep_run *run, const pb_sweep_block *b, const pb_decode *d, pb_sweep_row *r)
{
    size_t nl = d->logit_rows * (size_t)b->p->work.model->vocab;
    kern_isa ran[KERN_FORMAT_COUNT];
    kern_layout lay[KERN_FORMAT_COUNT];
    spt_ran(b, d, ran, lay);
    spt_ref *ref = NULL;
    for (size_t i = 0; i < run->refs.n && !ref; i++) {
        spt_ref *x = PB_VEC_AT(&run->refs, spt_ref, i);
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
        *ref = (spt_ref){ .fmt = b->fmt, .batch = d->batch, .prompt = d->prompt, .context = d->cache.context,
                         .kv = d->cache.type, .logits = copy };
        memcpy(ref->ran, ran, sizeof ran);
        memcpy(ref->lay, lay, sizeof lay);
        memcpy(copy, d->logits, nl * sizeof *copy);
    }
    r->verified = memcmp(ref->logits, d->logits, nl * sizeof *d->logits) == 0;
    return 0;
}

/* RAPL's counters around a point's timed stretch (its tokens and the floor passes between them). */
typedef struct spt_power {
    pb_powercap_sample before;
    uint64_t t0;
    bool ok;
} spt_power;

static void spt_power_start(const pb_sweep_run *run, spt_power *pw)
{
    char why[256];
    pw->ok = run->power_ok && pb_powercap_read(&run->power, &pw->before, why, sizeof why) == 0;
    pw->t0 = pb_now_ns();
}

static void spt_power_end(const pb_sweep_run *run, const pb_sweep_block *b, const spt_power *pw, pb_sweep_row *r)
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
static void spt_before(pb_sweep_run *run, const pb_sweep_block *b, pb_sweep_row *r, spt_power *pw)
{
    pb_progress(run->done, run->total, run->t0, "%s %s %s %s glue threads=%d cpus=%s M=%d ctx=%d", r->format,
                r->policy, r->schedule, r->glue, r->threads, b->set->name, r->batch, r->context);
    r->rt_before = pb_sweep_block_roundtrip(b);
    spt_power_start(run, pw);
}

/* After it closed: the power, the budget (its floor is known now), the round trip and the placement's tag. */
static void spt_after(const pb_sweep_run *run, const pb_sweep_block *b, const spt_power *pw, pb_sweep_row *r, int rc)
{
    spt_power_end(run, b, pw, r);
    if (rc == 0)
        pb_sweep_row_budget(r);
    r->rt_after = pb_sweep_block_roundtrip(b);
    snprintf(r->placement, sizeof r->placement, "%s",
             pb_placement_block(b->p->cores.where, b->pair->cpu[0], b->pair->n > 1 ? b->pair->cpu[1] : -1,
                                r->rt_before, r->rt_after));
}

/* A point's row kept and handed on when it measured (rc 0) something real that reproduced its reference logits;
 * else dropped from the table (it never reached the CSVs, or only in part). */
static int spt_keep(pb_sweep_run *run, const pb_sweep_block *b, const pb_decode *d, pb_sweep_row *r, int rc, char *err,
                   size_t errlen)
{
    const pb_sweep_plan *p = b->p;
    if (pb_mapguard_tripped()) /* zeros stood in for the weights: the point measured nothing real */
        rc = pb_errf(err, errlen, "%s: the file was truncated while the run read it (byte %llu of its mapping is "
                     "past its new end): point %d dropped", p->work.file ? p->work.file->g.name : "the model file",
                     (unsigned long long)pb_mapguard_offset(), r->point);
    if (rc == 0 && spt_verify(run, b, d, r) != 0)
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

int pb_sweep_point_measure(pb_sweep_run *run, const pb_sweep_block *b, pb_decode *d, const pb_sweep_point *pt,
                           char *err, size_t errlen)
{
    pb_sweep_row *r = pb_vec_push(&run->rows);
    if (!r)
        return pb_errf(err, errlen, "the rows: %s", strerror(errno));
    r->point = (int)run->rows.n;
    int kind = pb_sweep_point_kind(&b->p->dispatch, pt->policy, pt->threads);
    d->glue = pt->glue;
    pb_sweep_point_label(b, d, kind, pt->sched, r);
    const pb_exec_cfg cfg = pb_sweep_point_cfg(b, kind, pt->sched);
    pb_exec ex;
    spt_power power;
    int rc = kind == PB_EXEC_OMP ? pb_sweep_block_floor_of(b, d, b->floor.kernel, &r->floor, err, errlen) : 0;
    if (rc == 0) {
        spt_before(run, b, r, &power);
        if (pb_exec_open_cfg(&ex, &cfg) != 0)
            rc = pb_errf(err, errlen, "%s with %d threads: %s", r->policy, cfg.threads, strerror(errno));
        else {
            rc = spt_time(b, d, &ex, r, err, errlen);
            pb_exec_close(&ex);
        }
        spt_after(run, b, &power, r, rc);
    }
    return spt_keep(run, b, d, r, rc, err, errlen);
}

void pb_sweep_point_refs_open(pb_sweep_run *run)
{
    run->refs = PB_VEC(spt_ref);
}

void pb_sweep_point_refs_free(pb_sweep_run *run)
{
    for (size_t i = 0; i < run->refs.n; i++)
        free(PB_VEC_AT(&run->refs, spt_ref, i)->logits);
    pb_vec_free(&run->refs);
}
