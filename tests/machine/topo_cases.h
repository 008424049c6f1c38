/* topo_cases.h — what an hwloc XML fixture's topology must be, as data: its counts and kinds, the cpu sets its
 * names give, where n threads go in a set and which requests are refused, and its caches. The topology tests of
 * x86 and arm64 machines list their fixtures as tables of these and check every row with the functions here, so
 * one fixture more is one row more; every message names the fixture, since a loop's line number does not.
 * Header-only, beside topo_fixture.h (load, set_str, place_str, default_threads). */
#ifndef TOPO_CASES_H
#define TOPO_CASES_H

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pb_cpusets.h"
#include "pb_topo.h"
#include "topo_fixture.h"

/* A cpu set's name and the cpus it names ("0-7"); a list of them ends at a NULL name. */
typedef struct topo_set_want {
    const char *name, *cpus;
} topo_set_want;

/* n threads in a set: the cpus in placement order, or for a refusal a fragment of the error; ends at a NULL set. */
typedef struct topo_place_want {
    const char *set;
    int n;
    const char *want;
} topo_place_want;

/* One cpukind by rank (0 = the fastest), every field pb_topo_kind has, in this order. */
typedef struct topo_kind_want {
    const char *name;
    int cores, pus, max_mhz, capacity, efficiency;
} topo_kind_want;

typedef struct topo_want {
    const char *file;
    int npus, ncores, nkinds, default_threads;
    topo_kind_want kind[2];
    topo_set_want sets[8];
    topo_place_want places[6], refused[10];
    const char *default_sets; /* bench_sweep's default sets here, comma-separated; NULL: not checked */
} topo_want;

/* One cache level, every field pb_topo_cache has for the first two kinds: the tables write a level as
 * { level, instances, total bytes, { bytes above kind 0, kind 1 }, { PUs sharing it, kind 0, kind 1 } }. */
typedef struct topo_cache_want {
    int level, instances;
    uint64_t total_bytes, bytes[2];
    int shared_by[2];
} topo_cache_want;

/* Two cpus and what they share (pb_topo_pair_place); a list of them ends at a zero place. */
typedef struct topo_pair_want {
    int a, b;
    pb_pair_place place;
} topo_pair_want;

typedef struct topo_caches_want {
    const char *file;
    int ncaches;
    topo_cache_want cache[3];
    int nnuma;
    uint64_t memory; /* the first NUMA node's */
    topo_pair_want pairs[4];
} topo_caches_want;

static inline void expect_sets(const pb_topo *t, const char *file, const topo_set_want *s)
{
    for (; s->name; s++) {
        char got[512];
        set_str(t, s->name, got, sizeof got);
        cr_expect_str_eq(got, s->cpus, "%s: set '%s': got %s, want %s", file, s->name, got, s->cpus);
    }
}

static inline void expect_places(const pb_topo *t, const char *file, const topo_place_want *p)
{
    for (; p->set; p++) {
        char got[512];
        place_str(t, p->set, p->n, got, sizeof got);
        cr_expect_str_eq(got, p->want, "%s: %d threads in '%s': got %s, want %s", file, p->n, p->set, got, p->want);
    }
}

static inline void expect_refused(const pb_topo *t, const char *file, const topo_place_want *p)
{
    for (; p->set; p++) {
        char got[512];
        place_str(t, p->set, p->n, got, sizeof got);
        cr_expect(strncmp(got, "ERR: ", 5) == 0 && strstr(got, p->want),
                  "%s: %d threads in '%s': got '%s', want an error containing '%s'", file, p->n, p->set, got, p->want);
    }
}

/* The names of the sets bench_sweep runs by default here, comma-separated. */
static inline void default_set_names(const pb_topo *t, char *buf, size_t len)
{
    pb_cpusets s;
    char err[256] = "";
    cr_assert_eq(pb_cpusets_parse(t, NULL, &s, err, sizeof err), 0, "%s", err);
    buf[0] = '\0';
    for (int i = 0; i < s.n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : "", s.set[i].name);
}

