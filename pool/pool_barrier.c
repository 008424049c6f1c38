/* pool_barrier.c — barriers among the threads of one job (pool.h, "barriers inside a job"): a central counter,
 * the pool's tree, and dissemination. Each waits with pool_word_wait on words that each sit on a cache line of
 * their own, as the pool's idle workers wait for a job: spinning for the pool's worker budget (capped when its
 * threads outnumber their cpus), yielding after its yield_after, then asleep on a sleep queue of the word's. So
 * every signal is the sleep handshake's publisher half: a seq_cst write of the word, then pool_word_wake.
 *
 * Counters are running totals, never reset (but the central one, as ggml's): after round e a word that gets
 * k arrivals per round holds e x k (mod 2^32), and its waiter compares with ==, exact across wrap-around. */
#include "pool.h"
#include "pool_handshake.h"
#include "pool_struct.h"

#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>

/* One word alone on its line. */
typedef struct pool_line {
    alignas(POOL_CACHE_LINE) atomic_uint v;
} pool_line;

_Static_assert(sizeof(pool_line) == POOL_CACHE_LINE, "a pool_line is one cache line");

/* A level of the tree barrier: arrive counts the level's arrivals (its waiters'), release is bumped by its
 * owner (the group's leader, or the caller at the root) once per round. */
typedef struct pool_bnode {
    pool_line arrive, release;
    pool_sleepq *arrive_q, *release_q; /* read-only: the owner asleep on arrive, the waiters asleep on release */
    unsigned waiters; /* read-only: arrivals per round (members, or the other leaders at the root) */
} pool_bnode;

/* A sleep queue on lines of its own (a sleeper's announce does not disturb the words polled beside it). */
typedef struct pool_bq {
    alignas(POOL_CACHE_LINE) pool_sleepq q;
} pool_bq;

struct pool_barrier {
    pool_barrier_kind kind;
    int n;
    uint64_t budget_ns;   /* the pool's idle workers' spin budget (already capped when oversubscribed) */
    unsigned yield_after; /* the pool's */
    int rounds;           /* dissemination: ceil(log2 n) */
    const int *group;     /* tree: the pool's (NULL: flat, every thread at the root) */
    int *leader;          /* tree: each group's leader (the pool's) */
    pool_line *line;      /* central: [0] arrivals, [1] release; tree: unused; dissemination: n x rounds flags */
    pool_line *episode;   /* dissemination: each thread's round count, written by that thread only */
    pool_bnode *node;     /* tree: [0] the root, [1 + g] group g */
    pool_bq *q;           /* central: [0] passed's; tree: each node's arrive_q and release_q; dissemination: [id]
                             thread id's (it waits on one of its flags at a time) */
    int nq;               /* entries of q initialised */
};

static const char *const pool_barrier_names[POOL_BARRIER_KINDS] = {
#define POOL_BARRIER_NAME(kind, name) [kind] = name,
    POOL_BARRIER_NAMES(POOL_BARRIER_NAME)
#undef POOL_BARRIER_NAME
};

const char *pool_barrier_name(pool_barrier_kind kind)
{
    return (unsigned)kind < POOL_BARRIER_KINDS ? pool_barrier_names[kind] : NULL;
}

/* ---------------------------------------------------------------- waiting */

static void pool_barrier_until(const pool_barrier *b, atomic_uint *w, unsigned value, bool want_equal,
                               pool_sleepq *q)
{
    /* acquire inside pool_word_wait: pairs with the seq_cst RMW or store that set the word, so what its writer
     * had seen (every earlier arrival's writes, transitively) is visible here. */
    pool_word_wait(w, value, want_equal, b->budget_ns, b->yield_after, q);
}

/* ---------------------------------------------------------------- central: ggml's shape */

