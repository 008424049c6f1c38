/* pb_exec.c — see pb_exec.h. */
#include "pb_exec.h"

#include "kern_isa.h"

#include <errno.h>
#include <omp.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pool kinds' names are the pool's (a pool kind's value is its policy's); OpenMP's is added here. */
#define PB_EXEC_POOL_NAME(policy, name, words) [policy] = name,
const char *const pb_exec_kind_names[PB_EXEC_KINDS + 1] = {
    POOL_POLICY_NAMES(PB_EXEC_POOL_NAME)
    [PB_EXEC_OMP] = "omp",
    [PB_EXEC_TREE] = "tree",
    [PB_EXEC_KINDS] = NULL,
};
#undef PB_EXEC_POOL_NAME

#define PB_EXEC_POOL_WORDS(policy, name, words) [policy] = words,
const char *const pb_exec_kind_words[PB_EXEC_KINDS] = {
    POOL_POLICY_NAMES(PB_EXEC_POOL_WORDS)
    [PB_EXEC_OMP] = "OpenMP's team",
    [PB_EXEC_TREE] = NULL, /* the spin pool: its name says the rest */
};
#undef PB_EXEC_POOL_WORDS

int pb_exec_kind_parse(const char *name, pb_exec_kind *out)
{
    int i = kern_name_index(pb_exec_kind_names, name);
    return i < 0 ? -1 : (*out = (pb_exec_kind)i, 0);
}

int pb_exec_kind_policy(pb_exec_kind kind)
{
    return kind == PB_EXEC_TREE ? POOL_SPIN : (unsigned)kind < POOL_POLICY_COUNT ? (int)kind : -1;
}

bool pb_exec_kind_spins(pb_exec_kind kind)
{
    int policy = pb_exec_kind_policy(kind); /* tree is the spin policy's; omp is no policy (-1) */
    return policy >= 0 && pool_policy_spins((pool_policy)policy);
}

/* Pins each thread of an OpenMP team of `threads` to cpus[thread number] (the caller is thread 0), or back
 * to *restore when cpus is NULL. libgomp keeps its threads between regions of the same size, so the pinning
 * holds for later regions of that size. */
static void pb_omp_pin(int threads, const int *cpus, const cpu_set_t *restore)
{
#pragma omp parallel num_threads(threads)
    {
        cpu_set_t set = *restore;
        if (cpus) {
            CPU_ZERO(&set);
            CPU_SET(cpus[omp_get_thread_num()], &set);
        }
        sched_setaffinity(0, sizeof set, &set);
    }
}

/* Each kind's word, and whether it takes ":N" (indexed by kind). */
static const struct {
    const char *word;
    bool claims;
} pb_sched_words[PB_SCHED_KINDS] = {
#define PB_SCHED_WORD(kind, word, claims) [PB_SCHED_##kind] = { word, claims },
    PB_SCHED_KIND_LIST(PB_SCHED_WORD)
#undef PB_SCHED_WORD
};

/* N of ":N" at num (1 <= N <= 1e9, nothing after it); 0 when it is not one. */
static size_t pb_sched_claim(const char *num)
{
    char *end = NULL;
    errno = 0;
    long n = strtol(num, &end, 10);
    return end == num || *end || errno || n < 1 || n > 1000000000L ? 0 : (size_t)n;
}

int pb_sched_parse(const char *word, pb_sched *out)
{
    for (int k = 0; k < PB_SCHED_KINDS; k++) {
        size_t len = strlen(pb_sched_words[k].word);
        if (strncmp(word, pb_sched_words[k].word, len) != 0)
            continue;
        if (!pb_sched_words[k].claims && word[len] == '\0') {
            *out = (pb_sched){ .kind = (pb_sched_kind)k };
            return 0;
        }
        size_t n = pb_sched_words[k].claims && word[len] == ':' ? pb_sched_claim(word + len + 1) : 0;
        if (n > 0) {
            *out = (pb_sched){ .kind = (pb_sched_kind)k, .chunk = n };
            return 0;
        }
    }
    return -1;
}

void pb_sched_name(pb_sched s, char *buf, size_t len)
{
    if ((unsigned)s.kind >= PB_SCHED_KINDS)
        snprintf(buf, len, "?");
    else if (pb_sched_words[s.kind].claims)
        snprintf(buf, len, "%s:%zu", pb_sched_words[s.kind].word, s.chunk);
    else
        snprintf(buf, len, "%s", pb_sched_words[s.kind].word);
}

