/* ThreadSanitizer harness for the executor's per-thread accounts and the weighted split: a plain main, because
 * Criterion aborts under TSan. Every worker writes its own account (plain fields) after each slice, an emulated
 * thread busy-waits inside its slice, and the caller reads every account between dispatches and installs new
 * shares between tokens (pool_set_weights: plain fields the workers read in the next job). A missing
 * happens-before between those is a race TSan reports. Every pool policy at 3 threads, static, weighted and
 * dynamic; exits non-zero when a row was not written exactly once per dispatch. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_exec.h"

#define ROWS 999

static void mark_rows(void *ctx, size_t r0, size_t r1)
{
    /* ctx is main's counts, alive for the run; threads get disjoint rows */
    int *count = ctx;
    for (size_t r = r0; r < r1; r++)
        count[r]++;
}

/* Up to 3 cpus this process may run on (fewer repeat), for the pinning the emulation needs. */
static void pick_cpus(int *cpus)
{
    cpu_set_t set;
    int n = 0;
    sched_getaffinity(0, sizeof set, &set);
    for (int c = 0; c < CPU_SETSIZE && n < 3; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    for (int i = n; i < 3; i++)
        cpus[i] = cpus[i % (n ? n : 1)];
}

/* One executor: 20 tokens of 5 dispatches, the accounts read after each; 0 when every row was counted once per
 * dispatch and the accounts add up. */
static int run(pb_exec_kind kind, pb_sched sched, const int *cpus, const pb_emulate *e)
{
    static int count[ROWS];
    memset(count, 0, sizeof count);
    pb_exec ex;
    const pb_exec_cfg cfg = { .kind = kind, .threads = 3, .cpus = cpus, .sched = sched, .spin_us = 50, .emulate = e };
    if (pb_exec_open_cfg(&ex, &cfg) != 0)
        return 2;
    unsigned long long rows = 0;
    for (int tok = 0; tok < 20; tok++) {
        for (int k = 0; k < 5; k++) {
            pb_exec_rows(&ex, ROWS, mark_rows, count);
            rows = 0;
            for (int i = 0; i < 3; i++)
                rows += ex.slices.t[i].rows; /* the caller's read of the workers' accounts */
        }
        pb_exec_token_end(&ex);
    }
    pb_exec_close(&ex);
    int bad = rows != 100ull * ROWS;
    for (int r = 0; r < ROWS; r++)
        bad |= count[r] != 100;
    return bad;
}

int main(void)
{
    int cpus[3];
    pick_cpus(cpus);
    pb_emulate e = { .n = 1, .cpu = { cpus[2] }, .factor = { 0.5 } };
    static const pb_sched scheds[] = { { PB_SCHED_STATIC, 0 }, { PB_SCHED_WEIGHTED, 0 }, { PB_SCHED_DYNAMIC, 37 } };
    int bad = 0;
    for (int pol = 0; pol < POOL_POLICY_COUNT; pol++)
        for (size_t s = 0; s < sizeof scheds / sizeof scheds[0]; s++)
            if (run((pb_exec_kind)pol, scheds[s], cpus, &e) != 0) {
                fprintf(stderr, "tsan_slices: policy %d, schedule %d: rows or accounts wrong\n", pol, (int)s);
                bad++;
            }
    printf("tsan_slices: %d of %d runs wrong\n", bad, POOL_POLICY_COUNT * 3);
    return bad != 0;
}
