/* pb_latency_run.c — see pb_latency_run.h. */
#include "pb_latency_run.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pb_chase.h"
#include "pb_clock.h"
#include "pb_err.h"
#include "pb_placement.h"
#include "pb_progress.h"
#include "pb_time.h"

/* A round lasts about this long (hops from the warm-up's pace, within LAT_HOPS_MIN..LAT_HOPS_MAX): short enough that
 * a preemption spoils one round, not the median, and that a slow (loaded, or virtualised) memory does not stretch
 * the run; LAT_ROUNDS of them a point. */
#define LAT_ROUND_NS 10000000u
#define LAT_ROUND_NS_QUICK 5000000u
#define LAT_HOPS_MIN (1u << 14)
#define LAT_HOPS_MAX (1u << 22)
#define LAT_WARM_HOPS (1u << 16)
#define LAT_ROUNDS 9
#define LAT_ROUNDS_QUICK 5

uint64_t pb_latency_run_default_mib(uint64_t llc_bytes, bool quick)
{
    uint64_t least = quick ? PB_LATENCY_QUICK_MIN_MIB : PB_LATENCY_MIN_MIB;
    uint64_t llcs = ((quick ? PB_LATENCY_QUICK_LLC_FACTOR : PB_LATENCY_LLC_FACTOR) * llc_bytes + (1u << 20) - 1) >> 20;
    return llcs > least ? llcs : least;
}

int pb_latency_run_ladder_sizes(uint64_t bytes, uint64_t *out, int max)
{
    int n = 0;
    for (uint64_t s = PB_LATENCY_LADDER_FIRST; s < bytes && n < max - 1; s *= 4)
        out[n++] = s;
    out[n++] = bytes;
    return n;
}

void pb_latency_run_level(const pb_topo *t, uint64_t bytes, char *out, size_t len)
{
    int kind = t->npus > 0 ? t->pu[0].kind : 0;
    for (int c = 0; c < t->ncaches; c++) {
        uint64_t size = t->cache[c].bytes[kind];
        if (size && bytes <= size) {
            snprintf(out, len, "L%d", t->cache[c].level);
            return;
        }
    }
    snprintf(out, len, "DRAM");
}

int pb_latency_run_begin(pb_latency_run *run, const pb_latency_plan *p, char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    run->p = p;
    run->t0 = pb_now_ns();
    size_t bytes = (size_t)p->size_mib << 20;
    run->nladder = pb_latency_run_ladder_sizes(bytes, run->ladder, PB_LATENCY_MAX_LADDER);
    run->total = run->nladder + (p->set->n > 1 ? p->duties->n : 0);
    run->rounds = p->quick ? LAT_ROUNDS_QUICK : LAT_ROUNDS;
    run->kern = pb_memkern_for(PB_MEMOP_READ, kern_isa_chosen());
    run->slots = calloc(POOL_MAX_THREADS, sizeof *run->slots);
    run->ns = calloc((size_t)run->rounds, sizeof *run->ns);
    if (!run->slots || !run->ns || !run->kern)
        return pb_errf(err, errlen, "latency: %s", run->kern ? strerror(errno) : "no read kernel runs here");
    pool_config cfg = pool_config_default();
    cfg.threads = p->set->n;
    cfg.policy = POOL_SPIN;
    cfg.cpus = p->set->cpu;
    if (!(run->pool = pool_create_bound(&cfg))) /* the caller chases on cpu[0] until pool_destroy */
        return pb_errf(err, errlen, "latency: pool_create on %d cpus: %s", p->set->n, strerror(errno));
    if (pb_membuf_map(&run->buf, bytes, !p->no_thp) != 0)
        return pb_errf(err, errlen, "latency: mapping %llu MiB: %s", (unsigned long long)p->size_mib,
                       strerror(errno));
    memset(run->buf.p, 0, bytes); /* every page faulted in (huge where granted) before anything is timed */
    if (pb_thp_bytes((uintptr_t)run->buf.p, (uintptr_t)run->buf.p + bytes, &run->thp_bytes) != 0)
        run->thp_bytes = 0;
    return 0;
}

