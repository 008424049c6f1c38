/* pb_exports.h — a run's points (pb_points.h) in the formats two CI dashboards read, beside results.json (whose
 * Google Benchmark reader in github-action-benchmark keeps real_time alone):
 *
 *   bencher.json                 Bencher Metric Format: {"POINT": {"MEASURE": {"value", "lower_value",
 *                                "upper_value"}}}, a measure per exported figure (its key as the measure's name)
 *                                and "latency" (real_time in ns, Bencher's built-in measure); lower and upper from
 *                                the point's own range where it has one
 *   github-benchmark-bigger.json github-action-benchmark's customBiggerIsBetter: [{"name", "unit", "value",
 *                                "range", "extra"}], one entry per point and figure that grows as things improve
 *                                (tok/s, GB/s, % of the floor or the ceiling, speed-ups)
 *   github-benchmark-smaller.json its customSmallerIsBetter: each point's real_time (ms, µs or ns) and the figures
 *                                that shrink as things improve (ns, ratios to the round trip or to OpenMP)
 * Which figures go where, with their units, is one table (pb_exports.c). */
#ifndef PB_EXPORTS_H
#define PB_EXPORTS_H

#include "pb_points.h"

#define PB_EXPORT_BENCHER "bencher.json"
#define PB_EXPORT_BIGGER "github-benchmark-bigger.json"
#define PB_EXPORT_SMALLER "github-benchmark-smaller.json"

/* The three files into dir, each through a temporary file and a rename. 0, or -1 with errno set (what was
 * written before stays). */
int pb_exports_write(const char *dir, const pb_points *ps);

#endif
