/* pb_schema.h — every CSV the harnesses write, its columns declared once.
 *
 * Each kind's columns are one X-macro list, X(name, type, fmt, unit, rule, meaning):
 *   name     the column's name, an identifier: the header text is #name, and PB_<KIND>_<name> its index
 *   type     TEXT, INT (long long), U64 (unsigned long long) or REAL (double): which pb_value member holds it
 *   fmt      how the writer prints it (printf, for the type above); a text field is always quoted by pb_csv_field
 *   unit     "ns", "GB/s", "%", ... ("" when none)
 *   rule     what the report accepts in the cell: NONE (text), WORD, COUNT, FIGURE or OPTIONAL (pb_cell_rule)
 *   meaning  a short phrase for docs/csv.md's table (bench_report --schema-md)
 * From the lists come: the column-index enums (PB_SWEEP_pct_of_floor), the header lines, the tables
 * pb_schema_get returns, the report's validation rules and docs/csv.md's columns table. A writer fills one
 * pb_value per column, indexed by the enum, and pb_csv_values prints the row:
 *
 *   pb_value v[PB_CPUUTIL_NCOLS];
 *   v[PB_CPUUTIL_run_id].s = run->run_id;  v[PB_CPUUTIL_cpu].i = cpu;  v[PB_CPUUTIL_busy_pct].d = busy; ...
 *   pb_csv_values(csv, pb_schema_get(PB_K_CPUUTIL), v);
 *
 * A reader names a column by the same identifier: pb_table_col(t, PB_COL(SWEEP, pct_of_floor)).
 * Changing a name, an order or a format changes the files: bump PB_SCHEMA_VERSION with it. */
#ifndef PB_SCHEMA_H
#define PB_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pb_csv.h"

#define PB_SCHEMA_VERSION 4 /* of every CSV poolbench writes; bump when a column changes meaning (2: a token's
                               * bytes count its KV cache: gbps_effective, pct_of_floor, floor_tok_per_s,
                               * ms_per_token; 3: round trips are the tightest ping-pong variant's, ratio_to_rt is
                               * against it, placement may be smt or smt?; 4: sweep.csv's budget, and its
                               * attn_ms_median leaves o's input quantization to budget_quant_ms) */

/* The CSV kinds. Those before PB_K_COUNT are what bench_report reads; the two after are written only (bench_sweep's
 * own cpu_util.csv columns, and sweep_cpu.csv), checked by bench_report --check. */
typedef enum pb_kind {
    PB_K_MACHINE,
    PB_K_POOL,
    PB_K_MEMORY,
    PB_K_TOKEN,
    PB_K_KERNELS,
    PB_K_SWEEP,
    PB_K_CPUUTIL,
    PB_K_OVERLAP,
    PB_K_LIKWID,
    PB_K_LATENCY,
    PB_K_PAIRS,
    PB_K_ROOF,
    PB_K_COUNT,
    PB_K_SWEEPUTIL = PB_K_COUNT, /* cpu_util.csv as bench_sweep writes it: bench_cpu_util's columns plus point */
    PB_K_SWEEPCPU,               /* sweep_cpu.csv */
    PB_SCHEMA_COUNT,
    /* Read, never written: another engine's results, llama.cpp's llama-bench in any of its output formats. */
    PB_K_LLAMABENCH = PB_SCHEMA_COUNT,
    PB_INPUT_COUNT
} pb_kind;

typedef enum pb_col_type { PB_T_TEXT, PB_T_INT, PB_T_U64, PB_T_REAL } pb_col_type;

/* What a cell may hold. What each rule accepts is one table (bench/io/pb_cells.c); in a harness's CSV a cell that
 * breaks its column's rule is a malformed cell: named by file, line and column, and its row left out. */
typedef enum pb_cell_rule {
    PB_CELL_NONE,     /* text: anything */
    PB_CELL_COUNT,    /* a positive integer: threads, batch, round */
    PB_CELL_FIGURE,   /* a finite number >= 0, always there: the figure a row exists for, or a setting */
    PB_CELL_OPTIONAL, /* the same, or nan or empty where the harness measured nothing (ratios, round trips) */
    PB_CELL_WORD,     /* a name the plots gather into word lists (format, policy, ...): one word, not empty, no
                         space, quote or control character */
    PB_CELL_SIGNED,   /* a finite number of either sign, or nan or empty: a difference (a part over its floor) */
    PB_CELL_FLAG,     /* 0 or 1 */
    PB_CELL_LIST,     /* finite numbers >= 0, space-separated, at least one: per-repetition samples */
} pb_cell_rule;

/* Whether a cell's text follows rule, and what the rule accepts, in words ("a positive integer"). */
bool pb_cell_ok(pb_cell_rule rule, const char *s);
const char *pb_cell_accepts(pb_cell_rule rule);
/* A cpu list as it appears in a cell ("0 1", "0,2-3", "0;1"): numbers, '-' ranges, any other separator. The count
 * (at most max) into out, -1 on a malformed range. */
int pb_cell_cpus(const char *s, int *out, int max);
/* Whether a cell's cpu list is exactly cpus[0..n), in that order (a pool's cpus against a CSV row's). */
bool pb_cell_cpus_are(const char *cell, const int *cpus, int n);

/* ---------------------------------------------------------------- the columns */

/* Every column that says why a kernel ran (pb_kernel_choice.h), and how it streamed. */
#define PB_WHY_MEANING                                                                                              \
    "tuned (wisdom), rank (no wisdom, or wisdom that kept rank's default), forced (POOLBENCH_ISA or --isa), " \
    "all (every one run)"
#define PB_STREAM_MEANING "the weights' software prefetch: t2 or nta (its hint; +l1: and into L1; @BYTES: a distance not 1536), off"

/* Every placement column: from the topology where it can tell and is trusted, else from the round trips. */
#define PB_PLACEMENT_MEANING "smt, near or far (topology); else near, far, mixed or smt? (round trips)"

/* Every row of every kind starts with the run and the machine it came from. */
#define PB_RUN_COLS(X)                                                                                              \
    X(run_id, TEXT, "%s", "", NONE, "the run's id (one per run directory)")                                         \
    X(host, TEXT, "%s", "", NONE, "the machine's host name")

#define PB_POOL_COLS(X)                                                                                             \
    PB_RUN_COLS(X)                                                                                                  \
    X(policy, TEXT, "%s", "", WORD, "dispatch policy (spin, tree, condvar, hybrid, spawn, omp); barrier-central, "  \
      "barrier-tree, barrier-dissemination, barrier-omp: one barrier inside a job; pingpong: the round trip")       \
    X(threads, INT, "%lld", "", COUNT, "threads in the pool, the caller included")                                  \
    X(cpus, TEXT, "%s", "", NONE, "OS cpu ids pinned, in order")                                                    \
    X(co_runner, TEXT, "%s", "", NONE, "the busy process beside the run, CPUS:DUTY (--co-runner; empty: none)")     \
    X(gap_us, INT, "%lld", "µs", FIGURE, "caller's serial busy work between dispatches")                            \
    X(job_ns, INT, "%lld", "ns", FIGURE, "busy work per thread per dispatch")                                       \
    X(spin_us, INT, "%lld", "µs", OPTIONAL, "hybrid's spin budget before sleeping (0 for the others)")              \
    X(reps, INT, "%lld", "", OPTIONAL, "batches measured")                                                          \
    X(k, INT, "%lld", "", OPTIONAL, "dispatches (or barriers) per batch")                                           \
    X(ns_min, REAL, "%.1f", "ns", OPTIONAL, "fastest dispatch")                                                     \
    X(ns_median, REAL, "%.1f", "ns", OPTIONAL, "median dispatch")                                                   \
    X(ns_p90, REAL, "%.1f", "ns", OPTIONAL, "90th percentile dispatch")                                             \
    X(ns_p99, REAL, "%.1f", "ns", OPTIONAL, "99th percentile dispatch")                                             \
    X(ns_max, REAL, "%.1f", "ns", OPTIONAL, "slowest dispatch")                                                     \
    X(ns_batch_mean, REAL, "%.1f", "ns", FIGURE, "median over batches of a batch's mean dispatch (or barrier)")      \
    X(ns_batch_min, REAL, "%.1f", "ns", OPTIONAL, "least batch mean")                                               \
    X(ns_batch_max, REAL, "%.1f", "ns", OPTIONAL, "greatest batch mean")                                            \
    X(rt_ns_before, REAL, "%.1f", "ns", OPTIONAL, "tightest core-to-core round trip just before the block")         \
    X(rt_ns_after, REAL, "%.1f", "ns", OPTIONAL, "the same just after")                                             \
    X(placement, TEXT, "%s", "", NONE, PB_PLACEMENT_MEANING)                                                       \
    X(ratio_to_rt, REAL, "%.3f", "x", OPTIONAL, "ns_batch_mean / rt_tight_ns")                                      \
    X(ratio_to_omp, REAL, "%.3f", "x", OPTIONAL, "ns_batch_mean / omp's at the same threads, gap and job")          \
    X(rt_1line_rmw_ns, REAL, "%.1f", "ns", OPTIONAL, "round trip, one line both sides exchange (before/after mean)") \
    X(rt_2line_store_ns, REAL, "%.1f", "ns", OPTIONAL, "round trip, two lines written by plain stores")            \
    X(rt_2line_rmw_ns, REAL, "%.1f", "ns", OPTIONAL, "round trip, two lines written by exchanges")                 \
    X(rt_tight_ns, REAL, "%.1f", "ns", OPTIONAL, "the fastest of the three: ratio_to_rt's reference")

