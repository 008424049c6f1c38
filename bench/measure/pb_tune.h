/* pb_tune.h — choosing kernels by measurement (bench_tune; the wisdom it writes: pb_wisdom.h).
 *
 * For every format and thread count of the plan, the candidates are every distinct matvec kernel this CPU runs
 * (kern_matvec_isa over the ISAs it supports, best ranked first: an ISA whose table lacks the format runs one below
 * it, measured once) and, for a kernel that prefetches (kern_matvec_prefetches), each streaming setting: its prefetch
 * with either hint (t2, nta) and its twin without prefetch. Each is timed through the seam at the size a decode
 * streams. The prefetch hint is one setting for the whole process, so it is chosen first, over all the points: the
 * hint under which the geometric mean of every point's best is the higher (the vendor's on a tie). The prefetch
 * distance is the process's too: every point that has a prefetching candidate times its fastest one under that hint
 * again at each other distance of kern_prefetch_distances, and the distance under which the geometric mean of every
 * such point's best (prefetching or not) is the higher is kept (KERN_PREFETCH_BYTES on a tie); the near prefetch into
 * L1 likewise, that candidate timed once more at that distance with it the other way than the vendor's (the vendor's
 * on a tie). Then each point takes its fastest candidate under those settings (the better ranked on a tie). The
 * floor's read kernels take no part: a decode's floor is the best of every read kernel measured beside it
 * (pb_sweep_run), since a pick timed here once read slower than another kernel at the moment of the decode.
 * A format with a repacked layout (kern_repack.h) has its kernels as candidates too, after the file's, without
 * prefetch: wisdom names the layout only where it measured faster (the file's wins a tie). Last, per thread count
 * from 2 (one thread dispatches nothing), the spin pool's dispatch flat and tree-shaped, alternated
 * PB_TUNE_DISPATCH_ROUNDS times (flat, tree, flat, tree: a shared machine's drift falls on both), each shape's best
 * round kept; the faster shape is remembered (a tie: flat, the baseline).
 *
 * The seam is what makes the choice testable without timing anything: the tests give a table of figures, and a
 * test of the choice asserts what a table implies. bench_tune's seam (pb_tune_measure.h) times the kernels. */
#ifndef PB_TUNE_H
#define PB_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "kern.h"
#include "kern_repack.h"
#include "pb_wisdom.h"

#define PB_TUNE_MAX_THREADS 4  /* thread counts a plan may time: 1 and all, and a few between */
#define PB_TUNE_MAX_CANDS (3 * KERN_ISA_COUNT + (KERN_LAYOUT_COUNT - 1) * KERN_ISA_COUNT)
#define PB_TUNE_DISPATCH_ROUNDS 2 /* flat and tree, alternated */

typedef struct pb_tune_cand {
    kern_format fmt;
    int threads;
    kern_isa isa;  /* the ISA whose kernel runs (kern_matvec_isa's answer) */
    bool prefetch; /* with its software prefetch (false: its twin without, or a kernel that never prefetches) */
    bool temporal; /* the hint its prefetch runs with (only when prefetch) */
    unsigned distance; /* the bytes its prefetch runs ahead (only when prefetch; kern_prefetch_distances) */
    kern_layout layout; /* the weights' layout (file, or one repacked at load, whose kernels never prefetch) */
    bool near;         /* with the near prefetch into L1 (only when prefetch; kern_prefetch_near) */
} pb_tune_cand;

typedef struct pb_tune_seam {
    /* GB/s of weights candidate c streams; NaN when it could not run (never chosen). */
    double (*kernel)(void *ctx, const pb_tune_cand *c);
    /* ns of one dispatch of the spin pool of threads threads, tree-shaped or flat; NaN as above. */
    double (*dispatch)(void *ctx, int threads, bool tree);
    void *ctx;
} pb_tune_seam;

typedef struct pb_tune_plan {
    kern_format formats[KERN_FORMAT_COUNT];
    int nformats;
    int threads[PB_TUNE_MAX_THREADS]; /* distinct, each >= 1 */
    int nthreads;
    bool dispatch; /* time the pool's shape at each thread count from 2 too */
} pb_tune_plan;

/* The candidates of (f, threads) in the order they are timed (best ranked kernel first; for each kernel, prefetch
 * with the vendor's hint, with the other, then without; the prefetching ones at KERN_PREFETCH_BYTES, with the
 * vendor's near prefetch). Their count (at most max), 0 for an unknown format. */
int pb_tune_candidates(kern_format f, int threads, pb_tune_cand *out, int max);
/* How many times pb_tune_run calls the seam's kernel (for a budget per point and the progress line); the
 * dispatch points run on no budget (each a fixed few ms). */
int pb_tune_points(const pb_tune_plan *p);

/* Times every candidate of the plan through s and puts the choices into w (its cpu and build lines are the
 * caller's; entries of other formats or thread counts already there stay). 0, or -1 with the reason in err (the
 * wisdom table is full). A point whose every candidate gave NaN gets no entry: it goes by rank; a thread count
 * where either shape gave NaN in every round gets no dispatch entry: flat. */
int pb_tune_run(const pb_tune_plan *p, const pb_tune_seam *s, pb_wisdom *w, char *err, size_t errlen);

#endif
