/* pb_answer_run.c — see pb_answer.h: each format's answer and the owner of its biggest loss, the recommendation
 * and what deviating from it costs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_answer.h"
#include "pb_fmt.h"
#include "pb_tuning.h"

/* The same model, format and depth (context, cache type): points a reader may hold side by side. */
static bool same_depth(const pb_answer_point *a, const pb_answer_point *b)
{
    return strcmp(a->d.model, b->d.model) == 0 && strcmp(a->d.format, b->d.format) == 0 && a->context == b->context &&
           strcmp(a->kv, b->kv) == 0;
}

/* A trusted point answers before a noisy one, then the faster. */
static bool better(const pb_answer_point *a, const pb_answer_point *b)
{
    if (a->noisy != b->noisy)
        return !a->noisy;
    return a->d.tok_s > b->d.tok_s;
}

static const pb_kernel_digest *kernel_of(const pb_digest *d, const char *format)
{
    for (int i = 0; d->kern.have && i < d->kern.n; i++)
        if (strcmp(d->kern.k[i].format, format) == 0)
            return &d->kern.k[i];
    return NULL;
}

/* The kernel part's owner: can the format's best L2 kernel stream a thread's share of the point's floor, and does its
 * best kernel at DRAM size read at the pace of the read beside it (where kernels.csv has that column)? */
static void kernel_owner(pb_answer_biggest_loss *l, const pb_answer_point *p, const pb_digest *d)
{
    const pb_kernel_digest *k = kernel_of(d, p->d.format);
    double share = p->d.floor_gbps / (p->d.threads > 0 ? p->d.threads : 1);
    if (!k || isnan(k->l2) || isnan(share)) {
        l->owner = PB_OWNER_POOLBENCH;
        snprintf(l->why, sizeof l->why, "no L2 kernel figure in kernels.csv to tell the kernel from the memory");
        return;
    }
    bool streams = k->l2 >= share;
    double of_read = k->dram / k->dram_read; /* NaN without a DRAM figure or the read beside it */
    if (streams && of_read < PB_KERNEL_STREAMS) {
        l->owner = PB_OWNER_POOLBENCH;
        snprintf(l->why, sizeof l->why, "its best kernel at DRAM size (%s) reads %s GB/s, %s of the %s GB/s read "
                 "beside it, though in L2 it computes %s GB/s: the kernel does not stream from memory", k->isa_dram,
                 PB_NUM(k->dram, 1), PB_PCT(100 * of_read), PB_NUM(k->dram_read, 1), PB_NUM(k->l2, 1));
        return;
    }
    /* A kernel that cannot stream is the core's when it is at its compute roof: no code would go faster there. */
    double roof = pb_roof_share(&d->roof, p->d.format, k->isa_l2, k->l2, 1);
    bool at_roof = !streams && roof >= 100 * PB_ROOF_NEAR;
    l->owner = streams || at_roof ? PB_OWNER_MACHINE : PB_OWNER_POOLBENCH;
    char dram[96] = "", roof_words[160] = "";
    if (streams && !isnan(of_read))
        snprintf(dram, sizeof dram, ", at DRAM size %s of the read beside it", PB_PCT(100 * of_read));
    if (!streams && !isnan(roof))
        snprintf(roof_words, sizeof roof_words, ", doing %s GMAC/s, %s of its ISA's compute roof",
                 PB_NUM(k->l2 * pb_roof_macs_per_byte(p->d.format), 1), PB_PCT(roof));
    snprintf(l->why, sizeof l->why, "its best L2 kernel (%s) computes %s GB/s, %s the %s GB/s a thread streams at "
             "this point's floor%s%s: %s", k->isa_l2, PB_NUM(k->l2, 1), streams ? "over" : "under",
             PB_NUM(share, 1), dram, roof_words,
             streams    ? "the kernel waits on memory"
             : at_roof  ? "the core's arithmetic binds, not the kernel"
             : roof_words[0] ? "the kernel cannot stream, and the core could compute faster"
                              : "the kernel cannot stream");
}

/* The wait part's owner: a slowest thread the machine made (steal, a placement change, an emulated slow cpu), or
 * the split's. */
static void wait_owner(pb_answer_biggest_loss *l, const pb_answer_point *p)
{
    l->owner = PB_OWNER_MACHINE;
    if (p->steal_pct > PB_STEAL_NOISY_PCT)
        snprintf(l->why, sizeof l->why, "its cpus lost %s of their time to steal: the hypervisor held the slowest "
                 "thread off its cpu", PB_PCT(p->steal_pct));
    else if (strcmp(p->d.placement, "mixed") == 0)
        snprintf(l->why, sizeof l->why, "its round trips changed placement during the point");
    else if (p->d.emulate[0])
        snprintf(l->why, sizeof l->why, "an emulated slow cpu (%s)", p->d.emulate);
    else {
        l->owner = PB_OWNER_POOLBENCH;
        snprintf(l->why, sizeof l->why, "the %s split: the slowest thread (cpu %d) holds every barrier up",
                 p->d.schedule, p->d.slowest_cpu);
    }
}

