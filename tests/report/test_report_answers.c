/* report.md answers first (pb_answer.h, pb_report_answers.c), on the budget fixture (a `make report QUICK=1` run
 * of the development VM at load average 16): its first screen holds the machine line, the floor per thread
 * count, each format's best decode with its biggest loss and owner, what to run and what deviating costs, tok/s
 * at the floor per model size and the noise, before the plots; the machine table comes last. Each sentence is
 * seen to change when the cells behind it do. The owners' rules are also held on points made here. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_answer.h"
#include "report_fixture.h"

/* report.md of a fixture copy after edit (NULL: none), cut at "## Plots" when first is set. */
static char *report_of(const char *dir, bool first)
{
    char out[8192];
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report --no-plots %s", dir), 0, "%s", out);
    char *md = tf_slurp("%s/report.md", dir);
    char *plots = strstr(md, "## Plots");
    cr_assert_not_null(plots, "%s", md);
    if (first)
        *plots = '\0';
    return md;
}

/* Sets col to value on every row of file where each (column, value) pair of kv matches. */
static void set_cells_where(const char *dir, const char *file, const char *col, const char *value,
                            const char *const *kv)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    pb_table t;
    pb_csverr e;
    cr_assert_eq(pb_table_load(&t, path, &e), 0, "%s", e.msg);
    size_t rows[64], n = 0;
    for (size_t r = 0; r < t.nrows && n < 64; r++) {
        bool all = true;
        for (const char *const *p = kv; *p; p += 2)
            all &= strcmp(pb_table_str(&t, r, pb_table_col(&t, p[0])), p[1]) == 0;
        if (all)
            rows[n++] = r;
    }
    pb_table_free(&t);
    cr_assert_gt(n, 0, "no row of %s matches", file);
    for (size_t i = 0; i < n; i++)
        set_cell(dir, file, rows[i], col, value);
}

/* The budget fixture with q8_0's 1-thread L2 kernel edited to 1.5 GB/s, under the 3.0 GB/s a thread streams at the
 * floor: a kernel that cannot stream. */
static void copy_budget_with_slow_l2(char *dir, size_t len)
{
    copy_fixture("budget", dir, len);
    static const char *const where[] = { "format", "q8_0", "level", "l2", "threads", "1", "batch", "1", NULL };
    set_cells_where(dir, "kernels.csv", "gbps_median", "1.500", where);
}

Test(report_answers, first_screen_answers_then_plots_then_machine)
{
    char dir[256];
    copy_fixture("budget", dir, sizeof dir);
    char *md = report_of(dir, false);
    const char *plots = strstr(md, "## Plots"), *machine = strstr(md, "## Machine"), *answers = strstr(md, "## Answers");
    cr_expect(answers && answers < plots && plots < machine, "answers, plots, then the machine table last");
    *(char *)plots = '\0';
    cr_expect_leq(tf_count(md, "\n"), 40, "the answers fit a screen: %s", md);
    tf_expect_has(md,
                  "**Machine:** Intel(R) Xeon(R) Processor, 2 general cores, 2 hardware threads, 13.38 GB memory, "
                  "Linux 6.18.44-fc-v973 x86_64, hypervisor KVMKVMKVM; LOADED: load average 16.41 at start (8.2 a cpu).",
                  "**Read floor** (streaming read, the best kernel's median pass): 1 thread 2.8 GB/s, 2 threads 2.4 GB/s.",
                  "| qwen3-0.6b | q8_0 | 3.73 | 80% | spin, static, fused glue, 1 thread on p | kernel 48.58 ms, 18% of "
                  "the token | machine: its best L2 kernel (avx512) computes 29.4 GB/s, over the 3.0 GB/s a thread "
                  "streams at this point's floor: the kernel waits on memory |",
                  "**Run** qwen3-0.6b q8_0 with spin, static, fused glue, 1 thread on p: 3.73 tok/s, 80% of its floor. "
                  "The fastest point (3.84 tok/s, 2 threads, spawn) is noisy",
                  "- policy condvar (workers sleep between dispatches): 3.19 tok/s, -15% measured apart (no interval)\n",
                  "- threads 2: 1.91 tok/s, -49% measured apart (no interval); noisy: spread 35%",
                  "| tok/s at the floor | 2.8 | 0.7 | 0.35 | 0.18 |",
                  "**Noise:** 3 of the 6 points are noisy and marked so: q8_0 spin 2 threads (spread 35%, -375% of its "
                  "token unexplained)");
    drop_fixture(dir);
}

