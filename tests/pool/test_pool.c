/* The pool's contract: coverage of rows, ids per job, reuse, life cycle, pinning, config and env. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "emulation.h"
#include "pool.h"
#include "pool_test_util.h"
#include "threads_forms.h"

static pool *make_pool(int threads, pool_policy policy)
{
    pool_config cfg = pool_config_default();
    cfg.threads = threads;
    cfg.policy = policy;
    pool *p = pool_create(&cfg);
    cr_assert_not_null(p, "pool_create(%d, %s): errno %d", threads, pool_policy_name(policy), errno);
    return p;
}

/* Ranges are checked where they run (on workers too, where a failed cr_assert is no clean test failure):
 * a bad one is counted in bad, which the test's own thread asserts after the job. */
typedef struct cover_ctx {
    atomic_int *hits;
    size_t rows, grain;
    atomic_int calls;
    atomic_int bad; /* ranges empty, past rows, or starting off the grain */
} cover_ctx;

static void cover_rows(void *arg, size_t r0, size_t r1)
{
    cover_ctx *c = arg;
    if (r0 >= r1 || r1 > c->rows || (c->grain > 1 && r0 % c->grain != 0)) {
        atomic_fetch_add(&c->bad, 1);
        return;
    }
    for (size_t r = r0; r < r1; r++)
        atomic_fetch_add(&c->hits[r], 1);
    atomic_fetch_add(&c->calls, 1);
}

Test(pool, rows_cover_every_row_once)
{
    static const int threads[] = { 1, 2, 3, 5, 8 };
    static const size_t rows[] = { 0, 1, 2, 7, 100, 1000 };
    static const size_t chunks[] = { 0, 1, 7, 16, 1000 };
    atomic_int *hits = calloc(1000, sizeof *hits);
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
            pool *p = make_pool(threads[t], (pool_policy)pol);
            for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
                for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
                    memset(hits, 0, 1000 * sizeof *hits);
                    cover_ctx ctx = { .hits = hits, .rows = rows[r] };
                    pool_rows(p, rows[r], chunks[c], cover_rows, &ctx);
                    cr_assert_eq(atomic_load(&ctx.bad), 0, "%s threads=%d rows=%zu chunk=%zu: a bad range",
                                 pool_policy_name(pol), threads[t], rows[r], chunks[c]);
                    for (size_t i = 0; i < rows[r]; i++)
                        cr_assert_eq(atomic_load(&hits[i]), 1, "%s threads=%d rows=%zu chunk=%zu: row %zu hit %d times",
                                     pool_policy_name(pol), threads[t], rows[r], chunks[c], i, atomic_load(&hits[i]));
                    if (chunks[c] == 0 && rows[r] >= (size_t)threads[t])
                        cr_assert_eq(atomic_load(&ctx.calls), threads[t], "static split: one range per thread");
                }
            }
            pool_destroy(p);
        }
    }
    free(hits);
}

/* Ranges start on the grain, rows are covered once, and a static split over units still gives each thread
 * one range. */
