/* pb_sweep_rounds.h — a decode step's alternatives (policy x schedule x glue mode, as its points ran them)
 * measured interleaved (pb_pairs.h) after its points, every token a pairs.csv row through plan->sink.pair_row.
 * Inside loops/, for pb_sweep_run.c. */
#ifndef PB_SWEEP_ROUNDS_H
#define PB_SWEEP_ROUNDS_H

#include <stddef.h>

#include "pb_sweep_block.h"

/* The rounds of block b at d's step. A block of one alternative, an oversubscribed one, or a run without --pair-s
 * has none. 0, or -1 with the reason in err. */
int pb_sweep_rounds_run(const pb_sweep_block *b, pb_decode *d, char *err, size_t errlen);

#endif
