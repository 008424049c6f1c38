/* Every row that ran a kernel says which and why (pb_kernel_choice.h), as a user runs the harnesses: bench_sweep on a
 * tiny model file with this machine's wisdom (tuned: the kernel and prefetch the file names, here scalar without
 * prefetch, which no rank would pick; the floor still the best of every read kernel), without wisdom (rank), with
 * POOLBENCH_KERNEL (forced), with another cpu's or a truncated file (rank, and one line on stderr saying which);
 * bench_overlap's q8_0 job likewise. The wisdom file is bench_tune's own (its identities are this machine's), its
 * kernel line then edited. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_model.h"
#include "harness_run.h"
#include "pb_csvread.h"
#include "kern_repack.h"
#include "pb_kernel_choice.h"
#include "pb_model.h"
#include "test_files.h"

/* qwen3-shaped, small (test_model_cli.c's): 2 layers. */
static const pb_model tiny = { .name = "tiny", .hidden = 256, .q_dim = 512, .kv_dim = 256, .ffn = 768, .layers = 2,
                               .vocab = 1001, .n_head = 4, .n_kv_head = 2, .head_dim = 128, .qk_norm = true,
                               .rope_neox = true, .rope_base = 1e6f };

/* DIR/tiny.gguf: q8_0 matvecs, an f16 lm_head (the sweep's kernel columns are its first format's: q8_0). */
static void write_model(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/tiny.gguf", dir);
    gm_write_q8(&tiny, &(gm_opts){ .arch = "qwen3" }, path);
}

/* DIR/w: bench_tune's wisdom for q8_0 at 1 thread, its kernel line replaced by scalar without prefetch; and DIR/other
 * (another cpu's) and DIR/cut (truncated). */
static void write_wisdom(const char *dir)
{
    harness_run_ok(dir, "bench_tune", "",
                   "--format q8_0 --threads 1 --size-mib 16 --budget-s 1 --quick --wisdom w");
    char *text = strdup(tf_slurp("%s/w", dir));
    char *k = strstr(text, "\nkernel q8_0 1 "), *nl = k ? strchr(k + 1, '\n') : NULL;
    cr_assert(k && nl, "%s", text);
    char edited[8192];
    snprintf(edited, sizeof edited, "%.*s\nkernel q8_0 1 scalar noprefetch 1.000 file tuned 1.000%s", (int)(k - text),
             text, nl);
    tf_write(dir, "w", edited);
    char other[8192];
    snprintf(other, sizeof other, "%s", edited);
    char *cpu = strstr(other, "\ncpu ");
    cr_assert_not_null(cpu);
    cpu[5] = cpu[5] == 'X' ? 'Y' : 'X';
    tf_write(dir, "other", other);
    edited[strlen(edited) - 4] = '\0'; /* no end line */
    tf_write(dir, "cut", edited);
    /* q8_0 tuned to this CPU's best kernel, above scalar (a real tuning may keep scalar under emulation) */
    char real[8192];
    snprintf(real, sizeof real, "%.*s\nkernel q8_0 1 %s noprefetch 1.000 file tuned 1.000%s", (int)(k - text), text,
             kern_isa_name(kern_matvec_isa(KERN_Q8_0, kern_isa_best())), nl);
    tf_write(dir, "real", real);
    free(text);
}

typedef struct why_row {
    char kernel[32], why[16], stream[16], floor_why[16], layout[32], err[8192];
    double repack_ms, repacked_bytes;
} why_row;

/* bench_sweep on tiny.gguf at 1 thread with env and extra (the wisdom option); its one row's kernel columns. */
static why_row sweep(const char *dir, const char *env, const char *extra)
{
    static int n;
    char args[512], out[32], full_env[256];
    snprintf(out, sizeof out, "run%d", n++);
    snprintf(args, sizeof args, "--model tiny.gguf --threads 1 --cpus all --policy spin --tokens 1 --warmup 0 "
             "--floor-passes 3 %s --out %s", extra, out);
    snprintf(full_env, sizeof full_env, "POOLBENCH_PLOTS=/nonexistent %s", env);
    why_row w;
    int rc = harness_run_in(dir, "bench_sweep", full_env, args, w.err, sizeof w.err);
    cr_assert_eq(rc, 0, "%s: exit %d: %s", args, rc, w.err);
    pb_table t;
    char name[64];
    snprintf(name, sizeof name, "%s/sweep.csv", out);
    harness_load_csv(&t, dir, name);
    cr_assert_eq(t.nrows, 1);
    snprintf(w.kernel, sizeof w.kernel, "%s", pb_table_str(&t, 0, pb_table_col(&t, "kernel")));
    snprintf(w.why, sizeof w.why, "%s", pb_table_str(&t, 0, pb_table_col(&t, "kernel_why")));
    snprintf(w.stream, sizeof w.stream, "%s", pb_table_str(&t, 0, pb_table_col(&t, "kernel_stream")));
    snprintf(w.floor_why, sizeof w.floor_why, "%s", pb_table_str(&t, 0, pb_table_col(&t, "floor_why")));
    snprintf(w.layout, sizeof w.layout, "%s", pb_table_str(&t, 0, pb_table_col(&t, "kernel_layout")));
    w.repack_ms = pb_table_num(&t, 0, pb_table_col(&t, "repack_ms"));
    w.repacked_bytes = pb_table_num(&t, 0, pb_table_col(&t, "repacked_bytes"));
    pb_table_free(&t);
    return w;
}

