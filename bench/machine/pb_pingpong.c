/* pb_pingpong.c — the core-to-core round trip (pb_pingpong.h): one line there and back, three ways. */
#include "pb_pingpong.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pb_time.h"

#define PB_CACHE_LINE 64

/* The variants: how many lines the two sides share, and whether each side writes with a plain store or a
 * read-modify-write (an exchange). A table, so each variant's name and shape are written once. */
typedef struct pb_rt_shape {
    const char *name;
    bool one_line; /* both sides write the same line (odd values the caller's, even the partner's) */
    bool rmw;      /* writes are exchanges (a locked RMW on x86) rather than stores */
} pb_rt_shape;

static const pb_rt_shape pb_rt_shapes[PB_RT_VARIANTS] = {
    [PB_RT_1LINE_RMW] = { .name = "1line_rmw", .one_line = true, .rmw = true },
    [PB_RT_2LINE_STORE] = { .name = "2line_store", .one_line = false, .rmw = false },
    [PB_RT_2LINE_RMW] = { .name = "2line_rmw", .one_line = false, .rmw = true },
};

const char *pb_rt_variant_name(pb_rt_variant v)
{
    return (unsigned)v < PB_RT_VARIANTS ? pb_rt_shapes[v].name : NULL;
}

/* Two lines: the caller writes ping, the partner writes pong, so a round trip moves one line each way, the
 * traffic of a dispatch (generation out, completion back). The one-line variant uses ping for both. */
typedef struct pb_pp_shared {
    alignas(PB_CACHE_LINE) atomic_long ping;
    alignas(PB_CACHE_LINE) atomic_long pong;
    long total;              /* round trips the partner answers, set before it starts */
    const pb_rt_shape *shape; /* set before it starts */
} pb_pp_shared;

/* The line a side writes to and the line it waits on, and the values of round trip i (from 1). */
static atomic_long *pb_pp_out(pb_pp_shared *s, bool caller)
{
    return caller || s->shape->one_line ? &s->ping : &s->pong;
}

static atomic_long *pb_pp_in(pb_pp_shared *s, bool caller)
{
    return caller && !s->shape->one_line ? &s->pong : &s->ping;
}

static long pb_pp_value(const pb_pp_shared *s, bool caller, long i)
{
    return s->shape->one_line ? 2 * i - (caller ? 1 : 0) : i;
}

/* release: each side only needs the other to see this write; the values themselves carry the hand-over, and
 * no other data rides on them. An exchange (rmw) is what a pool's counters do (fetch-add); a store is what
 * a flag does. */
static inline void pb_pp_write(atomic_long *x, long v, bool rmw)
{
    if (rmw)
        atomic_exchange_explicit(x, v, memory_order_release);
    else
        atomic_store_explicit(x, v, memory_order_release);
}

/* acquire: pairs with the other side's release write of the value we wait for. No pause in the loop: this is the
 * floor, and a pause would add its own latency to it. */
static inline void pb_pp_await(atomic_long *x, long v)
{
    while (atomic_load_explicit(x, memory_order_acquire) != v)
        ;
}

static void *pb_pp_partner(void *arg)
{
    pb_pp_shared *s = arg;
    atomic_long *in = pb_pp_in(s, false), *out = pb_pp_out(s, false);
    for (long i = 1; i <= s->total; i++) {
        pb_pp_await(in, pb_pp_value(s, true, i));
        pb_pp_write(out, pb_pp_value(s, false, i), s->shape->rmw);
    }
    return NULL;
}

static int pb_pin_self(int cpu, cpu_set_t *saved)
{
    if (sched_getaffinity(0, sizeof *saved, saved) != 0)
        return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

static int pb_start_partner(pthread_t *tid, int cpu, pb_pp_shared *s)
{
    pthread_attr_t attr;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    int rc = pthread_attr_init(&attr);
    if (rc == 0)
        rc = pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    if (rc == 0)
        rc = pthread_create(tid, &attr, pb_pp_partner, s);
    pthread_attr_destroy(&attr);
    return rc;
}

int pb_pingpong_variant(int cpu_a, int cpu_b, pb_rt_variant v, int batches, int iters, pb_rt *out)
{
    if ((unsigned)v >= PB_RT_VARIANTS) {
        errno = EINVAL;
        return -1;
    }
    if (cpu_a == cpu_b || batches < 1 || iters < 1) {
        out->ns_batch_mean = NAN;
        out->batches = pb_summarize(NULL, 0);
        return 0;
    }
    pb_pp_shared *s = aligned_alloc(PB_CACHE_LINE, sizeof *s);
    double *means = malloc((size_t)batches * sizeof *means);
    cpu_set_t saved;
    if (!s || !means) {
        free(s);
        free(means);
        errno = ENOMEM;
        return -1;
    }
    atomic_init(&s->ping, 0);
    atomic_init(&s->pong, 0);
    long warm = iters; /* one untimed batch first: both lines migrate, both threads are running */
    s->total = warm + (long)batches * iters;
    s->shape = &pb_rt_shapes[v];
    int rc = pb_pin_self(cpu_a, &saved);
    pthread_t tid;
    if (rc == 0 && (rc = pb_start_partner(&tid, cpu_b, s)) != 0)
        errno = rc;
    if (rc != 0) {
        sched_setaffinity(0, sizeof saved, &saved);
        free(s);
        free(means);
        return -1;
    }
    long i = 0;
    atomic_long *in = pb_pp_in(s, true), *to = pb_pp_out(s, true);
    for (int b = -1; b < batches; b++) {
        long n = b < 0 ? warm : iters;
        uint64_t t0 = pb_now_ns();
        for (long k = 0; k < n; k++) {
            i++;
            pb_pp_write(to, pb_pp_value(s, true, i), s->shape->rmw);
            pb_pp_await(in, pb_pp_value(s, false, i));
        }
        if (b >= 0)
            means[b] = (double)(pb_now_ns() - t0) / (double)n;
    }
    pthread_join(tid, NULL);
    sched_setaffinity(0, sizeof saved, &saved);
    out->batches = pb_summarize(means, (size_t)batches);
    out->ns_batch_mean = out->batches.median;
    free(s);
    free(means);
    return 0;
}

int pb_pingpong(int cpu_a, int cpu_b, int batches, int iters, pb_rt *out)
{
    return pb_pingpong_variant(cpu_a, cpu_b, PB_RT_2LINE_STORE, batches, iters, out);
}

int pb_pingpong_tight(int cpu_a, int cpu_b, int batches, int iters, pb_rt_tight *out)
{
    out->tight_ns = NAN;
    out->tightest = PB_RT_1LINE_RMW;
    int each = iters / PB_RT_VARIANTS > 0 ? iters / PB_RT_VARIANTS : 1; /* the block costs what one variant did */
    for (int v = 0; v < PB_RT_VARIANTS; v++) {
        if (pb_pingpong_variant(cpu_a, cpu_b, (pb_rt_variant)v, batches, each, &out->v[v]) != 0)
            return -1;
        double ns = out->v[v].ns_batch_mean;
        if (!isnan(ns) && !(ns >= out->tight_ns)) {
            out->tight_ns = ns;
            out->tightest = (pb_rt_variant)v;
        }
    }
    return 0;
}

const char *pb_placement(double rt_ns)
{
    if (isnan(rt_ns))
        return "n/a";
    if (rt_ns < PB_HIDDEN_SMT_RT_NS)
        return "smt?";
    return rt_ns > PB_FAR_RT_NS ? "far" : "near";
}
