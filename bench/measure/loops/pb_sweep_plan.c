/* pb_sweep_plan.c — see pb_sweep_plan.h. */
#include "pb_sweep_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_attn.h"
#include "pb_err.h"
#include "pb_membuf.h"
#include "pb_weight_format.h"

/* A run with unequal cores: two core kinds on this machine, or an emulated slow cpu. */
static bool plan_run_unequal(const pb_sweep_cores *c)
{
    return (c->topo && c->topo->nkinds > 1) || (c->emulate && c->emulate->n > 0);
}

int pb_sweep_schedules(pb_sweep_dispatch *d, const pb_sweep_cores *c, const char *spec, char *err, size_t errlen)
{
    char buf[1024];
    d->sched_given = spec != NULL;
    if (!spec)
        spec = plan_run_unequal(c) ? "static,weighted,dynamic:" PB_STR(PB_SWEEP_DYNAMIC_ROWS) : "static";
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    d->nsched = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (d->nsched == PB_SWEEP_MAX_SCHED)
            return pb_errf(err, errlen, "at most %d schedules", PB_SWEEP_MAX_SCHED);
        pb_sched *s = &d->sched[d->nsched++];
        if (pb_sched_parse(t, s) != 0)
            return pb_errf(err, errlen,
                           "'%s' is not static, weighted, dynamic:N or steal:N with N from 1 to 1000000000", t);
        for (int k = 0; k < d->nsched - 1; k++) /* by value: steal:64 and steal:064 are one schedule */
            if (d->sched[k].kind == s->kind && d->sched[k].chunk == s->chunk)
                return pb_errf(err, errlen, "'%s' is given twice (accepted: each schedule once)", t);
    }
    return d->nsched ? 0 : pb_errf(err, errlen, "give static, weighted, dynamic:N or steal:N");
}

/* cpu's core kind (0 = the fastest), -1 when the topology does not hold it. */
static int plan_kind(const pb_topo *t, int cpu)
{
    int i = pb_topo_find(t, cpu);
    return i < 0 ? -1 : t->pu[i].kind;
}

int pb_sweep_capacities(const pb_sweep_cores *c, const pb_cpulist *place, double *cap)
{
    for (int i = 0; i < place->n; i++) {
        int k = pb_topo_find(c->topo, place->cpu[i]);
        if (k < 0 || pb_emulate_factor(c->emulate, place->cpu[i]) < 1)
            return -1;
        cap[i] = c->topo->kind[c->topo->pu[k].kind].capacity;
    }
    return 0;
}

bool pb_sweep_sched_runs(const pb_sweep_plan *p, int s, const pb_cpulist *place)
{
    const pb_sweep_cores *c = &p->cores;
    if (p->dispatch.sched_given || p->dispatch.sched[s].kind == PB_SCHED_STATIC)
        return true;
    for (int i = 0; i < place->n; i++)
        if (pb_emulate_factor(c->emulate, place->cpu[i]) < 1 ||
            plan_kind(c->topo, place->cpu[i]) != plan_kind(c->topo, place->cpu[0]))
            return true;
    return false;
}

/* The largest KV cache a point of w fills: the deepest context at the largest batch, or the longest prompt past it
 * (one sequence), of the widest type. */
static uint64_t plan_kv_most(const pb_sweep_work *w)
{
    uint64_t most = 0;
    long ctx = 0, batch = 1, prompt = 0;
    for (int i = 0; w->prompts && i < w->prompts->n; i++)
        prompt = w->prompts->v[i] > prompt ? w->prompts->v[i] : prompt;
    for (int c = 0; c < w->contexts->n; c++)
        ctx = w->contexts->v[c] > ctx ? w->contexts->v[c] : ctx;
    for (int b = 0; b < w->batches->n; b++)
        batch = w->batches->v[b] > batch ? w->batches->v[b] : batch;
    for (int k = 0; k < w->kv_types->n; k++) {
        uint64_t kv = pb_kv_bytes(w->model, (pb_kv_type)w->kv_types->v[k], (size_t)batch, (size_t)ctx);
        uint64_t pkv = prompt ? pb_kv_bytes(w->model, (pb_kv_type)w->kv_types->v[k], 1, (size_t)(ctx + prompt)) : 0;
        most = kv > most ? kv : most;
        most = pkv > most ? pkv : most;
    }
    return most;
}