static void pool_barrier_central(pool_barrier *b)
{
    atomic_uint *count = &b->line[0].v, *passed = &b->line[1].v;
    /* relaxed: read before our arrival (the RMW below orders it first, being a release), so it cannot see the
     * bump the last arrival makes after seeing ours. */
    unsigned phase = atomic_load_explicit(passed, memory_order_relaxed);
    /* acq_rel: release publishes our writes to the last arrival; acquire, for the last, takes every earlier
     * arrival's (their RMWs form one release sequence on count). */
    if (atomic_fetch_add_explicit(count, 1, memory_order_acq_rel) == (unsigned)b->n - 1) {
        /* relaxed: the release bump of passed below orders the reset before any next-round arrival, each of
         * which comes after its thread's acquire of passed. */
        atomic_store_explicit(count, 0, memory_order_relaxed);
        /* seq_cst RMW (pool_word_publish): releases every thread's writes, acquired by the RMW above, to the
         * waiters' acquire of passed, and wakes the ones asleep. */
        pool_word_publish(passed, &b->q[0].q);
        return;
    }
    pool_barrier_until(b, passed, phase, false, &b->q[0].q);
}

/* ---------------------------------------------------------------- tree: the pool's groups */

/* Arrival at node nd as one of its waiters, then the wait for its release. */
static void pool_bnode_arrive(pool_barrier *b, pool_bnode *nd)
{
    /* relaxed: before our release RMW, so it cannot see the owner's bump, which follows the owner's acquire of
     * our arrival (central's reason). */
    unsigned phase = atomic_load_explicit(&nd->release.v, memory_order_relaxed);
    /* seq_cst RMW (pool_word_publish): releases our writes (a leader's: its group's too, acquired in
     * pool_bnode_gather) to the owner's acquire, and wakes the owner if it sleeps. */
    pool_word_publish(&nd->arrive.v, nd->arrive_q);
    pool_barrier_until(b, &nd->release.v, phase, false, nd->release_q);
}

/* The owner of node nd waits for its waiters' arrivals of this round. Returns the round's number (the rounds
 * released so far: release has one writer, the owner, so a relaxed read of it is its own last store). */
static unsigned pool_bnode_gather(pool_barrier *b, pool_bnode *nd)
{
    unsigned round = atomic_load_explicit(&nd->release.v, memory_order_relaxed);
    if (nd->waiters)
        pool_barrier_until(b, &nd->arrive.v, (round + 1) * nd->waiters, true, nd->arrive_q);
    return round;
}

static void pool_bnode_release(pool_bnode *nd)
{
    /* seq_cst RMW (pool_word_publish): releases everything this owner has acquired (its waiters' arrivals, the
     * root's release) to the waiters' acquire of release, and wakes the sleepers. */
    if (nd->waiters)
        pool_word_publish(&nd->release.v, nd->release_q);
}

static void pool_barrier_tree(pool_barrier *b, int id)
{
    pool_bnode *root = &b->node[0];
    if (!b->group) { /* flat: every thread is a waiter of the root, owned by the caller */
        if (id == 0) {
            pool_bnode_gather(b, root);
            pool_bnode_release(root);
        } else {
            pool_bnode_arrive(b, root);
        }
        return;
    }
    int g = b->group[id];
    pool_bnode *grp = &b->node[1 + g];
    if (b->leader[g] != id) {
        pool_bnode_arrive(b, grp);
        return;
    }
    pool_bnode_gather(b, grp);
    if (id == 0)
        pool_bnode_gather(b, root);
    else
        pool_bnode_arrive(b, root);
    if (id == 0)
        pool_bnode_release(root);
    pool_bnode_release(grp);
}

/* ---------------------------------------------------------------- dissemination */

