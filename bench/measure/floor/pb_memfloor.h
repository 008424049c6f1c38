/* pb_memfloor.h — the streaming-bandwidth measurement behind bench_memory_floor, on one pool and one buffer:
 *
 *   pb_memfloor_ctx c;  pb_memfloor_init(&c, pool, buf, bytes);   // buf: mapped, never touched
 *   pb_memfloor_touch(&c);                                    // each thread writes its own slice (first touch)
 *   pb_memfloor_measure(&c, kernel, passes, &point);          // one warm-up pass, then passes timed ones
 *
 * A pass is one pool dispatch, timed by the caller from publish to the return of pool_run (the last
 * thread's end): every thread runs the kernel over its own slice (pool_split over 4 KiB pages, the pages it
 * touched first), in chunks of 1/PB_MF_CHUNKS of it that it claims one by one, then claims what is left of the
 * others' slices. A thread that runs slower (a vCPU its host preempts, an E-core) then reads less, as a
 * decode's dynamic row split lets it work less: with static slices every pass waited for the slowest thread,
 * and a dynamic decode read faster than that "floor". Reads
 * and writes span the whole buffer; a copy reads the first half and writes the second. The buffer is
 * filled with a pattern that repeats every half, so a copy leaves it as it was and every read and copy
 * pass can be checked against the byte sum the fill produced (the STREAM habit: validate after timing).
 * Writes overwrite the pattern: measure them after the reads and copies of the same buffer.
 *
 * Which is which: pb_memread holds the kernels (one thread, one slice); this file runs one of them over a pool
 * and a buffer (the floor measurement); pb_decode_floor picks, repeats or reads back such a floor for one decode
 * point. */
#ifndef PB_MEMFLOOR_H
#define PB_MEMFLOOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_memread.h"
#include "pb_stats.h"
#include "pool.h"

#define PB_MF_MIN_MIB 768u      /* the default buffer is at least this ... */
#define PB_MF_LLC_FACTOR 8u     /* ... and at least this many last-level caches ... */
#define PB_MF_QUICK_LLC_FACTOR 2u /* ... or, for --quick, this many (streamed in order, it still misses) */
#define PB_MF_UNIT 4096u        /* slices are whole 4 KiB pages */

#define PB_MF_CHUNKS 64u      /* a slice is claimed in this many chunks (whole pages, at least one) */

/* A stretch of memory a read pass covers (pb_memfloor_init_spans): where it is, its bytes, and where it starts
 * among the spans laid end to end (pb_memspan_lay sets it). */
typedef struct pb_memspan {
    const uint8_t *p;
    size_t bytes;
    size_t at;
} pb_memspan;

/* One thread's slot, on its own cache line so the threads' stores do not share one: its pass's byte sum, and
 * the next unclaimed byte of its slice (claimed by its owner first, then by any thread that ran out). */
typedef struct pb_memfloor_slot {
    _Alignas(64) uint64_t sum;
    _Atomic size_t next;
} pb_memfloor_slot;

typedef struct pb_memfloor_ctx {
    pool *pool;
    int threads;
    uint8_t *buf;
    size_t bytes;            /* a multiple of 2 x PB_MF_UNIT */
    const pb_memspan *spans; /* NULL: buf; else what read passes read instead, laid end to end (the caller's) */
    int nspans;
    uint64_t expect_sum;     /* byte sum of the whole buffer after pb_memfloor_touch */
    double touch_s;          /* how long the first touch took */
    /* the pass being run (read by the workers during pool_run, written by the caller between passes) */
    const pb_memkern *kern;
    pb_memfloor_slot slot[POOL_MAX_THREADS];
} pb_memfloor_ctx;

typedef struct pb_memfloor_point {
    const pb_memkern *kern;
    int threads;
    int passes;
    uint64_t moved;          /* bytes one pass moves: traffic x the span it covers */
    pb_summary gbps;         /* over the timed passes, 1e9 B/s */
    bool valid;              /* every pass's byte sum was the expected one */
} pb_memfloor_point;

/* The default buffer in MiB: max(PB_MF_MIN_MIB, PB_MF_LLC_FACTOR x llc_bytes), rounded up to whole MiB;
 * with quick, PB_MF_QUICK_LLC_FACTOR instead. */
uint64_t pb_memfloor_default_mib(uint64_t llc_bytes, bool quick);
/* 0 when mib MiB fit in half of avail_bytes; -1 with a one-line reason otherwise. */
int pb_memfloor_check_size(uint64_t mib, uint64_t avail_bytes, char *err, size_t errlen);

/* bytes must be a positive multiple of 2 x PB_MF_UNIT (any whole number of MiB is). */
void pb_memfloor_init(pb_memfloor_ctx *c, pool *p, uint8_t *buf, size_t bytes);
/* Read passes only, over n spans laid end to end (pb_memspan_lay) instead of one buffer, as a decode reads its
 * matrices from two mappings: bytes at most their total, a positive multiple of 2 x PB_MF_UNIT. The spans stay the
 * caller's and must outlive c's passes. */
void pb_memfloor_init_spans(pb_memfloor_ctx *c, pool *p, const pb_memspan *spans, int n, size_t bytes);
/* Sets each of the n spans' at (the bytes of those before it); their total. */
size_t pb_memspan_lay(pb_memspan *spans, int n);
/* First touch through the pool: each thread writes the fill pattern into its slice. Sets expect_sum. */
void pb_memfloor_touch(pb_memfloor_ctx *c);
/* One untimed pass, then passes timed ones (passes >= 1). 0, or -1 with errno ENOMEM (nothing measured). */
int pb_memfloor_measure(pb_memfloor_ctx *c, const pb_memkern *k, int passes, pb_memfloor_point *out);
/* One pass of k; its duration in ns. Returns the byte sum over all threads. */
uint64_t pb_memfloor_pass(pb_memfloor_ctx *c, const pb_memkern *k, uint64_t *ns);
/* The byte sum a pass of k must return on a freshly touched buffer (see above). */
uint64_t pb_memfloor_expected(const pb_memfloor_ctx *c, const pb_memkern *k);

#endif
