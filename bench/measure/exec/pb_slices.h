/* pb_slices.h — what each thread of an executor did: the time it spent in its slices (the ranges of rows it
 * ran), how many rows, and the emulated slow core.
 *
 * Accounting: every slice is timed on the thread that runs it (two clock reads: ~40 ns against slices of tens
 * of µs in a decode), into that thread's own cache line, so no dispatch pays for another thread's counters. The
 * caller reads them between dispatches: the dispatch's completion (the pool's acquire of its done counter,
 * OpenMP's closing barrier) orders the workers' plain writes before those reads.
 *
 * Emulation (--emulate-slow CPU=FACTOR): after each slice the thread pinned on CPU busy-waits (1/FACTOR - 1) x
 * the time the slice took, so that core delivers FACTOR of its speed on exactly the work it is given, memory
 * stalls included, wherever the schedule puts that work. A slice's busy time includes the stretch; its work
 * time does not. This is a stand-in for a slower core on machines that have none (a VM): the rows are the
 * real ones, the slowness is made. Every row measured so carries the emulation in its emulate_slow column. */
#ifndef PB_SLICES_H
#define PB_SLICES_H

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pool.h"
#include "pb_topo.h"

#define PB_SLICES_LINE 64
#define PB_EMULATE_MAX 64

/* --emulate-slow: cpus and the share of their speed they keep. */
typedef struct pb_emulate {
    int n;
    int cpu[PB_EMULATE_MAX];
    double factor[PB_EMULATE_MAX]; /* in (0, 1]: 0.5 = half speed */
} pb_emulate;

/* "CPU=FACTOR[,CPU=FACTOR...]" into e: every cpu must exist here (t: pb_topo_check_cpu), once; every factor from
 * 0.01 to 1. NULL or "" is no emulation. 0, or -1 with the reason (no head: the caller names the option) in err. */
int pb_emulate_parse(const char *spec, const pb_topo *t, pb_emulate *e, char *err, size_t errlen);
/* The factor of cpu (1 when it is not emulated, or e is NULL). */
double pb_emulate_factor(const pb_emulate *e, int cpu);
/* The emulated cpus among cpus[0..n), as "cpu=factor" words ("1=0.5 3=0.25"), "" when none: a row's column. */
void pb_emulate_text(const pb_emulate *e, const int *cpus, int n, char *buf, size_t len);

/* One thread's account: on its own cache line, written only by the thread that runs slice id. */
typedef struct pb_thread_stat {
    alignas(PB_SLICES_LINE) uint64_t busy_ns; /* in its slices, the emulated stretch included */
    uint64_t work_ns;                         /* in its slices' own work */
    uint64_t rows;                            /* rows its slices covered */
    uint64_t slices;
    uint64_t tagged_ns;                       /* of busy_ns, in slices of dispatches made while the tag was set */
    double factor;                            /* read-only: its cpu's emulation factor, 1 = none */
} pb_thread_stat;

_Static_assert(sizeof(pb_thread_stat) % PB_SLICES_LINE == 0, "each thread's account fills whole cache lines");

typedef struct pb_slices {
    int n;
    int tag;           /* set by the caller between dispatches (pb_slices_tag); the dispatch's release orders it
                        * before its slices read it */
    pb_thread_stat *t; /* n accounts, cache-line aligned */
} pb_slices;

/* n accounts, thread i's factor from cpus[i] (cpus NULL or e NULL: no emulation). 0, or -1 with errno. */
int pb_slices_init(pb_slices *s, int n, const int *cpus, const pb_emulate *e);
void pb_slices_free(pb_slices *s);
/* Zeroes the counters (the factors stay). Between dispatches only. */
void pb_slices_reset(pb_slices *s);
/* Tags the dispatches that follow (on: their slices also count into tagged_ns): the decode's attention, so its
 * threads' busy time can be told from the matvecs'. Between dispatches only. */
void pb_slices_tag(pb_slices *s, bool on);
/* True when some thread is emulated. */
bool pb_slices_emulated(const pb_slices *s);

/* The pool's observer (pool_config.hook) over s, and the two calls it makes, which the OpenMP executor makes
 * itself around each slice: begin returns the start time, end stretches an emulated slice and counts it. */
pool_slice_hook pb_slices_hook(pb_slices *s);
uint64_t pb_slice_begin(void *slices, int id);
void pb_slice_end(void *slices, int id, uint64_t t0, size_t rows);

#endif
