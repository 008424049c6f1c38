/* The /proc/stat parser and the busy % arithmetic, on text fixtures (tests/data/procstat/NAME.K: the K-th
 * reading of a scenario) and on generated counters. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_procstat.h"

#define FIXTURES "tests/data/procstat/"

/* Both readings of a scenario, on the heap (a pb_procstat is ~75 KB). */
typedef struct pair {
    pb_procstat *a, *b;
} pair;

static pb_procstat *load(const char *name)
{
    char path[256], *buf = NULL;
    size_t cap = 0;
    pb_procstat *p = calloc(1, sizeof *p);
    cr_assert_not_null(p);
    snprintf(path, sizeof path, FIXTURES "%s", name);
    int n = pb_procstat_read(path, p, &buf, &cap);
    free(buf);
    cr_assert_gt(n, 0, "%s: %d cpu lines", path, n);
    return p;
}

static pair load_pair(const char *first, const char *second)
{
    return (pair){ load(first), load(second) };
}

static void free_pair(pair p)
{
    free(p.a);
    free(p.b);
}

/* What one cpu shows between two readings: its shares in %, or (interval false) no interval at all. */
typedef struct cpu_want {
    int cpu;
    bool interval;
    double busy, user, sys, steal;
} cpu_want;

/* A scenario's two readings and what every cpu listed shows between them. */
typedef struct interval_want {
    const char *first, *second;
    int n;
    cpu_want cpu[4];
} interval_want;

static const interval_want intervals[] = {
    { "normal.0", "normal.1", 4,
      { { 0, true, 60, 50, 10, 0 }, { 1, true, 0, 0, 0, 0 }, { .cpu = 2, .interval = false },
        { .cpu = -1, .interval = false } } },
    { "offline.0", "offline.1", 4,
      { { 0, true, 100, 100, 0, 0 }, { 1, true, 0, 0, 0, 0 }, { .cpu = 2, .interval = false },
        { 3, true, 100, 50, 50, 0 } } },
    { "backwards.0", "backwards.1", 3,
      { /* idle and iowait stepped back: they count as no time, the 40 ticks that moved were all busy */
        { 0, true, 100, 75, 25, 0 },
        /* every counter stepped back: nothing to report, rather than a negative figure */
        { .cpu = 1, .interval = false },
        /* user wrapped at 2^32: 6 ticks to the wrap + 5 after it, beside 9 idle */
        { 2, true, 55, 55, 0, 0 } } },
    { "steal.0", "steal.1", 2, { { 0, true, 50, 25, 0, 25 }, { 1, true, 30, 20, 10, 0 } } },
    { "appear.0", "appear.1", 2, { { 0, true, 50, 50, 0, 0 }, { .cpu = 1, .interval = false } } },
    /* the cpu that appeared in appear.1 now has a first interval */
    { "appear.1", "appear.2", 1, { { 1, true, 80, 80, 0, 0 } } },
};

static void expect_cpu(const char *scenario, const pair *p, const cpu_want *w)
{
    pb_cpu_load l;
    int cpu = w->cpu;
    if (!w->interval) {
        cr_expect_not(pb_procstat_load(p->a, p->b, cpu, &l), "%s: cpu%d should have no interval", scenario, cpu);
        return;
    }
    cr_assert(pb_procstat_load(p->a, p->b, cpu, &l), "%s: cpu%d has an interval", scenario, cpu);
    const double got[] = { l.busy, l.user, l.sys, l.steal };
    const double want[] = { w->busy, w->user, w->sys, w->steal };
    static const char *const share[] = { "busy", "user", "sys", "steal" };
    for (size_t i = 0; i < sizeof got / sizeof got[0]; i++)
        cr_expect_float_eq(got[i], want[i], 1e-9, "%s: cpu%d %s %.3f, want %.3f", scenario, cpu, share[i], got[i],
                           want[i]);
    cr_expect_float_eq(l.busy + l.idle, 100.0, 1e-9, "%s: cpu%d busy + idle %.3f", scenario, cpu, l.busy + l.idle);
}

Test(procstat, intervals)
{
    for (size_t i = 0; i < sizeof intervals / sizeof intervals[0]; i++) {
        const interval_want *w = &intervals[i];
        pair p = load_pair(w->first, w->second);
        for (int c = 0; c < w->n; c++)
            expect_cpu(w->first, &p, &w->cpu[c]);
        free_pair(p);
    }
}

/* What the parser keeps of each reading, beside the intervals above. */
Test(procstat, normal)
{
    pair p = load_pair("normal.0", "normal.1");
    cr_expect_eq(p.a->ncpu, 2);
    cr_expect_eq(p.a->npresent, 2);
    cr_expect_eq(p.a->cpu[0].t[PB_TICK_USER], 1500);
    cr_expect_eq(p.a->cpu[1].t[PB_TICK_IOWAIT], 200);
    free_pair(p);
}

