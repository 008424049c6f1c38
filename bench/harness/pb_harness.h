/* pb_harness.h — the opening and closing every harness shares, and its CSVs (its progress line on stderr:
 * pb_progress.h).
 *
 *   static pb_harness h;                                   // holds a pb_machine: static, off the stack
 *   pb_harness_setup(&h, &cli, QUICK_HELP, NULL, argc, argv) // the harness's own option table, with --quick,
 *                                                          // --out and --run-dir added (h.quick, h.out,
 *                                                          // h.run_dir); hwloc topology; -1 after --help, an
 *                                                          // error, or --out with --run-dir
 *                                                          // (a harness with arguments after its options:
 *                                                          // pb_harness_parse, then pb_harness_begin)
 *   the harness's own checks on h.topo (return pb_harness_refusef(&h, ...): nothing is written yet)
 *   pb_harness_open(&h)                                    // run directory (-1 when refused), probe, machine.csv,
 *                                                          // header, SIGINT/SIGTERM/SIGHUP handled, SIGPIPE ignored
 *   pb_csv *c = pb_harness_csv(&h, "kernels.csv", HEADER); // every output name claimed before measuring (NULL)
 *   any of these failed: return pb_harness_refused(&h);    // the one line, exit status 2 (0 after --help)
 *   for each point: if (pb_stop_signal()) break; measure (a failure: pb_harness_fail(&h, ...), break);
 *   pb_csv_row(c, ...) (pb_progress each point, pb_progress_done after the last)
 *   print the table
 *   return pb_harness_close(&h, "kernels.gp", plots);     // publishes the CSVs, plots; the exit status
 *
 * Only the mains exit: every step here returns a status and leaves its one-line message in h.err (pb_err's
 * convention), and the main returns pb_harness_refused's or pb_harness_close's status. Rows reach the disk as
 * they are measured (pb_csv: a partial file, flushed per row). When a signal stopped the loop, pb_harness_close
 * publishes what was measured, adds an `incomplete` line to machine.csv naming the signal and the rows kept,
 * skips the plots and returns 128 + the signal; after pb_harness_fail it does the same with the reason and
 * returns 1. Only a run that succeeded is made results/<host>/latest. A harness that needs the machine's
 * identity for its checks calls pb_harness_probe before pb_harness_open. */
#ifndef PB_HARNESS_H
#define PB_HARNESS_H

#include <stdint.h>

#include "pb_cli.h"
#include "pb_corunner.h"
#include "pb_csv.h"
#include "pb_kernel_choice.h"
#include "pb_machine.h"
#include "pb_placement.h"
#include "pb_progress.h" /* pb_progress, pb_status: every harness draws one */
#include "pb_run.h"
#include "pb_sampler.h" /* PB_SAMPLER_INTERVAL_*: PB_OPT_INTERVAL_MS */
#include "pb_slices.h"
#include "pb_stop.h"
#include "pb_topo.h"
#include "pb_tuning.h" /* PB_STR, PB_CORUNNER_PERIOD_MS: PB_OPT_CO_RUNNER */
#include "pool.h" /* POOL_MAX_THREADS: PB_OPT_THREADS */

/* The option-table entries every harness has: pb_harness_setup adds them after the harness's own. QUICK's help
 * says what the harness shortens. */
#define PB_OPT_QUICK(ptr, text) { .name = "quick", .kind = PB_OPT_FLAG, .dest = (ptr), .help = (text) }
#define PB_OPT_OUT(ptr)                                                                                          \
    { .name = "out", .kind = PB_OPT_STRING, .dest = (ptr), .metavar = "DIR",                                     \
      .help = "new or empty directory for the results", .dflt = "results/<host>/<stamp>/" }
#define PB_OPT_RUN_DIR(ptr)                                                                                      \
    { .name = "run-dir", .kind = PB_OPT_STRING, .dest = (ptr), .metavar = "DIR",                                 \
      .help = "add the results to a run directory of this host and schema, or an empty one (never replacing a "  \
              "file)" }

/* --spin-us, the hybrid policy's spin budget, the same in every harness that runs that policy (bench_pool_overhead,
 * bench_sweep). */
#define PB_OPT_SPIN_US(ptr)                                                                                      \
    { .name = "spin-us", .kind = PB_OPT_INT, .dest = (ptr), .min = 0, .max = 1000000, .metavar = "N",            \
      .help = "hybrid policy's spin budget before sleeping, µs", .dflt = "50" }

