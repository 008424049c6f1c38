/* pb_points.h — a run directory as a list of measured points: each a name built from its attributes
 * ("decode/qwen3-0.6b/q8_0/spin/static/fused/p/threads:2"), one iteration's time, and its figures, each with the
 * range the point's own repetitions allow (its tokens' min and max, its batches', its samples'). results.json
 * (pb_results_json.c) writes them in Google Benchmark's format; bench_check compares two runs' points by name and
 * holds one run's points to the invariants of expect/invariants.txt.
 *
 * Families, attributes and figures are named as pb_schema.h declares them ("the points"), the one list the expect
 * grammar accepts. The points of each CSV (pb_points_rows.c):
 *   decode/MODEL/FORMAT/POLICY/SCHEDULE/GLUE/CPUSET/threads:N[/batch:M][/context:C][/kv_type:T][/mmap]
 *                                                                        sweep.csv, one per row
 *   dispatch/POLICY/threads:N/gap_us:G/job_ns:J[/spin_us:S]              pool_overhead.csv, pingpong rows left out
 *                                                                        (they are the yardstick, in ratio_to_rt)
 *   kernel/FORMAT/VARIANT/LEVEL/threads:N/batch:B                          kernels.csv
 *   overlap/MODE/ratio:R                                                   overlap.csv
 *   floor/OP/KERNEL/threads:N                                              memory_floor.csv
 * A name met twice in one run keeps its first row (the later one is counted in dropped). */
#ifndef PB_POINTS_H
#define PB_POINTS_H

#include <stdbool.h>
#include <stddef.h>

#include "pb_rundata.h"

/* Which way a figure improves; NONE: a counter shown in results.json, never compared. */
typedef enum pb_better { PB_BETTER_NONE, PB_BETTER_HIGHER, PB_BETTER_LOWER } pb_better;

typedef struct pb_figure {
    const char *key;    /* static text: "tok_per_s", "pct_of_floor", "x_1thread", "x_spin", ... */
    double v, lo, hi;   /* the figure, and lo <= v <= hi from the point's own spread (lo = hi = v: none known) */
    pb_better better;
    const char *spread; /* what lo..hi come from, in a few words ("its tokens' min and max") */
} pb_figure;

/* An attribute: one dimension of the point. named: part of the name ("q8_0", or "threads:2" when keyed); an
 * attribute that is not (oversubscribed) is there for the invariants' filters only. */
typedef struct pb_attr {
    const char *key; /* static text: the CSV column's name, or a derived one */
    char val[48];
    bool named, keyed;
} pb_attr;

#define PB_POINT_ATTRS 14
#define PB_POINT_FIGS 12
#define PB_POINT_NAME 320

typedef struct pb_point {
    char name[PB_POINT_NAME];
    const char *family;   /* a family's name (pb_schema.h): "decode", "dispatch", "kernel", "overlap", "floor" */
    const char *unit;     /* of real_time: "ns", "us" or "ms" */
    double real_time;     /* one iteration: a token, a dispatch, a matvec, a step, a pass */
    double iterations;    /* how many were timed (1 when the CSV does not say) */
    int threads;
    long row;             /* the CSV row it came from (-1: none) */
    int nattr, nfig;
    pb_attr attr[PB_POINT_ATTRS];
    pb_figure fig[PB_POINT_FIGS];
} pb_point;

typedef struct pb_points {
    pb_point *p;
    size_t n, cap;
    size_t dropped;       /* rows whose name an earlier row had */
} pb_points;

/* The points of every CSV rd holds, in file order (sweep, pool, kernels, overlap, floor). 0, or -1 with errno
 * ENOMEM (ps then holds what was read). */
int pb_points_of_run(pb_points *ps, const pb_rundata *rd);
void pb_points_free(pb_points *ps);
/* The point called name; NULL when none. */
const pb_point *pb_points_find(const pb_points *ps, const char *name);
/* A point's figure or attribute by key; NULL when it has none. */
const pb_figure *pb_point_figure(const pb_point *p, const char *key);
const pb_attr *pb_point_attr(const pb_point *p, const char *key);

/* ---------------------------------------------------------------- for the row readers (pb_points_rows.c) */

/* A new point of family at the end of ps (zeroed, iterations 1), or NULL with errno ENOMEM. */
pb_point *pb_points_add(pb_points *ps, const char *family);
/* Adds an attribute: named ones go into the name in order, as "val" or, keyed, as "key:val". */
void pb_point_attr_add(pb_point *p, const char *key, const char *val, bool named, bool keyed);
/* Adds a figure; NaN values are left out (a figure the row does not have). lo and hi NaN: no spread known. */
void pb_point_fig_add(pb_point *p, const char *key, double v, double lo, double hi, pb_better better,
                      const char *spread);
/* Builds the name from the named attributes and keeps the point, or takes it back when its name is taken
 * (counted in ps->dropped). */
void pb_points_commit(pb_points *ps);

/* The readers of each CSV kind, called by pb_points_of_run. 0 or -1 (ENOMEM). */
int pb_points_decode(pb_points *ps, const pb_rundata *rd);
int pb_points_dispatch(pb_points *ps, const pb_rundata *rd);
int pb_points_kernel(pb_points *ps, const pb_rundata *rd);
int pb_points_overlap(pb_points *ps, const pb_rundata *rd);
int pb_points_floor(pb_points *ps, const pb_rundata *rd);

#endif
