/* pb_sweep.h — one point of bench_sweep: warm-up tokens, then timed decode tokens through an executor with
 * the /proc/stat sampler running across the timed ones. Measuring only: the harness prints and writes.
 *
 * Busy % per cpu: the sampler's tick-weighted mean over the timed tokens (10 ms ticks: a 0.5 s point is good
 * to a few points). A point is flagged imbalanced when its busiest and least busy pinned cpus differ by more
 * than PB_SWEEP_IMBALANCE points: a "multi-threaded" decode that ran on one core shows up here. On a shared
 * machine the figures include whatever else ran on those cpus. */
#ifndef PB_SWEEP_H
#define PB_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pb_budget.h"
#include "pb_decode.h"
#include "pb_exec.h"
#include "pb_decode_floor.h"
#include "pb_csv.h"
#include "pb_run.h"
#include "pb_schema.h"
#include "pb_stats.h"
#include "pb_sampler.h"
#include "pb_tuning.h"

#define PB_SWEEP_IMBALANCE PB_IMBALANCE_POINTS /* pb_tuning.h's 40 points, over the pinned cpus only */

/* One thread of a point, per timed token (its executor's pb_slices, the warm-up left out). */
typedef struct pb_sweep_thread {
    int cpu;
    double busy_ms;  /* in its slices per token, an emulated stretch included */
    double slice_us; /* its slices' time per dispatch */
    double wait_ms;  /* per token, inside the dispatches but not in its slices: the barriers it waited at */
    double rows_pct; /* its share of the rows */
    double factor;   /* its cpu's emulation factor (1: none) */
} pb_sweep_thread;

/* The cliff of a point: who held the barriers up. The others' wait is what the slowest cost them per token, the
 * mean over the other threads of (its busy - theirs); counted from per-thread totals, so no dispatch pays for
 * the bookkeeping (a slowest thread that changes from dispatch to dispatch makes it a lower bound). */
typedef struct pb_sweep_cliff {
    int nthr;
    pb_sweep_thread *thr;  /* nthr, in thread order (the caller first); NULL when not measured */
    int slowest;           /* index into thr */
    double wait_for_slowest_ms;
    const char *share_source; /* weighted: "measured" or "cpukinds"; NULL otherwise */
} pb_sweep_cliff;

typedef struct pb_sweep_meas {
    pb_summary ms;            /* ms per token over the timed tokens */
    pb_summary glue_ms;       /* of which serial glue: the token's time outside its dispatches (norms, activation
                               * quantization, SiLU, adds, the input) */
    pb_summary attn_ms;       /* of which attention: q/k norms, RoPE, the cache's append, its two dispatches */
    double dispatches_per_token;
    pb_sampler_result util;      /* every cpu, over the timed tokens (free with pb_sampler_result_free) */
    bool have_util;           /* false when the sampler could not run (util and busy_* are then empty/NaN) */
    double busy_mean, busy_min, busy_max; /* over the pinned cpus' mean busy % */
    bool imbalance;
    pb_sweep_cliff cliff;     /* per thread (free with pb_sweep_meas_free) */
    pb_budget_token median;   /* the median token's own pieces (pb_budget_median) */
    double mv_calls;          /* matvec dispatches per token: the budget's dispatch part counts these */
    double dispatch_cost_ns;  /* one empty dispatch of the point's executor, measured after its tokens */
} pb_sweep_meas;

/* Called after each timed token, outside its timing (NULL: nothing): bench_sweep's interleaved floor pass. */
typedef struct pb_sweep_between {
    void (*fn)(void *ctx);
    void *ctx;
} pb_sweep_between;

/* Runs warmup + tokens tokens (token numbers 0..warmup+tokens-1, so every point ends on the same token and
 * its d->logits can be compared bit for bit), with between->fn after each timed one and pb_exec_token_end after
 * every token (a weighted split's shares move only there). interval_ms: the sampler's; cpus[0..ncpus): the
 * pinned cpus. 0, or -1 with the reason in err (a job check failed). */
