/* The executor's kinds: one names table, the pool's names for the pool kinds, "omp" and "tree" after them, which the
 * harnesses' --policy choices and CSV columns use; and the dispatch-cost measurement running every kind
 * through the executor. (Row coverage of every kind is test_glue's exec suite.) */
#include <criterion/criterion.h>
#include <string.h>

#include "pb_barrier_cost.h"
#include "pb_dispatch_cost.h"
#include "pb_exec.h"

Test(exec_kinds, names_are_the_pools_then_omp_and_tree)
{
    for (int k = 0; k < POOL_POLICY_COUNT; k++) {
        const char *pool_name = pool_policy_name((pool_policy)k);
        cr_assert_not_null(pb_exec_kind_names[k], "kind %d has no name", k);
        cr_assert_str_eq(pb_exec_kind_names[k], pool_name, "kind %d: the executor and the pool disagree", k);
    }
    cr_assert_str_eq(pb_exec_kind_names[PB_EXEC_OMP], "omp");
    cr_assert_null(pb_exec_kind_names[PB_EXEC_KINDS], "the table is NULL-terminated (option choices)");
    cr_assert_eq((int)PB_EXEC_SPIN, (int)POOL_SPIN);
    cr_assert_eq((int)PB_EXEC_SPAWN, (int)POOL_SPAWN);
    cr_assert_str_eq(pb_exec_kind_names[PB_EXEC_TREE], "tree");
    cr_assert_eq(PB_EXEC_KINDS, POOL_POLICY_COUNT + 2);
}

/* tree is the spin pool with groups from the topology over the pinned cpus: unpinned (or on one cache), one. */
Test(exec_kinds, tree_is_a_grouped_spin_pool)
{
    cr_assert_eq(pb_exec_kind_policy(PB_EXEC_TREE), POOL_SPIN);
    cr_assert_eq(pb_exec_kind_policy(PB_EXEC_OMP), -1);
    cr_assert(pb_exec_kind_spins(PB_EXEC_TREE) && pb_exec_kind_spins(PB_EXEC_HYBRID));
    cr_assert(!pb_exec_kind_spins(PB_EXEC_CONDVAR) && !pb_exec_kind_spins(PB_EXEC_OMP));
    pb_exec e;
    const pb_exec_cfg c = { .kind = PB_EXEC_TREE, .threads = 3 };
    cr_assert_eq(pb_exec_open_cfg(&e, &c), 0);
    cr_assert_eq(pool_get_policy(e.p), POOL_SPIN);
    cr_assert_eq(e.groups, 1);
    cr_assert_str_eq(e.group_level, "one");
    pb_exec_close(&e);
    pb_exec spin;
    cr_assert_eq(pb_exec_open(&spin, PB_EXEC_SPIN, 3, NULL, 0, 0), 0);
    cr_assert_eq(spin.groups, 0, "the flat spin pool stays flat");
    pb_exec_close(&spin);
}

Test(exec_kinds, parse_round_trips)
{
    for (int k = 0; k < PB_EXEC_KINDS; k++) {
        pb_exec_kind out = PB_EXEC_KINDS;
        cr_assert_eq(pb_exec_kind_parse(pb_exec_kind_names[k], &out), 0, "%s", pb_exec_kind_names[k]);
        cr_assert_eq((int)out, k, "%s parsed as %d", pb_exec_kind_names[k], (int)out);
    }
    pb_exec_kind out = PB_EXEC_SPIN;
    cr_assert_eq(pb_exec_kind_parse("openmp", &out), -1);
    cr_assert_eq(pb_exec_kind_parse(NULL, &out), -1);
    cr_assert_eq((int)out, (int)PB_EXEC_SPIN, "a failed parse leaves *out alone");
}

/* Every schedule word reads back as the word a row's schedule column writes (the report reads that column with
 * the same parser); a claim's N is 1..1e9, only after the kinds that take one. */
Test(exec_kinds, schedule_words_round_trip)
{
    const char *good[] = { "static", "weighted", "dynamic:1", "dynamic:64", "steal:3", "steal:1000000000" };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        pb_sched s = { .kind = PB_SCHED_KINDS };
        char back[32];
        cr_assert_eq(pb_sched_parse(good[i], &s), 0, "%s", good[i]);
        pb_sched_name(s, back, sizeof back);
        cr_expect_str_eq(back, good[i]);
    }
    pb_sched s;
    cr_assert_eq(pb_sched_parse("steal:7", &s), 0);
    cr_expect(s.kind == PB_SCHED_STEAL && s.chunk == 7);
    cr_assert_eq(pb_sched_parse("weighted", &s), 0);
    cr_expect(s.kind == PB_SCHED_WEIGHTED && s.chunk == 0);
    const char *bad[] = { "",         "stat",      "statics",     "static:3",          "dynamic",    "dynamic:",
                          "dynamic:0", "steal:-2", "steal:4x",    "steal:1000000001", "stealing:4", "Static" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_expect_eq(pb_sched_parse(bad[i], &s), -1, "'%s' refused", bad[i]);
}

