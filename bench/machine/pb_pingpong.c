#include "pb_pingpong.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "pb_time.h"

#define PB_CACHE_LINE 64

/* Two lines: the caller writes ping, the partner writes pong, so a round trip moves one line each way,
 * the same traffic as a dispatch (generation out, completion back). */
typedef struct pb_pp_shared {
    alignas(PB_CACHE_LINE) atomic_long ping;
    alignas(PB_CACHE_LINE) atomic_long pong;
    long total; /* round trips the partner answers, set before it starts */
} pb_pp_shared;

static void *pb_pp_partner(void *arg)
{
    pb_pp_shared *s = arg;
    for (long i = 1; i <= s->total; i++) {
        /* acquire/release are enough for a ping-pong: each side only needs the other's last store. No
         * pause in either loop: this is the floor, and a pause would add its own latency to it. */
        while (atomic_load_explicit(&s->ping, memory_order_acquire) != i)
            ;
        atomic_store_explicit(&s->pong, i, memory_order_release);
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

int pb_pingpong(int cpu_a, int cpu_b, int batches, int iters, pb_rt *out)
{
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
    for (int b = -1; b < batches; b++) {
        long n = b < 0 ? warm : iters;
        uint64_t t0 = pb_now_ns();
        for (long k = 0; k < n; k++) {
            i++;
            atomic_store_explicit(&s->ping, i, memory_order_release);
            while (atomic_load_explicit(&s->pong, memory_order_acquire) != i)
                ;
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

const char *pb_placement(double rt_ns)
{
    if (isnan(rt_ns))
        return "n/a";
    return rt_ns > PB_FAR_RT_NS ? "far" : "near";
}

const char *pb_placement_pair(const pb_topo *t, int a, int b, bool trust_topo, double rt_ns)
{
    const char *topo = trust_topo && t ? pb_pair_place_name(pb_topo_pair_place(t, a, b)) : NULL;
    return topo ? topo : pb_placement(rt_ns);
}
