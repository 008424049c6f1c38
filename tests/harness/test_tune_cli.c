/* bench_tune as a user runs it ($POOLBENCH_BIN, set by make test): bad input is one line naming the option, exit 2,
 * nothing written; a tiny tuning writes a wisdom file this machine then reads (no figure is asserted); --if-missing
 * measures nothing when the file is this machine's, and again when it is another's. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "harness_run.h"
#include "pb_wisdom.h"

/* A tiny tuning: one format, one thread, 16 MiB of weights, a second. */
#define TINY "--format q8_0 --threads 1 --size-mib 16 --budget-s 1 --quick --wisdom w/wisdom"

Test(tune_cli, bad_options)
{
    harness_expect_bad("bench_tune", "", "--threads 0", "--threads");
    harness_expect_bad("bench_tune", "", "--threads 1,2,3,4,5", "--threads");
    harness_expect_bad("bench_tune", "", "--threads 100000", "--threads");
    harness_expect_bad("bench_tune", "", "--format q9_9", "--format");
    harness_expect_bad("bench_tune", "", "--budget-s 0", "--budget-s");
    harness_expect_bad("bench_tune", "", "--size-mib 0", "--size-mib");
    harness_expect_bad("bench_tune", "", "--size-mib 1048576", "--size-mib");
    harness_expect_bad("bench_tune", "", "--bogus", "--bogus");
    harness_expect_bad("bench_tune", "POOLBENCH_POLICY=warp", "", "POOLBENCH_POLICY");
}

/* The file's text (the caller frees it). */
static char *wisdom_text(const char *dir)
{
    return strdup(tf_slurp("%s/w/wisdom", dir));
}

Test(tune_cli, tiny_tuning_writes_wisdom_and_if_missing_keeps_it, .timeout = 120)
{
    char dir[64], err[8192];
    tf_tmpdir(dir, sizeof dir, "pbtune");
    harness_run_ok(dir, "bench_tune", "", TINY);
    char *text = wisdom_text(dir);
    pb_wisdom w;
    char why[256];
    cr_assert_eq(pb_wisdom_parse(text, strlen(text), &w, why, sizeof why), 0, "%s: %s", why, text);
    cr_assert_not_null(pb_wisdom_kernel_at(&w, KERN_Q8_0, 1), "%s", text);
    cr_assert_eq(w.nkernels, 1);
    cr_assert_null(strstr(text, "\nread "), "no floor read kernel: the floor is measured beside each decode");
    cr_assert(strstr(w.cpu, "pus ") && strstr(w.build, "src "), "%s", text);
    /* up to date: nothing measured, the file as it was */
    cr_assert_eq(harness_run_in(dir, "bench_tune", "", TINY " --if-missing", err, sizeof err), 0, "%s", err);
    char *again = wisdom_text(dir);
    cr_assert_str_eq(again, text);
    free(again);
    /* another cpu's: measured again, saying so */
    char *cpu = strstr(text, "\ncpu ");
    cr_assert_not_null(cpu);
    cpu[5] = cpu[5] == 'X' ? 'Y' : 'X';
    tf_write(dir, "w/wisdom", text);
    cr_assert_eq(harness_run_in(dir, "bench_tune", "", TINY " --if-missing", err, sizeof err), 0, "%s", err);
    cr_assert(strstr(err, "another cpu") && strstr(err, "measured again"), "%s", err);
    again = wisdom_text(dir);
    cr_assert_str_neq(again, text, "the other cpu's file was replaced");
    free(again);
    free(text);
    /* this machine's, tuned under steal: measured again, saying so */
    text = wisdom_text(dir);
    /* the tuning's own steal line (a tuning shorter than half the sampler's second has none) makes way for one of
     * 42%, before the end line */
    char *steal = strstr(text, "\nsteal "), *end = strstr(text, "\nend\n"), noisy[8192];
    cr_assert_not_null(end);
    char *cut = steal ? steal : end, *rest = steal ? strchr(steal + 1, '\n') : end;
    snprintf(noisy, sizeof noisy, "%.*s\nsteal 42.0%s", (int)(cut - text), text, rest);
    tf_write(dir, "w/wisdom", noisy);
    cr_assert_eq(harness_run_in(dir, "bench_tune", "", TINY " --if-missing", err, sizeof err), 0, "%s", err);
    cr_assert(strstr(err, "hypervisor took up to 42.0%") && strstr(err, "measured again"), "%s", err);
    again = wisdom_text(dir);
    cr_assert_null(strstr(again, "steal 42.0"), "replaced by this tuning's: %s", again);
    free(again);
    free(text);
    cr_assert_eq(tf_rmrf(dir), 0);
}

/* Every "[n/m]" progress line of err counts at most its total (n <= m); the lines seen into *lines. */
static bool progress_within_total(const char *err, int *lines)
{
    *lines = 0;
    for (const char *p = strchr(err, '['); p; p = strchr(p + 1, '[')) {
        int n, m;
        if (sscanf(p, "[%d/%d]", &n, &m) != 2)
            continue;
        ++*lines;
        if (n > m)
            return false;
    }
    return true;
}

/* At two threads the pool's dispatch is timed after the kernel points; its lines once read "[323/322]", past the
 * count they are not part of. */
Test(tune_cli, the_progress_never_counts_past_its_total, .timeout = 120)
{
    char dir[64], err[65536];
    tf_tmpdir(dir, sizeof dir, "pbtune");
    int rc = harness_run_in(dir, "bench_tune", "",
                            "--format q8_0 --threads 1,2 --size-mib 16 --budget-s 1 --quick --wisdom w/wisdom", err,
                            sizeof err);
    cr_assert_eq(rc, 0, "%s", err);
    int lines;
    cr_expect(progress_within_total(err, &lines), "%s", err);
    cr_expect_gt(lines, 2, "the kernel points' progress lines: %s", err);
    cr_expect_not_null(strstr(err, "dispatch flat threads=2"), "the dispatch points say so: %s", err);
    cr_assert_eq(tf_rmrf(dir), 0);
}

/* POOLBENCH_KERNEL caps the tuning: refused without a wisdom file named for it (a capped choice is not this
 * machine's best), and with one every kernel it chose is the cap or under it. */
Test(tune_cli, a_capped_tuning_keeps_under_its_cap_in_a_file_of_its_own, .timeout = 120)
{
    if (!kern_isa_supported(KERN_ISA_AVX2) || kern_isa_best() == KERN_ISA_AVX2)
        cr_skip_test("needs an ISA above avx2 here, to cap it");
    harness_expect_bad("bench_tune", "POOLBENCH_KERNEL=avx2", "--format q8_0 --threads 1 --quick", "POOLBENCH_KERNEL");
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbcap");
    harness_run_ok(dir, "bench_tune", "POOLBENCH_KERNEL=avx2",
                   "--format q4_0 --threads 1 --size-mib 16 --budget-s 1 --quick --wisdom c");
    char *text = strdup(tf_slurp("%s/c", dir));
    pb_wisdom w;
    char why[256];
    cr_assert_eq(pb_wisdom_parse(text, strlen(text), &w, why, sizeof why), 0, "%s: %s", why, text);
    const pb_wisdom_kernel *k = pb_wisdom_kernel_at(&w, KERN_Q4_0, 1);
    cr_assert_not_null(k, "%s", text);
    cr_expect(kern_isa_under(k->isa, KERN_ISA_AVX2), "q4_0's kernel %s is under avx2: %s", kern_isa_name(k->isa), text);
    free(text);
    cr_assert_eq(tf_rmrf(dir), 0);
}
