/* pb_sweep_plan.c — see pb_sweep_plan.h. */
#include "pb_sweep_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_attn.h"
#include "pb_err.h"
#include "pb_membuf.h"
#include "pb_wformat.h"

/* A run with unequal cores: two core kinds on this machine, or an emulated slow cpu. */
static bool plan_run_unequal(const pb_sweep_plan *p)
{
    return (p->topo && p->topo->nkinds > 1) || (p->emulate && p->emulate->n > 0);
}

int pb_sweep_schedules(pb_sweep_plan *p, const char *spec, char *err, size_t errlen)
{
    char buf[1024];
    p->sched_given = spec != NULL;
    if (!spec)
        spec = plan_run_unequal(p) ? "static,weighted,dynamic:" PB_STR(PB_SWEEP_DYNAMIC_ROWS) : "static";
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    p->nsched = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (p->nsched == PB_SWEEP_MAX_SCHED)
            return pb_errf(err, errlen, "at most %d schedules", PB_SWEEP_MAX_SCHED);
        pb_sched *s = &p->sched[p->nsched++];
        if (pb_sched_parse(t, s) != 0)
            return pb_errf(err, errlen,
                           "'%s' is not static, weighted, dynamic:N or steal:N with N from 1 to 1000000000", t);
        for (int k = 0; k < p->nsched - 1; k++) /* by value: steal:64 and steal:064 are one schedule */
            if (p->sched[k].kind == s->kind && p->sched[k].chunk == s->chunk)
                return pb_errf(err, errlen, "'%s' is given twice (accepted: each schedule once)", t);
    }
    return p->nsched ? 0 : pb_errf(err, errlen, "give static, weighted, dynamic:N or steal:N");
}

/* cpu's core kind (0 = the fastest), -1 when the topology does not hold it. */
static int plan_kind(const pb_topo *t, int cpu)
{
    int i = pb_topo_find(t, cpu);
    return i < 0 ? -1 : t->pu[i].kind;
}

int pb_sweep_capacities(const pb_sweep_plan *p, const pb_cpulist *place, double *cap)
{
    for (int i = 0; i < place->n; i++) {
        int k = pb_topo_find(p->topo, place->cpu[i]);
        if (k < 0 || pb_emulate_factor(p->emulate, place->cpu[i]) < 1)
            return -1;
        cap[i] = p->topo->kind[p->topo->pu[k].kind].capacity;
    }
    return 0;
}

bool pb_sweep_sched_runs(const pb_sweep_plan *p, int s, const pb_cpulist *place)
{
    if (p->sched_given || p->sched[s].kind == PB_SCHED_STATIC)
        return true;
    for (int i = 0; i < place->n; i++)
        if (pb_emulate_factor(p->emulate, place->cpu[i]) < 1 ||
            plan_kind(p->topo, place->cpu[i]) != plan_kind(p->topo, place->cpu[0]))
            return true;
    return false;
}

/* The largest KV cache a point of p fills: the deepest context at the largest batch, or the longest prompt past it
 * (one sequence), of the widest type. */
static uint64_t plan_kv_most(const pb_sweep_plan *p)
{
    uint64_t most = 0;
    long ctx = 0, batch = 1, prompt = 0;
    for (int i = 0; p->prompts && i < p->prompts->n; i++)
        prompt = p->prompts->v[i] > prompt ? p->prompts->v[i] : prompt;
    for (int c = 0; c < p->contexts->n; c++)
        ctx = p->contexts->v[c] > ctx ? p->contexts->v[c] : ctx;
    for (int b = 0; b < p->batches->n; b++)
        batch = p->batches->v[b] > batch ? p->batches->v[b] : batch;
    for (int k = 0; k < p->kv_types->n; k++) {
        uint64_t kv = pb_kv_bytes(p->model, (pb_kv_type)p->kv_types->v[k], (size_t)batch, (size_t)ctx);
        uint64_t pkv = prompt ? pb_kv_bytes(p->model, (pb_kv_type)p->kv_types->v[k], 1, (size_t)(ctx + prompt)) : 0;
        most = kv > most ? kv : most;
        most = pkv > most ? pkv : most;
    }
    return most;
}

int pb_sweep_check_memory(const pb_sweep_plan *p, char *err, size_t errlen)
{
    uint64_t avail = 0;
    pb_mem_available(&avail); /* unknown: 0, and the check is skipped */
    for (int f = 0; f < p->formats->n; f++) {
        pb_wformat fmt = (pb_wformat)p->formats->v[f];
        uint64_t bytes = p->file ? p->file->weight_bytes : pb_wformat_token_bytes(p->model, fmt);
        if (bytes == 0)
            return pb_errf(err, errlen, "--format %s: %s's widths are not multiples of its block",
                           pb_wformat_name(fmt), p->model->name);
        bytes += plan_kv_most(p); /* the weights and the deepest cache live side by side */
        if (avail && bytes > avail / 2)
            return pb_errf(err, errlen, "--model %s --format %s: the weights and the KV cache need %.2f GiB, more "
                           "than half of MemAvailable (%.2f GiB); choose a smaller preset, format or --context",
                           p->model->name, pb_wformat_name(fmt), (double)bytes / (1 << 30),
                           (double)avail / (1 << 30));
    }
    return 0;
}

int pb_sweep_place(const pb_sweep_plan *p, const pb_cpuset *set, int threads, pb_cpulist *held, pb_cpulist *place,
                   char *err, size_t errlen)
{
    int n = set->cpus.n;
    if (threads > n && !p->oversubscribe)
        return 1;
    if (pb_topo_place(p->topo, &set->cpus, threads < n ? threads : n, held, err, errlen) != 0)
        return -1;
    place->n = threads;
    for (int i = 0; i < threads; i++)
        place->cpu[i] = held->cpu[i % held->n];
    return 0;
}

int pb_sweep_tokens(const pb_sweep_plan *p, bool prompt)
{
    return prompt ? p->prompt_tokens : p->tokens;
}

int pb_sweep_warmup(const pb_sweep_plan *p, bool prompt)
{
    return prompt ? p->prompt_warmup : p->warmup;
}

const pb_list *pb_sweep_policies(const pb_sweep_plan *p, bool prompt)
{
    return prompt && p->prompt_policies ? p->prompt_policies : p->policies;
}

int pb_sweep_plan_points(const pb_sweep_plan *p)
{
    int total = 0;
    pb_cpulist *place = malloc(2 * sizeof *place); /* 4 KiB each: off the stack */
    for (int s = 0; place && s < p->sets->n; s++)
        for (int t = 0; t < p->threads->n; t++) {
            if (pb_sweep_place(p, &p->sets->set[s], (int)p->threads->v[t], place + 1, place, NULL, 0) != 0)
                continue;
            for (int k = 0; k < p->nsched; k++)
                total += pb_sweep_sched_runs(p, k, place);
        }
    free(place);
    /* every batch at every policy, then every prompt at the prompt's policies */
    int prompts = p->prompts ? p->prompts->n : 0;
    int steps = p->batches->n * p->policies->n + prompts * pb_sweep_policies(p, true)->n;
    return total * p->formats->n * steps * p->glues->n;
}

int pb_sweep_point_kind(const pb_sweep_plan *p, int kind, int threads)
{
    if (kind != PB_EXEC_SPIN || !p->tuned_shape || !p->kernels.wisdom)
        return kind;
    const pb_wisdom_dispatch *d = pb_wisdom_dispatch_at(p->kernels.wisdom, threads);
    return d && d->tree ? PB_EXEC_TREE : PB_EXEC_SPIN;
}