#define PB_MEMORY_COLS(X)                                                                                           \
    PB_RUN_COLS(X)                                                                                                  \
    X(op, TEXT, "%s", "", WORD, "read, copy or write")                                                              \
    X(kernel, TEXT, "%s", "", WORD, "the streaming kernel")                                                         \
    X(threads, INT, "%lld", "", COUNT, "threads streaming")                                                         \
    X(cpus, TEXT, "%s", "", NONE, "OS cpu ids pinned, in order")                                                    \
    X(size_mib, U64, "%llu", "MiB", OPTIONAL, "buffer size")                                                        \
    X(thp_mib, U64, "%llu", "MiB", OPTIONAL, "of it in transparent huge pages")                                     \
    X(passes, INT, "%lld", "", OPTIONAL, "passes over the buffer")                                                  \
    X(gbps_best, REAL, "%.3f", "GB/s", FIGURE, "best pass")                                                         \
    X(gbps_median, REAL, "%.3f", "GB/s", OPTIONAL, "median pass")                                                   \
    X(gbps_min, REAL, "%.3f", "GB/s", OPTIONAL, "slowest pass")                                                     \
    X(rt_ns, REAL, "%.1f", "ns", OPTIONAL, "core-to-core round trip (mean of before and after)")                    \
    X(placement, TEXT, "%s", "", NONE, PB_PLACEMENT_MEANING)                                                       \
    X(why, TEXT, "%s", "", NONE, "forced (--kernel) or all (every kernel this CPU runs)")

#define PB_TOKEN_COLS(X)                                                                                            \
    PB_RUN_COLS(X)                                                                                                  \
    X(model, TEXT, "%s", "", WORD, "the model's shape")                                                             \
    X(format, TEXT, "%s", "", WORD, "weight format")                                                                \
    X(threads, INT, "%lld", "", COUNT, "threads of the floor used")                                                 \
    X(weight_bytes, U64, "%llu", "B", OPTIONAL, "weight bytes read per token")                                      \
    X(context, INT, "%lld", "", FIGURE, "positions in the KV cache before the token")                               \
    X(kv_bytes, U64, "%llu", "B", OPTIONAL, "f16 KV cache bytes read per token at that context")                    \
    X(floor_gbps, REAL, "%.3f", "GB/s", OPTIONAL, "the read floor at these threads")                                \
    X(ms_per_token, REAL, "%.4f", "ms", OPTIONAL, "(weight + KV bytes) / floor")                                    \
    X(tok_per_s_ceiling, REAL, "%.2f", "tok/s", FIGURE, "the decode ceiling the floor allows")                      \
    X(floor_kernel, TEXT, "%s", "", NONE, "the read kernel of the floor")                                           \
    X(placement, TEXT, "%s", "", NONE, PB_PLACEMENT_MEANING)

#define PB_KERNELS_COLS(X)                                                                                          \
    PB_RUN_COLS(X)                                                                                                  \
    X(format, TEXT, "%s", "", WORD, "weight format")                                                                \
    X(variant, TEXT, "%s", "", WORD, "kernel variant (scalar, avx2, avx512, ...)")                                  \
    X(rows, INT, "%lld", "", OPTIONAL, "matrix rows")                                                               \
    X(cols, INT, "%lld", "", OPTIONAL, "matrix columns")                                                            \
    X(batch, INT, "%lld", "", COUNT, "activation vectors per pass")                                                 \
    X(threads, INT, "%lld", "", COUNT, "threads")                                                                   \
    X(bytes, U64, "%llu", "B", OPTIONAL, "weight bytes")                                                            \
    X(level, TEXT, "%s", "", WORD, "where the weights live: l2, l3 or dram")                                        \
    X(gbps_min, REAL, "%.3f", "GB/s", OPTIONAL, "slowest sample")                                                   \
    X(gbps_median, REAL, "%.3f", "GB/s", FIGURE, "median sample")                                                   \
    X(gbps_max, REAL, "%.3f", "GB/s", OPTIONAL, "fastest sample")                                                   \
    X(gbps_act_median, REAL, "%.3f", "GB/s", OPTIONAL, "median sample quantizing the activation before every call") \
    X(gops_median, REAL, "%.3f", "Gop/s", OPTIONAL, "multiply-adds per second, median sample")                      \
    X(ns_per_row, REAL, "%.2f", "ns", OPTIONAL, "per weight row, median sample")                                    \
    X(emulate_slow, TEXT, "%s", "", NONE, "EMULATED slow cpus among the pool's, cpu=factor (empty: none)")     \
    X(ghz_before, REAL, "%.3f", "GHz", OPTIONAL, "clock just before the point: a dependent add chain on each cpu, mean") \
    X(ghz_after, REAL, "%.3f", "GHz", OPTIONAL, "the same just after the point")                                   \
    X(cycles_per_block, REAL, "%.2f", "cycles", OPTIONAL, "per weight block and thread, at the mean of the two clocks") \
    X(counters, TEXT, "%s", "", NONE, "--counters: name=count of the caller's thread over the point, or name=unsupported(why)") \
    X(ipc, REAL, "%.3f", "", OPTIONAL, "instructions / cycles of the caller's thread (empty: not both counted)") \
    X(why, TEXT, "%s", "", NONE, PB_WHY_MEANING)                                                                    \
    X(stream, TEXT, "%s", "", NONE, PB_STREAM_MEANING)                                                              \
    X(layout, TEXT, "%s", "", NONE, "the weights' layout: file, or the name of one repacked at load")             \
    X(repack_ms, REAL, "%.3f", "ms", OPTIONAL, "time to repack the matrix into that layout (empty: file)")         \
    X(layout_bytes, U64, "%llu", "B", OPTIONAL, "bytes the matrix takes in that layout")                       \
    X(read_gbps, REAL, "%.3f", "GB/s", OPTIONAL,                                                                    \
      "dram, 1 thread, batch 1: the floor's read of the same buffer just before the point (empty elsewhere)")      \
    X(read_kernel, TEXT, "%s", "", NONE, "the read kernel behind read_gbps (pb_memread's best here; empty: none)") \
    X(macs_per_byte, REAL, "%.3f", "MAC/B", OPTIONAL,                                                               \
      "the format's multiply-adds per weight byte and activation row (its arithmetic intensity: a block's values / its bytes)") \
    X(roof_gmacs, REAL, "%.2f", "GMAC/s", OPTIONAL,                                                                 \
      "the compute roof of the ISA that ran at these threads (roof.csv's gmacs_max: int8, or f32 for f32 and f16; empty: none measured)") \
    X(roof_share, REAL, "%.3f", "", OPTIONAL, "gops_median / roof_gmacs: the share of the compute roof the point reached")

