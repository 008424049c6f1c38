/* topo_fixture.h — loading hwloc XML fixtures (tests/data) and checking the cpu sets and placements a pb_topo
 * gives, for the topology tests of x86 and arm64 machines alike. Header-only: each test file gets its own
 * static copies. */
#ifndef TOPO_FIXTURE_H
#define TOPO_FIXTURE_H

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_topo.h"

static inline pb_topo *load(const char *file)
{
    char path[256], err[256] = "";
    snprintf(path, sizeof path, "tests/data/%s", file);
    pb_topo *t = pb_topo_load(path, err, sizeof err);
    cr_assert(t, "loading %s: %s", path, err);
    cr_assert(!t->this_system);
    return t;
}

/* The set as text ("0-7"), or "ERR: message". */
static inline void set_str(const pb_topo *t, const char *name, char *buf, size_t len)
{
    pb_cpulist l;
    char err[256];
    if (pb_topo_set(t, name, &l, err, sizeof err) == 0)
        pb_cpulist_format(&l, buf, len);
    else
        snprintf(buf, len, "ERR: %s", err);
}

static inline void place_str(const pb_topo *t, const char *name, int n, char *buf, size_t len)
{
    pb_cpulist l;
    char err[256];
    if (pb_topo_place_named(t, name, n, &l, err, sizeof err) == 0)
        pb_cpulist_format(&l, buf, len);
    else
        snprintf(buf, len, "ERR: %s", err);
}

#define EXPECT_SET(t, name, want)                                                       \
    do {                                                                                \
        char got_[512];                                                                 \
        set_str(t, name, got_, sizeof got_);                                            \
        cr_expect_str_eq(got_, want, "set '%s': got %s, want %s", name, got_, want);   \
    } while (0)

#define EXPECT_PLACE(t, name, n, want)                                                            \
    do {                                                                                          \
        char got_[512];                                                                           \
        place_str(t, name, n, got_, sizeof got_);                                                 \
        cr_expect_str_eq(got_, want, "%d threads in '%s': got %s, want %s", n, name, got_, want); \
    } while (0)

#define EXPECT_ERR(t, name, n, fragment)                                                          \
    do {                                                                                          \
        char got_[512];                                                                           \
        place_str(t, name, n, got_, sizeof got_);                                                 \
        cr_expect(strncmp(got_, "ERR: ", 5) == 0 && strstr(got_, fragment),                       \
                  "%d threads in '%s': got '%s', want an error containing '%s'", n, name, got_,   \
                  fragment);                                                                      \
    } while (0)

static inline int default_threads(const pb_topo *t)
{
    char err[256] = "";
    unsetenv("POOLBENCH_THREADS");
    unsetenv("POOLBENCH_POLICY");
    int n = pb_topo_default_threads(t, err, sizeof err);
    cr_assert(n > 0, "default threads: %s", err);
    return n;
}

#endif
