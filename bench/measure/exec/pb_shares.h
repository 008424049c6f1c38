/* pb_shares.h — the capacity-weighted static split (--schedule weighted): each thread's share of every
 * dispatch's rows, proportional to its core's capacity, so that a barrier stops waiting for the slow core
 * without paying a dynamic schedule's claims.
 *
 * Capacity comes from the topology where the OS gives it (Linux's cpu_capacity, which hwloc's cpukinds report:
 * fixed shares), else it is measured per thread in the run: the first token (the calibration token) runs the
 * equal split; after it, and after every token, each thread's rate (rows per ns of its slices, the emulated
 * stretch included) updates an exponentially weighted mean (PB_WEIGHTED_EWMA), and the shares are recomputed
 * from the rates: only at token boundaries, never inside a token. Rates closer than PB_WEIGHTED_DEADBAND keep the
 * equal split. Which thread computes a row never changes its bits, so the logits stay bit-exact. */
#ifndef PB_SHARES_H
#define PB_SHARES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_slices.h"

typedef struct pb_shares {
    int n;
    bool measured;           /* false: fixed by the topology's capacities */
    bool equal;              /* the split is the equal one (calibration, or rates within the dead band) */
    int tokens;              /* token boundaries seen */
    double *rate;            /* per thread: rows per ns, the weighted mean over tokens (0: not measured yet) */
    double *share;           /* per thread: the current shares, summing to 1 */
    uint64_t *busy0, *rows0; /* per thread: its counters at the last boundary */
} pb_shares;

/* n threads. capacity (per thread, from the topology) with every value > 0 and not all equal: fixed shares
 * from it; NULL or otherwise: measured. 0, or -1 with errno. */
int pb_shares_init(pb_shares *s, int n, const double *capacity);
void pb_shares_free(pb_shares *s);

/* A token boundary: the rows and busy time each thread's slices added since the last one update its rate and
 * the shares (measured shares only; counters that went backwards, after a pb_slices_reset, are a new baseline).
 * True when the caller should install the shares (they may have changed). */
bool pb_shares_token(pb_shares *s, const pb_slices *sl);

/* "measured" or "cpukinds": where the shares come from. */
const char *pb_shares_source(const pb_shares *s);

#endif
