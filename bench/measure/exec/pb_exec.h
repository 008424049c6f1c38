/* pb_exec.h — the executor: one way to run work on threads, of one of six kinds — a pool policy (spin,
 * condvar, hybrid, spawn) through pool_run/pool_rows, OpenMP (the peer every comparison carries: a
 * `parallel` region, a `parallel for`), pinned the same way, or tree: the spin pool shaped by the topology
 * (pool_config.group from pb_topo_groups over the pinned cpus: one group per last-level cache, else per
 * cluster, else one), beside the flat spin pool it must beat. Everything that runs work on threads over the
 * kinds goes through it: the dispatch-cost measurement (pb_dispatch_cost), the decode (pb_decode) and the
 * sweep (bench_sweep), so a kind is a value, not a branch in a harness, and its name comes from one table.
 *
 * Schedules (pb_sched): static = contiguous equal split (pool_split's ranges: the first rows % n threads take
 * one more; OpenMP: schedule(static) over those n ranges); weighted = contiguous split by each thread's share
 * (pb_shares: capacity from the topology, or measured per thread and updated at token boundaries,
 * pb_exec_token_end); dynamic:k = claims of k rows (OpenMP: schedule(dynamic) over ceil(rows / k) chunks);
 * steal:k = the static split's shares, each walked by its owner in claims of k rows and taken from its back by
 * threads done with their own (pool_rows_steal; OpenMP: the same claims inside a parallel region). A row is always
 * computed whole by one fn call, so the bits of a row-wise kernel never depend on the executor.
 *
 * Every slice of rows is timed on its thread (pb_slices: busy time and rows per thread, for the sweep's
 * per-thread figures and the weighted shares), and an emulated slow cpu (pb_emulate) is stretched there. */
#ifndef PB_EXEC_H
#define PB_EXEC_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "pb_shares.h"
#include "pb_slices.h"
#include "pb_topo.h"
#include "pool.h"

/* The kinds: the pool's policies keep their values (a pool kind converts to its pool_policy as is), OpenMP
 * comes after them. */
typedef enum pb_exec_kind {
    PB_EXEC_SPIN = POOL_SPIN,
    PB_EXEC_CONDVAR = POOL_CONDVAR,
    PB_EXEC_HYBRID = POOL_HYBRID,
    PB_EXEC_SPAWN = POOL_SPAWN,
    PB_EXEC_OMP = POOL_POLICY_COUNT, /* OpenMP's team (libgomp), the peer */
    PB_EXEC_TREE,                    /* the spin policy, workers grouped by the cache they share */
    PB_EXEC_KINDS
} pb_exec_kind;

/* "spin", "condvar", "hybrid", "spawn" (the pool's own names, POOL_POLICY_NAMES), "omp", "tree"; indexed by kind,
 * NULL-terminated: the --policy choices of the harnesses and the policy column of their CSVs. */
extern const char *const pb_exec_kind_names[PB_EXEC_KINDS + 1];
/* What each kind's threads do between dispatches, in words for prose (the pool's, POOL_POLICY_NAMES, and omp's);
 * NULL where the name says it (tree). Indexed by kind. */
extern const char *const pb_exec_kind_words[PB_EXEC_KINDS];
/* 0 and *out set on a known name, -1 otherwise. */
int pb_exec_kind_parse(const char *name, pb_exec_kind *out);
/* The pool policy a kind runs (tree: spin); -1 for omp. */
int pb_exec_kind_policy(pb_exec_kind kind);
/* The kinds whose idle threads spin between dispatches (spin, hybrid, tree): those whose pool policy spins
 * (pool_policy_spins), so a new policy needs no line here. */
bool pb_exec_kind_spins(pb_exec_kind kind);

/* How each dispatch's rows are split over the threads (see the top): X(KIND, word, takes a claim of N rows). The
 * words are the --schedule choices and, with ":N" where a claim is taken, a row's schedule column. */
#define PB_SCHED_KIND_LIST(X)        \
    X(STATIC, "static", false)       \
    X(WEIGHTED, "weighted", false)   \
    X(DYNAMIC, "dynamic", true)      \
    X(STEAL, "steal", true)
typedef enum pb_sched_kind {
#define PB_SCHED_ENUM(kind, word, claims) PB_SCHED_##kind,
    PB_SCHED_KIND_LIST(PB_SCHED_ENUM)
#undef PB_SCHED_ENUM
    PB_SCHED_KINDS
} pb_sched_kind;
typedef struct pb_sched {
    pb_sched_kind kind;
    size_t chunk; /* dynamic, steal: rows per claim (1..1e9); 0 otherwise */
} pb_sched;