/* --emulate-slow, the same in every harness that has it (bench_sweep, bench_kernels); checked by pb_harness_emulate. */
#define PB_OPT_EMULATE_SLOW(ptr)                                                                                 \
    { .name = "emulate-slow", .kind = PB_OPT_STRING, .dest = (ptr), .metavar = "CPU=F,...",                      \
      .help = "emulate slow cores: the thread on cpu CPU busy-waits (1/F - 1) x every slice of rows it ran, so "   \
              "it keeps F (0.01..1) of its speed on exactly its work; rows say so (emulate_slow)",                  \
      .dflt = "none" }

/* --threads, a list of thread counts (1..POOL_MAX_THREADS), in the harnesses that sweep them. help_tail (a string
 * literal, "" for none): what bounds the counts there, after the common "thread counts, e.g. 1,2,4 or 1-8". */
#define PB_OPT_THREADS(ptr, help_tail, default_text)                                                             \
    { .name = "threads", .kind = PB_OPT_LIST, .dest = (ptr), .min = 1, .max = POOL_MAX_THREADS, .metavar = "LIST", \
      .help = "thread counts, e.g. 1,2,4 or 1-8" help_tail, .dflt = (default_text) }

/* --wisdom FILE (POOLBENCH_WISDOM), in every harness that runs kernels: bench_tune's choices (pb_wisdom.h). */
#define PB_OPT_WISDOM(ptr)                                                                                       \
    { .name = "wisdom", .kind = PB_OPT_STRING, .dest = (ptr), .metavar = "FILE",                                 \
      .help = "bench_tune's measured kernel choices for this cpu and build (bench_tune writes it; another cpu's, " \
              "another build's or a malformed file is ignored, saying so: kernels then go by ISA rank)",          \
      .dflt = "results/<host>/wisdom" }

/* --counters LIST, the same in every harness that counts (bench_kernels, bench_sweep). */
#define PB_OPT_COUNTERS(ptr)                                                                                     \
    { .name = "counters", .kind = PB_OPT_STRING, .dest = (ptr), .metavar = "LIST",                               \
      .help = "perf_event counts per point of the caller's thread, by libpfm4's names (cycles, instructions, "    \
              "cache-misses, task-clock, context-switches, page-faults, ...); one this machine cannot count is "  \
              "recorded as unsupported",                                                                        \
      .dflt = "none" }

/* --co-runner CPUS:DUTY, the same in every harness that has it (bench_sweep, bench_pool_overhead); checked by
 * pb_harness_co_runner. */
#define PB_OPT_CO_RUNNER(ptr)                                                                                    \
    { .name = "co-runner", .kind = PB_OPT_STRING, .dest = (ptr), .metavar = "CPUS:DUTY",                         \
      .help = "a busy process beside the run: on each of CPUS (a list), busy DUTY percent (1..100) of every "           \
              PB_STR(PB_CORUNNER_PERIOD_MS) " ms, e.g. 1:50; rows say so (co_runner)", .dflt = "none" }

/* --cpus as a list of OS cpu ids, one thread pinned to each, in the harnesses that take it so (bench_pool_overhead,
 * bench_overlap; the others take a set by name, a string): each id is checked against the machine with
 * pb_topo_check_cpu. */
#define PB_OPT_CPU_IDS(ptr, metavar_text, help_text, default_text)                                               \
    { .name = "cpus", .kind = PB_OPT_LIST, .dest = (ptr), .min = 0, .max = 1000000, .metavar = (metavar_text),   \
      .help = (help_text), .dflt = (default_text) }

/* --interval-ms, the /proc/stat sampler's interval, the same in every harness that samples (bench_sweep,
 * bench_cpu_util). during (a string literal): what is sampled, after "/proc/stat sampling interval". */
#define PB_OPT_INTERVAL_MS(ptr, during)                                                                          \
    { .name = "interval-ms", .kind = PB_OPT_INT, .dest = (ptr), .min = PB_SAMPLER_INTERVAL_MIN_MS,              \
      .max = PB_SAMPLER_INTERVAL_MAX_MS, .metavar = "MS", .help = "/proc/stat sampling interval" during,         \
      .dflt = PB_STR(PB_SAMPLER_INTERVAL_DEFAULT_MS) }

#define PB_HARNESS_MAX_CSV 8
#define PB_HARNESS_ERR (PB_WISDOM_PATH_MAX + 1280) /* one line: pb_cli's longest message, or a whole path */

