/* bench_cpu_util as a user runs it ($POOLBENCH_BIN/bench_cpu_util): the command's exit status passes through,
 * SIGINT/SIGTERM/SIGHUP reach the command, a missing command gives 127 and one that cannot be executed 126, bad options give 2 and write nothing. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "emulation.h"
#include "harness_run.h"
#include "pb_run.h"
#include "test_files.h"

/* Starts bench_cpu_util with args (NULL-terminated); its stdout and stderr go to DIR/out.txt. */
static pid_t start(const char *dir, const char *const *args)
{
    char log[512];
    snprintf(log, sizeof log, "%s/out.txt", dir);
    return harness_start("bench_cpu_util", NULL, args, log);
}

#define sleep_ms harness_sleep_ms
#define finish harness_finish

static int run(const char *dir, const char *const *args)
{
    return finish(start(dir, args), 20000);
}

static bool exists(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

Test(util_cli, exit_status_passes_through)
{
    char dir[64], out[96];
    tf_tmpdir(dir, sizeof dir, "pb_util_cli");
    snprintf(out, sizeof out, "%s/run", dir);
    cr_expect_eq(run(dir, (const char *[]){ "--interval-ms", "10", "--out", out, "--", "sh", "-c", "exit 3", NULL }),
                 3);
    char *csv = tf_read("%s/cpu_util.csv", out);
    cr_assert_not_null(csv, "cpu_util.csv written even when the command fails");
    const char *header = "run_id,host,t_ms,cpu,busy_pct,user_pct,sys_pct,steal_pct\n";
    cr_expect(strncmp(csv, header, strlen(header)) == 0, "%s", csv);
    char *log = tf_read("%s/out.txt", dir);
    cr_expect(strstr(log, "busy%") && strstr(log, "\nall "), "summary table: %s", log);
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(util_cli, success_and_options_without_dashes)
{
    char dir[64], out[96];
    tf_tmpdir(dir, sizeof dir, "pb_util_cli");
    snprintf(out, sizeof out, "%s/run", dir);
    cr_expect_eq(run(dir, (const char *[]){ "--out", out, "true", NULL }), 0);
    cr_expect(exists(out, "cpu_util.csv"));
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(util_cli, killed_by_a_signal)
{
    char dir[64], out[96];
    tf_tmpdir(dir, sizeof dir, "pb_util_cli");
    snprintf(out, sizeof out, "%s/run", dir);
    cr_expect_eq(run(dir, (const char *[]){ "--out", out, "--", "sh", "-c", "kill -KILL $$", NULL }), 128 + 9);
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* SIGTERM or SIGINT to bench_cpu_util reaches the command: both end promptly with 128 + the signal, and the
 * command (whose pid it wrote down) is gone. */
static void forwards(int sig)
{
    char dir[64], out[96], script[256];
    tf_tmpdir(dir, sizeof dir, "pb_util_cli");
    snprintf(out, sizeof out, "%s/run", dir);
    snprintf(script, sizeof script, "echo $$ > %s/pid.tmp && mv %s/pid.tmp %s/pid && exec sleep 30", dir, dir, dir);
    pid_t pid = start(dir, (const char *[]){ "--out", out, "--", "sh", "-c", script, NULL });
    char *text = NULL;
    for (int i = 0; i < 500 && !(text = tf_read("%s/pid", dir)); i++)
        sleep_ms(10);
    cr_assert_not_null(text, "the command started");
    long child = strtol(text, NULL, 10);
    cr_assert_gt(child, 1);
    sleep_ms(50); /* let sh exec sleep; a signal before that ends sh the same way */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    kill(pid, sig);
    int code = finish(pid, 5000);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cr_expect_eq(code, 128 + sig);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    cr_expect_lt(s, 2.0, "ended %.2f s after the signal", s);
    cr_expect(kill((pid_t)child, 0) != 0 && errno == ESRCH, "the command (pid %ld) is gone", child);
    cr_expect(exists(out, "cpu_util.csv"), "what was sampled is kept");
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(util_cli, sigterm_forwarded) { forwards(SIGTERM); }
Test(util_cli, sigint_forwarded) { forwards(SIGINT); }
Test(util_cli, sighup_forwarded) { forwards(SIGHUP); }

Test(util_cli, missing_or_unrunnable_command)
{
    char dir[64], out[96];
    tf_tmpdir(dir, sizeof dir, "pb_util_cli");
    snprintf(out, sizeof out, "%s/run", dir);
    cr_expect_eq(run(dir, (const char *[]){ "--out", out, "--", "no-such-command-poolbench", NULL }), 127);
    char *log = tf_read("%s/out.txt", dir);
    cr_expect(strstr(log, "no-such-command-poolbench") && strstr(log, "No such file"), "%s", log);
    cr_expect_eq(run(dir, (const char *[]){ "--out", out, "--", "tests/data/procstat/normal.0", NULL }), 126,
                 "a file without execute permission: 126, as sh answers");
    log = tf_read("%s/out.txt", dir);
    cr_expect(strstr(log, "Permission denied"), "%s", log);
    cr_expect_eq(run(dir, (const char *[]){ "--out", out, "--", "tests/data", NULL }), 126, "a directory: 126");
    cr_expect(!exists(dir, "run"), "a command that cannot run leaves no run directory");
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* An executable file that is no program the kernel runs (no ELF header, no #!) is 126, "Exec format error":
 * execvp's fallback ran it through /bin/sh, whose "not found" for its first word made it 127. Both a path and a
 * name found on PATH. */
Test(util_cli, a_file_the_kernel_cannot_execute_is_126)
{
    char dir[64], out[96], prog[128], env[160];
    tf_tmpdir(dir, sizeof dir, "pb_util_cli");
    snprintf(out, sizeof out, "%s/run", dir);
    tf_write(dir, "notaprogram", "no-such-word-poolbench here\n");
    snprintf(prog, sizeof prog, "%s/notaprogram", dir);
    cr_assert_eq(chmod(prog, 0755), 0);
    cr_expect_eq(run(dir, (const char *[]){ "--out", out, "--", prog, NULL }), 126);
    char *log = tf_read("%s/out.txt", dir);
    cr_expect(strstr(log, "notaprogram: Exec format error") && !strstr(log, "no-such-word-poolbench"), "%s", log);
    snprintf(env, sizeof env, "%s:/usr/bin:/bin", dir);
    cr_assert_eq(setenv("PATH", env, 1), 0); /* this test's process only: harness_start's child inherits it */
    cr_expect_eq(run(dir, (const char *[]){ "--out", out, "--", "notaprogram", NULL }), 126, "found on PATH");
    cr_expect(!exists(dir, "run"), "a command that cannot run leaves no run directory");
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(util_cli, bad_options_exit_2_and_write_nothing)
{
    char dir[64], out[96], existing[128];
    tf_tmpdir(dir, sizeof dir, "pb_util_cli");
    snprintf(out, sizeof out, "%s/run", dir);
    const char *const *cases[] = {
        (const char *[]){ "--interval-ms", "5", "--out", out, "--", "true", NULL },
        (const char *[]){ "--interval-ms", "10001", "--out", out, "--", "true", NULL },
        (const char *[]){ "--bogus", "--out", out, "--", "true", NULL },
        (const char *[]){ "--cpus", "100000", "--out", out, "--", "true", NULL },
        (const char *[]){ "--cpus", "1023", "--out", out, "--", "true", NULL }, /* not online here */
        (const char *[]){ "--cpus", "x", "--out", out, "--", "true", NULL },
        (const char *[]){ "--cpus", "nosuchset", "--out", out, "--", "true", NULL },
        (const char *[]){ "--out", out, "--", NULL },
        (const char *[]){ "--out", out, "--run-dir", dir, "--", "true", NULL },
        (const char *[]){ "--run-dir", out, "--", "true", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_expect_eq(run(dir, cases[i]), 2, "case %zu: %s", i, tf_read("%s/out.txt", dir));
        char *log = tf_read("%s/out.txt", dir);
        cr_expect(strchr(log, '\n') == strrchr(log, '\n'), "case %zu: one line: %s", i, log);
        cr_expect(!exists(dir, "run"), "case %zu wrote nothing", i);
    }
    /* --run-dir that already holds a cpu_util.csv: refused before the command runs */
    snprintf(existing, sizeof existing, "%s/cpu_util.csv", dir);
    fclose(fopen(existing, "w"));
    cr_expect_eq(run(dir, (const char *[]){ "--run-dir", dir, "--", "touch", out, NULL }), 2);
    cr_expect(!exists(dir, "run"), "the command did not run");
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(util_cli, chosen_cpus_only)
{
    skip_if_emulated("it counts 10 ms samples during a 100 ms sleep, most of which the emulated harness spends "
                     "starting up");
    char dir[64], out[96];
    tf_tmpdir(dir, sizeof dir, "pb_util_cli");
    snprintf(out, sizeof out, "%s/run", dir);
    cr_assert_eq(run(dir, (const char *[]){ "--interval-ms", "10", "--cpus", "0", "--out", out, "--", "sleep", "0.1",
                                            NULL }),
                 0);
    char *csv = tf_read("%s/cpu_util.csv", out);
    cr_assert_not_null(csv);
    int rows = 0;
    for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        char cpu[16];
        cr_assert_eq(sscanf(line + 1, "%*[^,],%*[^,],%*[^,],%15[^,],", cpu), 1);
        cr_expect_str_eq(cpu, "0");
        rows++;
    }
    cr_expect_geq(rows, 3, "about 10 samples of cpu 0 in 100 ms");
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* What results/<host>/latest points at, relative to dir ("" when it is no link), and whether it resolves. */
static bool latest_of(const char *dir, char *target, size_t len)
{
    char host[128], link[512];
    pb_hostname(host, sizeof host);
    snprintf(link, sizeof link, "%s/results/%s/latest", dir, host);
    ssize_t n = readlink(link, target, len - 1);
    target[n > 0 ? n : 0] = '\0';
    struct stat st;
    return n > 0 && stat(link, &st) == 0 && S_ISDIR(st.st_mode);
}

/* docs/ci.md's CI recipe judges results/<host>/latest: a run that failed (a command missing, or one that exited
 * non-zero) leaves it on the last run that succeeded, never dangling; a run that succeeded moves it. Seen failing
 * with latest repointed at creation (then dangling after exit 127, its directory removed). */
Test(util_cli, latest_moves_only_to_a_run_that_succeeded, .timeout = 60)
{
    char dir[64], old[256], host[128], target[256];
    tf_tmpdir(dir, sizeof dir, "pb_util_cli");
    pb_hostname(host, sizeof host);
    snprintf(old, sizeof old, "%s/results", dir);
    cr_assert_eq(mkdir(old, 0777), 0);
    snprintf(old, sizeof old, "%s/results/%s", dir, host);
    cr_assert_eq(mkdir(old, 0777), 0);
    snprintf(old, sizeof old, "%s/results/%s/older", dir, host);
    cr_assert_eq(mkdir(old, 0777), 0);
    snprintf(old, sizeof old, "%s/results/%s/latest", dir, host);
    cr_assert_eq(symlink("older", old), 0);
    char log[128];
    snprintf(log, sizeof log, "%s/out.txt", dir);
    const char *const missing[] = { "--interval-ms", "10", "--", "/nonexistent", NULL };
    cr_expect_eq(finish(harness_start("bench_cpu_util", dir, missing, log), 20000), 127);
    cr_expect(latest_of(dir, target, sizeof target) && strcmp(target, "older") == 0,
              "after exit 127 latest still points at the older run: '%s'", target);
    const char *const failing[] = { "--interval-ms", "10", "--", "sh", "-c", "exit 3", NULL };
    cr_expect_eq(finish(harness_start("bench_cpu_util", dir, failing, log), 20000), 3);
    cr_expect(latest_of(dir, target, sizeof target) && strcmp(target, "older") == 0,
              "after exit 3 latest still points at the older run: '%s'", target);
    const char *const ok[] = { "--interval-ms", "10", "--", "true", NULL };
    cr_expect_eq(finish(harness_start("bench_cpu_util", dir, ok, log), 20000), 0, "%s", tf_read("%s", log));
    cr_expect(latest_of(dir, target, sizeof target) && strcmp(target, "older") != 0,
              "a run that succeeded moves latest: '%s'", target);
    cr_expect(exists(old, "cpu_util.csv"), "latest holds that run's cpu_util.csv");
    char first[256];
    snprintf(first, sizeof first, "%s", target);
    const char *const harness[] = { "--quick", "--policy", "spin", "--threads", "1", "--gap-us", "0", NULL };
    cr_expect_eq(finish(harness_start("bench_pool_overhead", dir, harness, log), 30000), 0, "%s", tf_read("%s", log));
    cr_expect(latest_of(dir, target, sizeof target) && strcmp(target, first) != 0 && exists(old, "pool_overhead.csv"),
              "a harness that succeeded moves latest too: '%s'", target);
    cr_expect_eq(tf_rmrf(dir), 0);
}
