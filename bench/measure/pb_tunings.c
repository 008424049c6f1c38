/* pb_tunings.c — the table (see pb_tunings.h). Each value is the macro its code uses, so the table cannot
 * disagree with what ran; the why is the one-line form of the comment at that macro. */
#include "pb_tunings.h"

#include <string.h>

#include "kern.h"
#include "pool.h"

const pb_tuning pb_tunings[] = {
    { "threshold_far_rt_ns", PB_FAR_RT_NS, "ns",
      "tightest round trip above it tags a pair far when the topology cannot tell (one L3's pairs stay well under)" },
    { "threshold_noisy_spread", PB_NOISY_SPREAD, "fraction of median",
      "(max - min) / median above it marks a point noisy, in every harness and the report" },
    { "threshold_memory_bound_pct", PB_MEMORY_BOUND_PCT, "% of floor",
      "a decode at or above it is memory-bound; the rest is dispatch, glue and activations at best" },
    { "threshold_saturated_factor", PB_SATURATED_FACTOR, "x 1-thread floor",
      "N threads reading less than this over one: one thread nearly saturates the memory path" },
    { "threshold_asleep_factor", PB_ASLEEP_FACTOR, "x",
      "hybrid's cost over spin's growing more than this across caller gaps: its workers fell asleep" },
    { "threshold_imbalance_points", PB_IMBALANCE_POINTS, "busy % points",
      "busiest minus least busy pinned cpu above it: the work did not spread over its cpus" },
    { "threshold_loaded_per_cpu", PB_LOADED_PER_CPU, "load average per cpu",
      "above it at start, other work shared the machine" },
    { "threshold_buffer_min_llc_factor", PB_BUFFER_MIN_LLC_FACTOR, "x last-level cache",
      "a read buffer smaller than this measures the cache, not memory" },
    { "threshold_hidden_smt_rt_ns", PB_HIDDEN_SMT_RT_NS, "ns",
      "tightest round trip below it between two cpus not known as siblings: likely SMT siblings a hypervisor hides" },
    { "threshold_budget_unexplained_pct", PB_BUDGET_UNEXPLAINED_PCT, "% of the token",
      "a budget's unexplained part above it: the point did not account for its token" },
    { "threshold_steal_noisy_pct", PB_STEAL_NOISY_PCT, "% of a cpu",
      "a sweep point's cpus losing more than this to steal: noisy, and a slow thread's wait is the machine's" },
    { "threshold_budget_sum_tol_ms", PB_BUDGET_SUM_TOL_MS, "ms",
      "sweep.csv's budget parts farther than this from the median token are refused by bench_report --check" },
    { "threshold_clock_moved_pct", PB_CLOCK_MOVED_PCT, "% of the highest clock",
      "the add chain's range over a run above it: the report says the clock moved" },
    { "threshold_tune_min_gain", PB_TUNE_MIN_GAIN, "fraction",
      "bench_tune leaves rank's kernel or the vendor's settings only for a median gain above it and the spread" },
    { "tuning_pool_default_idle_us", POOL_DEFAULT_IDLE_US, "us",
      "spin policy: an idle worker sleeps after this long without a job (pool_tuning.h)" },
    { "tuning_pool_default_spin_us", POOL_DEFAULT_SPIN_US, "us",
      "hybrid policy's default spin budget before sleeping (pool_tuning.h)" },
    { "tuning_pool_spins_before_yield", POOL_SPINS_BEFORE_YIELD, "pauses",
      "a spinning waiter yields its cpu after this many pauses, under a millisecond (pool_tuning.h)" },
    { "tuning_pool_spins_oversubscribed", POOL_SPINS_OVERSUBSCRIBED, "pauses",
      "threads outnumbering cpus: a waiter never yields, it reads the clock every this many pauses (pool_tuning.h)" },
    { "tuning_pool_oversubscribed_spin_us", POOL_OVERSUBSCRIBED_SPIN_US, "us",
      "threads outnumbering their cpus: every waiter sleeps after this long, whatever the policy (pool_tuning.h)" },
    { "tuning_pool_hot_polls", POOL_HOT_POLLS, "polls",
      "a spinning waiter polls this often without a pause before pausing between polls (pool_tuning.h)" },
    { "tuning_kern_prefetch_bytes", KERN_PREFETCH_BYTES, "bytes",
      "the weight passes prefetch this far ahead of each row they read unless wisdom sets another (kern.h)" },
    { "tuning_tune_confirm_rounds", PB_TUNE_CONFIRM_ROUNDS, "pairs",
      "candidate and default timed interleaved this many times before wisdom prefers the candidate" },
    { "tuning_weighted_ewma", PB_WEIGHTED_EWMA, "weight of the newest token",
      "--schedule weighted: each thread's measured rate is an exponentially weighted mean over tokens" },
    { "tuning_weighted_deadband", PB_WEIGHTED_DEADBAND, "fraction",
      "--schedule weighted: measured rates closer than this keep the equal split (noise, not capacity)" },
    { "tuning_sweep_dynamic_rows", PB_SWEEP_DYNAMIC_ROWS, "rows",
      "the claim of the dynamic schedule bench_sweep adds by default where cores are unequal" },
    { NULL, 0, NULL, NULL },
};

const pb_tuning *pb_tuning_find(const char *key)
{
    for (const pb_tuning *t = pb_tunings; t->key; t++)
        if (strcmp(t->key, key) == 0)
            return t;
    return NULL;
}