Test(pool, rows_grain_cover_every_row_once_on_the_grain)
{
    static const int threads[] = { 2, 3 };
    static const size_t rows[] = { 1, 31, 32, 33, 100, 1000 };
    static const size_t chunks[] = { 0, 1, 40 };
    static const size_t grains[] = { 0, 1, 32 };
    atomic_int *hits = calloc(1000, sizeof *hits);
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++)
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
            pool *p = make_pool(threads[t], (pool_policy)pol);
            for (size_t r = 0; r < sizeof rows / sizeof *rows; r++)
                for (size_t c = 0; c < 2 * sizeof chunks / sizeof *chunks; c++)
                    for (size_t g = 0; g < sizeof grains / sizeof *grains; g++) {
                        memset(hits, 0, 1000 * sizeof *hits);
                        cover_ctx ctx = { .hits = hits, .rows = rows[r], .grain = grains[g] };
                        int steal = c % 2; /* dynamic claims, or the static shares claimed and stolen from */
                        (steal ? pool_rows_steal : pool_rows_grain)(p, rows[r], chunks[c / 2], grains[g], cover_rows,
                                                                    &ctx);
                        cr_assert_eq(atomic_load(&ctx.bad), 0, "%s threads=%d rows=%zu chunk=%zu steal %d grain=%zu: a "
                                     "range empty, too long or off the grain", pool_policy_name(pol), threads[t],
                                     rows[r], chunks[c / 2], steal, grains[g]);
                        for (size_t i = 0; i < rows[r]; i++)
                            cr_assert_eq(atomic_load(&hits[i]), 1, "%s threads=%d rows=%zu chunk=%zu steal %d "
                                         "grain=%zu: row %zu", pool_policy_name(pol), threads[t], rows[r],
                                         chunks[c / 2], steal, grains[g], i);
                        size_t units = grains[g] > 1 ? (rows[r] + grains[g] - 1) / grains[g] : rows[r];
                        if (chunks[c / 2] == 0 && units >= (size_t)threads[t])
                            cr_assert_eq(atomic_load(&ctx.calls), threads[t], "static split: one range per thread");
                    }
            pool_destroy(p);
        }
    free(hits);
}

/* A stealing split's claims, on one thread: the owner walks its own share from the front, half of what is left at
 * a time down to the chunk, then takes the others' from their backs a chunk at a time, the next thread's first;
 * every unit once. */
Test(pool, steal_claims_own_front_then_others_backs)
{
    pool_share *s = aligned_alloc(64, 3 * sizeof *s);
    pool_split_steal_reset(s, 24, 3, NULL); /* shares [0, 8) [8, 16) [16, 24) */
    static const size_t want[][2] = { { 8, 12 }, { 12, 14 }, { 14, 15 }, { 15, 16 }, { 23, 24 }, { 22, 23 } };
    size_t u0, u1, n = 0;
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        cr_assert(pool_split_steal_claim(s, 1, 3, 1, &u0, &u1), "claim %zu", k);
        cr_assert(u0 == want[k][0] && u1 == want[k][1], "claim %zu: [%zu, %zu), [%zu, %zu) expected", k, u0, u1,
                  want[k][0], want[k][1]);
        n += u1 - u0;
    }
    cr_assert(pool_split_steal_claim(s, 2, 3, 1, &u0, &u1) && u0 == 16 && u1 == 19, "the owner of [16, 22): [%zu, %zu)",
              u0, u1);
    for (n += 3; pool_split_steal_claim(s, 1, 3, 1, &u0, &u1); n += u1 - u0)
        cr_assert(u1 - u0 == 1, "a thief takes a chunk");
    cr_assert_eq(n, 24, "every unit once: %zu", n);
    free(s);
}

/* The thread that runs the claim at row 100 of a 3-thread stealing split (thread 1's first) stops there until the
 * others have run every other row: they must take the rest of its share (a static split waits out the deadline). */
typedef struct stall_ctx {
    atomic_size_t done;
    atomic_int waited_out;
} stall_ctx;

static void stall_rows(void *arg, size_t r0, size_t r1)
{
    stall_ctx *c = arg;
    if (r0 == 100) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            sched_yield(); /* 3 threads may share 2 cpus */
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while (atomic_load(&c->done) < 300 - (r1 - r0) && t.tv_sec - t0.tv_sec < 10);
        if (atomic_load(&c->done) < 300 - (r1 - r0))
            atomic_store(&c->waited_out, 1);
    }
    atomic_fetch_add(&c->done, r1 - r0);
}

