/* pb_tune_confirm.h — what pb_tune.c's first timings hand pb_tune_confirm.c, which times the choice against the rank's
 * default again, and the rule it judges by (pb_tune.h tells the whole tuning). */
#ifndef PB_TUNE_CONFIRM_H
#define PB_TUNE_CONFIRM_H

#include <stdbool.h>
#include <stddef.h>

#include "pb_tune_cand.h"
#include "pb_wisdom.h"

#define PB_TUNE_MIN_PAIRS 2 /* pb_tune_judge's fewest: one pair has no spread to judge it by */
#define PB_TUNE_TRIM_PAIRS 5 /* from so many pairs the spread leaves out the lowest and the highest: 3 remain */
#define PB_TUNE_CONFIGS 4 /* a point's distinct configurations timed against each other: see pb_tune_confirm */

/* One point (format, threads): its candidates and what each measured; at[d]: its fastest prefetching candidate under
 * the chosen hint at distance kern_prefetch_distances[d] (NaN: none, or it could not run). */
typedef struct pb_tune_point {
    pb_tune_cand cand[PB_TUNE_MAX_CANDS];
    double gbps[PB_TUNE_MAX_CANDS];
    int n;
    int pf;                           /* that candidate's index, -1 when the point has none */
    double at[KERN_PREFETCH_NDIST];
    double other_near;                /* that candidate at the chosen distance with the near prefetch the other way */
    int kv;                           /* the fastest but the default under the vendor's settings, -1 when none */
    int ks;                           /* the fastest under the tuned settings, -1 when none measured */
    pb_tune_cand ks_cand;             /* that one, at the tuned distance and near */
    double ks_gbps;                   /* and its figure there */
} pb_tune_point;

/* The process's streaming settings: the prefetch hint, the distance (an index into kern_prefetch_distances) and the
 * near prefetch into L1. */
typedef struct pb_tune_settings {
    bool temporal;
    int distance;
    bool near;
} pb_tune_settings;

/* A candidate against a default from pairs timed interleaved: ratio[i] = the candidate's GB/s / the default's in
 * pair i (a NaN or a ratio <= 0, where one could not run, is left out). */
typedef struct pb_tune_verdict {
    int pairs;     /* the ratios judged */
    double median; /* of them (NaN: none) */
    double spread; /* (max - min) / 2 of them, the lowest and highest left out from PB_TUNE_TRIM_PAIRS pairs on:
                    * how far pairs of the same two stray apart by noise */
    bool gain;     /* really faster: median > 1 + max(min_gain, spread), over at least PB_TUNE_MIN_PAIRS pairs */
    bool open;     /* not that, but the median is past 1 + min_gain: more pairs could tell */
} pb_tune_verdict;
/* The verdict on n ratios (pure: the rule every choice of bench_tune goes by, min_gain PB_TUNE_MIN_GAIN). */
pb_tune_verdict pb_tune_judge(const double *ratio, int n, double min_gain);

/* The settings a plan runs under when nothing was measured: the vendor's (kern_prefetch_vendor_*). */
pb_tune_settings pb_tune_vendor(void);

/* From the first timings (pts, the settings first timed fastest tuned, any: some candidate prefetches), times each
 * point's choices against its rank's default again, interleaved, and puts into w each point's entry and the settings
 * kept (pb_tune_judge decides; see pb_tune.h). 0, or -1 with the reason in err (the wisdom table is full). */
int pb_tune_confirm(pb_tune_point *pts, int npts, const pb_tune_settings *tuned, bool any, const pb_tune_seam *s,
                    pb_wisdom *w, char *err, size_t errlen);

#endif