#define PB_SWEEP_COLS(X)                                                                                            \
    PB_RUN_COLS(X)                                                                                                  \
    X(point, INT, "%lld", "", OPTIONAL, "the point's number in the run")                                            \
    X(model, TEXT, "%s", "", WORD, "the model's shape")                                                             \
    X(model_file, TEXT, "%s", "", NONE, "the GGUF file of the weights (empty: a preset's synthetic weights)")       \
    X(weights, TEXT, "%s", "", NONE, "arena (built or copied into huge pages) or mmap (read in the file's mapping)") \
    X(arch, TEXT, "%s", "", NONE, "the model file's architecture: llama, qwen2, qwen3 (empty: a preset)")           \
    X(type_mix, TEXT, "%s", "", NONE, "the file's tensors by ggml type, type:tensors:MB space-separated")             \
    X(format, TEXT, "%s", "", WORD, "weight format")                                                                \
    X(kernel, TEXT, "%s", "", NONE, "kernel variant")                                                               \
    X(policy, TEXT, "%s", "", WORD, "executor: a pool policy, tree (spin, grouped by cache) or omp")               \
    X(schedule, TEXT, "%s", "", WORD, "how rows are split over threads")                                            \
    X(glue, TEXT, "%s", "", WORD, "serial or fused glue")                                                           \
    X(threads, INT, "%lld", "", COUNT, "threads")                                                                   \
    X(cpuset, TEXT, "%s", "", WORD, "the named core set")                                                           \
    X(cpus, TEXT, "%s", "", NONE, "OS cpu ids pinned, in order")                                                    \
    X(batch, INT, "%lld", "", COUNT, "tokens decoded together (M)")                                                 \
    X(tokens, INT, "%lld", "", OPTIONAL, "timed tokens")                                                            \
    X(ms_per_token_min, REAL, "%.4f", "ms", OPTIONAL, "fastest token")                                              \
    X(ms_per_token_median, REAL, "%.4f", "ms", OPTIONAL, "median token")                                            \
    X(ms_per_token_max, REAL, "%.4f", "ms", OPTIONAL, "slowest token")                                              \
    X(tok_per_s, REAL, "%.3f", "tok/s", FIGURE, "batch x 1000 / median ms")                                         \
    X(weight_bytes, U64, "%llu", "B", OPTIONAL, "weight bytes read per token")                                      \
    X(context, INT, "%lld", "", FIGURE, "positions in the KV cache before the token")                               \
    X(kv_type, TEXT, "%s", "", WORD, "the KV cache's type (f16, q8_0)")                                             \
    X(kv_bytes, U64, "%llu", "B", OPTIONAL, "KV cache bytes read per token (its own position included)")            \
    X(gbps_effective, REAL, "%.3f", "GB/s", OPTIONAL, "weight + KV bytes per median token")                         \
    X(floor_gbps, REAL, "%.3f", "GB/s", OPTIONAL, "median read floor through the same cpus")                        \
    X(floor_gbps_best, REAL, "%.3f", "GB/s", OPTIONAL, "best read floor through the same cpus")                     \
    X(floor_kernel, TEXT, "%s", "", NONE, "the read kernel of the floor")                                           \
    X(floor_source, TEXT, "%s", "", NONE, "interleaved or measured")                                                \
    X(pct_of_floor, REAL, "%.2f", "%", OPTIONAL, "gbps_effective / floor_gbps")                                     \
    X(floor_tok_per_s, REAL, "%.3f", "tok/s", OPTIONAL, "the ceiling the floor allows")                             \
    X(dispatches_per_token, REAL, "%.1f", "", OPTIONAL, "pool dispatches per token")                                \
    X(glue_ms_median, REAL, "%.4f", "ms", OPTIONAL, "serial time outside the dispatches, median token")             \
    X(glue_pct, REAL, "%.2f", "%", OPTIONAL, "glue_ms_median / median token")                                       \
    X(attn_ms_median, REAL, "%.4f", "ms", OPTIONAL, "attention (norms, RoPE, append, its dispatches), median token") \
    X(attn_pct, REAL, "%.2f", "%", OPTIONAL, "attn_ms_median / median token")                                       \
    X(busy_pct_mean, REAL, "%.1f", "%", OPTIONAL, "mean busy of the pinned cpus")                                   \
    X(busy_pct_min, REAL, "%.1f", "%", OPTIONAL, "least busy pinned cpu")                                           \
    X(busy_pct_max, REAL, "%.1f", "%", OPTIONAL, "busiest pinned cpu")                                              \
    X(imbalance_flag, INT, "%lld", "", OPTIONAL, "1 when busiest and least busy differ too much")                   \
    X(rt_ns, REAL, "%.1f", "ns", OPTIONAL, "round trip between the set's first two cpus (mean)")                    \
    X(rt_ns_before, REAL, "%.1f", "ns", OPTIONAL, "the round trip before the point")                                \
    X(rt_ns_after, REAL, "%.1f", "ns", OPTIONAL, "the round trip after the point")                                  \
    X(placement, TEXT, "%s", "", NONE, PB_PLACEMENT_MEANING)                                                       \
    X(p_cores, INT, "%lld", "", OPTIONAL, "performance cores pinned")                                               \
    X(e_cores, INT, "%lld", "", OPTIONAL, "efficiency cores pinned")                                                \
    X(smt_threads, INT, "%lld", "", OPTIONAL, "threads sharing a core with another")                                \
    X(oversubscribed, INT, "%lld", "", OPTIONAL, "1 when threads outnumber the set's PUs (they take its cpus in turn)") \
    X(co_runner, TEXT, "%s", "", NONE, "the busy process beside the run, CPUS:DUTY (--co-runner; empty: none)")     \
    X(verified, INT, "%lld", "", OPTIONAL, "1 when the logits equal the first point's with the same kernels")         \
    X(series_id, INT, "%lld", "", OPTIONAL, "the plot line's number")                                               \
    X(series, TEXT, "%s", "", NONE, "the plot line's label")                                                        \
    PB_SWEEP_CLIFF_COLS(X)                                                                                          \
    X(dispatch_cost_ns, REAL, "%.1f", "ns", OPTIONAL, "an empty dispatch of the point's executor beside its tokens, median") \
    PB_BUDGET_PARTS(PB_BUDGET_COL, X)                                                                              \
    X(ghz_before, REAL, "%.3f", "GHz", OPTIONAL, "clock of the pinned cpus just before the tokens (add chain, mean; empty for omp)") \
    X(ghz_after, REAL, "%.3f", "GHz", OPTIONAL, "the same just after the tokens")                                  \
    X(watts_package, REAL, "%.2f", "W", OPTIONAL, "RAPL package power over the point (empty: no readable zone)")     \
    X(watts_dram, REAL, "%.2f", "W", OPTIONAL, "RAPL dram power over the point (empty: no dram zone)")             \
    X(j_per_token, REAL, "%.4f", "J", OPTIONAL, "(package + dram) watts x the median token's time / batch") \
    PB_SWEEP_WHY_COLS(X)                                                                                            \
    PB_SWEEP_ROOF_COLS(X)

/* The prompt and the compute roof, sweep.csv's newest columns (older runs lack them: pb_schema.older). */
#define PB_SWEEP_ROOF_COLS(X)                                                                                       \
    X(prompt, INT, "%lld", "", OPTIONAL, "a prompt's tokens, processed as one step of batch rows at successive "   \
      "positions (0: a decode point; tok_per_s is then the prompt's pp, ms_per_token_median its time to first token)") \
    X(macs, U64, "%llu", "MAC", OPTIONAL, "the matvecs' multiply-adds per step (a prompt's lm_head over its last row alone)") \
    X(roof_gmacs, REAL, "%.2f", "GMAC/s", OPTIONAL, "the compute roof of the best ISA this run may use (int8; f32 "  \
      "for f32 and f16 weights) on the point's cpus: the best run of its block, roof.csv and earlier blocks")      \
    X(roof_share, REAL, "%.4f", "", OPTIONAL, "macs per median step / roof_gmacs: the share of the compute roof reached") \
    X(budget_roof_ms, REAL, "%.4f", "ms", OPTIONAL, "the budget's part at the compute roof: macs at roof_gmacs where " \
      "that takes longer than the weights at the floor (then budget_floor_ms holds the KV bytes alone), else 0")

/* A token's time budget (pb_budget.h): the median token split into parts that add up to its ms_per_token_median,
 * each measured on its own in the same point, in the order a stacked bar draws them. P(X, part, rule, meaning);
 * sweep.csv's column of a part is budget_<part>_ms, its index in a budget PB_BUDGET_<part>. */
