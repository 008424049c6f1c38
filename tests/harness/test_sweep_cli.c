/* bench_sweep as a user runs it: bad input is one line naming the option, exit status 2, nothing written
 * (and no weights built); a one-token run writes sweep.csv and cpu_util.csv with the promised columns. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulation.h"
#include "harness_run.h"
#include "pb_csvread.h"
#include "pb_model.h"
#include "pb_schema.h"
#include "pb_tuning.h"
#include "pb_topo.h"

static void expect_bad(const char *args, const char *option)
{
    harness_expect_bad("bench_sweep", "", args, option);
}

/* bench_sweep with args (ending in --out run) in a fresh temporary directory (its name into dir), its
 * run/sweep.csv loaded into t. */
static void sweep_run(char *dir, size_t len, const char *args, pb_table *t)
{
    tf_tmpdir(dir, len, "pbsweep");
    harness_run_ok(dir, "bench_sweep", "POOLBENCH_PLOTS=/nonexistent", args);
    harness_load_csv(t, dir, "run/sweep.csv");
}

Test(sweep_cli, unknown_names)
{
    expect_bad("--model qwen9", "--model");
    expect_bad("--format q9_0", "--format");
    expect_bad("--format q8_0,q8_0", "--format");
    expect_bad("--format q4_k_m", "--format"); /* ggml's names, capital K */
    expect_bad("--policy spin,nope", "--policy");
    expect_bad("--cpus nope", "--cpus");
    expect_bad("--cpus p,", "--cpus");
    expect_bad("--cpus 4096", "--cpus");
    expect_bad("--co-runner 1:", "--co-runner");
    expect_bad("--co-runner 0:500", "--co-runner");
    expect_bad("--co-runner 4096:50", "--co-runner");
    expect_bad("--bogus", "--bogus");
    harness_expect_bad("bench_sweep", "POOLBENCH_KERNEL=bogus", "--quick", "POOLBENCH_KERNEL");
}

/* A --cpus list too long for a set's name is one line and exit 2 before any work: it was cut at 1023
 * characters (the cpu after the cut dropped), and one longer item gave no set and failed late, exit 1. */
Test(sweep_cli, long_cpus_lists_are_refused_whole)
{
    char args[4096] = "--threads 2 --cpus ";
    for (int i = 0; i < 600; i++)
        strcat(args, "0,");
    strcat(args, "1");
    expect_bad(args, "--cpus");
    snprintf(args, sizeof args, "--threads 1 --cpus ");
    memset(args + strlen(args), '0', 1100);
    strcpy(args + strlen("--threads 1 --cpus ") + 1100, "1");
    expect_bad(args, "--cpus");
}

Test(sweep_cli, empty_set)
{
    char err[256];
    pb_topo *t = pb_topo_load(NULL, err, sizeof err);
    cr_assert_not_null(t, "%s", err);
    pb_cpulist *l = malloc(sizeof *l);
    bool empty = pb_topo_set(t, "e", l, err, sizeof err) != 0;
    free(l);
    pb_topo_free(t);
    if (!empty)
        cr_skip_test("this machine has E-cores");
    expect_bad("--cpus e", "--cpus");
    expect_bad("--cpus p,e", "--cpus");
}

Test(sweep_cli, bad_numbers)
{
    expect_bad("--schedule dynamic:0", "--schedule");
    expect_bad("--schedule dynamic:", "--schedule");
    expect_bad("--schedule dynamic:x", "--schedule");
    expect_bad("--schedule steal:0", "--schedule");
    expect_bad("--schedule steal", "--schedule");
    expect_bad("--schedule static,guided", "--schedule");
    expect_bad("--schedule steal:64,steal:064", "--schedule"); /* one schedule by value, given twice */
    expect_bad("--counters cycles,cycles --quick", "--counters");
    expect_bad("--counters cycles:u=1 --quick", "--counters"); /* '=' would make the counters cell unsplittable */
    expect_bad("--batch 0", "--batch");
    expect_bad("--batch 17", "--batch");
    expect_bad("--prompt 0", "--prompt");
    expect_bad("--prompt 513", "--prompt"); /* one ubatch: the GEMM's activation rows */
    expect_bad("--threads 0", "--threads");
    expect_bad("--threads 1025", "--threads");
    expect_bad("--tokens 0", "--tokens");
    expect_bad("--interval-ms 5", "--interval-ms");
    expect_bad("--out a --run-dir b", "--out");
}