/* The cycle through the first bytes of the buffer, unless it is the one there. */
static int lat_build(pb_latency_run *run, uint64_t bytes, char *err, size_t errlen)
{
    if (run->built == bytes)
        return 0;
    run->built = 0;
    if (pb_chase_build(run->buf.p, bytes / PB_CHASE_LINE, PB_LATENCY_SEED, err, errlen) != 0)
        return -1;
    run->built = bytes;
    return 0;
}

static uint64_t lat_thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The chase itself: a timed warm-up (the whole cycle once for a set a cache can hold, so it is there) that sets
 * the hops of a round, then the rounds. A round is timed by the thread's own cpu time: on a shared machine other
 * work preempts the chase, and the wall time of a round then counts time no hop was waiting for memory; the
 * share of the wall time it ran (run_pct) says how much there was. */
static void lat_chase(pb_latency_run *run, uint64_t bytes)
{
    uint64_t lines = bytes / PB_CHASE_LINE, warm = lines < LAT_WARM_HOPS ? lines : LAT_WARM_HOPS;
    uint64_t c = lat_thread_ns();
    const void *p = pb_chase_walk(run->buf.p, warm);
    double pace = (double)(lat_thread_ns() - c) / (double)warm;
    double want = (run->p->quick ? LAT_ROUND_NS_QUICK : LAT_ROUND_NS) / (pace > 0.1 ? pace : 0.1);
    run->hops = want < LAT_HOPS_MIN ? LAT_HOPS_MIN : want > LAT_HOPS_MAX ? LAT_HOPS_MAX : (uint64_t)want & ~7ull;
    uint64_t wall = 0, cpu = 0;
    for (int r = 0; r < run->rounds; r++) {
        uint64_t t = pb_now_ns();
        c = lat_thread_ns();
        p = pb_chase_walk(p, run->hops);
        uint64_t dc = lat_thread_ns() - c;
        wall += pb_now_ns() - t;
        cpu += dc;
        run->ns[r] = (double)dc / (double)run->hops;
    }
    run->run_pct = wall ? 100.0 * (double)cpu / (double)wall : NAN;
    run->sink = p;
}

static pb_latency_row *lat_row(pb_latency_run *run, pb_latency_phase phase, uint64_t bytes)
{
    pb_latency_row *row = &run->rows[run->nrows];
    memset(row, 0, sizeof *row);
    row->phase = phase;
    row->bytes = bytes;
    row->cpu = run->p->set->cpu[0];
    row->rounds = run->rounds;
    pb_latency_run_level(run->p->topo, bytes, row->level, sizeof row->level);
    return row;
}

int pb_latency_run_ladder(pb_latency_run *run, int i, char *err, size_t errlen)
{
    uint64_t bytes = run->ladder[i];
    pb_progress(run->done, run->total, run->t0, "ladder %8llu KiB", (unsigned long long)(bytes >> 10));
    if (lat_build(run, bytes, err, errlen) != 0)
        return -1;
    pb_latency_row *row = lat_row(run, PB_LATENCY_LADDER, bytes);
    row->ghz_before = pb_clock_ghz();
    lat_chase(run, bytes);
    row->ghz_after = pb_clock_ghz();
    row->hops = run->hops;
    row->run_pct = run->run_pct;
    row->ns = pb_summarize(run->ns, (size_t)run->rounds);
    run->nrows++;
    run->done++;
    return 0;
}

