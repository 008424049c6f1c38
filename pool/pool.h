/* pool.h — the shared persistent thread pool.
 *
 * A pool of N threads owns N-1 workers; the thread that calls pool_run is worker 0 and computes its own
 * share. Four wait policies sit behind one API (see pool_policy). Depends on pthreads only: pinning takes
 * plain OS cpu ids, so another program can use this pool without hwloc.
 *
 * Contract:
 *  - pool_run(p, fn, ctx): every worker id 0..n-1 calls fn(ctx, id, n) exactly once; returns when all did.
 *  - pool_rows(p, rows, chunk, fn, ctx): covers 0..rows with fn(ctx, r0, r1) calls, each row exactly once.
 *    chunk 0 = static contiguous split (pool_split), chunk k = dynamic claims of k rows.
 *  - pool_rows_grain(p, rows, chunk, grain, fn, ctx): the same, every range starting at a multiple of grain
 *    (the last may end short at rows): static splits ceil(rows / grain) units, dynamic claims round chunk up
 *    to a multiple of grain. For work done in blocks (a slice quantized into whole activation blocks).
 *  - pool_rows_steal(p, rows, chunk, grain, fn, ctx): the static split's shares, each claimed by its owner from
 *    its front (halves, down to chunk rows), and in chunks by threads done with their own from its back.
 *  - pool_set_weights(p, w): static splits proportional to w[id] instead of equal (a capacity-weighted split
 *    for unequal cores); NULL restores the equal split. Which thread computes a row never changes its bits.
 *  - pool_config.hook: an optional observer around every range of rows a thread runs (timing, or stretching
 *    the slices of an emulated slow core).
 *  - A pool is driven by one thread at a time, and fn must not call back into the same pool.
 *  - pool_bind_caller / pool_unbind_caller: the span during which the driving thread runs on cpus[0] (below).
 *  - pool_async_submit / pool_async_wait (the asynchronous pair, at the end): one helper thread runs a job while the
 *    caller does other work.
 *  - pool_config.group: a pool shaped as a two-level tree (below); pool_barrier: a barrier among the threads of
 *    one job (central counter, the tree, dissemination; at the end).
 *
 * The tree. A flat pool's workers all poll one generation line and count themselves done on one counter, so
 * a dispatch costs about one line transfer per worker. Given groups (thread i's group in group[i], plain data:
 * the caller decides them, usually one per shared cache, and nothing here reads the topology), the caller
 * releases the groups' leaders (a group's lowest thread id; the caller leads its own group), each leader
 * releases its group on a cache line of that group's own, and completion climbs back the same way: a member
 * counts itself done on its group's line, its leader waits for the group and then counts the group done at the
 * root. About groups + group size transfers per dispatch. Every thread still runs fn once, with its own id:
 * which thread computes which row does not change (pool_rows' splits are the flat pool's), so neither do the
 * bits. Groups take the persistent policies (spin, condvar, hybrid; a leader waits for its group with the
 * caller's budget); spawn has no workers to group (EINVAL).
 */
#ifndef POOL_H
#define POOL_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pool_tuning.h"
#include "pool_types.h"

/* A config with defaults: threads = cpus this process may run on, policy spin, hybrid budget 50 µs. */
pool_config pool_config_default(void);

/* Overrides cfg from POOLBENCH_THREADS and POOLBENCH_POLICY (spin|condvar|hybrid|spawn). POOLBENCH_THREADS
 * takes the harnesses' --threads forms: a count, a list or ranges ("4", "1,2,4", "1-8", "1-3,8"), every
 * count within 1..1024, ascending ranges, no empty item, no count twice; a pool takes the largest (the harness
 * that reads the same variable sweeps the list). Unset or empty variables leave cfg alone; a bad value returns
 * -1 with errno = EINVAL and writes one line naming the variable, what was wrong and what is accepted into err
 * (if errlen > 0). */
int pool_config_from_env(pool_config *cfg, char *err, size_t errlen);

/* NULL with errno = EINVAL on a bad config (threads out of range, unknown policy, a pin cpu that does not
 * exist or that this process may not run on, a group outside 0..threads-1, groups with spawn), or the errno of a failed allocation or thread creation.
 * Leaves the calling thread's affinity alone, whatever cfg->cpus holds (see pool_bind_caller). */
pool *pool_create(const pool_config *cfg);
/* Unbinds the caller if it is still bound to p (pool_unbind_caller: call it from the bound thread). */
void pool_destroy(pool *p);

/* The caller is worker 0: with cpus set, its share runs on cpus[0] only while it is bound to the pool.
 *
 *   pool_bind_caller(p);   pool_run(p, ...) ... pool_run(p, ...);   pool_unbind_caller(p);
 *
 * pool_bind_caller pins the calling thread to cpus[0] and keeps the mask it replaced in p; pool_unbind_caller
 * puts that mask back. Binding is explicit because it cannot be tied to a pool's life: with several pools
 * alive (a harness that makes one per thread count up front), a pin taken by each pool_create and undone by
 * each pool_destroy left the caller on the newest pool's cpu while it drove the older ones, and on one cpu
 * for good when they were destroyed in creation order. Nor is it done by pool_run: two affinity syscalls
 * per job would cost more than the dispatch being measured. pool_run never changes the caller's affinity.
 *
 *  - 0, or -1 with errno: EBUSY when p is already bound (unbind first), EINVAL when this thread may not run
 *    on cpus[0], or the error of sched_getaffinity. A pool without cpus has nothing to bind: 0, no change.
 *  - Bindings of different pools nest: unbind (or destroy) them in the reverse order of binding, from the
 *    thread that bound them, since each restores the mask it found.
 *  - pool_unbind_caller on a pool that is not bound does nothing. */
