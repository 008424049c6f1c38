/* The pool's contract: coverage of rows, ids per job, reuse, life cycle, pinning, config and env. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pool.h"

static pool *make_pool(int threads, pool_policy policy)
{
    pool_config cfg = pool_config_default();
    cfg.threads = threads;
    cfg.policy = policy;
    pool *p = pool_create(&cfg);
    cr_assert_not_null(p, "pool_create(%d, %s): errno %d", threads, pool_policy_name(policy), errno);
    return p;
}

typedef struct cover_ctx {
    atomic_int *hits;
    size_t rows, grain;
    atomic_int calls;
} cover_ctx;

static void cover_rows(void *arg, size_t r0, size_t r1)
{
    cover_ctx *c = arg;
    cr_assert(r0 < r1 && r1 <= c->rows, "bad range [%zu, %zu) of %zu", r0, r1, c->rows);
    cr_assert(c->grain <= 1 || r0 % c->grain == 0, "range [%zu, %zu) starts off the grain %zu", r0, r1, c->grain);
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
                for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
                    for (size_t g = 0; g < sizeof grains / sizeof *grains; g++) {
                        memset(hits, 0, 1000 * sizeof *hits);
                        cover_ctx ctx = { .hits = hits, .rows = rows[r], .grain = grains[g] };
                        pool_rows_grain(p, rows[r], chunks[c], grains[g], cover_rows, &ctx);
                        for (size_t i = 0; i < rows[r]; i++)
                            cr_assert_eq(atomic_load(&hits[i]), 1, "%s threads=%d rows=%zu chunk=%zu grain=%zu: row %zu",
                                         pool_policy_name(pol), threads[t], rows[r], chunks[c], grains[g], i);
                        size_t units = grains[g] > 1 ? (rows[r] + grains[g] - 1) / grains[g] : rows[r];
                        if (chunks[c] == 0 && units >= (size_t)threads[t])
                            cr_assert_eq(atomic_load(&ctx.calls), threads[t], "static split: one range per thread");
                    }
            pool_destroy(p);
        }
    free(hits);
}

typedef struct ids_ctx {
    atomic_int counts[8];
    atomic_int bad_n;
    int n;
} ids_ctx;

static void count_ids(void *arg, int id, int n)
{
    ids_ctx *c = arg;
    if (n != c->n || id < 0 || id >= n)
        atomic_fetch_add(&c->bad_n, 1);
    else
        atomic_fetch_add(&c->counts[id], 1);
}

Test(pool, run_calls_every_id_once_per_job)
{
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        for (int n = 1; n <= 8; n++) {
            pool *p = make_pool(n, (pool_policy)pol);
            for (int job = 1; job <= 50; job++) {
                ids_ctx c = { .n = n };
                pool_run(p, count_ids, &c);
                cr_assert_eq(atomic_load(&c.bad_n), 0);
                for (int id = 0; id < n; id++)
                    cr_assert_eq(atomic_load(&c.counts[id]), 1, "%s n=%d job %d: id %d ran %d times",
                                 pool_policy_name(pol), n, job, id, atomic_load(&c.counts[id]));
            }
            pool_destroy(p);
        }
    }
}

static void add_one(void *arg, int id, int n)
{
    (void)id;
    (void)n;
    atomic_fetch_add((atomic_long *)arg, 1);
}

Test(pool, one_pool_reused_10000_times)
{
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        pool *p = make_pool(3, (pool_policy)pol);
        atomic_long total = 0;
        for (int i = 0; i < 10000; i++)
            pool_run(p, add_one, &total);
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
    int before = thread_count();
    for (int i = 0; i < 100; i++) {
        pool *p = make_pool(4, (pool_policy)(i % POOL_POLICY_COUNT));
        atomic_long total = 0;
        pool_run(p, add_one, &total);
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

static void record_cpu(void *arg, int id, int n)
{
    (void)n;
    ((int *)arg)[id] = sched_getcpu();
}

Test(pool, pinning_binds_worker_i_to_cpus_i)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 2)
        cr_skip_test("needs 2 cpus");
    cpu_set_t before;
    sched_getaffinity(0, sizeof before, &before);
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
        int cpus[] = { 1, 0 };
        pool_config cfg = pool_config_default();
        cfg.threads = 2;
        cfg.policy = (pool_policy)pol;
        cfg.cpus = cpus;
        pool *p = pool_create(&cfg);
        cr_assert_not_null(p);
        int seen[2] = { -1, -1 };
        pool_run(p, record_cpu, seen);
        cr_assert_eq(seen[0], 1, "%s: caller on cpu %d", pool_policy_name(pol), seen[0]);
        cr_assert_eq(seen[1], 0, "%s: worker on cpu %d", pool_policy_name(pol), seen[1]);
        pool_destroy(p);
        cpu_set_t after;
        sched_getaffinity(0, sizeof after, &after);
        cr_assert(CPU_EQUAL(&before, &after), "pool_destroy restores the caller's mask");
    }
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec * 1e-6;
}

Test(pool, idle_spin_workers_go_to_sleep)
{
    pool_config cfg = pool_config_default();
    cfg.threads = 2;
    cfg.policy = POOL_SPIN;
    cfg.idle_us = 2000;
    pool *p = pool_create(&cfg);
    atomic_long total = 0;
    pool_run(p, add_one, &total);
    usleep(50 * 1000); /* past the idle budget */
    double c0 = cpu_seconds();
    usleep(300 * 1000);
    double used = cpu_seconds() - c0;
    cr_assert_lt(used, 0.1, "an idle spin pool burned %.3f s of cpu in 0.3 s", used);
    pool_run(p, add_one, &total); /* a sleeping worker wakes for the next job */
    cr_assert_eq(atomic_load(&total), 4);
    pool_destroy(p);
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

Test(pool_env, invalid_and_empty_values_are_errors)
{
    static const char *bad_threads[] = { "", "0", "-1", "abc", "3x", "1025", "99999999999999999999" };
    for (size_t i = 0; i < sizeof bad_threads / sizeof *bad_threads; i++) {
        setenv("POOLBENCH_THREADS", bad_threads[i], 1);
        pool_config cfg = pool_config_default();
        int before = cfg.threads;
        char err[256] = "";
        errno = 0;
        cr_assert_eq(pool_config_from_env(&cfg, err, sizeof err), -1, "'%s' accepted", bad_threads[i]);
        cr_assert_eq(errno, EINVAL);
        cr_assert(strstr(err, "POOLBENCH_THREADS") && strstr(err, "1..1024"), "message: %s", err);
        cr_assert_eq(cfg.threads, before);
    }
    unsetenv("POOLBENCH_THREADS");
    static const char *bad_policy[] = { "", "nope", "SPIN", "spin " };
    for (size_t i = 0; i < sizeof bad_policy / sizeof *bad_policy; i++) {
        setenv("POOLBENCH_POLICY", bad_policy[i], 1);
        pool_config cfg = pool_config_default();
        char err[256] = "";
        cr_assert_eq(pool_config_from_env(&cfg, err, sizeof err), -1, "'%s' accepted", bad_policy[i]);
        cr_assert(strstr(err, "POOLBENCH_POLICY") && strstr(err, "condvar"), "message: %s", err);
    }
}
