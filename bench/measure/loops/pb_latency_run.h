/* pb_latency_run.h — bench_memory_floor --latency's measuring loop: memory latency by pointer chase
 * (pb_chase.h) on the first cpu of a set, in one buffer (huge pages asked for, first-touched whole before
 * anything is timed):
 *   - the ladder: idle, a cycle through the first S bytes for each working-set size S (ascending; the last is the
 *     whole buffer), each size named by the cache level that holds it (L1, L2, L3 ... by the topology; DRAM past
 *     the last);
 *   - the loaded curve: the whole buffer's cycle, chased while every other cpu of the set streams reads of its
 *     own slice of the same buffer at a duty (busy that percent of every PB_LATENCY_PERIOD_NS, idle the rest), one
 *     point per duty: latency against the bandwidth the others drew (MLC's loaded-latency table).
 * The chaser's clock (pb_clock) is taken just before and after every point.
 *
 * Measuring only; it never exits: a failure returns -1 with the reason, the rows measured kept. */
#ifndef PB_LATENCY_RUN_H
#define PB_LATENCY_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_cli.h"
#include "pb_membuf.h"
#include "pb_memread.h"
#include "pb_stats.h"
#include "pb_topo.h"
#include "pool.h"

#define PB_LATENCY_MAX_LADDER 24
#define PB_LATENCY_MAX_ROWS (PB_LATENCY_MAX_LADDER + PB_LIST_MAX)
#define PB_LATENCY_LADDER_FIRST (16u << 10) /* the ladder's smallest working set; then x4 to the buffer */
#define PB_LATENCY_PERIOD_NS 100000u        /* a streamer's duty period */
#define PB_LATENCY_CHUNK (64u << 10)        /* a streamer reads this much between looks at the clock */
#define PB_LATENCY_MIN_MIB 768u           /* the default buffer: at least this, and PB_LATENCY_LLC_FACTOR last-level caches */
#define PB_LATENCY_LLC_FACTOR 4u
#define PB_LATENCY_QUICK_MIN_MIB 512u     /* --quick: at least this, and PB_LATENCY_QUICK_LLC_FACTOR of them */
#define PB_LATENCY_QUICK_LLC_FACTOR 2u
#define PB_LATENCY_SEED 0x70B1A7E5C4A5E001ull /* the chase's cycle: the same on every run */

typedef enum pb_latency_phase { PB_LATENCY_LADDER, PB_LATENCY_LOADED } pb_latency_phase;

typedef struct pb_latency_row {
    pb_latency_phase phase;
    char level[8];             /* "L1" .. "DRAM" */
    uint64_t bytes;            /* the working set chased */
    int cpu;                   /* where the chase ran */
    int duty;                  /* the streamers' duty, percent; 0 on the ladder */
    int load_threads;          /* streamers (0 on the ladder) */
    char load_cpus[256];
    const pb_memkern *kern;    /* the streamers' read kernel (NULL on the ladder) */
    uint64_t hops;             /* per round: about a round's time at the warm-up's pace */
    int rounds;
    pb_summary ns;             /* per hop, over the rounds */
    double run_pct;            /* of the rounds' wall time, the chase thread's cpu time (below 100: preempted) */
    double load_gbps;          /* what the streamers read, 1e9 B/s (0 on the ladder) */
    double ghz_before, ghz_after;
} pb_latency_row;

/* What to measure, checked and defaulted by the harness. */
typedef struct pb_latency_plan {
    const char *prog;
    const pb_topo *topo;
    const pb_cpulist *set;     /* cpu[0] chases; the others stream */
    uint64_t size_mib;         /* the buffer: the ladder's last size and the loaded curve's working set */
    const pb_list *duties;     /* percent, 1..100 */
    bool quick, no_thp;
} pb_latency_plan;

/* One streamer's tally, on its own line: its stores do not share one with another's. */
typedef struct pb_latency_slot {
    _Alignas(64) uint64_t bytes, ns, sum;
} pb_latency_slot;

typedef struct pb_latency_run {
    const pb_latency_plan *p;
    pb_membuf buf;
    pool *pool;                /* set->n threads, the caller bound to cpu[0] */
    const pb_memkern *kern;    /* the streamers' */
    uint64_t thp_bytes;        /* of the buffer in huge pages, after the first touch */
    uint64_t ladder[PB_LATENCY_MAX_LADDER];
    int nladder;
    uint64_t built;            /* the working set the buffer's cycle goes through now (0: none) */
    pb_latency_row rows[PB_LATENCY_MAX_ROWS];
    int nrows;
    int done, total;
    uint64_t t0;
    const void *sink;          /* where the last walk stopped: the loads are used */
    /* the loaded point being run (written by the caller between points, read by the pool's threads) */
    int duty;
    uint64_t hops;             /* the last chase's, and its share on the cpu */
    double run_pct;
    int rounds;
    double *ns;                /* rounds results of the chase */
    _Alignas(64) _Atomic int ready;   /* streamers that have read their first chunk */
    _Alignas(64) _Atomic bool stop;   /* the chase is done: streamers stop */
    pb_latency_slot *slots;        /* POOL_MAX_THREADS */
} pb_latency_run;

/* The default buffer in MiB for a last-level cache of llc_bytes (0: unknown), as above. */
uint64_t pb_latency_run_default_mib(uint64_t llc_bytes, bool quick);
/* The ladder's sizes for a buffer of bytes: PB_LATENCY_LADDER_FIRST x 4^k below it, then bytes. Returns how many. */
int pb_latency_run_ladder_sizes(uint64_t bytes, uint64_t *out, int max);
/* The cache level name of a working set: "L<level>" of the first level of t (above the first PU's kind) that holds
 * bytes, else "DRAM". */
void pb_latency_run_level(const pb_topo *t, uint64_t bytes, char *out, size_t len);

/* The buffer (mapped, touched whole), the pool and the streamers' kernel. 0, or -1 with err. */
int pb_latency_run_begin(pb_latency_run *run, const pb_latency_plan *p, char *err, size_t errlen);
/* Ladder point i (0 .. nladder-1). 0, or -1 with err. */
int pb_latency_run_ladder(pb_latency_run *run, int i, char *err, size_t errlen);
/* The loaded point at duty (percent) over the whole buffer; nothing when the set has one cpu. 0, or -1 with err. */
int pb_latency_run_loaded(pb_latency_run *run, int duty, char *err, size_t errlen);
void pb_latency_run_free(pb_latency_run *run);

#endif
