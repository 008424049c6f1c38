/* bench_overlap's bad-input contract: a ratio <= 0, an unknown mode, a matvec width that is not a multiple of
 * the q8_0 block, a helper on the caller's cpu: one line naming the option, exit status 2, nothing written.
 * Runs the harness as a user would ($POOLBENCH_BIN, set by make test), inside a fresh empty directory. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs bench_overlap with args (a shell-quoted string) in an empty directory; returns the exit status, the
 * stderr text in err, and whether anything appeared in the directory. */
static int run_overlap(const char *args, char *err, size_t errlen, int *wrote)
{
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin, "POOLBENCH_BIN is set by make test");
    char dir[] = "/tmp/pbov-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cwd[4096], cmd[8192], errpath[64];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(errpath, sizeof errpath, "%s.err", dir);
    snprintf(cmd, sizeof cmd, "cd %s && '%s/%s/bench_overlap' %s >/dev/null 2>%s", dir, bin[0] == '/' ? "" : cwd,
             bin, args, errpath);
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
    rmdir(dir); /* empty when nothing was written; a test that failed leaves it for inspection */
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void expect_bad(const char *args, const char *option)
{
    char err[2048];
    int wrote;
    int rc = run_overlap(args, err, sizeof err, &wrote);
    cr_expect_eq(rc, 2, "'%s': exit %d, stderr: %s", args, rc, err);
    cr_expect(strstr(err, option) != NULL, "'%s': the message names %s: %s", args, option, err);
    char *nl = strchr(err, '\n');
    cr_expect(nl && nl[1] == '\0', "'%s': one line: %s", args, err);
    cr_expect_eq(wrote, 0, "'%s': nothing written", args);
}

Test(overlap_cli, ratio_not_above_zero)
{
    expect_bad("--ratios 0", "--ratios");
    expect_bad("--ratios -1", "--ratios");
    expect_bad("--ratios 0.5,0", "--ratios");
    expect_bad("--ratios abc", "--ratios");
    expect_bad("--ratios nan", "--ratios");
}

Test(overlap_cli, unknown_mode)
{
    expect_bad("--modes async", "--modes");
    expect_bad("--modes serial,bogus", "--modes");
}

Test(overlap_cli, size_not_a_multiple_of_the_block)
{
    expect_bad("--cols 100", "--cols");
    expect_bad("--cols 33", "--cols");
    expect_bad("--cols 0", "--cols");
    expect_bad("--rows 0", "--rows");
}

Test(overlap_cli, bad_cpus_and_options)
{
    expect_bad("--cpus 0,0", "--cpus");
    expect_bad("--cpus 4096", "--cpus");
    expect_bad("--cpus 0,1,0", "--cpus");
    expect_bad("--steps 1", "--steps");
    expect_bad("--bogus", "--bogus");
}

/* A tiny run: exit 0, overlap.csv with the columns first and one row per mode. No speed is asserted. */
Test(overlap_cli, tiny_run_writes_the_csv)
{
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin);
    char dir[] = "/tmp/pbov-run-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[8192], path[128], line[1024];
    snprintf(cmd, sizeof cmd, "'%s/bench_overlap' --ratios 0.5 --steps 10 --reps 3 --rows 64 --cols 64 --out %s/run "
             ">/dev/null 2>&1", bin, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(path, sizeof path, "%s/run/overlap.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    cr_assert_not_null(fgets(line, sizeof line, f));
    const char *cols = "run_id,host,mode,ratio,prep_us,job_us,us_per_step,speedup,pct_of_ceiling,cpus,";
    cr_expect_eq(strncmp(line, cols, strlen(cols)), 0, "header: %s", line);
    int rows = 0, serial = 0;
    while (fgets(line, sizeof line, f)) {
        rows++;
        serial += strstr(line, ",serial,0.5,") != NULL;
    }
    fclose(f);
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    cr_expect_eq(rows, cpus >= 2 ? 4 : 2, "one row per mode that can run here");
    cr_expect_eq(serial, 1);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}