/* memory_floor.csv's 1-thread best kernel (avx2-4s) read 9.5 GB/s: the floor line and the model-size row move. */
Test(report_answers, the_floor_follows_memory_floor_csv)
{
    char dir[256];
    copy_fixture("budget", dir, sizeof dir);
    static const char *const where[] = { "op", "read", "kernel", "avx2-4s", "threads", "1", NULL };
    set_cells_where(dir, "memory_floor.csv", "gbps_median", "9.500", where);
    char *md = report_of(dir, true);
    tf_expect_has(md, "1 thread 9.5 GB/s, 2 threads 2.4 GB/s.", "(9.5 GB/s, 1 thread;",
                  "| tok/s at the floor | 9.5 | 2.4 | 1.19 | 0.59 |");
    drop_fixture(dir);
}

/* The ownership rule: a kernel that cannot stream (its L2 speed under a thread's share of the floor) owns the loss
 * as poolbench's; over it, the machine's. */
Test(report_answers, a_kernel_that_cannot_stream_is_poolbench_s)
{
    char dir[256];
    copy_budget_with_slow_l2(dir, sizeof dir);
    char *md = report_of(dir, true);
    tf_expect_has(md, "| kernel 48.58 ms, 18% of the token | poolbench: its best L2 kernel (",
                  ") computes 1.5 GB/s, under the 3.0 GB/s a thread streams at this point's floor: the kernel cannot "
                  "stream |");
    drop_fixture(dir);
}

/* The headline's kernel table holds each format's best L2 kernel against the 1-thread floor and its best DRAM-size
 * kernel against the read measured just before it: q8_0's 29.4 GB/s in L2 over a 2.8 GB/s floor, its 13.0 at DRAM
 * size over a read of 14.0 (set here: the fixture is from before read_gbps, whose cells stay empty elsewhere). */
Test(report_answers, the_kernel_table_holds_kernels_against_the_floor_and_the_read)
{
    char dir[256];
    copy_fixture("budget", dir, sizeof dir);
    static const char *const where[] = { "format", "q8_0", "variant", "avx2", "level", "dram", "threads", "1",
                                         "batch", "1", NULL };
    set_cells_where(dir, "kernels.csv", "read_gbps", "14.000", where);
    char *md = report_of(dir, false);
    tf_expect_has(md, "| format | L2, 1 thread | × floor | variant |", "| q8_0 | 29.4 | 10.4× | avx512 |",
                  "| 13.0 | 93% | avx2 |", "the 1-thread read floor's median (2.8 GB/s)");
    drop_fixture(dir);
}

/* The best point's tokens spread 40%: it is marked, and the recommendation falls back to the next trusted one. */
Test(report_answers, a_noisy_best_point_gives_way)
{
    char dir[256];
    copy_fixture("budget", dir, sizeof dir);
    static const char *const where[] = { "policy", "spin", "threads", "1", NULL };
    set_cells_where(dir, "sweep.csv", "ms_per_token_max", "400.0000", where);
    char *md = report_of(dir, true);
    tf_expect_has(md, "**Run** qwen3-0.6b q8_0 with condvar, static, fused glue, 1 thread on p: 3.19 tok/s",
                  "- policy spin (workers spin between dispatches): 3.73 tok/s, +17% measured apart (no interval); noisy: "
                  "spread");
    cr_expect_null(strstr(md, "**Run** qwen3-0.6b q8_0 with spin"), "%s", md);
    drop_fixture(dir);
}

/* The machine line reads machine.csv: another hypervisor and a quiet start. */
Test(report_answers, the_machine_line_follows_machine_csv)
{
    char dir[256], cmd[800];
    copy_fixture("budget", dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "sed -i -e 's/^hypervisor,.*/hypervisor,none/' -e 's/^loadavg_1m,.*/loadavg_1m,0.30/' "
                              "%s/machine.csv", dir);
    cr_assert_eq(system(cmd), 0);
    char *md = report_of(dir, true);
    tf_expect_has(md, "x86_64, no hypervisor; quiet: load average 0.30 at start, no steal over 5%.");
    drop_fixture(dir);
}