#define PB_BUDGET_PARTS(P, X)                                                                                       \
    P(X, floor, OPTIONAL, "the token's weight and KV bytes at the read floor")                                      \
    P(X, kernel, SIGNED, "the matvec slices' mean busy time beyond their weights at the floor")                    \
    P(X, quant, OPTIONAL, "activations quantized on the calling thread")                                            \
    P(X, glue, OPTIONAL, "the other serial glue: norms, residual adds, SiLU, the input")                             \
    P(X, attn, SIGNED, "attention beyond its KV bytes at the floor")                                                \
    P(X, dispatch, OPTIONAL, "matvec dispatches x dispatch_cost_ns")                                                \
    P(X, wait, OPTIONAL, "the matvecs' slowest thread's busy time beyond the mean")                                 \
    P(X, unexplained, SIGNED, "the token minus the parts above")
#define PB_BUDGET_COL(X, part, rule, meaning) X(budget_##part##_ms, REAL, "%.4f", "ms", rule, meaning)

/* Why each kernel of a sweep point ran (bench_tune's wisdom, pb_kernel_choice.h): the matvec kernel's, and the
 * floor's. */
#define PB_SWEEP_WHY_COLS(X)                                                                                        \
    X(kernel_why, TEXT, "%s", "", NONE, PB_WHY_MEANING)                                                             \
    X(kernel_stream, TEXT, "%s", "", NONE, PB_STREAM_MEANING)                                                       \
    X(floor_why, TEXT, "%s", "", NONE, "the floor's read kernel: all (the best of every one, measured beside the decode)") \
    X(kernel_layout, TEXT, "%s", "", NONE, "the weights' layout the kernel read: file, or one repacked at load") \
    X(counters, TEXT, "%s", "", NONE, "--counters: name=count of the caller's thread over the point (its warm-up and " \
      "the floor passes between its tokens included), or name=unsupported(why)")                                    \
    X(ipc, REAL, "%.3f", "", OPTIONAL, "instructions / cycles of the caller's thread over the point (empty: not both counted)") \
    X(repack_ms, REAL, "%.3f", "ms", OPTIONAL, "the decode's copy of its matrices at load, kernel_layout's " \
      "re-laid (0: file layout)")                                                                                 \
    X(repacked_bytes, U64, "%llu", "B", OPTIONAL, "the re-laid copy of a repacked format's matrices, held " \
      "beside the weights; the tokens and their floor read it and the others' matrices in place (0: file layout)")

/* The unequal-core columns of sweep.csv: the emulation, the shares, and each thread's part of a token (lists in
 * thread order, the caller first, like cpus). */
#define PB_SWEEP_CLIFF_COLS(X)                                                                                      \
    X(emulate_slow, TEXT, "%s", "", NONE, "EMULATED slow cpus among the pinned, cpu=factor (empty: none)")          \
    X(share_source, TEXT, "%s", "", NONE, "weighted: its shares measured in the run or from cpukinds")              \
    X(thread_rows_pct, TEXT, "%s", "%", NONE, "each thread's share of the rows")                                    \
    X(thread_busy_ms, TEXT, "%s", "ms", NONE, "each thread's time in its slices per token")                         \
    X(thread_slice_us, TEXT, "%s", "µs", NONE, "each thread's time in its slices per dispatch")                     \
    X(thread_wait_ms, TEXT, "%s", "ms", NONE, "each thread's time at the barriers per token")                       \
    X(slowest_thread, INT, "%lld", "", OPTIONAL, "the thread with the most busy time (0: the caller)")             \
    X(slowest_cpu, INT, "%lld", "", OPTIONAL, "its cpu")                                                            \
    X(wait_for_slowest_ms, REAL, "%.4f", "ms", OPTIONAL, "the others' mean wait for it per token")

/* cpu_util.csv: bench_cpu_util prints percentages with PCT; bench_sweep with its own and adds point. */
#define PB_UTIL_COLS(X, PCT)                                                                                        \
    PB_RUN_COLS(X)                                                                                                  \
    X(t_ms, REAL, "%.1f", "ms", OPTIONAL, "end of the sample's interval")                                           \
    X(cpu, INT, "%lld", "", FIGURE, "OS cpu id")                                                                    \
    X(busy_pct, REAL, PCT, "%", OPTIONAL, "busy share of the interval")                                             \
    X(user_pct, REAL, PCT, "%", OPTIONAL, "user share")                                                             \
    X(sys_pct, REAL, PCT, "%", OPTIONAL, "system share")                                                            \
    X(steal_pct, REAL, PCT, "%", OPTIONAL, "stolen by the hypervisor")
#define PB_CPUUTIL_COLS(X) PB_UTIL_COLS(X, "%.2f")
#define PB_SWEEPUTIL_COLS(X)                                                                                        \
    PB_UTIL_COLS(X, "%.1f")                                                                                         \
    X(point, INT, "%lld", "", OPTIONAL, "the sweep point sampled")

#define PB_SWEEPCPU_COLS(X)                                                                                         \
    PB_RUN_COLS(X)                                                                                                  \
    X(point, INT, "%lld", "", OPTIONAL, "the sweep point")                                                          \
    X(cpu, INT, "%lld", "", FIGURE, "OS cpu id")                                                                    \
    X(pinned, INT, "%lld", "", FIGURE, "1 when the point pinned a thread to it")                                    \
    X(busy_pct, REAL, "%.1f", "%", OPTIONAL, "mean busy share over the point")                                      \
    X(user_pct, REAL, "%.1f", "%", OPTIONAL, "user share")                                                          \
    X(sys_pct, REAL, "%.1f", "%", OPTIONAL, "system share")                                                         \
    X(steal_pct, REAL, "%.1f", "%", OPTIONAL, "stolen by the hypervisor")

/* pairs.csv: a sweep block's alternatives (policy x schedule x glue at one format, core set, threads, batch and
 * depth) measured interleaved, one token each a round in an order that changes every round; the report pairs two
 * alternatives' tokens of the same round (pb_paired.h). */
#define PB_PAIRS_COLS(X)                                                                                            \
    PB_RUN_COLS(X)                                                                                                  \
    X(model, TEXT, "%s", "", WORD, "the model's shape")                                                             \
    X(format, TEXT, "%s", "", WORD, "weight format")                                                                \
    X(policy, TEXT, "%s", "", WORD, "executor: a pool policy, tree (spin, grouped by cache) or omp")               \
    X(schedule, TEXT, "%s", "", WORD, "how rows are split over threads")                                            \
    X(glue, TEXT, "%s", "", WORD, "serial or fused glue")                                                           \
    X(threads, INT, "%lld", "", COUNT, "threads")                                                                   \
    X(cpuset, TEXT, "%s", "", WORD, "the named core set")                                                           \
    X(batch, INT, "%lld", "", COUNT, "tokens decoded together (M)")                                                 \
    X(context, INT, "%lld", "", FIGURE, "positions in the KV cache before the token")                               \
    X(kv_type, TEXT, "%s", "", WORD, "the KV cache's type (f16, q8_0)")                                             \
    X(round, INT, "%lld", "", COUNT, "the round: every alternative of the block once, in an order that changes")    \
    X(slot, INT, "%lld", "", FIGURE, "the alternative's place in the round's order (0: first)")                     \
    X(ms_per_token, REAL, "%.4f", "ms", FIGURE, "the token's time")                                                 \
    X(steal_pct, REAL, "%.1f", "%", OPTIONAL, "stolen by the hypervisor from its pinned cpus over the token")       \
    X(set_aside, INT, "%lld", "", FLAG, "1: the host spoiled it (steal over the noisy threshold, or moved); in no interval") \
    X(moved, INT, "%lld", "", FLAG, "1: the round trip's placement changed across its round (every token of it set aside)") \
    X(stopped, TEXT, "%s", "", WORD, "why the block's rounds ended: narrow (every interval within the target) or budget")

/* roof.csv: the compute roof (bench_kernels): multiply-accumulates a second through each ISA's best instruction,
 * operands in registers, every thread at once (pb_roof.h). */