int pool_bind_caller(pool *p);
void pool_unbind_caller(pool *p);
/* pool_create then pool_bind_caller, for a pool whose caller stays bound until pool_destroy (one pool at a
 * time, or nested ones): NULL with pool_create's errno or the binding's (nothing left behind). */
pool *pool_create_bound(const pool_config *cfg);

void pool_run(pool *p, pool_fn fn, void *ctx);
void pool_rows(pool *p, size_t rows, size_t chunk, pool_rows_fn fn, void *ctx);
/* grain 0 counts as 1. */
void pool_rows_grain(pool *p, size_t rows, size_t chunk, size_t grain, pool_rows_fn fn, void *ctx);
/* The same rows in the static split's shares (weighted when p has weights), each thread taking its own share
 * from the front, half of what is left at a time down to chunk rows, and a thread done with its share taking chunks
 * from the back of another's (pool_split_steal_claim): where dynamic claims restart every stream every chunk, a thread
 * here reads its rows in order in a few calls and only a slow thread's tail moves. chunk 0, or more than 2^32 - 1
 * units, runs the static split. */
void pool_rows_steal(pool *p, size_t rows, size_t chunk, size_t grain, pool_rows_fn fn, void *ctx);

/* One thread's share of a stealing split: units [next, end) in one word (next in the low 32 bits), alone on its
 * cache line, so the owner's claims stay in its own cache until a thief comes. */
typedef struct pool_share {
    alignas(64) _Atomic uint64_t range;
} pool_share;
/* s[0..n) as the static split of units (weighted by cum when not NULL, pool_split_weighted), before a dispatch
 * whose start publishes them. units < 2^32. */
void pool_split_steal_reset(pool_share *s, size_t units, int n, const double *cum);
/* Thread id's next claim: from the front of its own share, half of what is left but at least chunk units (0
 * counts as 1), else chunk units from the back of the first other share with units left, looking from id + 1 on.
 * false when every share is empty. */
bool pool_split_steal_claim(pool_share *s, int id, int n, size_t chunk, size_t *u0, size_t *u1);

/* Static split of total items over n threads: thread id gets [*r0, *r1); the first total % n threads
 * take one more. */
void pool_split(size_t total, int id, int n, size_t *r0, size_t *r1);

/* Weighted static split: cum holds n + 1 cumulative shares, 0 = cum[0] <= cum[1] <= ... <= cum[n] = 1
 * (pool_weights_cum makes them); thread id gets [floor(total x cum[id]), floor(total x cum[id + 1])), the
 * last thread up to total. Contiguous and disjoint, every item once. */
void pool_split_weighted(size_t total, int id, int n, const double *cum, size_t *r0, size_t *r1);
/* cum[0..n] from n weights, each finite and >= 0, their sum > 0: 0, or -1 with errno = EINVAL (cum untouched). */
int pool_weights_cum(const double *weight, int n, double *cum);
/* Static splits of p (pool_rows with chunk 0) by weight[0..threads) from now on (pool_split_weighted); NULL: the
 * equal split again. Call it between jobs, from the driving thread. 0, or -1 with errno = EINVAL (bad weights:
 * the split is left as it was). */
int pool_set_weights(pool *p, const double *weight);

int pool_threads(const pool *p);
pool_policy pool_get_policy(const pool *p);
/* The groups of a tree-shaped pool (1..threads), 0 for a flat one. */
int pool_groups(const pool *p);

/* "spin", "condvar", "hybrid", "spawn"; NULL for an unknown value. */
const char *pool_policy_name(pool_policy policy);
/* 0 and *out set on a known name, -1 otherwise. */
int pool_policy_parse(const char *name, pool_policy *out);
/* Whether the policy's waiters spin before they sleep (spin, hybrid): its workers' budget at the default settings
 * is not zero. Read from the switch that sets the budgets, so a new policy's answer comes with them. */
bool pool_policy_spins(pool_policy policy);