/* ---------------------------------------------------------------- owners, on points made here */

static pb_answer_point point(double kernel, double wait, double unexplained)
{
    pb_answer_point p = { .have_budget = true, .steal_pct = NAN };
    p.d.threads = 2;
    p.d.ms_median = 100;
    p.d.floor_gbps = 20;
    p.d.slowest_cpu = 1;
    snprintf(p.d.format, sizeof p.d.format, "q8_0");
    snprintf(p.d.schedule, sizeof p.d.schedule, "static");
    snprintf(p.d.placement, sizeof p.d.placement, "near");
    p.part[PB_BUDGET_floor] = 50;
    p.part[PB_BUDGET_kernel] = kernel;
    p.part[PB_BUDGET_wait] = wait;
    p.part[PB_BUDGET_unexplained] = unexplained;
    p.part[PB_BUDGET_glue] = 1;
    return p;
}

static pb_digest kernels_at(double l2)
{
    pb_digest d;
    memset(&d, 0, sizeof d);
    d.kern.have = true;
    d.kern.n = 1;
    snprintf(d.kern.k[0].format, sizeof d.kern.k[0].format, "q8_0");
    snprintf(d.kern.k[0].isa_l2, sizeof d.kern.k[0].isa_l2, "avx2");
    d.kern.k[0].l2 = l2;
    return d;
}

