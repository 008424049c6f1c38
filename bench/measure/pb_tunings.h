/* pb_tunings.h — the table of every threshold and tunable a run is judged and run by (see pb_tuning.h): the
 * bench's own thresholds, the pool's spin budgets (pool_tuning.h) and the kernels' prefetch distance
 * (kern.h), each referenced where it is defined. Echoed into machine.csv (pb_machine.tunings) and listed in
 * report.md's noise section. */
#ifndef PB_TUNINGS_H
#define PB_TUNINGS_H

#include "pb_tuning.h"

/* In a fixed order, thresholds first; the entry after the last has key NULL. */
extern const pb_tuning pb_tunings[];

/* The entry of that key, or NULL. */
const pb_tuning *pb_tuning_find(const char *key);

#endif
