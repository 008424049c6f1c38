/* pb_pairs.h — alternatives measured interleaved: a sweep block's executors (policy x schedule x glue at one
 * format, core set, threads, batch and depth) each decode one token a round, in an order that changes every
 * round (rotated by the round, reversed every other n rounds), so that whatever the host does over seconds falls
 * on every alternative alike. Two alternatives' tokens of one round are a pair (pb_paired.h compares them).
 *
 * Every executor stays open through the rounds (a switch costs no thread creation); round 0 warms each one and is
 * not kept. A token whose pinned cpus lost more than PB_STEAL_NOISY_PCT to the hypervisor (/proc/stat's steal read
 * around it) is kept but set aside: counted, and in no interval; so is every token of a round across which the
 * caller's hook saw the placement change (the round trip of two of the cpus, before and after). The rounds go on until every alternative's
 * interval against the first is within PB_PAIRS_TARGET of its ratio, or the time budget ends (stopped says which),
 * and for at least PB_PAIRED_MIN_CI rounds when the budget allows; one kept round always, however slow. */
#ifndef PB_PAIRS_H
#define PB_PAIRS_H

#include <stdbool.h>
#include <stddef.h>

#include "pb_decode.h"
#include "pb_exec.h"
#include "pb_procstat.h"

#define PB_PAIRS_MAX_ALTS 32
#define PB_PAIRS_MAX_ROUNDS 64
#define PB_PAIRS_TARGET 0.02 /* an interval within +-2% of its ratio: narrower than any difference worth a line */

/* One alternative: its executor's configuration and its glue. */
typedef struct pb_pairs_alt {
    pb_exec_cfg cfg;
    pb_glue_mode glue;
} pb_pairs_alt;

typedef struct pb_pairs_result {
    int nalt, rounds;                                  /* kept rounds (the warm-up round not counted) */
    double ms[PB_PAIRS_MAX_ROUNDS][PB_PAIRS_MAX_ALTS]; /* the token's time */
    double steal[PB_PAIRS_MAX_ROUNDS][PB_PAIRS_MAX_ALTS]; /* % of its pinned cpus' time; NaN unknown */
    bool aside[PB_PAIRS_MAX_ROUNDS][PB_PAIRS_MAX_ALTS];
    bool moved[PB_PAIRS_MAX_ROUNDS];                   /* the placement changed across the round: all set aside */
    int slot[PB_PAIRS_MAX_ROUNDS][PB_PAIRS_MAX_ALTS];  /* its place in the round's order */
    bool narrow;                                       /* ended by the target, not the budget */
} pb_pairs_result;

/* After each round (the warm-up's too, to start from): whether the placement changed since the last call (NULL
 * fn: never). */
typedef struct pb_pairs_hook {
    bool (*moved)(void *ctx);
    void *ctx;
} pb_pairs_hook;

/* Marks kept round k moved (every one of its tokens set aside), or not. */
void pb_pairs_mark_moved(pb_pairs_result *r, int k, bool moved);

/* Round r's order over n alternatives into order[0..n): rotated by r (each first once in n rounds), reversed in
 * every other run of n rounds (so that who follows whom changes too). */
void pb_pairs_order(int r, int n, int *order);

/* The steal of cpus[0..n) between two readings, % of their elapsed ticks; NaN when no tick elapsed or a cpu is
 * absent from either. */
double pb_pairs_steal_pct(const pb_procstat *before, const pb_procstat *after, const int *cpus, int n);

/* Whether the host spoiled a token with that steal (NaN: unknown, kept). */
bool pb_pairs_spoiled(double steal_pct);

/* Whether every alternative's interval against alternative 0, over the rounds kept and not set aside, is within
 * target of its ratio (and has one). */
bool pb_pairs_narrow(const pb_pairs_result *r, double target);

/* Runs the rounds on d (its batch and depth set) for about budget_s seconds, every executor pinned to cpus (their
 * ids, for the steal). procstat: /proc/stat's path (NULL: the real one). 0, or -1 with the reason in err (an
 * executor that cannot open, a token that fails). */
int pb_pairs_run(pb_decode *d, const pb_pairs_alt *alts, int nalt, const int *cpus, int ncpus, double budget_s,
                 const char *procstat, const pb_pairs_hook *hook, pb_pairs_result *out, char *err, size_t errlen);

#endif