/* What rank picks for q8_0, and how it streams with the vendor's hint. */
static void expect_rank(const why_row *w)
{
    kern_isa best = kern_matvec_isa(KERN_Q8_0, kern_isa_best());
    cr_expect_str_eq(w->kernel, kern_isa_name(best));
    cr_expect_str_eq(w->why, "rank");
    cr_expect_str_eq(w->stream, kern_matvec_prefetches(KERN_Q8_0, best)
                                    ? kern_prefetch_setting_name(kern_prefetch_vendor_temporal(), KERN_PREFETCH_BYTES,
                                                                 kern_prefetch_vendor_near())
                                    : "off");
    cr_expect_str_eq(w->floor_why, "all", "no wisdom: every read kernel measured, the best taken");
}

/* A fresh directory (its name into dir) holding tiny.gguf and DIR/t, bench_tune's wisdom for q8_0 at threads (a
 * list, up to 2; the test skipped with fewer cpus, saying why it needs them); the wisdom's text, malloc'd. */
static char *model_and_wisdom(char *dir, size_t len, const char *tag, const char *threads, const char *why)
{
    int cpus[2];
    tf_need_cpus(cpus, 2, why);
    tf_tmpdir(dir, len, tag);
    write_model(dir);
    char args[256];
    snprintf(args, sizeof args, "--format q8_0 --threads %s --size-mib 16 --budget-s 1 --quick --wisdom t", threads);
    harness_run_ok(dir, "bench_tune", "", args);
    return strdup(tf_slurp("%s/t", dir));
}

/* A fresh directory holding write_wisdom's files; the test skipped where tuned and rank would pick alike. */
static void wisdom_dir(char *dir, size_t len, const char *tag)
{
    if (kern_matvec_isa(KERN_Q8_0, kern_isa_best()) == KERN_ISA_SCALAR)
        cr_skip_test("this CPU runs only the scalar kernels: tuned and rank would pick the same");
    tf_tmpdir(dir, len, tag);
    write_wisdom(dir);
}

Test(why_cli, sweep_rows_say_tuned_rank_or_forced, .timeout = 300)
{
    char dir[64];
    wisdom_dir(dir, sizeof dir, "pbwhy");
    write_model(dir);

    why_row w = sweep(dir, "", "--wisdom w");
    cr_expect_str_eq(w.kernel, "scalar", "wisdom's kernel, not rank's");
    cr_expect_str_eq(w.why, "tuned");
    cr_expect_str_eq(w.stream, "off");
    cr_expect_str_eq(w.floor_why, "all", "with wisdom too, the floor is the best of every read kernel measured now");
    cr_expect_eq(tf_count(w.err, "wisdom"), 0, "nothing to say on stderr: %s", w.err);

    w = sweep(dir, "", "--wisdom none");
    expect_rank(&w);

    w = sweep(dir, "POOLBENCH_WISDOM=w", ""); /* the environment names the file as well */
    cr_expect_str_eq(w.why, "tuned");

    /* POOLBENCH_KERNEL caps the kernels: the wisdom's choice where it is under the cap, else the forced ISA's own */
    w = sweep(dir, "POOLBENCH_KERNEL=scalar", "--wisdom w");
    cr_expect_str_eq(w.kernel, "scalar");
    cr_expect_str_eq(w.why, "tuned", "the wisdom's scalar is under the cap");
    cr_expect_str_eq(w.stream, "off");
    w = sweep(dir, "POOLBENCH_KERNEL=scalar", "--wisdom real");
    cr_expect_str_eq(w.kernel, "scalar");
    cr_expect_str_eq(w.why, "forced", "the wisdom's own kernel is above the cap");
    cr_expect_str_eq(w.stream, "off");

    w = sweep(dir, "", "--wisdom other");
    expect_rank(&w);
    cr_expect_eq(tf_count(w.err, "another cpu"), 1, "one line: %s", w.err);
    cr_expect_eq(tf_count(w.err, "wisdom"), 1, "one line: %s", w.err);

    w = sweep(dir, "", "--wisdom cut");
    expect_rank(&w);
    cr_expect_eq(tf_count(w.err, "malformed, truncated (no end line)"), 1, "one line: %s", w.err);
    cr_expect_eq(tf_count(w.err, "wisdom"), 1, "one line: %s", w.err);
    cr_assert_eq(tf_rmrf(dir), 0);
}