int pb_sweep_check_memory(const pb_sweep_work *w, char *err, size_t errlen)
{
    uint64_t avail = 0;
    pb_mem_available(&avail); /* unknown: 0, and the check is skipped */
    for (int f = 0; f < w->formats->n; f++) {
        pb_weight_format fmt = (pb_weight_format)w->formats->v[f];
        uint64_t bytes = w->file ? w->file->weight_bytes : pb_weight_format_token_bytes(w->model, fmt);
        if (bytes == 0)
            return pb_errf(err, errlen, "--format %s: %s's widths are not multiples of its block",
                           pb_weight_format_name(fmt), w->model->name);
        bytes += plan_kv_most(w); /* the weights and the deepest cache live side by side */
        if (avail && bytes > avail / 2)
            return pb_errf(err, errlen, "--model %s --format %s: the weights and the KV cache need %.2f GiB, more "
                           "than half of MemAvailable (%.2f GiB); choose a smaller preset, format or --context",
                           w->model->name, pb_weight_format_name(fmt), (double)bytes / (1 << 30),
                           (double)avail / (1 << 30));
    }
    return 0;
}

int pb_sweep_place(const pb_sweep_cores *c, const pb_cpuset *set, int threads, pb_cpulist *held, pb_cpulist *place,
                   char *err, size_t errlen)
{
    int n = set->cpus.n;
    if (threads > n && !c->oversubscribe)
        return 1;
    if (pb_topo_place(c->topo, &set->cpus, threads < n ? threads : n, held, err, errlen) != 0)
        return -1;
    place->n = threads;
    for (int i = 0; i < threads; i++)
        place->cpu[i] = held->cpu[i % held->n];
    return 0;
}

int pb_sweep_tokens(const pb_sweep_timing *t, bool prompt)
{
    return prompt ? t->prompt_tokens : t->tokens;
}

int pb_sweep_warmup(const pb_sweep_timing *t, bool prompt)
{
    return prompt ? t->prompt_warmup : t->warmup;
}

const pb_list *pb_sweep_policies(const pb_sweep_dispatch *d, bool prompt)
{
    return prompt && d->prompt_policies ? d->prompt_policies : d->policies;
}

/* How many indices dimension dim has at pt (a step's policies depend on whether it is a prompt). */
static int plan_extent(const pb_sweep_plan *p, const pb_sweep_point *pt, pb_sweep_dim dim)
{
    const pb_sweep_work *w = &p->work;
    int batches = w->batches->n, prompts = w->prompts ? w->prompts->n : 0;
    switch (dim) {
    case PB_SWEEP_FORMAT: return w->formats->n;
    case PB_SWEEP_SET: return p->cores.sets->n;
    case PB_SWEEP_THREADS: return p->cores.threads->n;
    case PB_SWEEP_KV: return w->kv_types->n;
    case PB_SWEEP_CONTEXT: return w->contexts->n;
    case PB_SWEEP_STEP: return batches + prompts;
    case PB_SWEEP_POLICY: return pb_sweep_policies(&p->dispatch, pt->at[PB_SWEEP_STEP] >= batches)->n;
    case PB_SWEEP_SCHED_GLUE: return p->dispatch.nsched * p->dispatch.glues->n;
    case PB_SWEEP_DIMS: break;
    }
    return 0;
}