Test(pool, a_stalled_threads_share_is_stolen, .timeout = 60)
{
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        pool *p = make_pool(3, (pool_policy)pol);
        stall_ctx c = { 0 };
        pool_rows_steal(p, 300, 10, 1, stall_rows, &c);
        cr_assert_eq(atomic_load(&c.done), 300, "%s: every row", pool_policy_name(pol));
        cr_assert_not(atomic_load(&c.waited_out), "%s: the stalled thread's rows were not taken",
                      pool_policy_name(pol));
        pool_destroy(p);
    }
}

Test(pool, run_calls_every_id_once_per_job)
{
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        for (int n = 1; n <= PT_MAX_IDS; n++) {
            pool *p = make_pool(n, (pool_policy)pol);
            char what[64];
            snprintf(what, sizeof what, "%s n=%d", pool_policy_name(pol), n);
            for (int job = 1; job <= 50; job++)
                pt_expect_ids_once(p, n, what, job);
            pool_destroy(p);
        }
    }
}

Test(pool, one_pool_reused_10000_times)
{
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        pool *p = make_pool(3, (pool_policy)pol);
        atomic_long total = 0;
        for (int i = 0; i < 10000; i++)
            pool_run(p, pt_add_one, &total);
        cr_assert_eq(atomic_load(&total), 30000, "%s: %ld calls", pool_policy_name(pol), atomic_load(&total));
        pool_destroy(p);
    }
}

static int thread_count(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int n = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    if (f)
        fclose(f);
    return n;
}

Test(pool, create_destroy_100_times_leaves_no_thread)
{
    skip_if_emulated("qemu-user clears an exiting thread's tid (which ends pthread_join) before its host thread is "
                     "gone, so /proc/self/status may count it a moment longer");
    int before = thread_count();
    for (int i = 0; i < 100; i++) {
        pool *p = make_pool(4, (pool_policy)(i % POOL_POLICY_COUNT));
        atomic_long total = 0;
        pool_run(p, pt_add_one, &total);
        cr_assert_eq(atomic_load(&total), 4);
        pool_destroy(p);
    }
    cr_assert_eq(thread_count(), before, "threads before %d, after %d", before, thread_count());
}

Test(pool, bad_configs_fail_cleanly)
{
    pool_config cfg = pool_config_default();
    cfg.threads = 0;
    errno = 0;
    cr_assert_null(pool_create(&cfg));
    cr_assert_eq(errno, EINVAL);
    cfg.threads = POOL_MAX_THREADS + 1;
    cr_assert_null(pool_create(&cfg));
    cfg.threads = 2;
    cfg.policy = (pool_policy)99;
    cr_assert_null(pool_create(&cfg));
    cr_assert_null(pool_create(NULL));
}

Test(pool, pinning_to_a_missing_cpu_fails_cleanly)
{
    int before = thread_count();
    pool_config cfg = pool_config_default();
    cfg.threads = 2;
    int missing[] = { 0, 99999 };
    cfg.cpus = missing;
    errno = 0;
    cr_assert_null(pool_create(&cfg));
    cr_assert_eq(errno, EINVAL);
    int negative[] = { -1, 0 };
    cfg.cpus = negative;
    cr_assert_null(pool_create(&cfg));
    cr_assert_eq(thread_count(), before);
}

/* Each slot's cpu, written by the slot's own thread and read by the test's thread after pool_run. */
static void record_cpu(void *arg, int id, int n)
{
    (void)n;
    ((int *)arg)[id] = sched_getcpu();
}

/* The first n cpus of this thread's allowed mask (what pinning may use, unlike the online count): false
 * when it holds fewer. */
static bool allowed_cpus(int *out, int n)
{
    cpu_set_t set;
    int k = 0;
    cr_assert_eq(sched_getaffinity(0, sizeof set, &set), 0);
    for (int c = 0; c < CPU_SETSIZE && k < n; c++)
        if (CPU_ISSET(c, &set))
            out[k++] = c;
    return k == n;
}

/* The first two allowed cpus into c and the caller's mask into before, or the test skipped with its reason
 * printed (Criterion shows a skip's reason only when verbose). */