/* A repacked layout from wisdom: the row names it, the time its copy took and the copy's bytes (tiny's 14 q8_0
 * matrices re-laid and its f16 lm_head as it is, each rounded up to a line); the file's layout: none. */
Test(why_cli, sweep_rows_say_what_the_repacked_copy_cost, .timeout = 300)
{
    char dir[64];
    wisdom_dir(dir, sizeof dir, "pbwhyrp");
    write_model(dir);
    char *text = strdup(tf_slurp("%s/w", dir));
    char *k = strstr(text, "\nkernel q8_0 1 "), *nl = k ? strchr(k + 1, '\n') : NULL;
    cr_assert(k && nl, "%s", text);
    char edited[8192];
    snprintf(edited, sizeof edited, "%.*s\nkernel q8_0 1 scalar noprefetch 1.000 q8_0_r16 tuned 1.000%s",
             (int)(k - text), text, nl);
    tf_write(dir, "r16", edited);
    free(text);
    pb_matvec mv[2 * PB_MODEL_MATVECS_PER_LAYER + 1];
    cr_assert_eq(pb_model_matvecs(&tiny, mv, 2 * PB_MODEL_MATVECS_PER_LAYER + 1), 2 * PB_MODEL_MATVECS_PER_LAYER + 1);
    uint64_t want = 0;
    for (int i = 0; i < 2 * PB_MODEL_MATVECS_PER_LAYER; i++) /* the last, lm_head, is f16 in tiny.gguf */
        want += (kern_repack_bytes(KERN_LAYOUT_Q8_0_R16, KERN_Q8_0, (size_t)mv[i].rows, (size_t)mv[i].cols) + 63) / 64
                * 64; /* lm_head stays in the weights, read where it is */

    why_row w = sweep(dir, "", "--wisdom r16");
    cr_expect_str_eq(w.layout, "q8_0_r16");
    cr_expect_gt(w.repack_ms, 0, "the copy took time");
    cr_expect_eq(w.repacked_bytes, (double)want, "%.0f bytes, %llu expected", w.repacked_bytes, (unsigned long long)want);
    w = sweep(dir, "", "--wisdom w");
    cr_expect_str_eq(w.layout, "file");
    cr_expect_eq(w.repack_ms, 0);
    cr_expect_eq(w.repacked_bytes, 0);
    cr_assert_eq(tf_rmrf(dir), 0);
}

/* bench_overlap's q8_0 job: wisdom's kernel (tuned), or rank's without it. */
Test(why_cli, overlap_rows_say_why, .timeout = 300)
{
    char dir[64];
    wisdom_dir(dir, sizeof dir, "pbwhyov");
    static const struct {
        const char *wisdom, *isa, *why;
    } runs[] = { { "w", "scalar", "tuned" }, { "none", NULL, "rank" } };
    for (int i = 0; i < 2; i++) {
        char args[256], name[64];
        snprintf(args, sizeof args, "--quick --modes serial --ratios 1 --rows 64 --cols 256 --steps 10 --reps 3 "
                 "--wisdom %s --out ov%d", runs[i].wisdom, i);
        harness_run_ok(dir, "bench_overlap", "POOLBENCH_PLOTS=/nonexistent", args);
        pb_table t;
        snprintf(name, sizeof name, "ov%d/overlap.csv", i);
        harness_load_csv(&t, dir, name);
        cr_assert_geq(t.nrows, 1);
        const char *want = runs[i].isa ? runs[i].isa : kern_isa_name(kern_matvec_isa(KERN_Q8_0, kern_isa_best()));
        for (size_t r = 0; r < t.nrows; r++) {
            cr_expect_str_eq(pb_table_str(&t, r, pb_table_col(&t, "variant")), want);
            cr_expect_str_eq(pb_table_str(&t, r, pb_table_col(&t, "why")), runs[i].why);
        }
        pb_table_free(&t);
    }
    cr_assert_eq(tf_rmrf(dir), 0);
}