/* A decode's weights at its floor, in ms (NaN without both figures). */
static double weights_at_floor_ms(const pb_answer_point *p)
{
    return p->d.floor_gbps > 0 ? p->d.weight_bytes / (p->d.floor_gbps * 1e6) : NAN;
}

/* Part k's loss past the floor: the floor is none; the roof, where it binds a decode, its time over the weights'
 * at the floor (a prompt's table counts from the roof, so there it is none either); the others as they are. */
static double loss_ms(const pb_answer_point *p, int k)
{
    if (k == PB_BUDGET_floor)
        return NAN;
    if (k == PB_BUDGET_roof)
        return p->prompt == 0 && p->part[k] > 0 ? p->part[k] - weights_at_floor_ms(p) : NAN;
    return p->part[k];
}

/* The roof's owner: the core's arithmetic where the token came near that roof, else the kernels'. */
static void roof_owner(pb_answer_biggest_loss *l, const pb_answer_point *p)
{
    bool near = p->roof_share >= PB_ROOF_NEAR;
    l->owner = near ? PB_OWNER_MACHINE : PB_OWNER_POOLBENCH;
    snprintf(l->why, sizeof l->why, "the compute roof binds: the token's multiply-adds take %s ms at it, over the "
             "%s ms its weights take at the floor, and the token reached %s of it: %s",
             PB_NUM(p->part[PB_BUDGET_roof], 2), PB_NUM(weights_at_floor_ms(p), 2), PB_PCT(100 * p->roof_share),
             near ? "the core's arithmetic, not the kernels" : "its kernels could compute faster");
}

pb_answer_biggest_loss pb_answer_loss(const pb_answer_point *p, const pb_digest *d)
{
    pb_answer_biggest_loss l = { .part = -1 };
    if (!p->have_budget)
        return l;
    double best = 0;
    for (int k = 0; k < PB_BUDGET_NPARTS; k++) {
        double ms = loss_ms(p, k);
        if (ms > best) {
            best = ms;
            l.part = k;
        }
    }
    if (l.part < 0)
        return l;
    l.ms = best;
    l.pct = 100.0 * l.ms / p->d.ms_median;
    l.owner = PB_OWNER_POOLBENCH;
    switch ((pb_budget_part)l.part) {
    case PB_BUDGET_roof:
        roof_owner(&l, p);
        break;
    case PB_BUDGET_kernel:
        kernel_owner(&l, p, d);
        break;
    case PB_BUDGET_wait:
        wait_owner(&l, p);
        break;
    case PB_BUDGET_unexplained:
        l.owner = PB_OWNER_MACHINE;
        snprintf(l.why, sizeof l.why, "no part saw it: the OS scheduler or a neighbour held a thread%s%s%s",
                 p->steal_pct > 0 ? " (steal " : "", p->steal_pct > 0 ? PB_PCT(p->steal_pct) : "",
                 p->steal_pct > 0 ? ")" : "");
        break;
    case PB_BUDGET_dispatch:
        snprintf(l.why, sizeof l.why, "the %s pool's dispatches, %s each on these cpus", p->d.policy,
                 PB_NS(p->dispatch_ns));
        break;
    case PB_BUDGET_quant:
        snprintf(l.why, sizeof l.why, "activations quantized on the calling thread between the dispatches");
        break;
    case PB_BUDGET_glue:
        snprintf(l.why, sizeof l.why, "norms, residual adds and SiLU on the calling thread");
        break;
    default: /* attn */
        snprintf(l.why, sizeof l.why, "attention beyond reading its KV cache at the floor");
        break;
    }
    return l;
}

/* The focus format's points: the recommendation (trusted, fastest; else the fastest slowest token) and the
 * fastest of all. */