#define PB_ROOF_COLS(X)                                                                                             \
    PB_RUN_COLS(X)                                                                                                  \
    X(isa, TEXT, "%s", "", WORD, "the ISA asked")                                                                   \
    X(ran, TEXT, "%s", "", WORD, "the ISA whose kernel ran (the next one down where the asked one has none)")       \
    X(op, TEXT, "%s", "", WORD, "int8 (int8 products summed into int32) or f32 (fused multiply-adds)")            \
    X(instr, TEXT, "%s", "", NONE, "the instruction that does them")                                                \
    X(threads, INT, "%lld", "", COUNT, "threads, one a cpu")                                                        \
    X(cpus, TEXT, "%s", "", NONE, "OS cpu ids pinned, in order")                                                    \
    X(gmacs_median, REAL, "%.2f", "GMAC/s", FIGURE, "multiply-accumulates a second, all threads, median run")      \
    X(gmacs_min, REAL, "%.2f", "GMAC/s", FIGURE, "slowest run")                                                     \
    X(gmacs_max, REAL, "%.2f", "GMAC/s", FIGURE, "fastest run: the roof (steal lowers a run, never raises it)")                                                     \
    X(gflops, REAL, "%.2f", "GFLOP/s", FIGURE, "2 x gmacs_max (a multiply and an add each)")                    \
    X(ghz, REAL, "%.3f", "GHz", OPTIONAL, "the pinned cpus' mean clock just after (add chain)")                    \
    X(macs_per_cycle, REAL, "%.2f", "", OPTIONAL, "per thread: gmacs_max / threads / ghz")

#define PB_OVERLAP_COLS(X)                                                                                          \
    PB_RUN_COLS(X)                                                                                                  \
    X(mode, TEXT, "%s", "", WORD, "serial, async-spawn, async-inherit or async-pinned")                             \
    X(ratio, REAL, "%.3g", "", FIGURE, "prep / job time asked for")                                                 \
    X(prep_us, REAL, "%.2f", "µs", OPTIONAL, "caller's prep, median")                                               \
    X(job_us, REAL, "%.2f", "µs", OPTIONAL, "helper's job, median")                                                 \
    X(us_per_step, REAL, "%.2f", "µs", OPTIONAL, "one step, median rep")                                            \
    X(speedup, REAL, "%.4f", "x", FIGURE, "serial / this mode")                                                     \
    X(pct_of_ceiling, REAL, "%.1f", "%", OPTIONAL, "speedup / ceiling")                                             \
    X(cpus, TEXT, "%s", "", NONE, "caller's cpu, then the helper's")                                                \
    X(ceiling, REAL, "%.4f", "x", OPTIONAL, "serial / max(prep, job)")                                              \
    X(us_per_step_min, REAL, "%.2f", "µs", OPTIONAL, "fastest rep")                                                 \
    X(us_per_step_max, REAL, "%.2f", "µs", OPTIONAL, "slowest rep")                                                 \
    X(prep_ratio_measured, REAL, "%.3f", "", OPTIONAL, "prep / job time reached")                                   \
    X(steps, INT, "%lld", "", OPTIONAL, "steps per rep")                                                            \
    X(reps, INT, "%lld", "", OPTIONAL, "reps")                                                                      \
    X(rows, INT, "%lld", "", OPTIONAL, "matrix rows")                                                               \
    X(cols, INT, "%lld", "", OPTIONAL, "matrix columns")                                                            \
    X(prep_n, INT, "%lld", "", OPTIONAL, "prep work units per step")                                                \
    X(variant, TEXT, "%s", "", NONE, "kernel variant")                                                              \
    X(rt_ns, REAL, "%.1f", "ns", OPTIONAL, "round trip between caller and helper")                                  \
    X(placement, TEXT, "%s", "", NONE, PB_PLACEMENT_MEANING)                                                       \
    X(why, TEXT, "%s", "", NONE, PB_WHY_MEANING)

/* likwid_compare.csv: written by scripts/likwid_compare.sh, which takes its header from bench_report --header. */
#define PB_LIKWID_COLS(X)                                                                                           \
    X(round, INT, "%lld", "", COUNT, "round of the back-to-back comparison")                                        \
    X(threads, INT, "%lld", "", COUNT, "threads")                                                                   \
    X(cpus, TEXT, "%s", "", NONE, "OS cpu ids pinned")                                                              \
    X(tool, TEXT, "%s", "", NONE, "likwid or poolbench")                                                            \
    X(kernel, TEXT, "%s", "", NONE, "the streaming kernel")                                                         \
    X(gbps, REAL, "%.3f", "GB/s", OPTIONAL, "likwid-bench's figure")                                                \
    X(gbps_median, REAL, "%.3f", "GB/s", OPTIONAL, "poolbench's median pass")                                       \
    X(gbps_best, REAL, "%.3f", "GB/s", OPTIONAL, "poolbench's best pass")                                           \
    X(gbps_min, REAL, "%.3f", "GB/s", OPTIONAL, "poolbench's slowest pass")                                         \
    X(rt_ns, REAL, "%.1f", "ns", OPTIONAL, "core-to-core round trip")                                               \
    X(placement, TEXT, "%s", "", NONE, "near, far or mixed")

/* bench_memory_floor --latency: a pointer chase on one cpu, idle by working set (the ladder) and over the whole
 * buffer while the set's other cpus stream reads at a duty (the loaded curve). */
#define PB_LATENCY_COLS(X)                                                                                          \
    PB_RUN_COLS(X)                                                                                                  \
    X(phase, TEXT, "%s", "", WORD, "ladder (idle, by working set) or loaded (the other cpus streaming reads)")      \
    X(level, TEXT, "%s", "", WORD, "the cache level that holds the working set (L1, L2, L3: the topology's) or DRAM") \
    X(size_kib, U64, "%llu", "KiB", FIGURE, "working set chased: one random cycle through every line")              \
    X(thp_mib, U64, "%llu", "MiB", OPTIONAL, "of the buffer in transparent huge pages (0: none granted)")            \
    X(cpu, INT, "%lld", "", FIGURE, "OS cpu id of the chase")                                                       \
    X(duty_pct, INT, "%lld", "%", FIGURE, "streamers busy this share of every 100 µs (0: idle)")                    \
    X(load_threads, INT, "%lld", "", FIGURE, "cpus streaming reads beside the chase")                               \
    X(load_cpus, TEXT, "%s", "", NONE, "their OS cpu ids (empty: idle)")                                            \
    X(load_kernel, TEXT, "%s", "", NONE, "their read kernel (empty: idle)")                                         \
    X(hops, U64, "%llu", "", OPTIONAL, "dependent loads per round (about 10 ms of them at the warm-up's pace)")      \
    X(rounds, INT, "%lld", "", OPTIONAL, "timed rounds, after a warm-up")                                           \
    X(run_pct, REAL, "%.1f", "%", OPTIONAL, "of the rounds' wall time, the chase's thread on its cpu (< 100: preempted)") \
    X(ns_median, REAL, "%.2f", "ns", FIGURE, "median round's ns per hop of the chase's own cpu time: the latency")   \
    X(ns_min, REAL, "%.2f", "ns", OPTIONAL, "fastest round")                                                        \
    X(ns_max, REAL, "%.2f", "ns", OPTIONAL, "slowest round")                                                        \
    X(load_gbps, REAL, "%.3f", "GB/s", OPTIONAL, "what the streamers read (0: idle)")                               \
    X(total_gbps, REAL, "%.3f", "GB/s", OPTIONAL, "load_gbps and the chase's own lines (64 B a hop)")               \
    X(ghz_before, REAL, "%.3f", "GHz", OPTIONAL, "the chase cpu's clock just before the point")                     \
    X(ghz_after, REAL, "%.3f", "GHz", OPTIONAL, "the same just after")                                              \
    X(cycles_median, REAL, "%.1f", "", OPTIONAL, "ns_median in cycles of the mean of those clocks")

/* llama-bench's results (llama.cpp, tools/llama-bench): the fields the reader checks, whichever of its formats
 * (csv, json, jsonl, sql, md) they come in; other fields are read past. Its md table carries only some of them. */