int pb_sweep_measure(pb_decode *d, pb_exec *ex, int warmup, int tokens, int interval_ms, const int *cpus, int ncpus,
                     const pb_sweep_between *between, pb_sweep_meas *out, char *err, size_t errlen);
void pb_sweep_meas_free(pb_sweep_meas *m);

/* The cliff from the executor's accounts now against `before` (its accounts when the timed tokens began) over
 * `tokens` tokens whose dispatches took dispatch_ns in all; cpus: the threads' cpus. Pure but for the
 * allocation: the tests feed it accounts. 0, or -1 (ENOMEM). */
int pb_sweep_cliff_of(const pb_slices *now, const pb_slices *before, const int *cpus, int tokens,
                      uint64_t dispatch_ns, long dispatches, pb_sweep_cliff *out);

/* Busy mean/min/max and the imbalance flag over the pinned cpus of a sampler result (NaN when no pinned cpu
 * has a sample). Pure: the tests feed it results. */
void pb_sweep_busy(const pb_sampler_result *u, const int *cpus, int ncpus, pb_sweep_meas *out);

/* One row of sweep.csv: a measured point and what it is held against. */
typedef struct pb_sweep_row {
    int point;                /* 1.. in measuring order; the key of cpu_util.csv */
    const char *model, *format, *kernel, *policy;
    const char *kernel_why, *kernel_stream; /* pb_kernel_why_names, pb_kernel_choice_stream (a mix: its first) */
    const char *kernel_layout;              /* kern_layout_names: the first format's */
    double repack_ms;                       /* pb_decode's: its repacked copy's making, every format's */
    uint64_t repacked_bytes;                /* and its size */
    const char *floor_why;    /* the floor's read kernel: "tuned" (wisdom's) or "all" (the best of every one) */
    char schedule[32];        /* pb_sched_name's word: "static", "steal:64", ... */
    char emulate[128];        /* the emulated cpus among the pinned ones, "cpu=factor ..."; "" none */
    const char *glue;         /* pb_glue_mode_names: serial, fused */
    const char *cpuset;       /* the --cpus name */
    int threads, batch, tokens;
    int prompt;               /* a prompt's tokens (its batch rows at successive positions); 0: a decode point */
    uint64_t macs;            /* the matvecs' multiply-adds per step */
    double roof_gmacs;        /* the compute roof on the point's cpus (NaN: not measured) */
    char cpus[256];           /* the pinned OS cpu ids, space-separated, caller first */
    int p_cores, e_cores, smt_threads; /* how the placement splits: first PUs of P / other kinds, SMT siblings */
    int oversubscribed;       /* 1: more threads than the set's PUs, wrapped around them (cpus repeats ids) */
    const char *co_runner;    /* --co-runner's spec, "" none */
    uint64_t weight_bytes;    /* one token's */
    int context;              /* positions in the KV cache before the token */
    const char *kv_type;      /* the cache's type: f16, q8_0 */
    uint64_t kv_bytes;        /* cache bytes one token reads, its own position included */
    const char *weights;      /* arena (built, or copied from the model file) or mmap (read through its mapping) */
    const char *model_file;   /* the GGUF file; "" for a preset */
    const char *arch, *type_mix; /* the file's architecture and tensors by type (pb_model_file); "" for a preset */
    pb_sweep_meas m;
    pb_decode_floor floor;           /* measured just before the point, or from memory_floor.csv */
    double rt_before, rt_after; /* round trip between the first two cpus of the set, around the point */
    char placement[8];        /* near, far, mixed, n/a */
    bool verified;            /* the last token's logits equal the first point's of that format and batch */
    pb_budget budget;         /* the median token's parts (pb_sweep_row_budget, once the floor is known) */
    double ghz_before, ghz_after;   /* the pinned cpus' mean clock around the tokens (NaN: not measured) */
    double watts_package, watts_dram; /* RAPL power over the point's timed stretch (NaN: no such zone readable) */
    char counters[512];       /* --counters: pb_counters_text over the point ("" without --counters) */
    double ipc;               /* instructions / cycles of the caller's thread (NaN: not both counted) */
} pb_sweep_row;