/* A streamer: its slice of the buffer, read PB_LATENCY_CHUNK at a time, busy duty percent of every period. */
static void lat_stream(pb_latency_run *run, int id, int n)
{
    size_t pages = run->buf.bytes / PB_LATENCY_CHUNK, r0, r1;
    pool_split(pages, id - 1, n - 1, &r0, &r1);
    const uint8_t *lo = run->buf.p + r0 * PB_LATENCY_CHUNK, *hi = run->buf.p + r1 * PB_LATENCY_CHUNK, *q = lo;
    uint64_t busy = (uint64_t)PB_LATENCY_PERIOD_NS * (uint64_t)run->duty / 100u, bytes = 0, sum = 0;
    uint64_t t0 = pb_now_ns(), now = t0;
    bool first = true;
    /* relaxed: stop is only a signal; what this thread writes reaches the caller through pool_run's completion */
    while (!atomic_load_explicit(&run->stop, memory_order_relaxed) && hi > lo) {
        uint64_t start = now;
        do {
            sum += run->kern->fn(NULL, q, PB_LATENCY_CHUNK);
            bytes += PB_LATENCY_CHUNK;
            q = q + PB_LATENCY_CHUNK < hi ? q + PB_LATENCY_CHUNK : lo;
            now = pb_now_ns();
        } while (now - start < busy);
        if (first) /* release: pairs with the chaser's acquire; nothing else is published by it */
            atomic_fetch_add_explicit(&run->ready, 1, memory_order_release), first = false;
        while (now - start < PB_LATENCY_PERIOD_NS && !atomic_load_explicit(&run->stop, memory_order_relaxed))
            now = pb_now_ns();
    }
    run->slots[id] = (pb_latency_slot){ .bytes = bytes, .ns = pb_now_ns() - t0, .sum = sum };
}

static void lat_point_fn(void *ctx, int id, int n)
{
    pb_latency_run *run = ctx;
    if (id > 0) {
        lat_stream(run, id, n);
        return;
    }
    /* acquire: pairs with each streamer's first-chunk release (only a start signal) */
    while (atomic_load_explicit(&run->ready, memory_order_acquire) < n - 1)
        ;
    lat_chase(run, run->built);
    atomic_store_explicit(&run->stop, true, memory_order_relaxed); /* a signal only, as the streamers read it */
}

int pb_latency_run_loaded(pb_latency_run *run, int duty, char *err, size_t errlen)
{
    const pb_latency_plan *p = run->p;
    if (p->set->n < 2)
        return 0;
    uint64_t bytes = run->buf.bytes;
    pb_progress(run->done, run->total, run->t0, "loaded duty %3d%%", duty);
    if (lat_build(run, bytes, err, errlen) != 0)
        return -1;
    pb_latency_row *row = lat_row(run, PB_LATENCY_LOADED, bytes);
    row->duty = duty;
    row->load_threads = p->set->n - 1;
    row->kern = run->kern;
    pb_cpus_text(p->set->cpu + 1, p->set->n - 1, p->set->n - 1, row->load_cpus, sizeof row->load_cpus);
    run->duty = duty;
    atomic_store_explicit(&run->ready, 0, memory_order_relaxed);
    atomic_store_explicit(&run->stop, false, memory_order_relaxed); /* pool_run's publish orders both */
    row->ghz_before = pb_clock_ghz();
    pool_run(run->pool, lat_point_fn, run);
    row->ghz_after = pb_clock_ghz();
    row->hops = run->hops;
    row->run_pct = run->run_pct;
    row->ns = pb_summarize(run->ns, (size_t)run->rounds);
    for (int t = 1; t < p->set->n; t++)
        row->load_gbps += run->slots[t].ns ? (double)run->slots[t].bytes / (double)run->slots[t].ns : 0.0;
    run->nrows++;
    run->done++;
    return 0;
}

void pb_latency_run_free(pb_latency_run *run)
{
    if (run->buf.p)
        pb_membuf_unmap(&run->buf);
    if (run->pool)
        pool_destroy(run->pool);
    free(run->slots);
    free(run->ns);
    run->slots = NULL;
    run->ns = NULL;
    run->buf.p = NULL;
    run->pool = NULL;
}