Test(report_answers, owners_of_each_loss)
{
    /* a 20 GB/s floor over 2 threads: 10 GB/s a thread */
    pb_digest slow = kernels_at(8), fast = kernels_at(12), none;
    memset(&none, 0, sizeof none);
    pb_answer_point k = point(30, 5, 2);
    pb_answer_biggest_loss l = pb_answer_loss(&k, &slow);
    cr_expect_eq(l.part, PB_BUDGET_kernel);
    cr_expect_float_eq(l.pct, 30, 1e-9);
    cr_expect_eq(l.owner, PB_OWNER_POOLBENCH, "%s", l.why);
    cr_expect_eq(pb_answer_loss(&k, &fast).owner, PB_OWNER_MACHINE);
    cr_expect_eq(pb_answer_loss(&k, &none).owner, PB_OWNER_POOLBENCH, "no kernels.csv: poolbench's to prove");
    /* fast in L2, and at DRAM size under 90% of the read beside it (30 of 40 GB/s): it does not stream */
    fast.kern.k[0].dram = 30;
    fast.kern.k[0].dram_read = 40;
    snprintf(fast.kern.k[0].isa_dram, sizeof fast.kern.k[0].isa_dram, "avx512");
    l = pb_answer_loss(&k, &fast);
    cr_expect_eq(l.owner, PB_OWNER_POOLBENCH, "%s", l.why);
    cr_expect(strstr(l.why, "(avx512) reads 30.0 GB/s, 75% of the 40.0 GB/s read beside it"), "%s", l.why);
    fast.kern.k[0].dram = 38; /* 95% of it: memory's pace */
    l = pb_answer_loss(&k, &fast);
    cr_expect_eq(l.owner, PB_OWNER_MACHINE, "%s", l.why);
    cr_expect(strstr(l.why, "at DRAM size 95% of the read beside it"), "%s", l.why);
    fast.kern.k[0].dram = fast.kern.k[0].dram_read = NAN; /* a kernels.csv from before read_gbps: L2 alone */

    pb_answer_point w = point(3, 20, 2);
    l = pb_answer_loss(&w, &fast);
    cr_expect_eq(l.part, PB_BUDGET_wait);
    cr_expect_eq(l.owner, PB_OWNER_POOLBENCH, "the split's: %s", l.why);
    w.steal_pct = 12;
    l = pb_answer_loss(&w, &fast);
    cr_expect_eq(l.owner, PB_OWNER_MACHINE, "a neighbour took the core: %s", l.why);
    cr_expect(strstr(l.why, "12%"), "%s", l.why);
    w.steal_pct = NAN;
    snprintf(w.d.placement, sizeof w.d.placement, "mixed");
    cr_expect_eq(pb_answer_loss(&w, &fast).owner, PB_OWNER_MACHINE, "a placement that changed");

    pb_answer_point u = point(3, 2, 25);
    l = pb_answer_loss(&u, &slow);
    cr_expect_eq(l.part, PB_BUDGET_unexplained);
    cr_expect_eq(l.owner, PB_OWNER_MACHINE);
    /* the roof binds: 70 ms of multiply-adds at it, over 40 ms of weights at the floor (800 MB at 20 GB/s) */
    pb_answer_point r = point(5, 2, 1);
    r.part[PB_BUDGET_floor] = 1; /* the KV cache's bytes alone */
    r.part[PB_BUDGET_roof] = 70;
    r.d.weight_bytes = 800e6;
    r.roof_share = 0.85;
    l = pb_answer_loss(&r, &slow);
    cr_expect_eq(l.part, PB_BUDGET_roof, "%d", l.part);
    cr_expect_float_eq(l.ms, 30, 1e-9);
    cr_expect_eq(l.owner, PB_OWNER_MACHINE, "%s", l.why);
    cr_expect(strstr(l.why, "take 70.00 ms at it, over the 40.00 ms its weights take at the floor, and the token "
                            "reached 85% of it: the core's arithmetic"), "%s", l.why);
    r.roof_share = 0.7; /* under PB_ROOF_NEAR: the kernels' */
    l = pb_answer_loss(&r, &slow);
    cr_expect_eq(l.owner, PB_OWNER_POOLBENCH, "%s", l.why);
    cr_expect(strstr(l.why, "reached 70% of it: its kernels could compute faster"), "%s", l.why);
    r.prompt = 256; /* a prompt's table counts from its bound: the roof is no loss there */
    cr_expect_eq(pb_answer_loss(&r, &slow).part, PB_BUDGET_kernel);
    r.prompt = 0;
    r.part[PB_BUDGET_roof] = 42; /* 2 ms over the weights': the kernel's 5 is bigger */
    cr_expect_eq(pb_answer_loss(&r, &slow).part, PB_BUDGET_kernel);

    pb_answer_point n = point(-4, 0, -1);
    cr_expect_eq(pb_answer_loss(&n, &slow).part, PB_BUDGET_glue, "the only part past the floor over 0");
    n.have_budget = false;
    cr_expect_eq(pb_answer_loss(&n, &slow).part, -1);
}

/* ---------------------------------------------------------------- the plot */

/* Where the time went: drawn (PNG and SVG) and embedded for a run with a budget; an older sweep.csv, its budget
 * cells empty, gets none and no failure. */
Test(report_answers, the_budget_plot_where_there_is_a_budget)
{
    char dir[256], out[8192];
    copy_fixture("budget", dir, sizeof dir);
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report %s", dir), 0, "%s", out);
    cr_expect_gt(file_size(dir, "sweep_budget.png"), 1000);
    cr_expect_gt(file_size(dir, "sweep_budget.svg"), 1000);
    const char *svg = tf_slurp("%s/sweep_budget.svg", dir);
    tf_expect_has(svg, "Where the time went", ">floor<", ">unexplained<", ">q8_0/1t<", ">q8_0/2t<", ">268.4 ms<");
    cr_expect(strstr(tf_slurp("%s/report.md", dir), "![sweep_budget](sweep_budget.png)"));
    drop_fixture(dir);
    copy_fixture("xeon16", dir, sizeof dir);
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report %s", dir), 0, "%s", out);
    cr_expect_eq(file_size(dir, "sweep_budget.png"), -1, "no budget, no plot: %s", out);
    cr_expect_null(strstr(out, "budget"), "and no line about it: %s", out);
    drop_fixture(dir);
}

/* CSV text reaches the budget plot as data only: a format and a core set that try to break out of gnuplot's
 * quoting run nothing, and the plot is still drawn (by gnuplot itself: the report leaves such rows out, and
 * sweep.gp stops on them before). */