static void need_two_cpus(int c[2], cpu_set_t *before, const char *test)
{
    cr_assert_eq(sched_getaffinity(0, sizeof *before, before), 0);
    if (allowed_cpus(c, 2))
        return;
    printf("pool::%s: skipped: fewer than 2 cpus in this thread's allowed mask\n", test);
    cr_skip_test("fewer than 2 cpus in this thread's allowed mask");
}

static pool *make_pinned(int threads, pool_policy policy, const int *cpus)
{
    pool_config cfg = pool_config_default();
    cfg.threads = threads;
    cfg.policy = policy;
    cfg.cpus = cpus;
    pool *p = pool_create(&cfg);
    cr_assert_not_null(p, "pool_create(%d, %s, pinned): errno %d", threads, pool_policy_name(policy), errno);
    return p;
}

static void assert_mask_is(const cpu_set_t *want, const char *when)
{
    cpu_set_t now;
    cr_assert_eq(sched_getaffinity(0, sizeof now, &now), 0);
    cr_assert(CPU_EQUAL(want, &now), "%s: the caller's mask is not what it was (%d cpus, was %d)", when,
              CPU_COUNT(&now), CPU_COUNT(want));
}

/* One job on p with the caller bound: each slot's cpu into seen. */
static void run_bound(pool *p, int *seen)
{
    cr_assert_eq(pool_bind_caller(p), 0, "pool_bind_caller: errno %d", errno);
    pool_run(p, record_cpu, seen);
    pool_unbind_caller(p);
}

Test(pool, pinning_binds_worker_i_to_cpus_i)
{
    int c[2];
    cpu_set_t before;
    need_two_cpus(c, &before, "pinning_binds_worker_i_to_cpus_i");
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        int cpus[] = { c[1], c[0] };
        pool *p = make_pinned(2, (pool_policy)pol, cpus);
        assert_mask_is(&before, "after pool_create");
        int seen[2] = { -1, -1 };
        run_bound(p, seen);
        assert_mask_is(&before, "after pool_unbind_caller");
        cr_assert_eq(seen[0], c[1], "%s: caller on cpu %d", pool_policy_name(pol), seen[0]);
        cr_assert_eq(seen[1], c[0], "%s: worker on cpu %d", pool_policy_name(pol), seen[1]);
        cr_assert_eq(pool_bind_caller(p), 0);
        pool_destroy(p);
        assert_mask_is(&before, "pool_destroy of a bound pool");
    }
}

/* Two pinned pools alive at once (a harness that makes one per thread count up front): each job runs its
 * caller's share on its own pool's cpus[0], bound one after the other and nested, and the caller ends with
 * its own mask whatever the order of destruction. */
Test(pool, two_live_pools_each_run_the_caller_on_its_own_cpu)
{
    int c[2];
    cpu_set_t before;
    need_two_cpus(c, &before, "two_live_pools_each_run_the_caller_on_its_own_cpu");
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        const char *name = pool_policy_name((pool_policy)pol);
        int on_a[] = { c[0], c[1] }, on_b[] = { c[1], c[0] };
        pool *a = make_pinned(2, (pool_policy)pol, on_a), *b = make_pinned(2, (pool_policy)pol, on_b);
        int seen_a[2] = { -1, -1 }, seen_b[2] = { -1, -1 }, again_a[2] = { -1, -1 };
        run_bound(a, seen_a);
        run_bound(b, seen_b);
        cr_assert_eq(pool_bind_caller(a), 0);
        run_bound(b, seen_b); /* nested inside a's binding */
        pool_run(a, record_cpu, again_a);
        pool_unbind_caller(a);
        pool_destroy(a);
        pool_destroy(b);
        assert_mask_is(&before, "after destroying the older pool, then the newer");
        cr_assert(seen_a[0] == c[0] && seen_a[1] == c[1], "%s: pool A's slots ran on cpus %d,%d, not %d,%d", name,
                  seen_a[0], seen_a[1], c[0], c[1]);
        cr_assert(seen_b[0] == c[1] && seen_b[1] == c[0], "%s: pool B's slots ran on cpus %d,%d, not %d,%d", name,
                  seen_b[0], seen_b[1], c[1], c[0]);
        cr_assert_eq(again_a[0], c[0], "%s: after B's nested binding, A's caller ran on cpu %d", name, again_a[0]);
    }
}

