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
 * on a tie). In these first timings a setting leaves the vendor's only where its geometric mean is higher by
 * PB_TUNE_MIN_GAIN (pb_tuning.h). Then each point takes its fastest candidate under those settings (the better ranked
 * on a tie).
 * A format with a repacked layout (kern_repack.h) has its kernels as candidates too, after the file's, without
 * prefetch.
 *
 * A first timing of each is one figure, and on a shared machine its edge can be noise: settings picked by it can make
 * a decode slower than rank's. So the rank's default (the best ranked kernel
 * with its prefetch under the vendor's settings) is only left where a candidate beats it when the two are timed
 * again, interleaved (pb_tune_confirm.c): each point's fastest but the default under the vendor's settings, the
 * default under the tuned settings and the fastest under those (whatever their first figures: one can be 20% off)
 * are timed beside
 * the default PB_TUNE_CONFIRM_ROUNDS times, the order reversed every other round, and judged by pb_tune_judge over
 * the per-round ratios; where those leave it open (a median gain the pairs' spread hides), PB_TUNE_EXTRA_ROUNDS more
 * rounds, in the same time budget, and judged over all of them. A point's choice under some settings is its fastest
 * there that really beat the default, else the default (under them). The tuned settings are kept only where on no
 * point their choice is slower than the vendor's (median ratio) and on one it is really faster; else the vendor's
 * are written. Each entry says `tuned`
 * (its kernel, twin or layout is not the default's) or `rank`, with its median ratio to the default (for a rank
 * entry the best candidate's, which fell short). A point whose default could not run takes its fastest, unconfirmed.
 * The floor's read kernels take no part: a decode's floor is the best of every read kernel measured beside it
 * (pb_sweep_run), since a pick timed here can read slower than another kernel at the moment of the decode. Last,
 * per thread count from 2 (one thread dispatches nothing), the spin pool's dispatch flat and tree-shaped, alternated
 * PB_TUNE_DISPATCH_ROUNDS times (flat, tree, flat, tree: a shared machine's drift falls on both), each shape's best
 * round kept; the tree is remembered only where pb_tune_judge says it dispatched faster (flat, the baseline, else).
 *
 * The seam is what makes the choice testable without timing anything: the tests give a table of figures, and a
 * test of the choice asserts what a table implies. bench_tune's seam (pb_tune_measure.h) times the kernels. */
#ifndef PB_TUNE_H
#define PB_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "kern.h"
#include "kern_repack.h"
#include "pb_tune_confirm.h"
#include "pb_wisdom.h"

#define PB_TUNE_DISPATCH_ROUNDS 3 /* flat and tree, alternated: as many pairs as pb_tune_judge needs */

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
/* At most how many times pb_tune_run calls the seam's kernel (for a budget per point and the progress line; the
 * seam's left says how many the confirmation takes once known); the dispatch points run on no budget (each a fixed
 * few ms). */
int pb_tune_points(const pb_tune_plan *p);

/* Times every candidate of the plan through s and puts the choices into w (its cpu and build lines are the
 * caller's; entries of other formats or thread counts already there stay). 0, or -1 with the reason in err (the
 * wisdom table is full). A point whose every candidate gave NaN gets no entry: it goes by rank; a thread count
 * where either shape gave NaN in every round gets no dispatch entry: flat. */
int pb_tune_run(const pb_tune_plan *p, const pb_tune_seam *s, pb_wisdom *w, char *err, size_t errlen);

#endif
