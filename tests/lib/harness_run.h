/* harness_run.h — running a harness as a user would, for the CLI tests: inside a directory of the test's, with
 * $POOLBENCH_BIN (set by make test) locating the programs. Header-only: each test file that includes it gets
 * its own static copies. */
#ifndef HARNESS_RUN_H
#define HARNESS_RUN_H

#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pb_csvread.h"
#include "test_files.h"

/* Runs `cd DIR && env PROG args` (env: "VAR=value ..." or ""; args shell-quoted, relative paths land in DIR)
 * with stdout discarded. Returns the exit status (-1 when killed) and the stderr text in err. */
static inline int harness_run_in(const char *dir, const char *prog, const char *env, const char *args,
                                 char *err, size_t errlen)
{
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin, "POOLBENCH_BIN is set by make test");
    char cwd[4096], cmd[16384], errpath[4200];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(errpath, sizeof errpath, "%s.err", dir);
    snprintf(cmd, sizeof cmd, "cd %s && %s '%s/%s/%s' %s >/dev/null 2>%s", dir, env, bin[0] == '/' ? "" : cwd, bin,
             prog, args, errpath);
    int rc = system(cmd);
    FILE *f = fopen(errpath, "r");
    size_t n = f ? fread(err, 1, errlen - 1, f) : 0;
    err[n] = '\0';
    if (f)
        fclose(f);
    unlink(errpath);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* harness_run_in that must succeed: any other exit status fails the test, quoting stderr. */
static inline void harness_run_ok(const char *dir, const char *prog, const char *env, const char *args)
{
    char err[8192];
    int rc = harness_run_in(dir, prog, env, args, err, sizeof err);
    cr_assert_eq(rc, 0, "%s %s: exit %d: %s", prog, args, rc, err);
}

/* Loads DIR/NAME, a CSV a harness run wrote there (e.g. "run/sweep.csv"), into t, asserting that every row has
 * the header's fields; the caller frees t. */
static inline void harness_load_csv(pb_table *t, const char *dir, const char *name)
{
    char path[256];
    pb_csverr e;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cr_assert_eq(pb_table_load(t, path, &e), 0, "%s: %s", path, e.msg);
}

/* harness_run_in a fresh empty directory, removed afterwards; *wrote says whether anything appeared in it. */
static inline int harness_run(const char *prog, const char *env, const char *args, char *err, size_t errlen,
                              int *wrote)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbcli");
    int rc = harness_run_in(dir, prog, env, args, err, errlen);
    *wrote = !tf_dir_empty(dir);
    if (tf_rmrf(dir) != 0) {
        /* a leftover temporary directory is not a test failure */
    }
    return rc;
}

/* The bad-input contract: exit status 2, one line on stderr naming `option`, nothing written. */
static inline void harness_expect_bad(const char *prog, const char *env, const char *args, const char *option)
{
    char err[2048];
    int wrote;
    int rc = harness_run(prog, env, args, err, sizeof err, &wrote);
    cr_expect_eq(rc, 2, "%s %s: exit %d, stderr: %s", env, args, rc, err);
    cr_expect(strstr(err, option) != NULL, "%s %s: the message names %s: %s", env, args, option, err);
    char *nl = strchr(err, '\n');
    cr_expect(nl && nl[1] == '\0', "%s %s: one line: %s", env, args, err);
    cr_expect_eq(wrote, 0, "%s %s: nothing written", env, args);
}

/* harness_expect_bad with " --out run" after args: the run directory it names must not appear either. */
static inline void harness_expect_bad_out(const char *prog, const char *args, const char *option)
{
    char with_out[4096];
    snprintf(with_out, sizeof with_out, "%s --out run", args);
    harness_expect_bad(prog, "", with_out, option);
}

#define HARNESS_MAX_ARGS 32

static inline void harness_sleep_ms(long ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Starts $POOLBENCH_BIN/PROG with args (NULL-terminated) in the background, in directory dir (NULL: the
 * current one), its stdout and stderr into log. SIGINT, SIGTERM, SIGHUP and SIGPIPE start at their defaults, as
 * under a foreground shell (a runner started in the background inherits SIGINT ignored). */
static inline pid_t harness_start(const char *prog, const char *dir, const char *const *args, const char *log)
{
    const char *bin = getenv("POOLBENCH_BIN");
    char path[4600], cwd[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    bin = bin ? bin : "build/bin";
    snprintf(path, sizeof path, "%s%s%s/%s", bin[0] == '/' ? "" : cwd, bin[0] == '/' ? "" : "/", bin, prog);
    char *argv[HARNESS_MAX_ARGS + 2];
    int n = 0;
    argv[n++] = path;
    for (; args[n - 1] && n < HARNESS_MAX_ARGS; n++)
        argv[n] = (char *)args[n - 1]; /* execv takes char *const[]; it does not write the strings */
    argv[n] = NULL;
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (dir && chdir(dir) != 0)
            _exit(98);
        execv(path, argv);
        _exit(99);
    }
    return pid;
}

/* Waits at most timeout_ms; the exit code (128 + signal when killed), or -1 after a timeout (then killed). */
static inline int harness_finish(pid_t pid, long timeout_ms)
{
    int status;
    for (long waited = 0; waited <= timeout_ms; waited += 10) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        harness_sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

#endif