Test(pool, bind_is_exclusive_and_a_no_op_without_cpus)
{
    int c[1];
    cr_assert(allowed_cpus(c, 1));
    pool *p = make_pinned(1, POOL_SPIN, c);
    cr_assert_eq(pool_bind_caller(p), 0);
    errno = 0;
    cr_assert_eq(pool_bind_caller(p), -1, "a second binding would lose the first's saved mask");
    cr_assert_eq(errno, EBUSY);
    pool_unbind_caller(p);
    pool_unbind_caller(p); /* not bound: nothing to do */
    pool_destroy(p);
    cpu_set_t before;
    sched_getaffinity(0, sizeof before, &before);
    pool *u = make_pool(2, POOL_SPIN);
    cr_assert_eq(pool_bind_caller(u), 0);
    assert_mask_is(&before, "binding a pool without cpus");
    pool_destroy(u);
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec * 1e-6;
}

/* Every policy whose waiters spin (pool_policy_spins: spin, hybrid), its budget short: idle workers sleep. */
Test(pool, idle_spin_workers_go_to_sleep)
{
    int spinning = 0;
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        if (!pool_policy_spins((pool_policy)pol))
            continue;
        spinning++;
        pool_config cfg = pool_config_default();
        cfg.threads = 2;
        cfg.policy = (pool_policy)pol;
        cfg.idle_us = cfg.spin_us = 2000; /* spin's idle budget, hybrid's spin */
        pool *p = pool_create(&cfg);
        atomic_long total = 0;
        pool_run(p, pt_add_one, &total);
        usleep(50 * 1000); /* past the idle budget */
        double c0 = cpu_seconds();
        usleep(300 * 1000);
        double used = cpu_seconds() - c0;
        cr_assert_lt(used, 0.1, "an idle %s pool burned %.3f s of cpu in 0.3 s", pool_policy_name(cfg.policy), used);
        pool_run(p, pt_add_one, &total); /* a sleeping worker wakes for the next job */
        cr_assert_eq(atomic_load(&total), 4);
        pool_destroy(p);
    }
    cr_assert_geq(spinning, 2, "spin and hybrid spin");
}

/* Which policies' waiters spin before they sleep, as the budgets say. */
Test(pool, spin_and_hybrid_spin)
{
    cr_assert(pool_policy_spins(POOL_SPIN) && pool_policy_spins(POOL_HYBRID));
    cr_assert(!pool_policy_spins(POOL_CONDVAR) && !pool_policy_spins(POOL_SPAWN));
    cr_assert(!pool_policy_spins(POOL_POLICY_COUNT));
}

Test(pool, split_gives_first_remainder_threads_one_more)
{
    size_t r0, r1, next = 0;
    for (int id = 0; id < 4; id++) {
        pool_split(10, id, 4, &r0, &r1);
        cr_assert_eq(r0, next);
        cr_assert_eq(r1 - r0, id < 2 ? 3u : 2u);
        next = r1;
    }
    cr_assert_eq(next, 10u);
    pool_split(2, 3, 4, &r0, &r1);
    cr_assert_eq(r0, r1, "more threads than items: an empty range");
}