/* Wisdom may pick another kernel at another thread count, and kernels of two ISAs agree within a tolerance, not bit
 * for bit: each point's logits are held to the first point's of the same kernels, so a sweep over 1 and 2 threads
 * with scalar at one and rank's at the other verifies every point (and exits 0). */
Test(why_cli, kernels_per_thread_count_each_verified, .timeout = 300)
{
    if (kern_matvec_isa(KERN_Q8_0, kern_isa_best()) == KERN_ISA_SCALAR)
        cr_skip_test("this CPU runs only the scalar kernels: one kernel at every thread count");
    char dir[64];
    char *text = model_and_wisdom(dir, sizeof dir, "pbwhy2", "1,2", "two thread counts");
    char *k = strstr(text, "\nkernel q8_0 1 "), *nl = k ? strchr(k + 1, '\n') : NULL, *k2 = strstr(text, "\nkernel q8_0 2 ");
    cr_assert(k && nl && k2, "%s", text);
    char edited[8192];
    snprintf(edited, sizeof edited, "%.*s\nkernel q8_0 1 scalar noprefetch 1.000 file tuned 1.000%s", (int)(k - text),
             text, nl);
    char *two = strstr(edited, "\nkernel q8_0 2 ");
    char *end2 = strchr(two + 1, '\n');
    char fixed[8192];
    snprintf(fixed, sizeof fixed, "%.*s\nkernel q8_0 2 %s prefetch 1.000 file tuned 1.000%s", (int)(two - edited),
             edited, kern_isa_name(kern_isa_best()), end2);
    tf_write(dir, "t", fixed);
    free(text);
    char err[8192];
    int rc = harness_run_in(dir, "bench_sweep", "POOLBENCH_PLOTS=/nonexistent",
                            "--model tiny.gguf --threads 1,2 --cpus all --policy spin --tokens 1 --warmup 0 "
                            "--floor-passes 3 --wisdom t --out run", err, sizeof err);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
    pb_table t;
    harness_load_csv(&t, dir, "run/sweep.csv");
    cr_assert_eq(t.nrows, 2);
    cr_expect_str_eq(pb_table_str(&t, 0, pb_table_col(&t, "kernel")), "scalar");
    cr_expect_str_eq(pb_table_str(&t, 1, pb_table_col(&t, "kernel")),
                     kern_isa_name(kern_matvec_isa(KERN_Q8_0, kern_isa_best())));
    for (size_t r = 0; r < 2; r++) {
        cr_expect_str_eq(pb_table_str(&t, r, pb_table_col(&t, "kernel_why")), "tuned");
        cr_expect_str_eq(pb_table_str(&t, r, pb_table_col(&t, "verified")), "1", "row %zu", r);
    }
    pb_table_free(&t);
    cr_assert_eq(tf_rmrf(dir), 0);
}

/* Wisdom's prefetch distance reaches the decode (its stream names it) and the floor harness reads the same file: this
 * machine's without a word on stderr, another cpu's with one line. */
Test(why_cli, distance_from_wisdom_in_the_stream_and_the_floor, .timeout = 300)
{
    kern_isa best = kern_matvec_isa(KERN_Q8_0, kern_isa_best());
    if (!kern_matvec_prefetches(KERN_Q8_0, best))
        cr_skip_test("q8_0's best ranked kernel here does not prefetch: no distance to see");
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbwhyd");
    write_model(dir);
    harness_run_ok(dir, "bench_tune", "", "--format q8_0 --threads 1 --size-mib 16 --budget-s 1 --quick --wisdom t");
    char *text = strdup(tf_slurp("%s/t", dir));
    char *k = strstr(text, "\nkernel q8_0 1 "), *nl = k ? strchr(k + 1, '\n') : NULL, *dl = strstr(text, "\ndistance ");
    cr_assert(k && nl && dl, "%s", text);
    *dl = '\0';
    char *after = strchr(dl + 1, '\n');
    char edited[8192], fixed[8192];
    snprintf(edited, sizeof edited, "%s\ndistance 3072%s", text, after); /* rank's kernel with prefetch at 3 KiB */
    k = strstr(edited, "\nkernel q8_0 1 ");
    nl = strchr(k + 1, '\n');
    snprintf(fixed, sizeof fixed, "%.*s\nkernel q8_0 1 %s prefetch 1.000 file tuned 1.000%s", (int)(k - edited), edited,
             kern_isa_name(best), nl);
    tf_write(dir, "t", fixed);
    free(text);
    why_row w = sweep(dir, "", "--wisdom t");
    cr_expect_str_eq(w.why, "tuned");
    cr_expect_str_eq(w.stream, kern_prefetch_setting_name(strstr(fixed, "\nhint t2") != NULL, 3072,
                                                          strstr(fixed, "\nnear on") != NULL));
    char err[8192];
    const char *floor = "--quick --threads 1 --size 16 --passes 10 --kernel avx2-4s,scalar --out f%d --wisdom %s";
    char args[256];
    snprintf(args, sizeof args, floor, 0, "t");
    cr_assert_eq(harness_run_in(dir, "bench_memory_floor", "POOLBENCH_PLOTS=/nonexistent", args, err, sizeof err), 0,
                 "%s", err);
    cr_expect_eq(tf_count(err, "wisdom"), 0, "%s", err);
    char *cpu = strstr(fixed, "\ncpu ");
    cpu[5] = cpu[5] == 'X' ? 'Y' : 'X';
    tf_write(dir, "o", fixed);
    snprintf(args, sizeof args, floor, 1, "o");
    cr_assert_eq(harness_run_in(dir, "bench_memory_floor", "POOLBENCH_PLOTS=/nonexistent", args, err, sizeof err), 0,
                 "%s", err);
    cr_expect_eq(tf_count(err, "another cpu"), 1, "one line: %s", err);
    cr_assert_eq(tf_rmrf(dir), 0);
}

