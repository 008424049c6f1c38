/* pb_sweep_point.h — one point of bench_sweep, measured in its block: its row labelled, its executor opened, its
 * tokens timed beside their floor, its logits checked against the first point's of the same step, its row handed
 * on (plan->sink.row) and kept in the run. Inside loops/, for pb_sweep_run.c and pb_sweep_rounds.c. */
#ifndef PB_SWEEP_POINT_H
#define PB_SWEEP_POINT_H

#include <stddef.h>

#include "pb_sweep_block.h"

/* One point of block b: pt's policy, schedule and glue mode over d's step. Its row is kept and handed on; a point
 * that failed is dropped from the table (it never reached the CSVs, or only in part). 0, or -1 with the reason. */
int pb_sweep_point_measure(pb_sweep_run *run, const pb_sweep_block *b, pb_decode *d, const pb_sweep_point *pt,
                           char *err, size_t errlen);

/* What a point of policy `kind` (pb_sweep_point_kind's) and schedule s is: its names and sizes, its pinned cpus
 * and how they split into core kinds. */
void pb_sweep_point_label(const pb_sweep_block *b, const pb_decode *d, int kind, int s, pb_sweep_row *r);

/* How such a point runs on b (its threads' capacities the block's). */
pb_exec_cfg pb_sweep_point_cfg(const pb_sweep_block *b, int kind, int s);

/* The run's reference logits (one per format, step, depth and kernels): started empty, and freed. */
void pb_sweep_point_refs_open(pb_sweep_run *run);
void pb_sweep_point_refs_free(pb_sweep_run *run);

#endif