static void pool_barrier_dissemination(pool_barrier *b, int id)
{
    /* relaxed: this thread's own counter (one writer, one reader: itself). */
    unsigned e = atomic_load_explicit(&b->episode[id].v, memory_order_relaxed) + 1;
    atomic_store_explicit(&b->episode[id].v, e, memory_order_relaxed);
    for (int r = 0, d = 1; r < b->rounds; r++, d *= 2) {
        int to = (id + d) % b->n;
        /* seq_cst: releases our writes, and whatever the earlier rounds' acquires brought us, to the partner's
         * acquire; and the store half of the sleep handshake that pool_word_wake's seq_cst load completes (a
         * release store could pass that load and miss a partner falling asleep). Each flag has one writer
         * ((to - d) mod n), whose values only grow. */
        atomic_store_explicit(&b->line[to * b->rounds + r].v, e, memory_order_seq_cst);
        pool_word_wake(&b->q[to].q);
        /* Our flag holds e - 1 until our partner reaches round r of round e (it may be at e + 1 by the time we
         * look, never further: it cannot pass round e + 1 before we arrive there). */
        pool_barrier_until(b, &b->line[id * b->rounds + r].v, e - 1, false, &b->q[id].q);
    }
}

/* ---------------------------------------------------------------- life cycle */

void pool_barrier_wait(pool_barrier *b, int id)
{
    if (b->n == 1)
        return;
    switch (b->kind) {
    case POOL_BARRIER_CENTRAL:
        pool_barrier_central(b);
        break;
    case POOL_BARRIER_TREE:
        pool_barrier_tree(b, id);
        break;
    default:
        pool_barrier_dissemination(b, id);
        break;
    }
}

/* count sleep queues in b->q: 0 or -1 (ENOMEM). */
static int pool_barrier_queues(pool_barrier *b, int count)
{
    if (!(b->q = pool_alloc_lines((size_t)count * sizeof *b->q)))
        return -1;
    for (; b->nq < count; b->nq++)
        pool_sleepq_init(&b->q[b->nq].q);
    return 0;
}

/* The tree's nodes from the pool's groups (one root node for a flat pool). 0 or -1 (ENOMEM). */
static int pool_barrier_tree_init(pool_barrier *b, const struct pool *p)
{
    int groups = p->ngroups;
    b->node = pool_alloc_lines((size_t)(1 + groups) * sizeof *b->node);
    if (!b->node || (groups && !(b->leader = malloc((size_t)groups * sizeof *b->leader))))
        return -1;
    b->group = p->ngroups ? p->group : NULL;
    b->node[0].waiters = groups ? (unsigned)groups - 1 : (unsigned)p->n - 1;
    for (int g = 0; g < groups; g++) {
        b->leader[g] = p->groups[g].leader;
        b->node[1 + g].waiters = (unsigned)p->groups[g].size - 1;
    }
    if (pool_barrier_queues(b, 2 * (1 + groups)) != 0)
        return -1;
    for (int i = 0; i <= groups; i++) {
        b->node[i].arrive_q = &b->q[2 * i].q;
        b->node[i].release_q = &b->q[2 * i + 1].q;
    }
    return 0;
}

void pool_barrier_destroy(pool_barrier *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->nq; i++)
        pool_sleepq_destroy(&b->q[i].q);
    free(b->q);
    free(b->line);
    free(b->episode);
    free(b->node);
    free(b->leader);
    free(b);
}

pool_barrier *pool_barrier_create(const pool *p, pool_barrier_kind kind)
{
    if ((unsigned)kind >= POOL_BARRIER_KINDS)
        return pool_fail(EINVAL);
    pool_barrier *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    *b = (pool_barrier){ .kind = kind, .n = p->n, .budget_ns = p->worker_budget_ns, .yield_after = p->yield_after };
    while ((1 << b->rounds) < b->n)
        b->rounds++;
    int ok = 1;
    if (kind == POOL_BARRIER_CENTRAL)
        ok = (b->line = pool_alloc_lines(2 * sizeof *b->line)) && pool_barrier_queues(b, 1) == 0;
    else if (kind == POOL_BARRIER_TREE)
        ok = pool_barrier_tree_init(b, p) == 0;
    else
        ok = (b->line = pool_alloc_lines((size_t)b->n * (size_t)(b->rounds ? b->rounds : 1) * sizeof *b->line)) &&
             (b->episode = pool_alloc_lines((size_t)b->n * sizeof *b->episode)) && pool_barrier_queues(b, b->n) == 0;
    if (!ok) {
        pool_barrier_destroy(b);
        return pool_fail(ENOMEM);
    }
    return b;
}