/* DIR/NAME: wisdom text with its dispatch line at 2 threads replaced by one saying shape. */
static void write_shape(const char *dir, const char *name, const char *text, const char *shape)
{
    const char *d = strstr(text, "\ndispatch 2 "), *nl = d ? strchr(d + 1, '\n') : NULL;
    cr_assert(d && nl, "bench_tune measured the dispatch at 2 threads: %s", text);
    char edited[8192];
    snprintf(edited, sizeof edited, "%.*s\ndispatch 2 %s 300.000 200.000%s", (int)(d - text), text, shape, nl);
    tf_write(dir, name, edited);
}

/* The policies of a quick 2-thread sweep's rows (extra: its --wisdom and --policy), comma-joined in row order. */
static void sweep_policies(const char *dir, const char *extra, char *out, size_t len)
{
    static int n;
    char args[512], name[64], err[8192];
    snprintf(args, sizeof args, "--model tiny.gguf --quick --threads 2 --cpus all --tokens 1 --warmup 0 "
             "--floor-passes 3 %s --out shape%d", extra, n);
    int rc = harness_run_in(dir, "bench_sweep", "POOLBENCH_PLOTS=/nonexistent", args, err, sizeof err);
    cr_assert_eq(rc, 0, "%s: exit %d: %s", args, rc, err);
    pb_table t;
    snprintf(name, sizeof name, "shape%d/sweep.csv", n++);
    harness_load_csv(&t, dir, name);
    size_t at = 0;
    out[0] = '\0';
    for (size_t r = 0; r < t.nrows && at < len; r++)
        at += (size_t)snprintf(out + at, len - at, "%s%s", r ? "," : "", pb_table_str(&t, r, pb_table_col(&t, "policy")));
    pb_table_free(&t);
}

/* bench_tune measures the spin pool flat and tree at 2 threads; a sweep whose policy is not forced runs spin in the
 * shape the wisdom names there (tree: its rows say tree), flat when it says flat, and flat whenever --policy is
 * given. Seen failing with the wisdom's shape ignored: spin,condvar,spawn where tree,condvar,spawn was due. */
Test(why_cli, unforced_spin_runs_the_tuned_pool_shape, .timeout = 300)
{
    char dir[64];
    char *text = model_and_wisdom(dir, sizeof dir, "pbshape", "2", "a pool of two threads to shape");
    write_shape(dir, "tree", text, "tree");
    write_shape(dir, "flat", text, "flat");
    free(text);
    char got[256];
    sweep_policies(dir, "--wisdom tree", got, sizeof got);
    cr_expect_str_eq(got, "tree,condvar,spawn", "wisdom says tree at 2 threads");
    sweep_policies(dir, "--wisdom flat", got, sizeof got);
    cr_expect_str_eq(got, "spin,condvar,spawn", "wisdom says flat");
    sweep_policies(dir, "--wisdom none", got, sizeof got);
    cr_expect_str_eq(got, "spin,condvar,spawn", "no wisdom: the flat baseline");
    sweep_policies(dir, "--wisdom tree --policy spin,condvar", got, sizeof got);
    cr_expect_str_eq(got, "spin,condvar", "a forced policy runs as named");
    cr_assert_eq(tf_rmrf(dir), 0);
}
