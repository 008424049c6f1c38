/* pb_sweep_block.h — a block of bench_sweep (one format's weights at one core set x thread count) and what it
 * measures for its points: its read floor (memory_floor.csv's, or measured), a point's floor beside its tokens, the
 * compute roof, the round trip between its set's first two cpus. Inside loops/: pb_sweep_run.c opens the blocks,
 * pb_sweep_point.c and pb_sweep_rounds.c measure in them. */
#ifndef PB_SWEEP_BLOCK_H
#define PB_SWEEP_BLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "pb_decode_floor.h"
#include "pb_sweep_run.h"

#define PB_SWEEP_RT_ITERS 10000 /* a round trip's iterations (a quarter with --quick) */

/* One block: a format's weights at one (set, threads). */
typedef struct pb_sweep_block {
    const pb_sweep_plan *p;
    pb_weight_format fmt; /* a format or a mix (pb_weight_format.h) */
    const pb_decode_weights *w;
    const pb_cpuset *set;
    const pb_cpulist *place, *pair; /* the threads' cpus; the set's first two, for the round trip */
    const pb_cpulist *held;         /* the distinct cpus among place (all of them unless oversubscribed) */
    bool oversubscribed;            /* more threads than the set's PUs: they wrap around held */
    pb_decode_floor floor;          /* the block's: from memory_floor.csv or measured */
    pb_kernel_choice kernel[KERN_FORMAT_COUNT]; /* each format's kernel at the block's thread count */
    size_t context;                 /* the points' depth: the cache pb_decode_set_context fills */
    pb_kv_type kv;
    double roof_gmacs;              /* the compute roof on the block's cpus (pb_sweep_block_roof; NaN: none) */
    const double *capacity;         /* each placed thread's (pb_sweep_capacities into cap; NULL: none known) */
    double cap[PB_MAX_CPUS];
} pb_sweep_block;

/* The read floor through a spin pool pinned like the point, one thread per cpu (an oversubscribed point's floor is
 * its cpus', not a time-shared pool's) (only: one kernel), over the memory d's tokens read (pb_decode_read_spans),
 * or the block's weights before there is a decode (d NULL). 0, or -1 with the reason in err. */
int pb_sweep_block_floor_of(const pb_sweep_block *b, const pb_decode *d, const char *only, pb_decode_floor *out,
                            char *err, size_t errlen);

/* The block's floor: memory_floor.csv's for these very cpus when the run has one, else the best of every read
 * kernel measured now. Not wisdom's read kernel alone: a tuning's pick can read slower than another kernel at the
 * moment of the decode, and a floor below the best read would flatter every % of floor over it. */
int pb_sweep_block_floor(pb_sweep_run *run, pb_sweep_block *b, char *err, size_t errlen);

/* The block's compute roof: the best ISA this run may use (kern_isa_chosen: a POOLBENCH_ISA cap holds), int8,
 * or f32 for float weights, one thread per held cpu (pb_roof.h): the best of its measure now, roof.csv's for these
 * cpus where the run has one, and the run's earlier blocks' on the same core set. NaN, with a line on stderr,
 * where it cannot run: the points' budgets then take the floor as their bound. */
void pb_sweep_block_roof(pb_sweep_run *run, pb_sweep_block *b);

/* A point's interleaved floor: its passes run on the point's own pool when its workers spin, else each on a
 * spin pool made for it (a sleeping pool would pay its wake-ups inside the pass, and a halted vCPU wakes
 * slowly). */
typedef struct pb_sweep_live {
    pb_decode_floor_live fl;
    const pb_cpulist *place;
    pool *own; /* NULL: a fresh spin pool per pass */
} pb_sweep_live;

/* Opens lv's interleaved floor over the memory d's tokens read (pb_decode_read_spans) with the block's kernel
 * (own: the point's pool when its workers spin, else NULL: a spin pool per pass). False, with a line on stderr,
 * when it cannot: the point then takes the block's floor. */
bool pb_sweep_block_live_open(pb_sweep_live *lv, const pb_sweep_block *b, const pb_decode *d, pool *own);
/* pb_sweep_between's hook: one interleaved floor pass (ctx: the point's pb_sweep_live). */
void pb_sweep_block_live_pass(void *ctx);

/* The round trip between the set's first two placed cpus (NaN for a one-cpu set). */
double pb_sweep_block_roundtrip(const pb_sweep_block *b);

#endif
