/* harness_run.h — running a harness as a user would, for the CLI tests: in a fresh empty directory, with
 * $POOLBENCH_BIN (set by make test) locating the programs. Header-only: each test file that includes it gets
 * its own static copies. */
#ifndef HARNESS_RUN_H
#define HARNESS_RUN_H

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs `env PROG args` (env: "VAR=value ..." or ""; args shell-quoted) inside a fresh empty directory.
 * Returns the exit status (-1 when killed), the stderr text in err, and in *wrote whether anything appeared
 * in the directory. */
static int harness_run(const char *prog, const char *env, const char *args, char *err, size_t errlen, int *wrote)
{
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin, "POOLBENCH_BIN is set by make test");
    char dir[] = "/tmp/pbcli-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cwd[4096], cmd[8192], errpath[64];
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
    DIR *d = opendir(dir);
    struct dirent *e;
    *wrote = 0;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            *wrote = 1;
    if (d)
        closedir(d);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0) {
        /* a leftover temporary directory is not a test failure */
    }
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The bad-input contract: exit status 2, one line on stderr naming `option`, nothing written. */
static void harness_expect_bad(const char *prog, const char *env, const char *args, const char *option)
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

#endif