#define PB_LLAMABENCH_COLS(X)                                                                                       \
    X(build_commit, TEXT, "%s", "", NONE, "llama.cpp's commit")                                                     \
    X(build_number, INT, "%lld", "", FIGURE, "llama.cpp's build number")                                            \
    X(cpu_info, TEXT, "%s", "", NONE, "the CPU as llama.cpp names it")                                              \
    X(backends, TEXT, "%s", "", NONE, "the ggml backends that ran")                                                 \
    X(model_filename, TEXT, "%s", "", NONE, "the GGUF file")                                                        \
    X(model_type, TEXT, "%s", "", NONE, "llama.cpp's name for the model: architecture, size, type")                 \
    X(model_size, U64, "%llu", "B", FIGURE, "bytes of the model's tensors")                                         \
    X(model_n_params, U64, "%llu", "", FIGURE, "the model's parameters")                                            \
    X(n_batch, INT, "%lld", "", COUNT, "logical batch")                                                             \
    X(n_ubatch, INT, "%lld", "", COUNT, "physical batch")                                                           \
    X(n_threads, INT, "%lld", "", COUNT, "threads")                                                                 \
    X(cpu_mask, TEXT, "%s", "", NONE, "the cpus allowed, a hex mask (0x0: any)")                                    \
    X(cpu_strict, INT, "%lld", "", FLAG, "1 when each thread was pinned to a cpu of the mask")                      \
    X(poll, INT, "%lld", "", FIGURE, "how long a worker polls before it sleeps (0-100)")                            \
    X(type_k, TEXT, "%s", "", NONE, "the KV cache's K type")                                                        \
    X(type_v, TEXT, "%s", "", NONE, "the KV cache's V type")                                                        \
    X(n_prompt, INT, "%lld", "", FIGURE, "prompt tokens processed (0: a generation test)")                          \
    X(n_gen, INT, "%lld", "", FIGURE, "tokens generated one at a time (0: a prompt test)")                          \
    X(n_depth, INT, "%lld", "", FIGURE, "tokens in the KV cache before the test")                                   \
    X(test_time, TEXT, "%s", "", NONE, "when the test ran (UTC)")                                                   \
    X(avg_ns, U64, "%llu", "ns", FIGURE, "mean time of a repetition")                                               \
    X(stddev_ns, U64, "%llu", "ns", FIGURE, "its standard deviation")                                               \
    X(avg_ts, REAL, "%.6f", "tok/s", FIGURE, "mean tokens per second over the repetitions")                         \
    X(stddev_ts, REAL, "%.6f", "tok/s", FIGURE, "its standard deviation")                                           \
    X(samples_ns, TEXT, "%s", "ns", LIST, "each repetition's time (json and jsonl)")                                \
    X(samples_ts, TEXT, "%s", "tok/s", LIST, "each repetition's tokens per second (json and jsonl)")

/* machine.csv is key,value; its keys are declared the same way (the value's type, format and rule). */
#define PB_MACHINE_COLS(X)                                                                                          \
    X(key, TEXT, "%s", "", NONE, "a machine fact's name (see the keys below)")                                      \
    X(value, TEXT, "%s", "", NONE, "its value")

#define PB_MACHINE_KEYS(X)                                                                                          \
    X(run_id, TEXT, "%s", "", NONE, "the run's id")                                                                 \
    X(host, TEXT, "%s", "", NONE, "host name")                                                                      \
    X(schema_version, INT, "%lld", "", COUNT, "version of these CSV columns")                                       \
    X(git, TEXT, "%s", "", NONE, "git revision of the build")                                                       \
    X(vendor, TEXT, "%s", "", NONE, "cpu vendor")                                                                   \
    X(brand, TEXT, "%s", "", NONE, "cpu brand string")                                                              \
    X(codename, TEXT, "%s", "", NONE, "cpu codename")                                                               \
    X(ext_family, INT, "%lld", "", FIGURE, "cpu family")                                                            \
    X(ext_model, INT, "%lld", "", FIGURE, "cpu model")                                                              \
    X(stepping, INT, "%lld", "", FIGURE, "cpu stepping")                                                            \
    X(cores, INT, "%lld", "", COUNT, "physical cores")                                                              \
    X(pus, INT, "%lld", "", COUNT, "processing units (hardware threads)")                                           \
    X(kinds, INT, "%lld", "", FIGURE, "core kinds (the kindK_* keys, K from 0)")                                    \
    X(numa_nodes, INT, "%lld", "", FIGURE, "NUMA nodes")                                                            \
    X(memory_bytes, U64, "%llu", "B", FIGURE, "installed memory")                                                   \
    X(isa, TEXT, "%s", "", NONE, "instruction set extensions")                                                      \
    X(hypervisor, TEXT, "%s", "", NONE, "hypervisor, or none")                                                      \
    X(kernel, TEXT, "%s", "", NONE, "OS kernel release")                                                            \
    X(compiler, TEXT, "%s", "", NONE, "compiler of the build")                                                      \
    X(cflags, TEXT, "%s", "", NONE, "compiler flags of the build")                                                  \
    X(thp, TEXT, "%s", "", NONE, "transparent huge pages setting")                                                  \
    X(governor, TEXT, "%s", "", NONE, "cpu frequency governor")                                                     \
    X(loadavg_1m, REAL, "%.2f", "", NONE, "load average, 1 min (-1: unavailable)")                                  \
    X(loadavg_5m, REAL, "%.2f", "", NONE, "load average, 5 min")                                                    \
    X(loadavg_15m, REAL, "%.2f", "", NONE, "load average, 15 min")                                                  \
    X(clock_ghz, REAL, "%.3f", "GHz", OPTIONAL, "clock of the first cpu at the start: a dependent add chain")       \
    X(tsc_mhz, REAL, "%.0f", "MHz", OPTIONAL, "the invariant TSC's rate (libcpuid), the nominal clock; x86 only")      \
    X(energy, TEXT, "%s", "", NONE, "RAPL zones read for joules (powercap), or why there are none")               \
    X(incomplete, TEXT, "%s", "", NONE, "added by a harness stopped before it finished, one per harness")

/* Per core kind K: key kindK_NAME. */
#define PB_MACHINE_KIND_KEYS(X)                                                                                     \
    X(purpose, TEXT, "%s", "", NONE, "performance or efficiency")                                                   \
    X(core_type, TEXT, "%s", "", NONE, "the kind's core type")                                                      \
    X(cores, INT, "%lld", "", FIGURE, "its cores")                                                                  \
    X(pus, INT, "%lld", "", FIGURE, "its processing units")                                                         \
    X(max_mhz, INT, "%lld", "MHz", FIGURE, "its highest clock")

/* Per cache level L: keys lL_NAME, the per-kind ones lL_NAME_kindK. */
#define PB_MACHINE_CACHE_KEYS(X)                                                                                    \
    X(bytes, U64, "%llu", "B", FIGURE, "size of one cache of kind K: key lL_bytes_kindK")                           \
    X(shared_by, INT, "%lld", "", FIGURE, "PUs sharing one, kind K: key lL_shared_by_kindK")                        \
    X(instances, INT, "%lld", "", FIGURE, "caches of the level")                                                    \
    X(total_bytes, U64, "%llu", "B", FIGURE, "their total size")

/* ---------------------------------------------------------------- column indices */

#define PB_SCHEMA_ENUM(P, n, ...) PB_##P##_##n,
#define PB_E_POOL(n, ...) PB_SCHEMA_ENUM(POOL, n, __VA_ARGS__)
#define PB_E_MEMORY(n, ...) PB_SCHEMA_ENUM(MEMORY, n, __VA_ARGS__)
#define PB_E_TOKEN(n, ...) PB_SCHEMA_ENUM(TOKEN, n, __VA_ARGS__)
#define PB_E_KERNELS(n, ...) PB_SCHEMA_ENUM(KERNELS, n, __VA_ARGS__)
#define PB_E_SWEEP(n, ...) PB_SCHEMA_ENUM(SWEEP, n, __VA_ARGS__)
#define PB_E_CPUUTIL(n, ...) PB_SCHEMA_ENUM(CPUUTIL, n, __VA_ARGS__)
#define PB_E_SWEEPUTIL(n, ...) PB_SCHEMA_ENUM(SWEEPUTIL, n, __VA_ARGS__)
#define PB_E_SWEEPCPU(n, ...) PB_SCHEMA_ENUM(SWEEPCPU, n, __VA_ARGS__)
#define PB_E_OVERLAP(n, ...) PB_SCHEMA_ENUM(OVERLAP, n, __VA_ARGS__)
#define PB_E_LIKWID(n, ...) PB_SCHEMA_ENUM(LIKWID, n, __VA_ARGS__)
#define PB_E_LATENCY(n, ...) PB_SCHEMA_ENUM(LATENCY, n, __VA_ARGS__)
#define PB_E_PAIRS(n, ...) PB_SCHEMA_ENUM(PAIRS, n, __VA_ARGS__)
#define PB_E_ROOF(n, ...) PB_SCHEMA_ENUM(ROOF, n, __VA_ARGS__)
#define PB_E_LLAMABENCH(n, ...) PB_SCHEMA_ENUM(LLAMABENCH, n, __VA_ARGS__)
#define PB_E_MACHINE(n, ...) PB_SCHEMA_ENUM(MACHINE, n, __VA_ARGS__)
#define PB_E_MKEY(n, ...) PB_SCHEMA_ENUM(MKEY, n, __VA_ARGS__)
#define PB_E_MKIND(n, ...) PB_SCHEMA_ENUM(MKIND, n, __VA_ARGS__)
#define PB_E_MCACHE(n, ...) PB_SCHEMA_ENUM(MCACHE, n, __VA_ARGS__)

