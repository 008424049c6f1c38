/* pb_poolclock.h — the clock of every cpu a pool runs on, each thread timing pb_clock's add chain on its own
 * pinned cpu at once (a cpu's clock under load is what a point ran at, not its idle clock). */
#ifndef PB_POOLCLOCK_H
#define PB_POOLCLOCK_H

#include "pool.h"

/* The mean clock in GHz over the pool's threads (the caller included), or the caller's alone when pl is NULL;
 * NAN where the chain does not measure. */
double pb_poolclock_ghz(pool *pl);

#endif