Test(report_answers, the_budget_plot_reads_text_as_data)
{
    char dir[256], out[8192], cwd[1024];
    copy_fixture("budget", dir, sizeof dir);
    set_cell(dir, "sweep.csv", 0, "format", "q8'.system('touch PWNED').'\"`touch PWNED`");
    set_cell(dir, "sweep.csv", 1, "cpuset", "p\";system(\"touch PWNED\");\"");
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_expect_eq(sh(out, sizeof out, "cd %s && gnuplot -e 'has_ctx=1' %s/plots/sweep_budget.gp", dir, cwd), 0, "%s",
                 out);
    cr_expect_gt(file_size(dir, "sweep_budget.png"), 1000, "%s", out);
    cr_expect_eq(file_size(dir, "PWNED"), -1, "nothing ran: %s", out);
    drop_fixture(dir);
}

/* pairs.csv beside the budget fixture's 1-thread block: spin and condvar alike token for token (the host 30%
 * slower from round 11 on, on both), spawn 10% slower; two of condvar's rounds under steal. The sweep's
 * sequential points put condvar 15% behind spin; the interleaved rounds say no difference, and the spoiled rounds
 * are counted, not used. */
static void write_pairs(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/pairs.csv", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "%s\n", pb_schema_header(PB_K_PAIRS));
    static const char *const pol[] = { "spin", "condvar", "spawn" };
    static const double cost[] = { 1.0, 1.0, 1.1 }, wobble[] = { 0.01, -0.012, 0.004, -0.003, 0.015, -0.008, 0.0 };
    for (int thr = 1; thr <= 2; thr++) /* both blocks: the answers take 1 thread's, the findings 2 threads' */
        for (int r = 1; r <= 20; r++)
            for (int a = 0; a < 3; a++) {
                double host = r > 10 ? 1.3 : 1.0, ms = 270 * cost[a] * host * (1 + wobble[(r * 3 + a) % 7]);
                bool aside = a == 1 && (r == 3 || r == 7);
                fprintf(f, "run,vm,qwen3-0.6b,q8_0,%s,static,fused,%d,p,1,0,f16,%d,%d,%.4f,%.1f,%d,0,budget\n", pol[a],
                        thr, r, (a + r) % 3, aside ? ms * 2 : ms, aside ? 40.0 : 0.0, aside);
            }
    fclose(f);
}

Test(report_answers, interleaved_rounds_state_only_what_their_interval_shows)
{
    char dir[256];
    copy_fixture("budget", dir, sizeof dir);
    write_pairs(dir);
    char *md = report_of(dir, true);
    tf_expect_has(md, "**Run** qwen3-0.6b q8_0 with spin, static, fused glue, 1 thread on p: 3.73 tok/s",
                  "- policy spawn (threads made for every dispatch): 3.02 tok/s, -9% (",
                  "%), 20 rounds interleaved\n",
                  "Interleaved with it, no difference to state: policy condvar, no difference measured (",
                  "spin, static, fused glue, 1 thread on p (interleaved, no difference measured from: condvar) |",
                  "18 rounds interleaved, 2 set aside (steal, or a placement change))");
    cr_expect_null(strstr(md, "- policy condvar"), "condvar's -15%% measured apart is not stated: %s", md);
    md = report_of(dir, false); /* the findings too */
    tf_expect_has(md, "At 2 threads, condvar and spin decode alike (2.0 vs 1.9 tok/s measured apart, q8_0; "
                      "interleaved: no difference measured (",
                  "At 2 threads, spawn decodes at 91% of spin's speed (3.8 vs 1.9 tok/s, q8_0, 253 dispatches per "
                  "token; interleaved: -9% (");
    cr_expect_null(strstr(md, "condvar decodes at"), "no speed stated for condvar: %s", md);
    drop_fixture(dir);
}

/* roof.csv beside the budget fixture: q8_0's best L2 kernel (avx512, 29.4 GB/s at 32/34 MACs a byte: 27.6
 * GMAC/s) is 31% of a roof of 89 GMAC/s and 10.4x the 1-thread floor: memory binds. With the floor edited above
 * the kernel, the roof decides, and crossing 80% of it moves the words from poolbench's kernel to the core's
 * arithmetic. The roof is the best run (gmacs_max), not the median, written here at half of it. */
