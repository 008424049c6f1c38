/* bench_pool_overhead's bad-input contract: one line naming the option and what is accepted, exit status 2,
 * nothing written. Runs the harness as a user would ($POOLBENCH_BIN, set by make test). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs bench_pool_overhead with args (a shell-quoted string) inside a fresh empty directory; returns the
 * exit status, the stderr text in err, and whether the directory is still empty. */
static int run_po(const char *args, char *err, size_t errlen, int *wrote)
{
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin, "POOLBENCH_BIN is set by make test");
    char dir[] = "/tmp/pbpo-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cwd[4096], cmd[8192], errpath[64];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(errpath, sizeof errpath, "%s.err", dir);
    snprintf(cmd, sizeof cmd, "cd %s && '%s/%s/bench_pool_overhead' %s >/dev/null 2>%s", dir,
             bin[0] == '/' ? "" : cwd, bin, args, errpath);
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
    }
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void expect_bad(const char *args, const char *option)
{
    char err[2048];
    int wrote;
    int rc = run_po(args, err, sizeof err, &wrote);
    cr_expect_eq(rc, 2, "'%s': exit %d, stderr: %s", args, rc, err);
    cr_expect(strstr(err, option) != NULL, "'%s': the message names %s: %s", args, option, err);
    char *nl = strchr(err, '\n');
    cr_expect(nl && nl[1] == '\0', "'%s': one line: %s", args, err);
    cr_expect_eq(wrote, 0, "'%s': nothing written", args);
}

Test(pool_overhead_cli, bad_thread_counts)
{
    expect_bad("--threads 0", "--threads");
    expect_bad("--threads -1", "--threads");
    expect_bad("--threads abc", "--threads");
    expect_bad("--threads 1-", "--threads");
    expect_bad("--threads 99999", "--threads");
}

Test(pool_overhead_cli, bad_policy_gap_cpu_option)
{
    expect_bad("--policy nope", "--policy");
    expect_bad("--gap-us -5", "--gap-us");
    expect_bad("--cpus 4096", "--cpus");
    expect_bad("--bogus", "--bogus");
}

Test(pool_overhead_cli, out_onto_non_empty_or_unwritable)
{
    char dir[] = "/tmp/pbpo-out-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char file[64], args[256];
    snprintf(file, sizeof file, "%s/keep", dir);
    FILE *f = fopen(file, "w");
    fputs("precious\n", f);
    fclose(f);
    snprintf(args, sizeof args, "--quick --out %s", dir);
    expect_bad(args, "--out");
    snprintf(args, sizeof args, "--quick --out %s/sub", file);
    expect_bad(args, "--out");
    struct stat st;
    cr_assert_eq(stat(file, &st), 0);
    cr_assert_eq(st.st_size, 9, "the existing file is untouched");
}
