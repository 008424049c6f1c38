/* pb_exec.h — one way to run a row loop on threads: a pool policy (spin, condvar, hybrid, spawn) through
 * pool_rows, or OpenMP's `parallel for` (the peer every comparison carries), pinned the same way. A harness
 * that sweeps policies opens one executor per point and calls pb_exec_rows for each matvec, so a policy is a
 * value, not a branch in the harness.
 *
 * Schedules: chunk 0 = static contiguous split (pool_split's ranges: the first rows % n threads take one
 * more; OpenMP: schedule(static) over those n ranges), chunk k = dynamic claims of k rows (OpenMP:
 * schedule(dynamic) over ceil(rows / k) chunks). A row is always computed whole by one fn call, so the bits
 * of a row-wise kernel never depend on the executor. */
#ifndef PB_EXEC_H
#define PB_EXEC_H

#include <sched.h>
#include <stddef.h>

#include "pb_dispatch_cost.h"
#include "pool.h"

typedef struct pb_exec {
    int kind;          /* a pool_policy, or PB_DISPATCH_OMP */
    int threads;
    size_t chunk;      /* 0 static, k dynamic */
    pool *p;           /* NULL for omp */
    cpu_set_t saved;   /* omp: the caller's mask before the team was pinned */
    long dispatches;   /* pb_exec_rows + pb_exec_run calls since open */
} pb_exec;

/* Opens an executor of `threads` threads pinned to cpus[0..threads) (cpus may be NULL: unpinned); spin_us
 * is the hybrid policy's budget. 0, or -1 with errno (EINVAL: bad kind or threads; pool_create's errors). */
int pb_exec_open(pb_exec *e, int kind, int threads, const int *cpus, size_t chunk, unsigned spin_us);
/* Covers 0..rows with fn(ctx, r0, r1): one dispatch. */
void pb_exec_rows(pb_exec *e, size_t rows, pool_rows_fn fn, void *ctx);
/* The same, split in multiples of grain rows: every range starts at a multiple of grain (the last may end
 * short at rows). Static: pool_split over the ceil(rows / grain) units; dynamic:k claims ceil(k / grain) units.
 * For work whose epilogue needs whole blocks (a slice quantized into an activation's blocks). grain > 0. */
void pb_exec_rows_grain(pb_exec *e, size_t rows, size_t grain, pool_rows_fn fn, void *ctx);
/* Every thread id 0..threads-1 calls fn(ctx, id, threads) once: one dispatch. */
void pb_exec_run(pb_exec *e, pool_fn fn, void *ctx);
/* Destroys the pool, or unpins the OpenMP team and the caller. */
void pb_exec_close(pb_exec *e);

/* Pins each thread of an OpenMP team of `threads` to cpus[thread number] (the caller is thread 0), or back
 * to *restore when cpus is NULL. libgomp keeps its threads between regions of the same size, so the pinning
 * holds for later regions of that size. */
void pb_omp_pin(int threads, const int *cpus, const cpu_set_t *restore);

#endif