static void write_roof_of(const char *dir, const char *isa, double gmacs)
{
    char path[512];
    snprintf(path, sizeof path, "%s/roof.csv", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "%s\nrun,vm,%s,%s,int8,vpdpbusd zmm,1,0,%.2f,%.2f,%.2f,%.2f,4.000,%.2f\n",
            pb_schema_header(PB_K_ROOF), isa, isa, gmacs / 2, gmacs / 4, gmacs, 2 * gmacs, gmacs / 4);
    fclose(f);
}

static void write_roof(const char *dir, double gmacs)
{
    write_roof_of(dir, "avx512", gmacs);
}

Test(report_answers, the_binding_roof_follows_the_compute_share)
{
    char dir[256];
    copy_fixture("budget", dir, sizeof dir);
    write_roof(dir, 89);
    char *md = report_of(dir, false);
    tf_expect_has(md, "| q8_0 | 0.94 | 27.6 | 89.0 | 31% | vpdpbusd zmm | 10.4× | memory (it computes faster than the "
                      "floor streams) |");
    static const char *const one[] = { "threads", "1", NULL };
    set_cells_where(dir, "memory_floor.csv", "gbps_median", "40.000", one); /* a floor the kernel cannot reach */
    md = report_of(dir, false);
    tf_expect_has(md, "| 31% | vpdpbusd zmm | 0.73× | poolbench's kernel (under both roofs) |");
    write_roof(dir, 30);
    md = report_of(dir, false);
    tf_expect_has(md, "| q8_0 | 0.94 | 27.6 | 30.0 | 92% | vpdpbusd zmm | 0.73× | the core's arithmetic (at its "
                      "compute roof) |");
    drop_fixture(dir);
}

/* The floor's compute twin on the first screen: a prompt's tokens a second at the int8 roof, for 1..16 GB of the
 * run's format (q8_0: 32/34 MACs a byte): 89 GMAC/s / (1 GB x 0.941) = 95 tok/s, / 16 GB = 6. No roof.csv: no
 * table. */
Test(report_answers, the_prompt_s_ceiling_at_the_roof_is_the_floor_s_twin)
{
    char dir[256];
    copy_fixture("budget", dir, sizeof dir);
    char *md = report_of(dir, true);
    cr_expect_null(strstr(md, "**At the roof**"), "no roof.csv, no table: %s", md);
    write_roof(dir, 89);
    md = report_of(dir, true);
    tf_expect_has(md, "**At the roof** (avx512's int8 roof, 89.0 GMAC/s at 1 thread; a prompt token multiplies every "
                      "weight once, 0.94 of q8_0 a byte):",
                  "| prompt tok/s at the roof | 95 | 24 | 12 | 6 |");
    drop_fixture(dir);
}

/* The kernel that cannot stream (avx512's edited to 1.5 GB/s in L2, so scalar's is the best: 1.41 GMAC/s at 32/34
 * MACs a byte) against scalar's roof: at 31% of it the loss stays poolbench's; at 94% the core's arithmetic binds
 * and the owner is the machine. */
Test(report_answers, a_kernel_at_its_compute_roof_is_the_machine_s)
{
    char dir[256];
    copy_budget_with_slow_l2(dir, sizeof dir);
    write_roof_of(dir, "scalar", 4.5);
    char *md = report_of(dir, true);
    tf_expect_has(md, "| kernel 48.58 ms, 18% of the token | poolbench: its best L2 kernel (",
                  ") computes 1.5 GB/s, under the 3.0 GB/s a thread streams at this point's floor, doing 1.4 GMAC/s, "
                  "31% of its ISA's compute roof: the kernel cannot stream, and the core could compute faster |");
    write_roof_of(dir, "scalar", 1.5);
    md = report_of(dir, true);
    tf_expect_has(md, "| kernel 48.58 ms, 18% of the token | machine: its best L2 kernel (",
                  "doing 1.4 GMAC/s, 94% of its ISA's compute roof: the core's arithmetic binds, not the kernel |");
    drop_fixture(dir);
}
