/* pb_sweep_roofs.h — the compute roofs a sweep measured, kept per core set, thread count and op: a core's roof does
 * not change between blocks, and steal only lowers a measure (a sweep's block once took half the roof the block
 * before it had), so each block takes the best its core set had. */
#ifndef PB_SWEEP_ROOFS_H
#define PB_SWEEP_ROOFS_H

#include "pb_vec.h"

/* A compute roof the run measured: a core set's (by its plan entry), at a thread count, for an op. */
typedef struct pb_sweep_roof_seen {
    const void *set;
    int threads, op;
    double gmacs;
} pb_sweep_roof_seen;

typedef struct pb_sweep_roofs {
    pb_vec seen; /* pb_sweep_roof_seen, one per core set, thread count and op */
} pb_sweep_roofs;

void pb_sweep_roofs_open(pb_sweep_roofs *r);
void pb_sweep_roofs_free(pb_sweep_roofs *r);

/* The best of gmacs and the roof kept before for core set `set` (its plan entry), threads and op (kern_peak_op),
 * kept for the blocks after. A gmacs that is not a positive number (a failed measure) is returned as it is when
 * nothing was kept before, and never kept. */
double pb_sweep_roofs_best(pb_sweep_roofs *r, const void *set, int threads, int op, double gmacs);

#endif