static void recommend(pb_answers *a, const pb_digest *d)
{
    const pb_answer_point *run = NULL, *slow = NULL, *fast = NULL;
    for (int i = 0; i < a->npoints; i++) {
        const pb_answer_point *p = &a->pt[i];
        if (strcmp(p->d.model, a->fmt[0].best.d.model) != 0 || strcmp(p->d.format, d->sweep.focus) != 0)
            continue;
        if (!p->noisy && (!run || p->d.tok_s > run->d.tok_s))
            run = p;
        if (!slow || p->ms_max < slow->ms_max)
            slow = p;
        if (!fast || p->d.tok_s > fast->d.tok_s)
            fast = p;
    }
    if (!slow)
        return;
    a->run_by_slowest = !run;
    a->run = run ? *run : *slow;
    a->run_by_pairs = pb_answer_pairs_best(a);
    a->fastest = *fast;
    a->fastest_differs = fast->point != a->run.point || fast->d.tok_s != a->run.d.tok_s;
}

/* A point's value in deviation dimension k, as text. */
static void dim_value(const pb_answer_point *p, int k, char *buf, size_t len)
{
    const char *v[] = { p->d.policy, NULL, p->d.cpuset, p->d.schedule, p->d.glue };
    if (k == 1)
        snprintf(buf, len, "%d", p->d.threads);
    else
        snprintf(buf, len, "%s", v[k]);
}

static const char *const dim_names[] = { "policy", "threads", "core set", "schedule", "glue" };
enum { NDIMS = sizeof dim_names / sizeof dim_names[0] };

/* Whether p differs from the recommendation in dimension k only. */
static bool deviates_in(const pb_answer_point *p, const pb_answer_point *run, int k)
{
    if (!same_depth(p, run))
        return false;
    for (int j = 0; j < NDIMS; j++) {
        char x[PB_DIGEST_NAME + 8], y[PB_DIGEST_NAME + 8];
        dim_value(p, j, x, sizeof x);
        dim_value(run, j, y, sizeof y);
        if ((strcmp(x, y) == 0) != (j != k))
            return false;
    }
    return true;
}

/* Per dimension, the best point of each other value, fastest first, the first PB_ANS_DEVS_PER_DIM kept. */
static void deviations(pb_answers *a)
{
    for (int k = 0; k < NDIMS; k++) {
        int first = a->ndev;
        for (int i = 0; i < a->npoints; i++) {
            const pb_answer_point *p = &a->pt[i];
            if (!deviates_in(p, &a->run, k))
                continue;
            char v[PB_DIGEST_NAME + 8], w[PB_DIGEST_NAME + 8];
            dim_value(p, k, v, sizeof v);
            int at = -1;
            for (int j = first; j < a->ndev && at < 0; j++) {
                dim_value(&a->dev[j].p, k, w, sizeof w);
                at = strcmp(v, w) == 0 ? j : -1;
            }
            if (at < 0 && a->ndev < PB_ANS_DEVS)
                at = a->ndev++;
            else if (at < 0 || !better(p, &a->dev[at].p))
                continue;
            a->dev[at] = (pb_answer_dev){ .dim = dim_names[k], .p = *p,
                                       .pct = 100.0 * (p->d.tok_s / a->run.d.tok_s - 1) };
        }
        for (int i = first + 1; i < a->ndev; i++) /* fastest first: a few entries, insertion sort */
            for (int j = i; j > first && a->dev[j].pct > a->dev[j - 1].pct; j--) {
                pb_answer_dev t = a->dev[j];
                a->dev[j] = a->dev[j - 1];
                a->dev[j - 1] = t;
            }
        if (a->ndev > first + PB_ANS_DEVS_PER_DIM)
            a->ndev = first + PB_ANS_DEVS_PER_DIM;
    }
    for (int i = 0; i < a->ndev; i++) {
        pb_answer_dev *v = &a->dev[i];
        v->paired = pb_answer_paired(a->pairs, &a->run, &v->p, &v->cmp, &v->aside);
    }
}

void pb_answers_formats(pb_answers *a, const pb_digest *d)
{
    for (int i = 0; i < a->npoints; i++) {
        const pb_answer_point *p = &a->pt[i];
        int f = 0;
        while (f < a->nfmt && !(strcmp(a->fmt[f].best.d.model, p->d.model) == 0 &&
                                strcmp(a->fmt[f].best.d.format, p->d.format) == 0))
            f++;
        if (f == a->nfmt && a->nfmt < (int)(sizeof a->fmt / sizeof a->fmt[0]))
            a->fmt[a->nfmt++].best = *p;
        else if (f < a->nfmt && better(p, &a->fmt[f].best))
            a->fmt[f].best = *p;
    }
    for (int f = 0; f < a->nfmt; f++) {
        pb_answer_pairs_move(a, &a->fmt[f].best); /* an alternative its rounds show faster beyond doubt */
        a->fmt[f].trusted = !a->fmt[f].best.noisy;
        a->fmt[f].loss = pb_answer_loss(&a->fmt[f].best, d);
    }
    recommend(a, d);
    deviations(a);
}