enum { PB_POOL_COLS(PB_E_POOL) PB_POOL_NCOLS };
enum { PB_MEMORY_COLS(PB_E_MEMORY) PB_MEMORY_NCOLS };
enum { PB_TOKEN_COLS(PB_E_TOKEN) PB_TOKEN_NCOLS };
enum { PB_KERNELS_COLS(PB_E_KERNELS) PB_KERNELS_NCOLS };
enum { PB_SWEEP_COLS(PB_E_SWEEP) PB_SWEEP_NCOLS };
#define PB_E_BUDGET(X, part, ...) PB_BUDGET_##part,
/* roof last: its column came later, at the end of sweep.csv (pb_budget_col) */
typedef enum pb_budget_part { PB_BUDGET_PARTS(PB_E_BUDGET, ~) PB_BUDGET_roof, PB_BUDGET_NPARTS } pb_budget_part;
_Static_assert(PB_SWEEP_budget_unexplained_ms - PB_SWEEP_budget_floor_ms == PB_BUDGET_unexplained,
               "sweep.csv's budget columns are consecutive, in the parts' order");
enum { PB_CPUUTIL_COLS(PB_E_CPUUTIL) PB_CPUUTIL_NCOLS };
enum { PB_SWEEPUTIL_COLS(PB_E_SWEEPUTIL) PB_SWEEPUTIL_NCOLS };
enum { PB_SWEEPCPU_COLS(PB_E_SWEEPCPU) PB_SWEEPCPU_NCOLS };
enum { PB_OVERLAP_COLS(PB_E_OVERLAP) PB_OVERLAP_NCOLS };
enum { PB_LIKWID_COLS(PB_E_LIKWID) PB_LIKWID_NCOLS };
enum { PB_LATENCY_COLS(PB_E_LATENCY) PB_LATENCY_NCOLS };
enum { PB_PAIRS_COLS(PB_E_PAIRS) PB_PAIRS_NCOLS };
enum { PB_ROOF_COLS(PB_E_ROOF) PB_ROOF_NCOLS };
enum { PB_LLAMABENCH_COLS(PB_E_LLAMABENCH) PB_LLAMABENCH_NCOLS };
enum { PB_MACHINE_COLS(PB_E_MACHINE) PB_MACHINE_NCOLS };
enum { PB_MACHINE_KEYS(PB_E_MKEY) PB_MKEY_COUNT };     /* machine.csv's keys: PB_MKEY_host, ... */
enum { PB_MACHINE_KIND_KEYS(PB_E_MKIND) PB_MKIND_COUNT };
enum { PB_MACHINE_CACHE_KEYS(PB_E_MCACHE) PB_MCACHE_COUNT };

/* ---------------------------------------------------------------- the tables */

typedef struct pb_column {
    const char *name;
    pb_col_type type;
    const char *fmt;
    const char *unit;
    pb_cell_rule rule;
    const char *meaning;
} pb_column;

/* Columns whose cells add up to another's on every row (sweep.csv's budget parts to its median token): the
 * parts are ncols consecutive columns from first. */
typedef struct pb_sum {
    int total, first, n;
    int extra; /* one more part elsewhere in the row, counted 0 where a file lacks it (0: none) */
} pb_sum;

typedef struct pb_schema {
    pb_kind kind;
    const char *file;    /* "sweep.csv" */
    const char *table;   /* its table in the results database (bench/io/db): the kind's name, "SWEEP" */
    const char *harness; /* the program that writes it */
    const char *header;  /* the header line, without newline */
    const pb_column *cols;
    int ncols;
    bool sampled;        /* its rows are samples over time (cpu_util.csv): a run shorter than one sample has none,
                            and is complete; other kinds' rows are results, and a file of none is a failed run */
    const pb_sum *sum;   /* NULL: no columns add up */
    int older;           /* 0, or the columns of the oldest header still read: columns from there on were added
                            later, and a header that is the schema's first k columns (older <= k) is an older run's */
} pb_schema;

/* Every kind's schema, indexed by pb_kind (an array, so other tables can point into it at compile time); the
 * kinds written come before PB_SCHEMA_COUNT, those only read after it. */
extern const pb_schema pb_schema_tables[PB_INPUT_COUNT];
/* The schema of a kind (PB_K_MACHINE .. PB_INPUT_COUNT - 1). */
const pb_schema *pb_schema_get(pb_kind k);
/* Its header line: the column names, comma-separated, without newline. */
const char *pb_schema_header(pb_kind k);
/* A column's name by index (PB_SWEEP_pct_of_floor), and its index by name (-1 when the kind has none). */
const char *pb_schema_name(pb_kind k, int col);
int pb_schema_col(pb_kind k, const char *name);
/* A column's name, written as the kind and the identifier: PB_COL(SWEEP, pct_of_floor). A name that is not a
 * column of the kind does not compile. */
#define PB_COL(KIND, name) pb_schema_name(PB_K_##KIND, PB_##KIND##_##name)

/* The name of a budget part ("floor", ... "unexplained"), PB_BUDGET_floor..; its sweep.csv column is
 * budget_<name>_ms (pb_schema_name(PB_K_SWEEP, PB_SWEEP_budget_floor_ms + part)). */
const char *pb_budget_part_name(pb_budget_part part);
/* Its sweep.csv column: budget_floor_ms + part, roof's at the end (PB_SWEEP_budget_roof_ms). */
int pb_budget_col(pb_budget_part part);

/* machine.csv's fixed keys (PB_MKEY_*), and the per-kind and per-cache ones (PB_MKIND_*, PB_MCACHE_*). */
const pb_column *pb_machine_key(int key);
const pb_column *pb_machine_kind_key(int key);
const pb_column *pb_machine_cache_key(int key);
/* A machine.csv key's name: PB_MKEY(schema_version). */
#define PB_MKEY(key) (pb_machine_key(PB_MKEY_##key)->name)

/* One cell's value, in the member the column's type names: s (TEXT; NULL writes an empty field), i (INT),
 * u (U64), d (REAL). */
typedef union pb_value {
    const char *s;
    long long i;
    unsigned long long u;
    double d;
} pb_value;

/* One value by its column's type and format, into buf (cut to len, always terminated); text as it is. */
void pb_value_format(char *buf, size_t len, const pb_column *col, pb_value v);
/* The same onto f, a text value quoted as a CSV field. */
void pb_value_print(FILE *f, const pb_column *col, pb_value v);
/* Writes one row of s: v holds s->ncols values, in column order. Written through pb_csv_line, so the row is
 * flushed, counted and a failed write remembered like pb_csv_row's. */
void pb_csv_values(pb_csv *c, const pb_schema *s, const pb_value *v);

/* docs/csv.md's columns table: one Markdown table per kind (column, type, unit, meaning), then machine.csv's
 * keys, then the fields read from llama-bench. */
void pb_schema_markdown(FILE *f);

/* ---------------------------------------------------------------- the points
 * bench_check and results.json see a run as points (bench/report/results/pb_points.h). Each family of points
 * reads one CSV kind: its attributes (what an expect file's filters may test) are columns of that kind, or
 * derived from other facts; its figures are what an invariant or a baseline compares. Declared here once: the
 * row readers add figures by these identifiers (PB_FIG(DECODE, x_1thread)), and an expect file that names a
 * family, a figure or an attribute not listed here does not parse. X(FAMILY, name, kind) for the families;
 * A(KIND, column) for an attribute that is a column, D(name) for a derived one; F(name) for a figure. */
