/* The pointer chase (pb_chase.h) and the latency plan (pb_latency_run.h): the cycle goes once through every line
 * of the working set, the checker catches a permutation of several cycles or a link out of the buffer, a seed
 * decides the cycle; the ladder's sizes and the levels that name them. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pb_chase.h"
#include "pb_latency_run.h"

static uint8_t *lines_alloc(size_t lines)
{
    uint8_t *buf = aligned_alloc(PB_CHASE_LINE, lines * PB_CHASE_LINE);
    cr_assert_not_null(buf);
    memset(buf, 0, lines * PB_CHASE_LINE);
    return buf;
}

Test(chase, one_cycle_through_every_line)
{
    static const size_t sizes[] = { 2, 3, 17, 64, 1000, 4103, 1u << 16 };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        uint8_t *buf = lines_alloc(sizes[i]);
        char err[256];
        cr_assert_eq(pb_chase_build(buf, sizes[i], 42 + i, err, sizeof err), 0, "%s", err);
        cr_expect_eq(pb_chase_cycle_len(buf, sizes[i]), sizes[i], "%zu lines: one cycle through all of them",
                     sizes[i]);
        /* the walk of a whole cycle comes back where it started, and no line links to itself */
        cr_expect_eq(pb_chase_walk(buf, sizes[i]), (const void *)buf);
        for (size_t l = 0; l < sizes[i]; l++)
            cr_expect_neq(*(void **)(buf + l * PB_CHASE_LINE), (void *)(buf + l * PB_CHASE_LINE));
        free(buf);
    }
}

Test(chase, checker_catches_two_cycles_and_stray_links)
{
    uint8_t *buf = lines_alloc(4);
    void **link[4];
    for (int l = 0; l < 4; l++)
        link[l] = (void **)(buf + l * PB_CHASE_LINE);
    *link[0] = link[1], *link[1] = link[0], *link[2] = link[3], *link[3] = link[2]; /* 0-1 and 2-3 */
    cr_expect_eq(pb_chase_cycle_len(buf, 4), 2, "the cycle through line 0 is two lines, not four");
    *link[1] = buf + 4 * PB_CHASE_LINE; /* out of the buffer */
    cr_expect_eq(pb_chase_cycle_len(buf, 4), 0);
    *link[1] = buf + PB_CHASE_LINE + 8; /* inside a line */
    cr_expect_eq(pb_chase_cycle_len(buf, 4), 0);
    *link[1] = link[2]; /* 0 -> 1 -> 2 <-> 3: never back to 0 */
    cr_expect_eq(pb_chase_cycle_len(buf, 4), 0);
    free(buf);
}

/* Whether two buffers link the same line numbers (their addresses differ). */
static bool same_links(const uint8_t *a, const uint8_t *b, size_t lines)
{
    for (size_t l = 0; l < lines; l++)
        if ((const uint8_t *)*(void *const *)(a + l * PB_CHASE_LINE) - a !=
            (const uint8_t *)*(void *const *)(b + l * PB_CHASE_LINE) - b)
            return false;
    return true;
}

Test(chase, the_seed_decides_the_cycle)
{
    size_t lines = 4096;
    uint8_t *a = lines_alloc(lines), *b = lines_alloc(lines);
    char err[256];
    cr_assert_eq(pb_chase_build(a, lines, 7, err, sizeof err), 0);
    cr_assert_eq(pb_chase_build(b, lines, 7, err, sizeof err), 0);
    cr_expect(same_links(a, b, lines), "the same seed, the same cycle");
    cr_assert_eq(pb_chase_build(b, lines, 8, err, sizeof err), 0);
    cr_expect(!same_links(a, b, lines), "another seed, another cycle");
    /* random, not in order: few lines link to the next one */
    int next = 0;
    for (size_t l = 0; l + 1 < lines; l++)
        next += *(void **)(a + l * PB_CHASE_LINE) == (void *)(a + (l + 1) * PB_CHASE_LINE);
    cr_expect_lt(next, 16, "%d of %zu lines link to the next", next, lines);
    free(a);
    free(b);
}

Test(chase, refuses_fewer_than_two_lines)
{
    uint8_t *buf = lines_alloc(1);
    char err[256] = "";
    cr_expect_eq(pb_chase_build(buf, 1, 1, err, sizeof err), -1);
    cr_expect(strstr(err, "lines") != NULL, "%s", err);
    free(buf);
}

Test(latency, ladder_sizes_climb_by_four_to_the_buffer)
{
    uint64_t s[PB_LATENCY_MAX_LADDER];
    int n = pb_latency_run_ladder_sizes(5u << 20, s, PB_LATENCY_MAX_LADDER);
    cr_assert_eq(n, 6);
    static const uint64_t want[] = { 16u << 10, 64u << 10, 256u << 10, 1u << 20, 4u << 20, 5u << 20 };
    for (int i = 0; i < n; i++)
        cr_expect_eq(s[i], want[i], "size %d: %llu", i, (unsigned long long)s[i]);
    cr_expect_eq(pb_latency_run_ladder_sizes(16u << 10, s, PB_LATENCY_MAX_LADDER), 1, "a buffer of the first size: itself");
    cr_expect_eq(pb_latency_run_ladder_sizes(1ull << 40, s, 4), 4, "never more than asked");
    cr_expect_eq(s[3], 1ull << 40, "the last is the buffer");
}

Test(latency, levels_by_the_first_pus_caches)
{
    static pb_topo t;
    t.npus = 1;
    t.pu[0].kind = 1;
    t.ncaches = 3;
    static const uint64_t size[] = { 48u << 10, 2u << 20, 300u << 20 };
    for (int c = 0; c < 3; c++) {
        t.cache[c].level = c + 1;
        t.cache[c].bytes[1] = size[c];
        t.cache[c].bytes[0] = 1; /* another kind's: not the first PU's */
    }
    char lv[8];
    pb_latency_run_level(&t, 16u << 10, lv, sizeof lv);
    cr_expect_str_eq(lv, "L1");
    pb_latency_run_level(&t, 48u << 10, lv, sizeof lv);
    cr_expect_str_eq(lv, "L1");
    pb_latency_run_level(&t, 64u << 10, lv, sizeof lv);
    cr_expect_str_eq(lv, "L2");
    pb_latency_run_level(&t, 256u << 20, lv, sizeof lv);
    cr_expect_str_eq(lv, "L3");
    pb_latency_run_level(&t, 1u << 30, lv, sizeof lv);
    cr_expect_str_eq(lv, "DRAM");
    t.ncaches = 0;
    pb_latency_run_level(&t, 16u << 10, lv, sizeof lv);
    cr_expect_str_eq(lv, "DRAM", "no cache known: every size is memory");
    cr_expect_eq(pb_latency_run_default_mib(300u << 20, false), 1200);
    cr_expect_eq(pb_latency_run_default_mib(300u << 20, true), 600);
    cr_expect_eq(pb_latency_run_default_mib(0, false), PB_LATENCY_MIN_MIB);
}
