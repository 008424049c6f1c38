/* pb_decode_floor.h — the read floor one decode point is held against: the streaming read bandwidth of a buffer
 * through a pool pinned to the same cpus, or the figure bench_memory_floor left in memory_floor.csv of the same
 * run directory.
 *
 * Three files, three layers of one idea (this folder, bench/measure/floor):
 *   pb_memread       the read (copy, write) kernels as a table: what one thread runs over one slice.
 *   pb_memfloor      the floor measurement over a pool (pb_memfloor_*): first touch, timed passes of one kernel, the
 *                    byte-sum check; bench_memory_floor's whole job.
 *   pb_decode_floor  (this file) a floor for one decode point: chosen over the kernels on pb_memfloor's passes,
 *                    interleaved with the point's tokens, or read back from memory_floor.csv.
 *
 * Measured with bench_memory_floor's own passes (pb_memfloor): every read kernel of pb_memread this CPU
 * has; per kernel one untimed pass, then `passes` timed passes, each one pool dispatch in which thread i
 * reads its share (whole pages) of the buffer in chunks, then claims chunks of the others' shares (pb_memfloor.h). Every pass's byte sum is checked against the first
 * kernel's: a kernel that reads wrong fails the measurement. The floor is the kernel with the best median
 * pass (only: measure just the kernel of that name, e.g. the one an earlier call chose). GB/s = 1e9 bytes/s. */
#ifndef PB_DECODE_FLOOR_H
#define PB_DECODE_FLOOR_H

#include <stddef.h>

#include "pool.h"

struct pb_memspan; /* pb_memfloor.h */

typedef struct pb_decode_floor {
    double gbps_best, gbps_median, gbps_min; /* of the chosen kernel's passes */
    char kernel[32];                         /* its name ("avx512-nt") */
    char source[24];                         /* "measured" or "memory_floor.csv" */
} pb_decode_floor;

/* 0, or -1 with the reason in err (no kernel, a wrong byte sum). The n spans (pb_memfloor.h; their at set by
 * pb_memspan_lay) are written memory read as one buffer laid end to end, as a decode reads its matrices from the
 * weights and a repacked copy: at least 8 KiB in all, a tail under 8 KiB not read. */
int pb_decode_floor_measure(pool *p, const struct pb_memspan *spans, int n, int passes, const char *only,
                            pb_decode_floor *out, char *err, size_t errlen);

/* A floor measured between a harness's own timed steps (bench_sweep: one pass after each decode token), through
 * the very pool that runs the steps, so both see the same machine from moment to moment: on a shared host the
 * bandwidth drifts by 10% within seconds, and a floor measured before a point is then held against tokens
 * that ran in another weather. Each pass is one pool_run over the spans with one read kernel, checked against the
 * first (untimed) pass's byte sum. Each pass names its pool: the same one, or (for a pool whose workers sleep,
 * which would pay its wake-ups in the pass) a spin pool of the same threads and cpus made for that pass.
 *
 *   pb_decode_floor_live l;  pb_decode_floor_live_open(&l, pool, spans, ns, "avx512-4s", n, err, len);
 *   ...  pb_decode_floor_live_pass(&l, pool);  ... (up to n times)
 *   pb_decode_floor_live_close(&l, &floor, err, len);      // best/median/min over the passes; source "interleaved" */
typedef struct pb_decode_floor_live {
    struct pb_memfloor_ctx *c;
    const struct pb_memkern *k;
    double *gbps;
    int n, cap;
    int wrong; /* passes whose byte sum was not the first pass's */
} pb_decode_floor_live;

/* 0, or -1 with the reason in err (unknown or unsupported kernel, spans too small, out of memory). The n spans as
 * pb_decode_floor_measure's, read until close: they must outlive l. */
int pb_decode_floor_live_open(pb_decode_floor_live *l, pool *p, const struct pb_memspan *spans, int n,
                              const char *kernel, int cap, char *err, size_t errlen);
/* One timed pass on p, a pool of as many threads as the one given to open (ignored beyond cap, or when p has
 * another thread count). */
void pb_decode_floor_live_pass(pb_decode_floor_live *l, pool *p);
/* The summary into out and frees l. 0, or -1 with the reason in err (no pass, or a wrong byte sum). */
int pb_decode_floor_live_close(pb_decode_floor_live *l, pb_decode_floor *out, char *err, size_t errlen);

/* The read floor for exactly these cpus (in this order) from DIR/memory_floor.csv: of the rows with op
 * "read", that thread count and that cpu list, the kernel with the best gbps_median. 0 found, 1 when the
 * file or a matching row is absent, -1 when the file cannot be parsed (reason in err). */
int pb_decode_floor_from_csv(const char *dir, const int *cpus, int threads, pb_decode_floor *out, char *err,
                             size_t errlen);

#endif