Test(procstat, offline_cpu)
{
    pair p = load_pair("offline.0", "offline.1");
    cr_expect_eq(p.a->npresent, 4);
    cr_expect_eq(p.b->npresent, 3);
    cr_expect_eq(p.b->ncpu, 4);
    cr_expect_not(p.b->present[2]);
    free_pair(p);
}

Test(procstat, cpu_appears)
{
    pair p = load_pair("appear.0", "appear.1");
    cr_expect_eq(p.a->ncpu, 1);
    cr_expect_eq(p.b->ncpu, 2);
    free_pair(p);
}

Test(procstat, text_forms)
{
    pb_procstat *p = calloc(1, sizeof *p);
    /* an old kernel's four columns; no trailing newline; tabs */
    const char *old = "cpu 1 2 3 4\ncpu0 1 2 3 4\ncpu1\t5 6 7 8";
    cr_expect_eq(pb_procstat_parse(old, strlen(old), p), 2);
    cr_expect_eq(p->cpu[1].t[PB_TICK_IDLE], 8);
    cr_expect_eq(p->cpu[1].t[PB_TICK_IOWAIT], 0);
    /* malformed lines are skipped; a line for an id past the table is ignored */
    const char *bad = "cpu0 1 2 x 4\ncpux 1 2 3 4\ncpu1 1 2 3\ncpu2 1 2 3 4 5 6 7 8 9 10\n"
                      "cpu99999 1 2 3 4\ncpu3 99999999999999999999999 1 1 1\n";
    cr_expect_eq(pb_procstat_parse(bad, strlen(bad), p), 1);
    cr_expect(p->present[2]);
    cr_expect_eq(p->cpu[2].t[PB_TICK_STEAL], 8);
    cr_expect_eq(p->ncpu, 3);
    /* the length bounds the text: the cpu1 line after it is not read */
    const char *cut = "cpu0 1 2 3 4\ncpu1 1 2 3 4\n";
    cr_expect_eq(pb_procstat_parse(cut, 13, p), 1);
    cr_expect_not(p->present[1]);
    /* not /proc/stat at all */
    cr_expect_eq(pb_procstat_parse("hello\n", 6, p), -1);
    cr_expect_eq(pb_procstat_parse("", 0, p), -1);
    free(p);
}

Test(procstat, tick_delta)
{
    cr_expect_eq(pb_tick_delta(10, 15), 5);
    cr_expect_eq(pb_tick_delta(15, 10), 0);
    cr_expect_eq(pb_tick_delta(UINT32_MAX, 3), 4);
    cr_expect_eq(pb_tick_delta((uint64_t)1 << 40, 3), 0, "a 64-bit counter does not wrap at 2^32");
    cr_expect_eq(pb_tick_delta(1000, 0), 0, "a small step back is not a wrap");
    cr_expect_eq(pb_tick_delta(5, UINT64_MAX - 5), 0, "a leap forward of centuries is not time");
}

/* Any pair of readings, backwards and wrapping included: every share in [0, 100], busy = user + sys + steal,
 * busy + idle = 100, and the ticks add up. */
Test(procstat, shares_always_bounded)
{
    unsigned seed = 12345;
    for (int iter = 0; iter < 20000; iter++) {
        pb_cpu_ticks a, b;
        for (int i = 0; i < PB_TICK_NFIELDS; i++) {
            seed = seed * 1103515245u + 12345u;
            uint64_t base = (seed >> 4) % 3 == 0 ? UINT32_MAX - (seed % 50) : seed % 100000;
            a.t[i] = base;
            seed = seed * 1103515245u + 12345u;
            b.t[i] = (seed >> 4) % 4 == 0 ? base - (seed % 20) : base + (seed % 200);
        }
        pb_cpu_load l;
        if (!pb_cpu_load_between(&a, &b, &l))
            continue;
        const double v[] = { l.busy, l.user, l.sys, l.steal, l.idle };
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
            cr_assert(v[i] >= 0.0 && v[i] <= 100.0, "share %zu = %f", i, v[i]);
        cr_assert_float_eq(l.busy, l.user + l.sys + l.steal, 1e-9);
        cr_assert_float_eq(l.busy + l.idle, 100.0, 1e-9);
        cr_assert_eq(l.busy_ticks + l.idle_ticks, l.ticks);
    }
}

Test(procstat, sums_weigh_by_ticks)
{
    /* 10 ticks at 100% and 90 ticks at 0%: 10%, not the 50% an unweighted mean of the two would give */
    pb_cpu_load a = { .ticks = 10, .busy_ticks = 10, .user_ticks = 10 };
    pb_cpu_load b = { .ticks = 90, .idle_ticks = 90 };
    pb_cpu_load sum = { 0 };
    pb_cpu_load_finish(&sum);
    cr_expect(isnan(sum.busy), "no ticks: no figure");
    pb_cpu_load_sum(&sum, &a);
    pb_cpu_load_sum(&sum, &b);
    pb_cpu_load_finish(&sum);
    cr_expect_float_eq(sum.busy, 10.0, 1e-9);
    cr_expect_float_eq(sum.idle, 90.0, 1e-9);
}
