/* Wisdom paths as a hostile user gives them: what is not a wisdom file, a path too long, a directory or a FIFO is
 * one line and exit 2 before any tuning (once it tuned for the whole budget, then failed to write, or replaced a
 * FIFO with a regular file); a long path that fits is used whole (once cut at 1023 bytes); two tunings of one
 * file at once keep both formats (once the last to finish dropped the other's). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness_run.h"
#include "kern_isa.h"
#include "pb_wisdom.h"

#define TINY "--threads 1 --size-mib 16 --budget-s 1 --quick"

/* A directory of things that are not wisdom files: d/ (a directory), F (a text file), fifo, z (a link to
 * /dev/zero). */
static void hostile_fixtures(char *dir, size_t len)
{
    tf_tmpdir(dir, len, "pbwpath");
    char path[256];
    snprintf(path, sizeof path, "%s/d", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    tf_write(dir, "F", "my notes\n");
    snprintf(path, sizeof path, "%s/fifo", dir);
    cr_assert_eq(mkfifo(path, 0644), 0);
    snprintf(path, sizeof path, "%s/z", dir);
    cr_assert_eq(symlink("/dev/zero", path), 0);
}

Test(wisdom_paths, what_is_not_a_wisdom_file_is_refused_before_tuning, .timeout = 120)
{
    char fx[64], args[512], env[512];
    hostile_fixtures(fx, sizeof fx);
    static const char *const bad[] = { "d", "F/wisdom", "fifo", "z", "F", NULL };
    for (int i = 0; bad[i]; i++) {
        snprintf(args, sizeof args, "--format q8_0 " TINY " --wisdom %s/%s", fx, bad[i]);
        harness_expect_bad("bench_tune", "", args, "--wisdom");
    }
    harness_expect_bad("bench_tune", "", "--format q8_0 " TINY " --wisdom /proc/nope/wisdom", "--wisdom");
    snprintf(env, sizeof env, "POOLBENCH_WISDOM=%s/d", fx);
    harness_expect_bad("bench_tune", env, "--format q8_0 " TINY, "POOLBENCH_WISDOM");
    /* the readers refuse what cannot be a file too */
    static const char *const readers[] = { "bench_sweep", "bench_kernels", "bench_overlap", "bench_memory_floor",
                                           NULL };
    for (int i = 0; readers[i]; i++) {
        snprintf(args, sizeof args, "--quick --wisdom %s/fifo", fx);
        harness_expect_bad(readers[i], "", args, "--wisdom");
    }
    struct stat st;
    char fifo[128];
    snprintf(fifo, sizeof fifo, "%s/fifo", fx);
    cr_assert_eq(stat(fifo, &st), 0);
    cr_expect(S_ISFIFO(st.st_mode), "the FIFO is left a FIFO");
    cr_expect_str_eq(tf_slurp("%s/F", fx), "my notes\n", "the text file is left as it was");
    cr_assert_eq(tf_rmrf(fx), 0);
}

/* "x/x/.../w" of about len bytes. */
static char *nested_path(size_t len)
{
    char *p = malloc(len + 8);
    cr_assert_not_null(p);
    size_t at = 0;
    while (at + 3 < len)
        at += (size_t)sprintf(p + at, "x/");
    sprintf(p + at, "w");
    return p;
}

Test(wisdom_paths, a_long_path_is_used_whole_or_refused, .timeout = 120)
{
    char *huge = nested_path(4200), args[8192], env[8192];
    static const char *const all[] = { "bench_tune", "bench_sweep", "bench_kernels", "bench_overlap",
                                       "bench_memory_floor", NULL };
    for (int i = 0; all[i]; i++) {
        snprintf(args, sizeof args, "--quick --wisdom %s", huge);
        harness_expect_bad(all[i], "", args, "--wisdom");
    }
    snprintf(env, sizeof env, "POOLBENCH_WISDOM=%s", huge);
    harness_expect_bad("bench_tune", env, "--quick", "POOLBENCH_WISDOM");
    free(huge);
    /* 1,100 bytes fit: written there, not at the path cut to 1023 */
    char dir[64], file[2048];
    char *path = nested_path(1100);
    tf_tmpdir(dir, sizeof dir, "pbwlong");
    snprintf(args, sizeof args, "--format q8_0 " TINY " --wisdom %s", path);
    harness_run_ok(dir, "bench_tune", "", args);
    snprintf(file, sizeof file, "%s/%s", dir, path);
    struct stat st;
    cr_expect_eq(stat(file, &st), 0, "the wisdom is at the whole path");
    cr_expect_not_null(strstr(tf_slurp("%s", file), PB_WISDOM_MAGIC), "a wisdom file");
    free(path);
    cr_assert_eq(tf_rmrf(dir), 0);
}

Test(wisdom_paths, two_tunings_at_once_keep_each_others_formats, .timeout = 180)
{
    char dir[64], log[2][128];
    tf_tmpdir(dir, sizeof dir, "pbwlock");
    static const char *const fmts[] = { "q8_0", "q4_0" };
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        const char *args[] = { "--format", fmts[i], "--threads", "1", "--size-mib", "16", "--budget-s", "2",
                               "--quick", "--wisdom", "W", NULL };
        snprintf(log[i], sizeof log[i], "%s.log%d", dir, i);
        pid[i] = harness_start("bench_tune", dir, args, log[i]);
        harness_sleep_ms(500);
    }
    for (int i = 0; i < 2; i++)
        cr_assert_eq(harness_finish(pid[i], 150000), 0, "%s", tf_slurp("%s", log[i]));
    const char *text = tf_slurp("%s/W", dir);
    pb_wisdom w;
    char why[256];
    cr_assert_eq(pb_wisdom_parse(text, strlen(text), &w, why, sizeof why), 0, "%s: %s", why, text);
    cr_expect_not_null(pb_wisdom_kernel_at(&w, KERN_Q8_0, 1), "q8_0 kept: %s", text);
    cr_expect_not_null(pb_wisdom_kernel_at(&w, KERN_Q4_0, 1), "q4_0 kept: %s", text);
    for (int i = 0; i < 2; i++)
        unlink(log[i]);
    cr_assert_eq(tf_rmrf(dir), 0);
}

Test(wisdom_paths, a_name_that_is_no_isa_is_refused_by_every_harness)
{
    static const char *const all[] = { "bench_tune", "bench_pool_overhead", "bench_cpu_util", NULL };
    static const char *const args[] = { "--quick", "--quick", "-- true" };
    char lacking[64] = ""; /* an ISA this CPU cannot run: another architecture's always is one */
    for (int i = 0; i < KERN_ISA_COUNT && !lacking[0]; i++)
        if (!kern_isa_supported((kern_isa)i))
            snprintf(lacking, sizeof lacking, "POOLBENCH_KERNEL=%s", kern_isa_name((kern_isa)i));
    for (int i = 0; all[i]; i++) {
        harness_expect_bad(all[i], "POOLBENCH_KERNEL=nonsense", args[i], "POOLBENCH_KERNEL");
        harness_expect_bad(all[i], lacking, args[i], "POOLBENCH_KERNEL");
    }
}