/* ---------------------------------------------------------------- the asynchronous pair
 *
 * "Submit, do other work, wait": one helper thread runs one job at a time for one driving thread, while that
 * thread goes on with its own serial work. It pays only when the helper really runs on another cpu.
 *
 *  - pool_async_submit(a, fn, ctx) returns at once: a persistent helper is handed the job by one generation bump
 *    (no syscall while the helper spins); the spawn policy calls pthread_create instead.
 *  - pool_async_wait(a) returns once fn(ctx) has returned; everything fn wrote is then visible to the caller.
 *    Each submitted job runs exactly once, on the helper. pool_async_wait with no job pending returns at once.
 *  - One job in flight: pool_async_submit before the pool_async_wait of the previous job fails with EBUSY
 *    (nothing runs).
 *    One driving thread at a time; fn must not call back into the same pool_async.
 *
 * Placement (pool_async_config.cpu): an OS cpu id pins the helper there, and must not be the caller's only
 * cpu (a helper that time-shares the caller's cpu cannot overlap anything: EINVAL). POOL_ASYNC_INHERIT
 * leaves the helper the affinity mask of the thread that creates it (of the thread that submits, for spawn):
 * created by a caller pinned to one cpu, the helper time-shares that cpu. That is the mistake bench_overlap
 * measures, so it stays expressible; such a helper never spins (spinning on the one cpu would only delay
 * the thread it waits for): it and pool_async_wait sleep at once, whatever the policy.
 *
 * Waiting (pool_async_config.policy): spin — the idle helper spins idle_us after a job, then sleeps, and
 * pool_async_wait spins (yielding after a bounded spin); hybrid — both spin spin_us, then sleep; condvar — both
 * sleep at once; spawn — pthread_create in pool_async_submit, pthread_join in pool_async_wait: the baseline. */

#define POOL_ASYNC_INHERIT (-1)

typedef struct pool_async pool_async;
typedef void (*pool_task_fn)(void *ctx);

typedef struct pool_async_config {
    int cpu;            /* the helper's OS cpu, or POOL_ASYNC_INHERIT */
    pool_policy policy; /* spin (default), hybrid, condvar, spawn */
    unsigned spin_us;   /* hybrid: spin budget before sleeping (POOL_SPIN_FOREVER = never sleep) */
    unsigned idle_us;   /* spin: the helper's idle budget before sleeping; 0 = POOL_DEFAULT_IDLE_US */
} pool_async_config;

/* Policy spin, default budgets, the helper on cpu. */
pool_async_config pool_async_config_default(int cpu);

/* NULL with errno = EINVAL on a bad config (unknown policy, a cpu that does not exist, is not allowed to
 * this process, or is the caller's only cpu), or the errno of a failed allocation or thread creation. */
pool_async *pool_async_create(const pool_async_config *cfg);
/* Waits for a pending job, then stops and joins the helper. */
void pool_async_destroy(pool_async *a);

/* 0, or -1 with errno EBUSY (a job is pending) or the error of pthread_create (spawn): the job not run. */
int pool_async_submit(pool_async *a, pool_task_fn fn, void *ctx);
void pool_async_wait(pool_async *a);

/* The cpu the helper was configured with (POOL_ASYNC_INHERIT included) and its policy. */
int pool_async_cpu(const pool_async *a);
pool_policy pool_async_policy(const pool_async *a);

/* ---------------------------------------------------------------- barriers inside a job
 *
 * A barrier among the threads of one job of pool p (how an engine synchronises after every graph node without a
 * dispatch): inside pool_run, every id 0..n-1 calls pool_barrier_wait(b, id) the same number of times; a call
 * returns once every thread has made its call of that round, and everything any thread wrote before its call is
 * visible to every thread after its own. Waiters wait as the pool's idle workers do: they spin for the policy's
 * worker budget (spin: idle_us; hybrid: spin_us; condvar and spawn: none; at most POOL_OVERSUBSCRIBED_SPIN_US when
 * the threads outnumber their cpus, and then without yielding), yielding after the pool's bounded spin, then sleep
 * until released, so a barrier on a shared or oversubscribed machine hands its cpu to the thread it waits for. Kinds:
 *   central        one arrival counter and one release word (ggml's shape): the last to arrive releases all
 *   tree           the pool's groups (pool_config.group): members arrive and are released on their group's lines,
 *                  leaders at the root's; for a flat pool every thread reports to the caller (one level)
 *   dissemination  ceil(log2 n) rounds; in round r thread i signals thread (i + 2^r) mod n and waits for
 *                  (i - 2^r) mod n, each signal on a line of its own: no counter every thread writes */
typedef enum pool_barrier_kind {
    POOL_BARRIER_CENTRAL,
    POOL_BARRIER_TREE,
    POOL_BARRIER_DISSEMINATION,
    POOL_BARRIER_KINDS
} pool_barrier_kind;

#define POOL_BARRIER_NAMES(X)                                                                                  \
    X(POOL_BARRIER_CENTRAL, "central") X(POOL_BARRIER_TREE, "tree") X(POOL_BARRIER_DISSEMINATION, "dissemination")

typedef struct pool_barrier pool_barrier;

/* A barrier for jobs of p (its threads, groups and yield budget); p must outlive it. NULL with errno = EINVAL
 * (an unknown kind) or ENOMEM. */
pool_barrier *pool_barrier_create(const pool *p, pool_barrier_kind kind);
void pool_barrier_destroy(pool_barrier *b);
/* Called by thread id of a job of the barrier's pool (see above). */
void pool_barrier_wait(pool_barrier *b, int id);
/* "central", "tree", "dissemination"; NULL for an unknown value. */
const char *pool_barrier_name(pool_barrier_kind kind);

#endif