/* MemAvailable in bytes, 0 when unknown. */
static unsigned long long mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}

/* llama3-8b in f32 needs ~32 GB: refused on any machine with less than 64 GB available, before a byte of it
 * is built (the refusal is immediate, so the test is fast). */
Test(sweep_cli, preset_too_big_for_memory)
{
    unsigned long long need = pb_model_token_bytes(pb_model_get(PB_MODEL_LLAMA3_8B), KERN_F32);
    unsigned long long avail = mem_available();
    if (avail == 0 || need <= avail / 2)
        cr_skip_test("this machine has room for %llu bytes", need);
    expect_bad("--model llama3-8b --format f32", "MemAvailable");
    expect_bad("--model llama3-8b --format q8_0,f32", "--format f32");
}

/* Row r's budget: every part there, adding up to the median token; the floor's part is the token's bytes at the
 * floor; the dispatch part is the matvecs' calls at the measured cost. */
static void expect_budget(const pb_table *t, size_t r)
{
    double sum = 0, part[PB_BUDGET_NPARTS];
    for (int p = 0; p < PB_BUDGET_NPARTS; p++) {
        part[p] = pb_table_num(t, r, pb_table_col(t, pb_schema_name(PB_K_SWEEP, pb_budget_col((pb_budget_part)p))));
        cr_expect(!isnan(part[p]), "row %zu: budget part %s", r, pb_budget_part_name((pb_budget_part)p));
        sum += part[p];
    }
    double med = pb_table_num(t, r, pb_table_col(t, "ms_per_token_median"));
    cr_expect(fabs(sum - med) <= PB_BUDGET_SUM_TOL_MS, "row %zu: parts %.4f, token %.4f", r, sum, med);
    /* the bound: the weights at the floor, or the multiply-adds at the roof where those take longer (a build whose
     * roof kernels run slowly, as under ASan, can make even a batch-1 token's roof the longer) */
    double per_ms = pb_table_num(t, r, pb_table_col(t, "floor_gbps")) * 1e6;
    double weights_ms = pb_table_num(t, r, pb_table_col(t, "weight_bytes")) / per_ms;
    double kv_ms = pb_table_num(t, r, pb_table_col(t, "kv_bytes")) / per_ms;
    double roof_ms = pb_table_num(t, r, pb_table_col(t, "macs")) / (pb_table_num(t, r, pb_table_col(t, "roof_gmacs")) * 1e6);
    bool roof = roof_ms > weights_ms;
    double floor_ms = (roof ? 0 : weights_ms) + kv_ms;
    cr_expect(fabs(part[PB_BUDGET_floor] - floor_ms) < 1e-3 * floor_ms + 1e-4, "row %zu: floor %.4f, bytes give %.4f", r,
              part[PB_BUDGET_floor], floor_ms);
    cr_expect(fabs(part[PB_BUDGET_roof] - (roof ? roof_ms : 0)) < 1e-3 * roof_ms + 1e-4, "row %zu: roof %.4f, macs give "
              "%.4f (%s)", r, part[PB_BUDGET_roof], roof_ms, roof ? "the bound" : "not the bound: 0");
    double cost = pb_table_num(t, r, pb_table_col(t, "dispatch_cost_ns"));
    cr_expect(cost >= 0, "row %zu: dispatch cost %g", r, cost);
    /* fused glue (the default): q, k, v one dispatch and gate, up one, so 4 x 28 + 1 matvec dispatches */
    cr_expect(fabs(part[PB_BUDGET_dispatch] - 113 * cost / 1e6) < 1e-3, "row %zu: 113 dispatches at %g ns", r, cost);
    cr_expect_eq(part[PB_BUDGET_wait], 0, "row %zu: one thread waits for nobody", r);
}

