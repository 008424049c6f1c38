/* pb_sweep_run.h — bench_sweep's measuring loop, along the plan's walk (pb_sweep_next): each point opens what
 * changed since the last one. A format's weights are built once (or a model file's loaded: copied or mapped), by
 * every cpu of the largest set (first-touched where the points read them); every core set x thread count is a
 * block (its placement, its round-trip pair, its read floor and compute roof); every cache type x context x batch
 * (or prompt) a step, its KV cache filled by the block's cpus, its decode's alternatives interleaved after its
 * points; every policy x schedule x glue mode there one point (pb_sweep_measure). Each point's row goes to the
 * caller as the point ends (plan->sink.row: the CSVs) and stays in the run for the table.
 *
 * Measuring only, and it never exits: a failure returns -1 with the reason, the rows measured so far kept (the
 * harness publishes them); a signal (pb_stop_signal) ends the loop at the next point with 0. */
#ifndef PB_SWEEP_RUN_H
#define PB_SWEEP_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_powercap.h"
#include "pb_sweep.h"
#include "pb_sweep_plan.h"
#include "pb_sweep_roofs.h"
#include "pb_vec.h"

typedef struct pb_sweep_run {
    pb_vec rows;                      /* pb_sweep_row, in measuring order */
    pb_powercap power;                /* RAPL's zones, when power_ok */
    bool power_ok;
    pb_vec refs;                      /* the first point's logits per format, batch, cache type and context */
    pb_sweep_roofs roofs;             /* the best compute roof so far per core set, thread count and op */
    int done, total;                  /* points, for the progress line */
    uint64_t t0;
} pb_sweep_run;

/* Every point of the plan (see the top). 0, or -1 with the reason in err; run->rows holds what was measured
 * either way. */
int pb_sweep_run_all(pb_sweep_run *run, const pb_sweep_plan *p, char *err, size_t errlen);

/* Points whose last logits differed from the first point's of their format and batch. */
int pb_sweep_run_unverified(const pb_sweep_run *run);

void pb_sweep_run_free(pb_sweep_run *run);

#endif