/* Joules per token: (package + dram) power times the median token's time, over the batch; NaN without power. */
double pb_sweep_j_per_token(const pb_sweep_row *r);

/* r's budget from its measurement and its floor (pb_budget_split). */
void pb_sweep_row_budget(pb_sweep_row *r);

/* Derived figures: tok/s = batch x 1000 / median ms; effective GB/s = the bytes a token must read (weights and
 * KV cache) per median token time; % of floor = effective / floor's median (the same statistic on both sides);
 * floor tok/s = the ceiling those bytes allow. */
double pb_sweep_tok_per_s(const pb_sweep_row *r);
double pb_sweep_gbps(const pb_sweep_row *r);
double pb_sweep_pct_of_floor(const pb_sweep_row *r);
double pb_sweep_floor_tok_per_s(const pb_sweep_row *r);
/* macs per median step against roof_gmacs (NaN without a roof). */
double pb_sweep_roof_share(const pb_sweep_row *r);

/* The readable table (stdout). */
void pb_sweep_print_table(FILE *f, const pb_sweep_row *rows, int n);

/* The CSVs, a point's rows as the point ends: sweep.csv; cpu_util.csv (bench_cpu_util's columns plus point:
 * every sampler interval of every point, t_ms = sampled time with the points laid end to end); sweep_cpu.csv
 * (one row per cpu per point: its mean over the point, and whether the point pinned it). */
#define PB_SWEEP_HEADER pb_schema_header(PB_K_SWEEP)          /* the columns: pb_schema.h */
#define PB_SWEEP_UTIL_HEADER pb_schema_header(PB_K_SWEEPUTIL)
#define PB_SWEEP_CPU_HEADER pb_schema_header(PB_K_SWEEPCPU)

/* Which dimensions the run varies (from its options, so a row's series label is known when it is measured):
 * the plot's line label names the policy plus each of these that takes more than one value. */
typedef struct pb_sweep_varies {
    bool format, schedule, glue, cpuset, batch, context, kv;
} pb_sweep_varies;

/* One token of the interleaved rounds (pb_pairs.h) that follow a block's points at each batch: pairs.csv's row. */
typedef struct pb_sweep_pair {
    const pb_sweep_row *label; /* the alternative's names (sw_label's; no figures) */
    int round, slot;
    double ms, steal_pct;
    bool aside;
    bool moved;                /* set aside because the placement changed across the round (else: steal) */
    const char *stopped;       /* "narrow" or "budget": how the block's rounds ended */
} pb_sweep_pair;

typedef struct pb_sweep_out {
    const pb_run *run;
    pb_csv *sweep, *util, *cpu; /* sweep.csv, cpu_util.csv, sweep_cpu.csv */
    pb_csv *pairs;              /* pairs.csv (NULL: no interleaved rounds) */
    pb_sweep_varies varies;
    char (*label)[160];         /* series labels in order of first appearance: series_id = index + 1 */
    int nlabels, cap;
    double util_t0;             /* cpu_util.csv's t_ms of the next point's first interval */
} pb_sweep_out;

/* Writes one measured point into the three CSVs. -1 (errno ENOMEM) when the label table cannot grow. */
int pb_sweep_out_row(pb_sweep_out *o, const pb_sweep_row *r);
/* Writes one token of the interleaved rounds into pairs.csv. 0. */
int pb_sweep_out_pair(pb_sweep_out *o, const pb_sweep_pair *pr);
void pb_sweep_out_free(pb_sweep_out *o);

#endif