/* The current shares into the split: the pool's weights, or the OpenMP split's cumulative shares. */
static void pb_exec_install(pb_exec *e)
{
    const double *w = e->shares.equal ? NULL : e->shares.share;
    if (e->p) {
        pool_set_weights(e->p, w); /* shares are finite, >= 0 and sum to 1: it cannot refuse them */
        return;
    }
    e->cum = w && pool_weights_cum(w, e->threads, e->cum_buf) == 0 ? e->cum_buf : NULL;
}

static void pb_exec_free_accounts(pb_exec *e)
{
    pb_slices_free(&e->slices);
    pb_shares_free(&e->shares);
    free(e->cum_buf);
    free(e->steal);
    e->cum = e->cum_buf = NULL;
    e->steal = NULL;
}

/* The per-thread accounts, the shares of a weighted split and the OpenMP split's storage. 0, or -1 with errno =
 * ENOMEM (nothing left allocated). */
static int pb_exec_accounts(pb_exec *e, const pb_exec_cfg *c)
{
    bool weighted = c->sched.kind == PB_SCHED_WEIGHTED;
    bool steal = c->sched.kind == PB_SCHED_STEAL && c->kind == PB_EXEC_OMP;
    if (pb_slices_init(&e->slices, c->threads, c->cpus, c->emulate) == 0 &&
        (!weighted || ((e->cum_buf = malloc(((size_t)c->threads + 1) * sizeof *e->cum_buf)) &&
                       pb_shares_init(&e->shares, c->threads, c->capacity) == 0)) &&
        (!steal || (e->steal = aligned_alloc(alignof(pool_share), (size_t)c->threads * sizeof *e->steal))))
        return 0;
    pb_exec_free_accounts(e);
    errno = ENOMEM;
    return -1;
}

int pb_exec_open(pb_exec *e, pb_exec_kind kind, int threads, const int *cpus, size_t chunk, unsigned spin_us)
{
    const pb_exec_cfg c = { .kind = kind, .threads = threads, .cpus = cpus, .spin_us = spin_us,
                            .sched = { .kind = chunk ? PB_SCHED_DYNAMIC : PB_SCHED_STATIC, .chunk = chunk } };
    return pb_exec_open_cfg(e, &c);
}

int pb_exec_open_cfg(pb_exec *e, const pb_exec_cfg *c)
{
    memset(e, 0, sizeof *e);
    if ((unsigned)c->kind >= PB_EXEC_KINDS || c->threads < 1 || c->threads > POOL_MAX_THREADS) {
        errno = EINVAL;
        return -1;
    }
    e->kind = c->kind;
    e->threads = c->threads;
    e->split = c->sched.kind;
    e->chunk = c->sched.kind == PB_SCHED_DYNAMIC || c->sched.kind == PB_SCHED_STEAL ? c->sched.chunk : 0;
    if (pb_exec_accounts(e, c) != 0)
        return -1;
    if (c->kind == PB_EXEC_OMP) {
        sched_getaffinity(0, sizeof e->saved, &e->saved);
        if (c->cpus)
            pb_omp_pin(c->threads, c->cpus, &e->saved);
    } else {
        pool_config cfg = pool_config_default();
        cfg.threads = c->threads;
        cfg.policy = (pool_policy)pb_exec_kind_policy(c->kind);
        cfg.spin_us = c->spin_us;
        cfg.cpus = c->cpus;
        cfg.hook = pb_slices_hook(&e->slices);
        int *group = NULL;
        if (c->kind == PB_EXEC_TREE && (group = malloc((size_t)c->threads * sizeof *group))) {
            pb_topo_groups(c->topo, c->cpus, c->threads, group, &e->group_level);
            cfg.group = group;
        }
        /* the caller on cpus[0] until pb_exec_close; the pool keeps its own copy of the groups */
        e->p = c->kind != PB_EXEC_TREE || group ? pool_create_bound(&cfg) : NULL;
        free(group);
        e->groups = e->p ? pool_groups(e->p) : 0;
        if (!e->p) {
            int err = errno;
            pb_exec_close(e);
            errno = err;
            return -1;
        }
    }
    if (e->split == PB_SCHED_WEIGHTED)
        pb_exec_install(e); /* fixed shares from the capacities, or the calibration token's equal split */
    return 0;
}

void pb_exec_token_end(pb_exec *e)
{
    if (e->split == PB_SCHED_WEIGHTED && pb_shares_token(&e->shares, &e->slices))
        pb_exec_install(e);
}

/* One slice of OpenMP thread t, observed like a pool's (pb_slices). */
static void pb_omp_slice(pb_exec *e, int t, pool_rows_fn fn, void *ctx, size_t r0, size_t r1)
{
    uint64_t t0 = pb_slice_begin(&e->slices, t);
    fn(ctx, r0, r1);
    pb_slice_end(&e->slices, t, t0, r1 - r0);
}

