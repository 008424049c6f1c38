/* pb_pairs_find.h — two alternatives of one sweep block compared through pairs.csv (bench_sweep --pair-s): the
 * tokens of the rounds in which both ran, a round the host spoiled for either (set_aside) left out and counted.
 * report.md's answers and findings state a difference only where the interval (pb_paired.h) excludes none. */
#ifndef PB_PAIRS_FIND_H
#define PB_PAIRS_FIND_H

#include <stdbool.h>

#include "pb_csvread.h"
#include "pb_paired.h"

/* One alternative: its block (model, format, core set, threads, cache type and depth) and its names. kv NULL or
 * context -1: any, provided every round of it holds one (rounds of two depths would pair wrongly). */
typedef struct pb_pair_key {
    const char *model, *format, *cpuset, *kv;
    const char *policy, *schedule, *glue;
    int threads, context;
} pb_pair_key;

/* B against A (b's tok/s over a's) from pairs.csv's table t (NULL: none) at batch 1: false when t holds no round
 * of both, or when they are not alternatives of one block (their rounds ran at other times). */
bool pb_pairs_compare(const pb_table *t, const pb_pair_key *a, const pb_pair_key *b, pb_paired *out, int *aside);

#endif