#define PB_POINT_FAMILIES(X)                                                                                        \
    X(DECODE, decode, SWEEP)                                                                                        \
    X(DISPATCH, dispatch, POOL)                                                                                     \
    X(KERNEL, kernel, KERNELS)                                                                                      \
    X(OVERLAP, overlap, OVERLAP)                                                                                    \
    X(FLOOR, floor, MEMORY)

#define PB_DECODE_ATTRS(A, D)                                                                                       \
    A(SWEEP, model) A(SWEEP, format) A(SWEEP, policy) A(SWEEP, schedule) A(SWEEP, glue) A(SWEEP, cpuset)            \
    A(SWEEP, threads) A(SWEEP, batch) A(SWEEP, context) A(SWEEP, kv_type) A(SWEEP, weights) A(SWEEP, prompt)
#define PB_DECODE_FIGS(F)                                                                                           \
    F(tok_per_s) F(pct_of_floor) F(x_1thread) F(gbps) F(floor_gbps) F(floor_tok_per_s) F(x_best_floor) F(glue_pct)  \
    F(busy_pct_mean) F(verified)

/* oversubscribed: yes when the point has more threads than machine.csv's PUs, "-" when those are unknown. */
#define PB_DISPATCH_ATTRS(A, D)                                                                                     \
    A(POOL, policy) A(POOL, threads) A(POOL, gap_us) A(POOL, job_ns) A(POOL, spin_us) D(oversubscribed)
#define PB_DISPATCH_FIGS(F) F(ns) F(ratio_to_rt) F(ratio_to_omp) F(x_tightest_rt) F(x_spin) F(ns_p99)

#define PB_KERNEL_ATTRS(A, D)                                                                                       \
    A(KERNELS, format) A(KERNELS, variant) A(KERNELS, level) A(KERNELS, threads) A(KERNELS, batch) A(KERNELS, layout)
#define PB_KERNEL_FIGS(F) F(gbps) F(x_floor) F(x_read) F(gops)

#define PB_OVERLAP_ATTRS(A, D) A(OVERLAP, mode) A(OVERLAP, ratio)
#define PB_OVERLAP_FIGS(F) F(pct_of_ceiling) F(speedup) F(ceiling)

#define PB_FLOOR_ATTRS(A, D) A(MEMORY, op) A(MEMORY, kernel) A(MEMORY, threads)
#define PB_FLOOR_FIGS(F) F(gbps) F(gbps_best)

#define PB_FAMILY_ENUM(F, ...) PB_FAM_##F,
typedef enum pb_family_id { PB_POINT_FAMILIES(PB_FAMILY_ENUM) PB_FAM_COUNT } pb_family_id;

/* Figure indices within their family: PB_FIG_DECODE_x_1thread. */
#define PB_FIG_E_DECODE(n) PB_FIG_DECODE_##n,
#define PB_FIG_E_DISPATCH(n) PB_FIG_DISPATCH_##n,
#define PB_FIG_E_KERNEL(n) PB_FIG_KERNEL_##n,
#define PB_FIG_E_OVERLAP(n) PB_FIG_OVERLAP_##n,
#define PB_FIG_E_FLOOR(n) PB_FIG_FLOOR_##n,
enum { PB_DECODE_FIGS(PB_FIG_E_DECODE) PB_FIG_DECODE_COUNT };
enum { PB_DISPATCH_FIGS(PB_FIG_E_DISPATCH) PB_FIG_DISPATCH_COUNT };
enum { PB_KERNEL_FIGS(PB_FIG_E_KERNEL) PB_FIG_KERNEL_COUNT };
enum { PB_OVERLAP_FIGS(PB_FIG_E_OVERLAP) PB_FIG_OVERLAP_COUNT };
enum { PB_FLOOR_FIGS(PB_FIG_E_FLOOR) PB_FIG_FLOOR_COUNT };
/* Attribute indices within their family: PB_ATTR_DISPATCH_oversubscribed. */
#define PB_ATTR_E_COL(F, K, n) PB_ATTR_##F##_##n,
#define PB_ATTR_E_DERIVED(F, n) PB_ATTR_##F##_##n,
#define PB_ATTR_E_DECODE(K, n) PB_ATTR_E_COL(DECODE, K, n)
#define PB_ATTR_D_DECODE(n) PB_ATTR_E_DERIVED(DECODE, n)
#define PB_ATTR_E_DISPATCH(K, n) PB_ATTR_E_COL(DISPATCH, K, n)
#define PB_ATTR_D_DISPATCH(n) PB_ATTR_E_DERIVED(DISPATCH, n)
#define PB_ATTR_E_KERNEL(K, n) PB_ATTR_E_COL(KERNEL, K, n)
#define PB_ATTR_D_KERNEL(n) PB_ATTR_E_DERIVED(KERNEL, n)
#define PB_ATTR_E_OVERLAP(K, n) PB_ATTR_E_COL(OVERLAP, K, n)
#define PB_ATTR_D_OVERLAP(n) PB_ATTR_E_DERIVED(OVERLAP, n)
#define PB_ATTR_E_FLOOR(K, n) PB_ATTR_E_COL(FLOOR, K, n)
#define PB_ATTR_D_FLOOR(n) PB_ATTR_E_DERIVED(FLOOR, n)
enum { PB_DECODE_ATTRS(PB_ATTR_E_DECODE, PB_ATTR_D_DECODE) PB_ATTR_DECODE_COUNT };
enum { PB_DISPATCH_ATTRS(PB_ATTR_E_DISPATCH, PB_ATTR_D_DISPATCH) PB_ATTR_DISPATCH_COUNT };
enum { PB_KERNEL_ATTRS(PB_ATTR_E_KERNEL, PB_ATTR_D_KERNEL) PB_ATTR_KERNEL_COUNT };
enum { PB_OVERLAP_ATTRS(PB_ATTR_E_OVERLAP, PB_ATTR_D_OVERLAP) PB_ATTR_OVERLAP_COUNT };
enum { PB_FLOOR_ATTRS(PB_ATTR_E_FLOOR, PB_ATTR_D_FLOOR) PB_ATTR_FLOOR_COUNT };

/* An attribute: a column of the family's kind (col >= 0, its type the column's), or derived (col -1, text). */
typedef struct pb_family_attr {
    const char *name;
    int col;
} pb_family_attr;

typedef struct pb_family {
    const char *name; /* "decode" */
    pb_kind kind;     /* the CSV its points come from */
    const pb_family_attr *attrs;
    int nattrs;
    const char *const *figs;
    int nfigs;
} pb_family;

const pb_family *pb_family_get(pb_family_id f);
/* The family called name; NULL when none is. */
const pb_family *pb_family_find(const char *name);
/* A figure's index, or an attribute, by name; -1 / NULL when the family has none of that name. */
int pb_family_fig(const pb_family *f, const char *name);
const pb_family_attr *pb_family_attr_find(const pb_family *f, const char *name);
/* Whether an attribute holds a number (its column is not TEXT): only those take KEY>=N and KEY<=N filters. */
bool pb_family_attr_numeric(const pb_family *f, const pb_family_attr *a);
/* The names accepted, comma-separated, into buf (cut to len, always terminated): the families, a family's
 * figures, its attributes. */
void pb_family_names(char *buf, size_t len);
void pb_family_fig_names(const pb_family *f, char *buf, size_t len);
void pb_family_attr_names(const pb_family *f, char *buf, size_t len);
/* A family's, a figure's or an attribute's name, written as identifiers: PB_FAMILY(DECODE), PB_FIG(DECODE,
 * x_1thread), PB_ATTR(DISPATCH, oversubscribed). A name the family does not declare does not compile. */
#define PB_FAMILY(FAM) (pb_family_get(PB_FAM_##FAM)->name)
#define PB_FIG(FAM, id) (pb_family_get(PB_FAM_##FAM)->figs[PB_FIG_##FAM##_##id])
#define PB_ATTR(FAM, id) (pb_family_get(PB_FAM_##FAM)->attrs[PB_ATTR_##FAM##_##id].name)

#endif