/* OpenMP's twin of pool_rows_steal: the static shares of units, claimed by their owners and stolen from by the
 * others (pool_split_steal_claim), inside one parallel region. */
static void pb_omp_steal(pb_exec *e, size_t rows, size_t grain, size_t claim, pool_rows_fn fn, void *ctx)
{
    int threads = e->threads;
    size_t units = (rows + grain - 1) / grain, chunk = (claim + grain - 1) / grain;
    /* the region's fork orders these stores before the claims */
    pool_split_steal_reset(e->steal, units, threads, NULL);
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num();
        size_t u0, u1;
        while (pool_split_steal_claim(e->steal, t, threads, chunk, &u0, &u1))
            pb_omp_slice(e, t, fn, ctx, u0 * grain, u1 * grain < rows ? u1 * grain : rows);
    }
}

/* OpenMP's split of rows in units of grain rows, as the pool's (pool_rows_grain): static or weighted over the
 * units, dynamic claims of ceil(claim / grain) units, or the stealing split's (pb_omp_steal). */
static void pb_omp_rows(pb_exec *e, size_t rows, size_t grain, size_t claim, pool_rows_fn fn, void *ctx)
{
    int threads = e->threads;
    size_t units = (rows + grain - 1) / grain;
    bool steal = e->split == PB_SCHED_STEAL;
    if (steal && claim != 0 && units <= UINT32_MAX) { /* else static, as pool_rows_steal does */
        pb_omp_steal(e, rows, grain, claim, fn, ctx);
        return;
    }
    if (claim == 0 || steal) {
        /* schedule(static) over `threads` iterations: iteration t is thread t's (OpenMP's static rule). */
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int t = 0; t < threads; t++) {
            size_t u0, u1;
            if (e->cum)
                pool_split_weighted(units, t, threads, e->cum, &u0, &u1);
            else
                pool_split(units, t, threads, &u0, &u1);
            size_t r0 = u0 * grain, r1 = u1 * grain < rows ? u1 * grain : rows;
            if (r1 > r0)
                pb_omp_slice(e, t, fn, ctx, r0, r1);
        }
        return;
    }
    size_t chunk = (claim + grain - 1) / grain * grain;
    long nchunks = (long)((rows + chunk - 1) / chunk);
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num();
#pragma omp for schedule(dynamic)
        for (long c = 0; c < nchunks; c++) {
            size_t r0 = (size_t)c * chunk, r1 = r0 + chunk < rows ? r0 + chunk : rows;
            pb_omp_slice(e, t, fn, ctx, r0, r1);
        }
    }
}

void pb_exec_rows(pb_exec *e, size_t rows, pool_rows_fn fn, void *ctx)
{
    pb_exec_rows_grain(e, rows, 1, fn, ctx);
}

/* One dispatch of rows in grains, claims (dynamic, steal) of claim rows; 0 splits statically. */
static void pb_exec_dispatch(pb_exec *e, size_t rows, size_t grain, size_t claim, pool_rows_fn fn, void *ctx)
{
    e->dispatches++;
    grain = grain ? grain : 1;
    if (e->p)
        (e->split == PB_SCHED_STEAL ? pool_rows_steal : pool_rows_grain)(e->p, rows, claim, grain, fn, ctx);
    else if (rows)
        pb_omp_rows(e, rows, grain, claim, fn, ctx);
}

void pb_exec_rows_grain(pb_exec *e, size_t rows, size_t grain, pool_rows_fn fn, void *ctx)
{
    pb_exec_dispatch(e, rows, grain, e->chunk, fn, ctx);
}

void pb_exec_items(pb_exec *e, size_t n, pool_rows_fn fn, void *ctx)
{
    pb_exec_dispatch(e, n, 1, e->chunk ? 1 : 0, fn, ctx);
}

void pb_exec_run(pb_exec *e, pool_fn fn, void *ctx)
{
    e->dispatches++;
    if (e->p) {
        pool_run(e->p, fn, ctx);
        return;
    }
#pragma omp parallel num_threads(e->threads)
    fn(ctx, omp_get_thread_num(), e->threads);
}

void pb_exec_close(pb_exec *e)
{
    if (e->p)
        pool_destroy(e->p);
    else if (e->threads > 0 && e->kind == PB_EXEC_OMP)
        pb_omp_pin(e->threads, NULL, &e->saved);
    pb_exec_free_accounts(e);
    memset(e, 0, sizeof *e);
}
