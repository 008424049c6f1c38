/* pb_tune_cand.h — what a tuning times: a candidate (a kernel and how it streams, for one format and thread count)
 * and the seam that times one, shared by the plan (pb_tune.h) and the confirmation (pb_tune_confirm.h). */
#ifndef PB_TUNE_CAND_H
#define PB_TUNE_CAND_H

#include <stdbool.h>

#include "kern.h"
#include "kern_repack.h"

#define PB_TUNE_MAX_THREADS 4  /* thread counts a plan may time: 1 and all, and a few between */
#define PB_TUNE_MAX_CANDS (3 * KERN_ISA_COUNT + (KERN_LAYOUT_COUNT - 1) * KERN_ISA_COUNT)

typedef struct pb_tune_cand {
    kern_format fmt;
    int threads;
    kern_isa isa;  /* the ISA whose kernel runs (kern_matvec_isa's answer) */
    bool prefetch; /* with its software prefetch (false: its twin without, or a kernel that never prefetches) */
    bool temporal; /* the hint its prefetch runs with (only when prefetch) */
    unsigned distance; /* the bytes its prefetch runs ahead (only when prefetch; kern_prefetch_distances) */
    kern_layout layout; /* the weights' layout (file, or one repacked at load: its kernel has no twin without
                         * prefetch, so prefetch stays false and it runs under the settings of the moment) */
    bool near;         /* with the near prefetch into L1 (only when prefetch; kern_prefetch_near) */
} pb_tune_cand;

typedef struct pb_tune_seam {
    /* GB/s of weights candidate c streams; NaN when it could not run (never chosen). */
    double (*kernel)(void *ctx, const pb_tune_cand *c);
    /* ns of one dispatch of the spin pool of threads threads, tree-shaped or flat; NaN as above. */
    double (*dispatch)(void *ctx, int threads, bool tree);
    /* Optional: after the first timings, how many more kernel calls come (fewer than pb_tune_points counted). */
    void (*left)(void *ctx, int calls);
    void *ctx;
} pb_tune_seam;

#endif