typedef struct pb_harness {
    const char *prog;
    const char *out, *run_dir; /* the --out and --run-dir values (NULL when not given) */
    bool quick;                /* --quick, when pb_harness_setup parsed it: the harness shortens its run */
    pb_topo *topo;             /* the live machine, from pb_harness_begin */
    pb_machine machine;        /* filled by pb_harness_probe (or pb_harness_open) */
    pb_where where;            /* how rows get their placement tag: filled with machine (a plan keeps &where) */
    const pb_emulate *emulate; /* --emulate-slow, when given: pb_harness_open warns of it under the header */
    pb_corunner *co;           /* --co-runner, when given: started by pb_harness_co_start, stopped at the end */
    bool probed;
    pb_run run;                /* the run directory, from pb_harness_open */
    pb_csv *csv[PB_HARNESS_MAX_CSV]; /* the outputs, published by pb_harness_close */
    const char *csv_name[PB_HARNESS_MAX_CSV]; /* their file names (the callers' strings, which outlive them) */
    int ncsv;
    char err[PB_HARNESS_ERR];     /* why a set-up step refused: "PROG: ...", printed by pb_harness_refused */
    bool helped;                  /* --help was printed: pb_harness_refused returns 0 */
    char failure[PB_HARNESS_ERR]; /* why measuring failed mid-run (pb_harness_fail); "" when it did not */
    char wisdom[PB_WISDOM_PATH_MAX]; /* the wisdom file's path, checked (pb_harness_wisdom_path) */
} pb_harness;

/* Parses the harness's option table (pb_cli_parse; first: may be NULL). 0, or -1 after --help was printed or
 * with the one-line error in h->err: either way the main returns pb_harness_refused(h). */
int pb_harness_parse(pb_harness *h, const pb_cli *cli, int argc, char **argv, int *first);

/* Loads the live topology ("PROG: hwloc: REASON" on failure) and keeps one of --out and --run-dir in h: the
 * command line's where the other came from its variable (POOLBENCH_OUT, POOLBENCH_RUN_DIR); both from one source
 * are refused. 0, or -1 with the line in h->err. */
int pb_harness_begin(pb_harness *h, const char *prog, const char *out, const char *run_dir);

/* The two above as a harness without positional arguments calls them. cli's table holds the harness's own
 * options only: the ones every harness has follow them (in --help too), parsed into h->quick, h->out and
 * h->run_dir: --quick with quick_help (what the harness shortens), --out, and --run-dir with the common help or
 * run_dir_help (non-NULL: what the directory means to this harness). Then begun with --out and --run-dir.
 * 0, or -1 as they return it. */
int pb_harness_setup(pb_harness *h, const pb_cli *cli, const char *quick_help, const char *run_dir_help, int argc,
                     char **argv);

/* A harness's own check refused its input: "PROG: MESSAGE" into h->err; returns -1. The _opt form heads the
 * message with where option `name`'s value came from (pb_cli_origin: "--cpus" or "POOLBENCH_CPUS=..."). */