/* The job the dispatch-cost measurement hands every thread runs once per thread per dispatch, whatever the
 * kind: counted here through pb_exec_run, the call pb_dispatch_cost_measure times. */
static void count_calls(void *ctx, int id, int n)
{
    (void)id;
    (void)n;
    __atomic_fetch_add((int *)ctx, 1, __ATOMIC_RELAXED);
}

Test(exec_kinds, every_kind_runs_each_thread_once)
{
    for (int k = 0; k < PB_EXEC_KINDS; k++) {
        pb_exec e;
        cr_assert_eq(pb_exec_open(&e, (pb_exec_kind)k, 2, NULL, 0, 50), 0, "%s", pb_exec_kind_names[k]);
        int calls = 0;
        for (int i = 0; i < 5; i++)
            pb_exec_run(&e, count_calls, &calls);
        cr_assert_eq(calls, 10, "%s: %d calls for 5 dispatches of 2 threads", pb_exec_kind_names[k], calls);
        cr_assert_eq(e.dispatches, 5);
        pb_exec_close(&e);
    }
}

Test(exec_kinds, dispatch_cost_measures_every_kind)
{
    for (int k = 0; k < PB_EXEC_KINDS; k++) {
        pb_dispatch_cost_point pt = { .kind = (pb_exec_kind)k, .threads = 2, .cpus = NULL, .gap_us = 0,
                                      .job_ns = 100, .spin_us = 50, .reps = 3, .batch_ms = 0.2 };
        pb_dispatch_cost_result r;
        cr_assert_eq(pb_dispatch_cost_measure(&pt, &r), 0, "%s", pb_exec_kind_names[k]);
        cr_assert_gt(r.k, 0, "%s", pb_exec_kind_names[k]);
        cr_assert(r.batch_mean_ns > 0 && r.samples.median > 0, "%s: %.1f ns, %.1f ns", pb_exec_kind_names[k],
                  r.batch_mean_ns, r.samples.median);
    }
    pb_dispatch_cost_point bad = { .kind = PB_EXEC_KINDS, .threads = 2, .reps = 3, .batch_ms = 0.2 };
    pb_dispatch_cost_result r;
    cr_assert_eq(pb_dispatch_cost_measure(&bad, &r), -1, "an unknown kind is refused before any work");
}

/* One barrier among the threads inside a job: every pool barrier and OpenMP's measure at 2 threads (a positive
 * cost per barrier and per sample); one thread, or a barrier that does not exist, is refused before any work. */
Test(exec_kinds, barrier_cost_measures_every_barrier)
{
    cr_assert_str_eq(pb_barrier_names[POOL_BARRIER_CENTRAL], "central");
    cr_assert_str_eq(pb_barrier_names[PB_BARRIER_OMP], "omp");
    cr_assert_null(pb_barrier_names[PB_BARRIER_IDS]);
    for (int b = 0; b < PB_BARRIER_IDS; b++) {
        pb_barrier_cost_point pt = { .barrier = b, .threads = 2, .reps = 3, .batch_ms = 0.2 };
        pb_dispatch_cost_result r;
        cr_assert_eq(pb_barrier_cost_measure(&pt, &r), 0, "%s", pb_barrier_names[b]);
        cr_assert_geq(r.k, 5, "%s", pb_barrier_names[b]);
        cr_assert(r.batch_mean_ns > 0 && r.samples.median > 0 && r.samples.n >= 200, "%s: %.1f ns, %.1f ns",
                  pb_barrier_names[b], r.batch_mean_ns, r.samples.median);
    }
    pb_dispatch_cost_result r;
    pb_barrier_cost_point one = { .barrier = POOL_BARRIER_CENTRAL, .threads = 1, .reps = 3, .batch_ms = 0.2 };
    cr_assert_eq(pb_barrier_cost_measure(&one, &r), -1);
    pb_barrier_cost_point bad = { .barrier = PB_BARRIER_IDS, .threads = 2, .reps = 3, .batch_ms = 0.2 };
    cr_assert_eq(pb_barrier_cost_measure(&bad, &r), -1);
}
