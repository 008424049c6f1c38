/* Interleaved alternatives (pb_pairs.h): each round's order (every alternative once, rotated and reversed so none
 * always goes first), the steal of a token's cpus from a /proc/stat sequence with the hypervisor taking one cpu
 * (that token set aside), and when the rounds may stop. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "pb_pairs.h"
#include "pb_tuning.h"

Test(pairs, every_round_holds_each_alternative_once_and_the_first_place_moves)
{
    int first[5] = { 0 };
    for (int r = 0; r < 10; r++) {
        int order[5], seen[5] = { 0 };
        pb_pairs_order(r, 5, order);
        for (int k = 0; k < 5; k++)
            seen[order[k]]++;
        for (int a = 0; a < 5; a++)
            cr_expect_eq(seen[a], 1, "round %d: alternative %d once", r, a);
        first[order[0]]++;
    }
    for (int a = 0; a < 5; a++)
        cr_expect_eq(first[a], 2, "alternative %d first in 2 of 10 rounds", a);
    int o0[2], o1[2];
    pb_pairs_order(0, 2, o0);
    pb_pairs_order(1, 2, o1);
    cr_expect(o0[0] != o1[0], "two alternatives: A B, then B A");
}

/* cpu1 loses 30 of its 100 ticks to steal over the token; cpu0 none: over both, 15%. */
static const char before[] = "cpu  0 0 0 0 0 0 0 0 0 0\n"
                             "cpu0 1000 0 100 500 0 0 0 0 0 0\n"
                             "cpu1 1000 0 100 500 0 0 0 40 0 0\n";
static const char after[] = "cpu  0 0 0 0 0 0 0 0 0 0\n"
                            "cpu0 1090 0 110 500 0 0 0 0 0 0\n"
                            "cpu1 1060 0 110 500 0 0 0 70 0 0\n";

Test(pairs, a_token_under_steal_is_set_aside)
{
    static pb_procstat a, b;
    cr_assert_eq(pb_procstat_parse(before, strlen(before), &a), 2);
    cr_assert_eq(pb_procstat_parse(after, strlen(after), &b), 2);
    const int both[] = { 0, 1 }, quiet[] = { 0 };
    double s = pb_pairs_steal_pct(&a, &b, both, 2);
    cr_expect_float_eq(s, 15.0, 1e-9);
    cr_expect(pb_pairs_spoiled(s), "15%% > %g%%", PB_STEAL_NOISY_PCT);
    double q = pb_pairs_steal_pct(&a, &b, quiet, 1);
    cr_expect_float_eq(q, 0.0, 1e-12);
    cr_expect_not(pb_pairs_spoiled(q));
    const int absent[] = { 0, 7 };
    cr_expect(isnan(pb_pairs_steal_pct(&a, &b, absent, 2)), "a cpu /proc/stat does not hold: unknown");
    cr_expect_not(pb_pairs_spoiled(NAN), "unknown steal keeps the token");
}

/* r, zeroed, with nalt alternatives over `rounds` rounds: alternative 0 from 20 ms rising 0.01 a round, alternative 1
 * falling 0.01 a round to alt1 ms in the last (any others left at 0). */
static void steady_rounds(pb_pairs_result *r, int nalt, int rounds, double alt1)
{
    memset(r, 0, sizeof *r);
    r->nalt = nalt;
    r->rounds = rounds;
    for (int k = 0; k < rounds; k++) {
        r->ms[k][0] = 20 + 0.01 * k;
        r->ms[k][1] = alt1 + 0.01 * (rounds - 1 - k);
    }
}

Test(pairs, rounds_stop_when_every_interval_is_narrow)
{
    static pb_pairs_result r;
    steady_rounds(&r, 3, 8, 22);
    for (int k = 0; k < 8; k++)
        r.ms[k][2] = 20 + 0.02 * (k % 3);
    cr_expect(pb_pairs_narrow(&r, PB_PAIRS_TARGET), "every interval within 2%%");
    r.ms[3][2] = 30;
    r.ms[5][2] = 14;
    r.ms[6][2] = 28;
    cr_expect_not(pb_pairs_narrow(&r, PB_PAIRS_TARGET), "alternative 2 scattered");
    r.aside[3][2] = r.aside[5][2] = r.aside[6][2] = true; /* left out, 5 pairs remain: no interval yet */
    cr_expect_not(pb_pairs_narrow(&r, PB_PAIRS_TARGET));
    r.rounds = 5;
    r.nalt = 1;
    cr_expect_not(pb_pairs_narrow(&r, PB_PAIRS_TARGET), "one alternative compares with nothing");
}

/* A round across which the placement changed: every token of it set aside, so no pair of it is in an interval
 * (here, the one wild round would otherwise keep alternative 1 from narrowing). */
Test(pairs, a_round_across_a_placement_change_is_set_aside)
{
    static pb_pairs_result r;
    steady_rounds(&r, 2, 9, 21);
    r.ms[4][1] = 40; /* the host moved the threads to another core pair in round 5 */
    r.ms[4][0] = 12;
    cr_expect_not(pb_pairs_narrow(&r, 0.005), "the moved round widens the interval past 0.5%%");
    pb_pairs_mark_moved(&r, 4, true);
    cr_expect(r.moved[4] && r.aside[4][0] && r.aside[4][1], "every token of the round set aside");
    cr_expect(pb_pairs_narrow(&r, 0.005), "without it, within 0.5%%");
    pb_pairs_mark_moved(&r, 5, false);
    cr_expect(!r.moved[5] && !r.aside[5][0], "a round that did not move stays");
}