static inline void expect_kind(const pb_topo *t, const char *file, int k, const topo_kind_want *w)
{
    const pb_topo_kind *g = &t->kind[k];
    cr_expect_str_eq(g->name, w->name, "%s: kind %d is '%s', want '%s'", file, k, g->name, w->name);
    const int got[] = { g->cores, g->pus, g->max_mhz, g->capacity, g->efficiency };
    const int want[] = { w->cores, w->pus, w->max_mhz, w->capacity, w->efficiency };
    static const char *const field[] = { "cores", "pus", "max_mhz", "capacity", "efficiency" };
    for (size_t i = 0; i < sizeof got / sizeof got[0]; i++)
        cr_expect_eq(got[i], want[i], "%s: kind %d %s %d, want %d", file, k, field[i], got[i], want[i]);
}

static inline void expect_topo(const topo_want *w)
{
    pb_topo *t = load(w->file);
    cr_expect_eq(t->npus, w->npus, "%s: %d pus, want %d", w->file, t->npus, w->npus);
    cr_expect_eq(t->ncores, w->ncores, "%s: %d cores, want %d", w->file, t->ncores, w->ncores);
    /* expects, not asserts, here and below: one fixture's miss must not hide the rows after it */
    cr_expect_eq(t->nkinds, w->nkinds, "%s: %d kinds, want %d", w->file, t->nkinds, w->nkinds);
    for (int k = 0; k < w->nkinds && k < t->nkinds; k++)
        expect_kind(t, w->file, k, &w->kind[k]);
    expect_sets(t, w->file, w->sets);
    expect_places(t, w->file, w->places);
    expect_refused(t, w->file, w->refused);
    if (w->default_sets) {
        char got[256];
        default_set_names(t, got, sizeof got);
        cr_expect_str_eq(got, w->default_sets, "%s: default sets %s, want %s", w->file, got, w->default_sets);
    }
    int threads = default_threads(t);
    cr_expect_eq(threads, w->default_threads, "%s: %d default threads, want %d", w->file, threads, w->default_threads);
    pb_topo_free(t);
}

static inline void expect_caches(const topo_caches_want *w)
{
    pb_topo *t = load(w->file);
    cr_expect_eq(t->ncaches, w->ncaches, "%s: %d cache levels, want %d", w->file, t->ncaches, w->ncaches);
    for (int i = 0; i < w->ncaches && i < t->ncaches; i++) {
        const pb_topo_cache *g = &t->cache[i];
        const topo_cache_want *c = &w->cache[i];
        const uint64_t got[] = { (uint64_t)g->level, (uint64_t)g->instances, g->total_bytes, g->bytes[0],
                                 g->bytes[1], (uint64_t)g->shared_by[0], (uint64_t)g->shared_by[1] };
        const uint64_t want[] = { (uint64_t)c->level, (uint64_t)c->instances, c->total_bytes, c->bytes[0],
                                  c->bytes[1], (uint64_t)c->shared_by[0], (uint64_t)c->shared_by[1] };
        static const char *const field[] = { "level", "instances", "total_bytes", "bytes[0]", "bytes[1]",
                                             "shared_by[0]", "shared_by[1]" };
        for (size_t f = 0; f < sizeof got / sizeof got[0]; f++)
            cr_expect_eq(got[f], want[f], "%s: cache %d %s %llu, want %llu", w->file, i, field[f],
                         (unsigned long long)got[f], (unsigned long long)want[f]);
    }
    cr_expect_eq(t->nnuma, w->nnuma, "%s: %d NUMA nodes, want %d", w->file, t->nnuma, w->nnuma);
    cr_expect_eq(t->numa[0].memory, w->memory, "%s: node 0 has %llu bytes, want %llu", w->file,
                 (unsigned long long)t->numa[0].memory, (unsigned long long)w->memory);
    for (const topo_pair_want *p = w->pairs; p->place; p++) {
        pb_pair_place got = pb_topo_pair_place(t, p->a, p->b);
        cr_expect_eq(got, p->place, "%s: cpus %d and %d: %s, want %s", w->file, p->a, p->b,
                     pb_pair_place_name(got) ? pb_pair_place_name(got) : "unknown", pb_pair_place_name(p->place));
    }
    pb_topo_free(t);
}

#endif
