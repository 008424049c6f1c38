/* The /proc/stat parser and the busy % arithmetic, on text fixtures (tests/data/procstat/NAME.K: the K-th
 * reading of a scenario) and on generated counters. */
#include <criterion/criterion.h>
#include <math.h>
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

static void expect_load(const pair *p, int cpu, double busy, double user, double sys, double steal)
{
    pb_cpu_load l;
    cr_assert(pb_procstat_load(p->a, p->b, cpu, &l), "cpu%d has an interval", cpu);
    cr_expect_float_eq(l.busy, busy, 1e-9, "cpu%d busy %.3f, want %.3f", cpu, l.busy, busy);
    cr_expect_float_eq(l.user, user, 1e-9, "cpu%d user %.3f, want %.3f", cpu, l.user, user);
    cr_expect_float_eq(l.sys, sys, 1e-9, "cpu%d sys %.3f, want %.3f", cpu, l.sys, sys);
    cr_expect_float_eq(l.steal, steal, 1e-9, "cpu%d steal %.3f, want %.3f", cpu, l.steal, steal);
    cr_expect_float_eq(l.busy + l.idle, 100.0, 1e-9);
}

static void expect_no_interval(const pair *p, int cpu)
{
    pb_cpu_load l;
    cr_expect_not(pb_procstat_load(p->a, p->b, cpu, &l), "cpu%d should have no interval", cpu);
}

Test(procstat, normal)
{
    pair p = load_pair("normal.0", "normal.1");
    cr_expect_eq(p.a->ncpu, 2);
    cr_expect_eq(p.a->npresent, 2);
    cr_expect_eq(p.a->cpu[0].t[PB_TICK_USER], 1500);
    cr_expect_eq(p.a->cpu[1].t[PB_TICK_IOWAIT], 200);
    expect_load(&p, 0, 60, 50, 10, 0);
    expect_load(&p, 1, 0, 0, 0, 0);
    expect_no_interval(&p, 2);
    expect_no_interval(&p, -1);
    free_pair(p);
}

Test(procstat, offline_cpu)
{
    pair p = load_pair("offline.0", "offline.1");
    cr_expect_eq(p.a->npresent, 4);
    cr_expect_eq(p.b->npresent, 3);
    cr_expect_eq(p.b->ncpu, 4);
    cr_expect_not(p.b->present[2]);
    expect_load(&p, 0, 100, 100, 0, 0);
    expect_load(&p, 1, 0, 0, 0, 0);
    expect_no_interval(&p, 2);
    expect_load(&p, 3, 100, 50, 50, 0);
    free_pair(p);
}

Test(procstat, counters_backwards_or_wrapping)
{
    pair p = load_pair("backwards.0", "backwards.1");
    /* idle and iowait stepped back: they count as no time, the 40 ticks that moved were all busy */
    expect_load(&p, 0, 100, 75, 25, 0);
    /* every counter stepped back: nothing to report, rather than a negative figure */
    expect_no_interval(&p, 1);
    /* user wrapped at 2^32: 6 ticks to the wrap + 5 after it, beside 9 idle */
    expect_load(&p, 2, 55, 55, 0, 0);
    free_pair(p);
}

Test(procstat, steal_irq_softirq)
{
    pair p = load_pair("steal.0", "steal.1");
    expect_load(&p, 0, 50, 25, 0, 25);
    expect_load(&p, 1, 30, 20, 10, 0);
    free_pair(p);
}

Test(procstat, cpu_appears)
{
    pair p = load_pair("appear.0", "appear.1");
    cr_expect_eq(p.a->ncpu, 1);
    cr_expect_eq(p.b->ncpu, 2);
    expect_load(&p, 0, 50, 50, 0, 0);
    expect_no_interval(&p, 1);
    free(p.a);
    p.a = load("appear.2");
    pair q = { p.b, p.a }; /* appear.1 -> appear.2: now it has a first interval */
    expect_load(&q, 1, 80, 80, 0, 0);
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