int pb_harness_refusef(pb_harness *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int pb_harness_refuse_opt(pb_harness *h, const char *name, const char *text, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* --emulate-slow's value (NULL: none) into e, checked against the machine: 0, or -1 with the line (naming the
 * option) in h->err. Given cpus make pb_harness_open print a loud warning under the header. */
int pb_harness_emulate(pb_harness *h, const char *spec, pb_emulate *e);

/* --co-runner's value (NULL: none) into c, its cpus checked against the machine: 0, or -1 with the line (naming
 * the option, what was wrong and what is accepted) in h->err. A given one is kept in h. */
int pb_harness_co_runner(pb_harness *h, const char *spec, pb_corunner *c);
/* Starts the co-runner, if any, once the outputs are claimed (just before measuring), with a line on stdout;
 * pb_harness_close and pb_harness_refused stop it. 0, or -1 after pb_harness_fail. */
int pb_harness_co_start(pb_harness *h);

/* The exit status of a harness refused before measuring: prints h->err on stderr (one line), drops every output
 * claimed so far (their partial files) and frees the topology. 2, or 0 when --help was what stopped it. */
int pb_harness_refused(pb_harness *h);

/* Measuring failed mid-run (out of memory, a pool that cannot start): prints "PROG: REASON" on stderr and keeps
 * the first reason for pb_harness_close, which publishes the rows measured so far, marks the run incomplete
 * with the reason and returns 1. Returns -1, for `return pb_harness_fail(...)`. */
int pb_harness_fail(pb_harness *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The measuring loop goes on: no signal asked to stop and nothing failed. */
bool pb_harness_going(const pb_harness *h);

/* The pinning order of a harness that places its threads itself: every PU, one per core first, then the SMT
 * siblings (pb_topo_place), so that a thread count up to the cores gets a core each. Into cpus (room for
 * PB_MAX_CPUS), their count into *n. 0, or -1 with "PROG: topology: ..." in h->err. */
int pb_harness_spread(pb_harness *h, int *cpus, int *n);

/* Probes the machine's identity once; what is missing is a warning on stderr, not an error. */
void pb_harness_probe(pb_harness *h);

/* This machine's wisdom identities (pb_wisdom_cpu_id over the PUs this process may use, pb_wisdom_build_id), after
 * pb_harness_probe. */
void pb_harness_wisdom_ids(pb_harness *h, char *cpu, size_t cpulen, char *build, size_t buildlen);

/* In a harness's checks, before any work: the wisdom path (--wisdom's value given; NULL: results/<host>/wisdom),
 * checked for length and kind (pb_wisdom_path; writing: bench_tune's) into h->wisdom. 0, or -1 with the line,
 * naming --wisdom or POOLBENCH_WISDOM, in h->err. */
int pb_harness_wisdom_path(pb_harness *h, const char *given, bool writing);

/* Reads the wisdom at h->wisdom (pb_harness_wisdom_path's) into w, and what the run picks kernels
 * from into k: w when it was valid, under POOLBENCH_ISA's cap when that is set (pb_kernel_choice_for). Its line: on
 * stdout when read or missing, on stderr when ignored (another cpu or build, malformed, not a regular file). Sets
 * the prefetch hint from it (pb_kernel_picker_apply). Probes the machine when that was not done. */
void pb_harness_wisdom(pb_harness *h, pb_wisdom *w, pb_kernel_picker *k);

/* For a harness that runs every kernel (bench_kernels, bench_memory_floor): only wisdom's streaming settings, the
 * prefetch hint and distance its streaming passes and 4-stream reads then run with, unless POOLBENCH_ISA forces
 * the kernels (then none). One line says which, as pb_harness_wisdom's. */
void pb_harness_wisdom_stream(pb_harness *h, pb_wisdom *w);

/* After the harness's own checks: creates (or joins) the run directory (-1 with h->err when it is refused);
 * probes the machine unless that was done; writes machine.csv (a joined run may hold one already: kept),
 * installs pb_stop's handlers, prints the context header on stdout and flushes it. 0 or -1. */
int pb_harness_open(pb_harness *h);

/* Claims DIR/NAME for this harness and opens its partial file with the header written: NULL with one line in
 * h->err when the name is taken (a joined run that holds it), another process is writing it, or it cannot be
 * created. Call for every output before measuring anything. */
pb_csv *pb_harness_csv(pb_harness *h, const char *name, const char *header);

/* Drops one output before it is published (a harness whose rows turned out invalid). */
void pb_harness_drop_csv(pb_harness *h, pb_csv *c);

/* After the last row: publishes every CSV (in the order they were claimed), prints "results: DIR/NAME ..."
 * and, unless a signal stopped the harness or measuring failed, draws the script's plots (plots:
 * NULL-terminated file names) and prints "plots: DIR/NAME ...". When a signal stopped it, appends
 * `incomplete,PROG: SIGNAL after N rows (FILES)` to machine.csv and returns 128 + the signal; after
 * pb_harness_fail, `incomplete,PROG: failed after N rows (FILES): REASON`, and returns 1. A CSV whose writes failed
 * (a full disk) is such a failure: its whole rows are published, a line says how many were lost and why (the
 * write's errno), and the reason is "NAME: L rows lost: ERROR" unless an earlier failure came first. Frees the
 * topology.
 * 0, 1 after an error line on stderr, or 128 + signal. */
int pb_harness_close(pb_harness *h, const char *script, const char *const *plots);

/* A stamped run that succeeded becomes results/<host>/latest (pb_run_mark_latest; pb_harness_close does this
 * itself). 0, or 1 after a line on stderr naming PROG. */
int pb_harness_mark_latest(const char *prog, const pb_run *run);

#endif
