/* A run's headline figures under stable keys, for comparison across machines. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pb_compare.h"

typedef struct fig_list {
    pb_fig *f;
    int n, max;
} fig_list;

static void add(fig_list *l, double v, const char *unit, bool lower, const char *key, const char *label, ...)
    __attribute__((format(printf, 6, 7)));

static void add(fig_list *l, double v, const char *unit, bool lower, const char *key, const char *label, ...)
{
    if (l->n == l->max || isnan(v))
        return;
    pb_fig *f = &l->f[l->n++];
    snprintf(f->key, sizeof f->key, "%s", key);
    va_list ap;
    va_start(ap, label);
    vsnprintf(f->label, sizeof f->label, label, ap);
    va_end(ap);
    snprintf(f->unit, sizeof f->unit, "%s", unit);
    f->v = v;
    f->lower_better = lower;
}

static void pool_figs(fig_list *l, const pb_pool_digest *p)
{
    char key[96];
    add(l, p->threads, "threads", false, "dispatch.threads", "threads of the dispatch figures (all PUs)");
    for (int i = 0; i < p->n; i++) {
        snprintf(key, sizeof key, "dispatch.%s", p->d[i].policy);
        add(l, p->d[i].ns, "ns", true, key, "%s dispatch, no gap, empty job", p->d[i].policy);
    }
    add(l, p->pingpong_ns, "ns", true, "dispatch.pingpong", "core-to-core round trip (pingpong median)");
}

static void floor_figs(fig_list *l, const pb_floor_digest *f)
{
    const pb_floor_point *one = pb_digest_floor_at(f, 1), *top = &f->pt[f->n - 1];
    if (one)
        add(l, one->best, "GB/s", false, "floor.1", "read floor, 1 thread");
    add(l, top->threads, "threads", false, "floor.threads", "threads of the widest read floor");
    add(l, top->best, "GB/s", false, "floor.max", "read floor, most threads");
}

static void sweep_figs(fig_list *l, const pb_sweep_digest *s)
{
    char key[96];
    for (int i = 0; i < s->nbest; i++) {
        const pb_decode_point *d = &s->best[i];
        snprintf(key, sizeof key, "decode.%s.%s", d->model, d->format);
        add(l, d->tok_s, "tok/s", false, key, "best decode, %s %s", d->model, d->format);
        snprintf(key, sizeof key, "decode.%s.%s.threads", d->model, d->format);
        add(l, d->threads, "threads", false, key, "threads of the best decode, %s %s", d->model, d->format);
    }
}

static void kern_figs(fig_list *l, const pb_kernels_digest *k)
{
    char key[96];
    for (int i = 0; i < k->n; i++) {
        snprintf(key, sizeof key, "kernel.%s.l2", k->k[i].format);
        add(l, k->k[i].l2, "GB/s", false, key, "%s kernel in L2, 1 thread", k->k[i].format);
        snprintf(key, sizeof key, "kernel.%s.dram", k->k[i].format);
        add(l, k->k[i].dram, "GB/s", false, key, "%s kernel at DRAM size, 1 thread", k->k[i].format);
    }
}

static void overlap_figs(fig_list *l, const pb_overlap_digest *o)
{
    char key[96];
    for (int i = 0; i < o->n; i++) {
        snprintf(key, sizeof key, "overlap.%s", o->m[i].mode);
        add(l, o->m[i].speedup, "×", false, key, "%s speed-up over serial, ratio nearest 1", o->m[i].mode);
    }
}

int pb_digest_figs(const pb_digest *d, pb_fig *out, int max)
{
    fig_list l = { out, 0, max };
    if (d->pool.have)
        pool_figs(&l, &d->pool);
    if (d->floor.have)
        floor_figs(&l, &d->floor);
    if (d->sweep.have)
        sweep_figs(&l, &d->sweep);
    if (d->kern.have)
        kern_figs(&l, &d->kern);
    if (d->overlap.have)
        overlap_figs(&l, &d->overlap);
    return l.n;
}