/* One --schedule word: "static", "weighted", "dynamic:N" or "steal:N" (1 <= N <= 1e9), or a schedule column's
 * value. 0, or -1 (an unknown word). */
int pb_sched_parse(const char *word, pb_sched *out);
/* The word again: "static", "weighted", "dynamic:N", "steal:N" (a row's schedule column). */
void pb_sched_name(pb_sched s, char *buf, size_t len);

/* What to open: pb_exec_open's arguments, and what only some callers give. */
typedef struct pb_exec_cfg {
    pb_exec_kind kind;
    int threads;
    const int *cpus;           /* threads OS cpu ids, or NULL: unpinned */
    pb_sched sched;
    unsigned spin_us;          /* the hybrid policy's budget */
    const pb_emulate *emulate; /* NULL: no emulated slow cpu (needs cpus) */
    const double *capacity;    /* weighted: each thread's capacity from the topology (pb_shares_init); NULL:
                                * measured in the run */
    const struct pb_topo *topo; /* tree: the groups come from it over cpus (NULL, or no cpus: one group) */
} pb_exec_cfg;

typedef struct pb_exec {
    pb_exec_kind kind;
    int threads;
    size_t chunk;      /* 0 static or weighted, k dynamic or steal */
    pb_sched_kind split;
    pool_share *steal; /* omp, steal: the threads' shares (the pool keeps its own) */
    pool *p;           /* NULL for omp */
    int groups;        /* tree: the pool's groups (0 for the other kinds) */
    const char *group_level; /* tree: what made them ("llc", "cluster", "one"); NULL otherwise */
    cpu_set_t saved;   /* omp: the caller's mask before the team was pinned */
    long dispatches;   /* pb_exec_rows + pb_exec_run calls since open */
    pb_slices slices;  /* each thread's slices (the pool's observer points here: an open pb_exec never moves) */
    pb_shares shares;  /* weighted: the shares */
    double *cum;       /* omp, weighted: the installed shares' cumulative form (NULL: equal split) */
    double *cum_buf;   /* its storage, threads + 1 */
} pb_exec;

/* Opens an executor of `threads` threads pinned to cpus[0..threads) (cpus may be NULL: unpinned); spin_us
 * is the hybrid policy's budget; chunk 0 static, k dynamic:k. 0, or -1 with errno (EINVAL: bad kind or threads;
 * pool_create's errors). */
int pb_exec_open(pb_exec *e, pb_exec_kind kind, int threads, const int *cpus, size_t chunk, unsigned spin_us);
/* The same from a cfg: any schedule, an emulated slow cpu, capacities. The executor must stay where it was
 * opened until pb_exec_close (its pool's observer points into it). */
int pb_exec_open_cfg(pb_exec *e, const pb_exec_cfg *cfg);
/* A token ended (a decode calls it between tokens): a measured weighted split folds the token into its rates and
 * installs the new shares; anything else: nothing. */
void pb_exec_token_end(pb_exec *e);
/* Covers 0..rows with fn(ctx, r0, r1): one dispatch. */
void pb_exec_rows(pb_exec *e, size_t rows, pool_rows_fn fn, void *ctx);
/* The same, split in multiples of grain rows: every range starts at a multiple of grain (the last may end
 * short at rows). Static: pool_split over the ceil(rows / grain) units; dynamic:k and steal:k claim ceil(k / grain)
 * units.
 * For work whose epilogue needs whole blocks (a slice quantized into an activation's blocks). grain > 0. */
void pb_exec_rows_grain(pb_exec *e, size_t rows, size_t grain, pool_rows_fn fn, void *ctx);
/* n heavy items through fn(ctx, i0, i1), split as rows are, except that dynamic and stealing claims take one item
 * at a time, where a claim of k rows would take k items (attention's heads and chunks: 64 were every head of a
 * layer, on one thread). Counted as n rows in the slices. */
void pb_exec_items(pb_exec *e, size_t n, pool_rows_fn fn, void *ctx);
/* Every thread id 0..threads-1 calls fn(ctx, id, threads) once: one dispatch. */
void pb_exec_run(pb_exec *e, pool_fn fn, void *ctx);
/* Destroys the pool, or unpins the OpenMP team and the caller. */
void pb_exec_close(pb_exec *e);

#endif