/* pt's values from its indices. */
static void plan_point_fill(const pb_sweep_plan *p, pb_sweep_point *pt)
{
    const pb_sweep_work *w = &p->work;
    const int *at = pt->at, batches = w->batches->n, glues = p->dispatch.glues->n;
    pt->fmt = (pb_weight_format)w->formats->v[at[PB_SWEEP_FORMAT]];
    pt->set = &p->cores.sets->set[at[PB_SWEEP_SET]];
    pt->threads = (int)p->cores.threads->v[at[PB_SWEEP_THREADS]];
    pt->kv = (pb_kv_type)w->kv_types->v[at[PB_SWEEP_KV]];
    pt->context = (size_t)w->contexts->v[at[PB_SWEEP_CONTEXT]];
    pt->prompt = at[PB_SWEEP_STEP] >= batches;
    pt->rows = (size_t)(pt->prompt ? w->prompts->v[at[PB_SWEEP_STEP] - batches] : w->batches->v[at[PB_SWEEP_STEP]]);
    pt->policy = (int)pb_sweep_policies(&p->dispatch, pt->prompt)->v[at[PB_SWEEP_POLICY]];
    pt->sched = at[PB_SWEEP_SCHED_GLUE] / glues;
    pt->glue = (pb_glue_mode)p->dispatch.glues->v[at[PB_SWEEP_SCHED_GLUE] % glues];
}

/* Indices all 0: PB_SWEEP_FORMAT, or -1 where a dimension has none. */
static int plan_start(const pb_sweep_plan *p, pb_sweep_point *pt)
{
    for (int d = 0; d < PB_SWEEP_DIMS; d++) {
        pt->at[d] = 0;
        if (plan_extent(p, pt, (pb_sweep_dim)d) == 0)
            return -1;
    }
    return PB_SWEEP_FORMAT;
}

/* The innermost index one on, carried outwards: the outermost dimension that changed, or -1 past the last. */
static int plan_advance(const pb_sweep_plan *p, pb_sweep_point *pt)
{
    for (int d = PB_SWEEP_DIMS - 1; d >= 0; d--) {
        if (++pt->at[d] < plan_extent(p, pt, (pb_sweep_dim)d))
            return d;
        pt->at[d] = 0; /* carried: the indices inside d start again */
    }
    return -1;
}

/* The indices from `from` inwards at their last, so that plan_advance carries past them. */
static void plan_skip(const pb_sweep_plan *p, pb_sweep_point *pt, pb_sweep_dim from)
{
    for (int d = from; d < PB_SWEEP_DIMS; d++) /* outermost first: a step's policies depend on the step */
        pt->at[d] = plan_extent(p, pt, (pb_sweep_dim)d) - 1;
}

int pb_sweep_next(const pb_sweep_plan *p, pb_sweep_point *pt, char *err, size_t errlen)
{
    int d = pt->started ? plan_advance(p, pt) : plan_start(p, pt);
    pt->started = true;
    pt->changed = d;
    for (;;) {
        if (d < 0)
            return 0;
        plan_point_fill(p, pt);
        if (d > PB_SWEEP_THREADS) /* the same block: placed already */
            return 1;
        int placed = pb_sweep_place(&p->cores, pt->set, pt->threads, &pt->held, &pt->place, err, errlen);
        if (placed <= 0)
            return placed < 0 ? -1 : 1;
        plan_skip(p, pt, PB_SWEEP_KV); /* more threads than the set holds: the next block */
        d = plan_advance(p, pt);
        pt->changed = d >= 0 && d < pt->changed ? d : pt->changed;
    }
}

int pb_sweep_plan_points(const pb_sweep_plan *p)
{
    int total = 0;
    pb_sweep_point *pt = calloc(1, sizeof *pt); /* 8 KiB of placements: off the stack */
    while (pt && pb_sweep_next(p, pt, NULL, 0) > 0)
        total += pb_sweep_sched_runs(p, pt->sched, &pt->place);
    free(pt);
    return total;
}

int pb_sweep_point_kind(const pb_sweep_dispatch *d, int kind, int threads)
{
    if (kind != PB_EXEC_SPIN || !d->tuned_shape || !d->kernels.wisdom)
        return kind;
    const pb_wisdom_dispatch *w = pb_wisdom_dispatch_at(d->kernels.wisdom, threads);
    return w && w->tree ? PB_EXEC_TREE : PB_EXEC_SPIN;
}