Test(sweep_cli, one_token_run_writes_the_csvs, .timeout = 120)
{
    skip_if_emulated(EMULATED_SWEEP_WHY);
    char dir[64], path[128], tree[4096];
    pb_table t;
    /* RAPL's counters from the fixture tree: they stand still, so every point drew 0 W from package and dram. */
    cr_assert_not_null(realpath("tests/data/powercap", tree));
    setenv("POOLBENCH_POWERCAP", tree, 1);
    sweep_run(dir, sizeof dir,
              "--policy spin,omp --threads 1 --tokens 2 --warmup 0 --floor-passes 3 --out run", &t);
    static const char *const cols[] = { "run_id", "host", "model", "format", "policy", "schedule", "glue", "threads",
                                        "cpuset", "cpus", "batch", "tokens", "ms_per_token_min",
                                        "ms_per_token_median", "ms_per_token_max", "tok_per_s", "weight_bytes",
                                        "gbps_effective", "floor_gbps", "floor_source", "pct_of_floor",
                                        "dispatches_per_token", "glue_ms_median", "glue_pct", "busy_pct_mean",
                                        "busy_pct_min", "busy_pct_max", "imbalance_flag", "rt_ns", "placement",
                                        "verified", NULL };
    pb_csverr e;
    cr_assert_eq(pb_table_require(&t, cols, &e), 0, "%s", e.msg);
    cr_expect_eq(t.nrows, 2, "spin and omp at 1 thread");
    for (size_t r = 0; r < t.nrows; r++) {
        cr_expect_str_eq(pb_table_str(&t, r, pb_table_col(&t, "model")), "qwen3-0.6b");
        cr_expect_str_eq(pb_table_str(&t, r, pb_table_col(&t, "format")), "q8_0");
        cr_expect_str_eq(pb_table_str(&t, r, pb_table_col(&t, "policy")), r ? "omp" : "spin");
        cr_expect_eq(pb_table_num(&t, r, pb_table_col(&t, "dispatches_per_token")), 113,
                     "fused glue at 1 thread: 4 x 28 + 1 matvec dispatches (q, k, v one, split by head with their "
                     "attention; gate, up one)");
        /* A pool interleaves its floor passes with the tokens; OpenMP's is measured before the point. */
        cr_expect_str_eq(pb_table_str(&t, r, pb_table_col(&t, "floor_source")), r ? "measured" : "interleaved");
        cr_expect_str_eq(pb_table_str(&t, r, pb_table_col(&t, "glue")), "fused", "the default glue mode");
        cr_expect_eq(pb_table_num(&t, r, pb_table_col(&t, "verified")), 1, "logits equal across points");
        double tps = pb_table_num(&t, r, pb_table_col(&t, "tok_per_s")), fl = pb_table_num(&t, r, pb_table_col(&t, "floor_gbps"));
        cr_expect(tps > 0 && fl > 0, "row %zu: tok/s %g, floor %g", r, tps, fl);
        expect_budget(&t, r);
        double ghz = pb_table_num(&t, r, pb_table_col(&t, "ghz_before"));
        cr_expect(r ? isnan(ghz) : ghz > 0, "row %zu: a pool's clock, none for omp: %g", r, ghz);
        cr_expect_eq(pb_table_num(&t, r, pb_table_col(&t, "watts_package")), 0.0);
        cr_expect_eq(pb_table_num(&t, r, pb_table_col(&t, "watts_dram")), 0.0);
        cr_expect_eq(pb_table_num(&t, r, pb_table_col(&t, "j_per_token")), 0.0);
    }
    pb_table_free(&t);
    FILE *f;
    char line[4096];
    snprintf(path, sizeof path, "%s/run/cpu_util.csv", dir);
    f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_expect_str_eq(line, "run_id,host,t_ms,cpu,busy_pct,user_pct,sys_pct,steal_pct,point\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/run/sweep_cpu.csv", dir);
    f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_expect_str_eq(line, "run_id,host,point,cpu,pinned,busy_pct,user_pct,sys_pct,steal_pct\n");
    int pinned = 0;
    while (fgets(line, sizeof line, f)) {
        int point, cpu, pin;
        if (sscanf(line, "%*[^,],%*[^,],%d,%d,%d,", &point, &cpu, &pin) == 3)
            pinned += cpu == 0 && pin == 1;
    }
    cr_expect_eq(pinned, 2, "cpu 0 is pinned in both points (1 thread on the first cpu of p)");
    fclose(f);
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* --quick without --threads sweeps 1..2 threads where the set has two cpus (the default list once stopped after
 * its first count). q1_0: the smallest weights, so the run stays short. */
Test(sweep_cli, quick_default_threads_are_one_and_two, .timeout = 120)
{
    skip_if_emulated(EMULATED_SWEEP_WHY);
    int cpus[2];
    tf_need_cpus(cpus, 2, "the default is 1 thread");
    char dir[64];
    pb_table t;
    sweep_run(dir, sizeof dir,
              "--quick --format q1_0 --policy spin --tokens 1 --warmup 0 --floor-passes 3 --out run", &t);
    int threads = pb_table_col(&t, "threads"), seen = 0;
    for (size_t r = 0; r < t.nrows; r++)
        seen |= 1 << (int)pb_table_num(&t, r, threads);
    cr_expect_eq(seen, (1 << 1) | (1 << 2), "threads 1 and 2 in every set with two cpus (mask %#x)", seen);
    pb_table_free(&t);
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* More threads than a set's PUs are measured, not refused (what -t = logical cores gives a user): they take the
 * set's cpus in turn, the row says oversubscribed, its core counts are the cpus' and its logits still match; past
 * PB_SWEEP_OVERSUBSCRIBE_MAX x the PUs the count is refused before any work. Seen failing before: exit 2, "4 is
 * more than the largest core set's 2 PUs". */
Test(sweep_cli, threads_beyond_the_pus_run_oversubscribed, .timeout = 120)
{
    skip_if_emulated(EMULATED_SWEEP_WHY);
    int cpus[2];
    tf_need_cpus(cpus, 2, "two cpus to wrap four threads around");
    char dir[64], args[256];
    pb_table t;
    snprintf(args, sizeof args, "--cpus %d,%d --format q1_0 --policy spin --threads 1,4 --tokens 1 --warmup 0 "
             "--floor-passes 3 --out run", cpus[0], cpus[1]);
    sweep_run(dir, sizeof dir, args, &t);
    cr_assert_eq(t.nrows, 2, "1 and 4 threads");
    char want[64];
    snprintf(want, sizeof want, "%d %d %d %d", cpus[0], cpus[1], cpus[0], cpus[1]);
    for (size_t r = 0; r < t.nrows; r++) {
        bool four = pb_table_num(&t, r, pb_table_col(&t, "threads")) == 4;
        cr_expect_eq(pb_table_num(&t, r, pb_table_col(&t, "oversubscribed")), four ? 1 : 0, "row %zu", r);
        cr_expect_eq(pb_table_num(&t, r, pb_table_col(&t, "verified")), 1, "row %zu: the same logits", r);
        if (four) {
            cr_expect_str_eq(pb_table_str(&t, r, pb_table_col(&t, "cpus")), want);
            double cores = pb_table_num(&t, r, pb_table_col(&t, "p_cores")) +
                           pb_table_num(&t, r, pb_table_col(&t, "e_cores")) +
                           pb_table_num(&t, r, pb_table_col(&t, "smt_threads"));
            cr_expect_eq(cores, 2, "each cpu counted once: %g", cores);
            cr_expect_gt(pb_table_num(&t, r, pb_table_col(&t, "tok_per_s")), 0);
        }
    }
    pb_table_free(&t);
    cr_expect_eq(tf_rmrf(dir), 0);
    snprintf(args, sizeof args, "--cpus %d,%d --threads %d", cpus[0], cpus[1], 2 * PB_SWEEP_OVERSUBSCRIBE_MAX + 1);
    expect_bad(args, "--threads");
}

/* The q4_K_M mix as a format: its own name in sweep.csv, each matvec in its format (the weight bytes: q6_K's v and
 * down, q4_K's rest), logits verified. */
Test(sweep_cli, q4_K_M_mix_runs_as_one_format, .timeout = 120)
{
    skip_if_emulated(EMULATED_SWEEP_WHY);
    char dir[64];
    pb_table t;
    sweep_run(dir, sizeof dir,
              "--format q4_K_M --policy spin --threads 1 --tokens 1 --warmup 0 --floor-passes 3 --out run", &t);
    cr_assert_eq(t.nrows, 1);
    cr_expect_str_eq(pb_table_str(&t, 0, pb_table_col(&t, "format")), "q4_K_M");
    cr_expect_eq(pb_table_num(&t, 0, pb_table_col(&t, "weight_bytes")), 365518848.0, "qwen3-0.6b in the mix");
    cr_expect_eq(pb_table_num(&t, 0, pb_table_col(&t, "verified")), 1);
    cr_expect(*pb_table_str(&t, 0, pb_table_col(&t, "kernel")), "the variant that ran is named");
    pb_table_free(&t);
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* --counters as in bench_kernels: a name libpfm4 does not know is bad input; per point the software events count,
 * cycles and instructions count where the machine has a PMU (IPC then appears) and are recorded as unsupported where
 * it has none (a VM), never fatal. */
Test(sweep_cli, counters_per_point_what_counted_and_what_is_unsupported, .timeout = 120)
{
#if !defined(__x86_64__)
    cr_skip_test("event names come from libpfm4, which only the x86-64 build links");
#endif
    skip_if_emulated(EMULATED_SWEEP_WHY);
    expect_bad("--counters no_such_event --quick", "--counters");
    expect_bad("--counters cycles,,task-clock --quick", "--counters");
    char dir[64];
    pb_table t;
    sweep_run(dir, sizeof dir, "--policy spin --threads 1 --tokens 2 --warmup 0 --floor-passes 3 "
                               "--counters cycles,instructions,task-clock --out run", &t);
    cr_assert_eq(t.nrows, 1);
    const char *c = pb_table_str(&t, 0, pb_table_col(&t, "counters"));
    const char *tc = strstr(c, "task-clock=");
    cr_expect(tc && tc[11] >= '1' && tc[11] <= '9', "task-clock counted: %s", c);
    bool cycles = strstr(c, "cycles=") && !strstr(c, "cycles=unsupported");
    cr_expect(cycles || strstr(c, "cycles=unsupported("), "cycles counted or said unsupported: %s", c);
    double ipc = pb_table_num(&t, 0, pb_table_col(&t, "ipc"));
    cr_expect(cycles ? ipc > 0 : isnan(ipc), "IPC where cycles counted, empty where not: %s, %g", c, ipc);
    pb_table_free(&t);
    tf_rmrf(dir);
}

/* --pair-s: after a block's points, its alternatives interleaved, one token each a round; pairs.csv holds every
 * alternative once in every round, the first place moving between rounds; --pair-s 0 writes no pairs.csv. */
Test(sweep_cli, interleaved_rounds_hold_every_alternative_once_a_round, .timeout = 120)
{
    skip_if_emulated(EMULATED_SWEEP_WHY);
    char dir[64];
    pb_table t, pr;
    sweep_run(dir, sizeof dir, "--policy spin,condvar,spawn --threads 1 --tokens 2 --warmup 0 --floor-passes 3 "
                               "--pair-s 0.5 --out run", &t);
    harness_load_csv(&pr, dir, "run/pairs.csv");
    int cr = pb_table_col(&pr, "round"), cp = pb_table_col(&pr, "policy"), cs = pb_table_col(&pr, "slot"),
        cm = pb_table_col(&pr, "ms_per_token"), cst = pb_table_col(&pr, "stopped");
    cr_assert(cr >= 0 && cp >= 0 && cs >= 0 && cm >= 0 && cst >= 0);
    cr_assert_geq(pr.nrows, 3u, "at least one round of 3");
    cr_expect_eq(pr.nrows % 3, 0u, "whole rounds: %zu rows", pr.nrows);
    int first[3] = { 0 };
    static const char *const pol[] = { "spin", "condvar", "spawn" };
    for (size_t r = 0; r + 3 <= pr.nrows; r += 3) {
        int seen[3] = { 0 };
        for (size_t k = r; k < r + 3; k++) {
            cr_expect_eq(pb_table_num(&pr, k, cr), pb_table_num(&pr, r, cr), "one round per three rows");
            cr_expect_gt(pb_table_num(&pr, k, cm), 0);
            for (int a = 0; a < 3; a++)
                if (strcmp(pb_table_str(&pr, k, cp), pol[a]) == 0) {
                    seen[a]++;
                    first[a] += r < 9 && pb_table_num(&pr, k, cs) == 0; /* in the first three rounds */
                }
        }
        cr_expect(seen[0] == 1 && seen[1] == 1 && seen[2] == 1, "round %zu: each policy once", r / 3 + 1);
    }
    cr_expect(pr.nrows < 9 || (first[0] && first[1] && first[2]), "each policy first in one of the first 3 rounds");
    const char *why = pb_table_str(&pr, 0, cst);
    cr_expect(strcmp(why, "narrow") == 0 || strcmp(why, "budget") == 0, "%s", why);
    pb_table_free(&pr);
    pb_table_free(&t);
    cr_assert_eq(tf_rmrf(dir), 0);
    sweep_run(dir, sizeof dir, "--policy spin,condvar --threads 1 --tokens 2 --warmup 0 --floor-passes 3 "
                               "--pair-s 0 --out run", &t);
    char path[128];
    snprintf(path, sizeof path, "%s/run/pairs.csv", dir);
    cr_expect_neq(access(path, F_OK), 0, "--pair-s 0: no pairs.csv");
    pb_table_free(&t);
    cr_assert_eq(tf_rmrf(dir), 0);
}