Test(pool, policy_names_round_trip)
{
    for (int i = 0; i < POOL_POLICY_COUNT; i++) {
        pool_policy out;
        cr_assert_eq(pool_policy_parse(pool_policy_name((pool_policy)i), &out), 0);
        cr_assert_eq(out, (pool_policy)i);
    }
    pool_policy out;
    cr_assert_eq(pool_policy_parse("nope", &out), -1);
    cr_assert_null(pool_policy_name(POOL_POLICY_COUNT));
}

Test(pool_env, valid_values_override)
{
    setenv("POOLBENCH_THREADS", "3", 1);
    setenv("POOLBENCH_POLICY", "condvar", 1);
    pool_config cfg = pool_config_default();
    char err[256] = "";
    cr_assert_eq(pool_config_from_env(&cfg, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cfg.threads, 3);
    cr_assert_eq(cfg.policy, POOL_CONDVAR);
}

Test(pool_env, unset_leaves_config_alone)
{
    unsetenv("POOLBENCH_THREADS");
    unsetenv("POOLBENCH_POLICY");
    pool_config cfg = pool_config_default();
    cfg.threads = 7;
    cr_assert_eq(pool_config_from_env(&cfg, NULL, 0), 0);
    cr_assert_eq(cfg.threads, 7);
    cr_assert_eq(cfg.policy, POOL_SPIN);
}

/* The same table as the harnesses' --threads (test_cli.c): lists and ranges size the pool for their largest
 * count; anything else is refused with one line naming the variable and its value, cfg left alone. */
Test(pool_env, threads_takes_the_harness_forms)
{
    unsetenv("POOLBENCH_POLICY");
    for (size_t i = 0; i < THREADS_FORMS_N; i++) {
        const threads_form *t = &threads_forms[i];
        setenv("POOLBENCH_THREADS", t->text, 1);
        pool_config cfg = pool_config_default();
        cfg.threads = 7;
        char err[256] = "", want[64];
        errno = 0;
        int rc = pool_config_from_env(&cfg, err, sizeof err);
        if (t->largest > 0) {
            cr_assert_eq(rc, 0, "'%s' refused: %s", t->text, err);
            cr_assert_eq(cfg.threads, t->largest, "'%s' gave %d threads", t->text, cfg.threads);
            continue;
        }
        cr_assert_eq(rc, -1, "'%s' accepted (%d threads)", t->text, cfg.threads);
        cr_assert_eq(errno, EINVAL);
        snprintf(want, sizeof want, "POOLBENCH_THREADS=%s: ", t->text);
        cr_assert(strncmp(err, want, strlen(want)) == 0 && strstr(err, "1..1024"), "message: %s", err);
        cr_assert_eq(cfg.threads, 7, "'%s' changed the config", t->text);
    }
}

Test(pool_env, empty_values_are_unset)
{
    setenv("POOLBENCH_THREADS", "", 1);
    setenv("POOLBENCH_POLICY", "", 1);
    pool_config cfg = pool_config_default();
    cfg.threads = 7;
    char err[256] = "";
    cr_assert_eq(pool_config_from_env(&cfg, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cfg.threads, 7);
    cr_assert_eq(cfg.policy, POOL_SPIN);
}

Test(pool_env, bad_policy_is_an_error_and_changes_nothing)
{
    static const char *bad_policy[] = { "nope", "SPIN", "spin ", "spin,condvar" };
    for (size_t i = 0; i < sizeof bad_policy / sizeof *bad_policy; i++) {
        setenv("POOLBENCH_THREADS", "3", 1);
        setenv("POOLBENCH_POLICY", bad_policy[i], 1);
        pool_config cfg = pool_config_default();
        cfg.threads = 7;
        char err[256] = "";
        cr_assert_eq(pool_config_from_env(&cfg, err, sizeof err), -1, "'%s' accepted", bad_policy[i]);
        cr_assert(strstr(err, "POOLBENCH_POLICY=") && strstr(err, "condvar"), "message: %s", err);
        cr_assert_eq(cfg.threads, 7, "a good POOLBENCH_THREADS beside a bad policy changed the config");
    }
}
