/* bench_memory_floor as a user runs it ($POOLBENCH_BIN, set by make test): bad input is one line on stderr
 * naming the option, exit status 2, and nothing written or allocated; a tiny run writes both CSVs with the
 * documented columns. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb_memread.h"

#define MAXARGS 24

/* Runs bench_memory_floor with args (NULL-terminated) and --out DIR/run; returns the exit status and stderr. */
static int run_mf(const char *const *args, const char *dir, char *err, size_t errlen)
{
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin, "POOLBENCH_BIN is set by make test");
    char path[4096], out[4200];
    snprintf(path, sizeof path, "%s/bench_memory_floor", bin);
    snprintf(out, sizeof out, "%s/run", dir);
    const char *argv[MAXARGS] = { path };
    int n = 1;
    for (; args[n - 1] && n < MAXARGS - 3; n++)
        argv[n] = args[n - 1];
    argv[n++] = "--out";
    argv[n++] = out;
    argv[n] = NULL;
    int pipefd[2];
    cr_assert_eq(pipe(pipefd), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(pipefd[1], 2);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        close(pipefd[0]);
        execv(path, (char *const *)argv); /* execv's prototype predates const: it does not modify argv */
        _exit(127);
    }
    close(pipefd[1]);
    size_t got = 0;
    ssize_t r;
    while ((r = read(pipefd[0], err + got, errlen - 1 - got)) > 0)
        got += (size_t)r;
    err[got] = '\0';
    close(pipefd[0]);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void expect_bad(const char *const *args, const char *needle)
{
    char dir[] = "/tmp/pbmf-XXXXXX", err[4096], out[64];
    cr_assert_not_null(mkdtemp(dir));
    int rc = run_mf(args, dir, err, sizeof err);
    cr_expect_eq(rc, 2, "%s: exit %d, stderr: %s", args[1] ? args[1] : args[0], rc, err);
    cr_expect(strstr(err, needle) != NULL, "the message names %s: %s", needle, err);
    char *nl = strchr(err, '\n');
    cr_expect(nl && nl[1] == '\0', "one line: %s", err);
    snprintf(out, sizeof out, "%s/run", dir);
    struct stat st;
    cr_expect_neq(stat(out, &st), 0, "nothing written for %s", args[0]);
    rmdir(dir);
}

Test(memfloor_cli, size_zero)
{
    expect_bad((const char *const[]){ "--size", "0", NULL }, "--size");
}

Test(memfloor_cli, size_beyond_memory)
{
    /* 16 TiB: past half of MemAvailable on any machine this runs on; refused before mapping anything */
    expect_bad((const char *const[]){ "--size", "16777216", NULL }, "--size");
}

Test(memfloor_cli, threads_zero_and_beyond_the_set)
{
    expect_bad((const char *const[]){ "--threads", "0", NULL }, "--threads");
    expect_bad((const char *const[]){ "--threads", "1-100000", NULL }, "--threads");
    char many[32];
    snprintf(many, sizeof many, "%ld", sysconf(_SC_NPROCESSORS_ONLN) + 1);
    expect_bad((const char *const[]){ "--threads", many, NULL }, "--threads");
}

Test(memfloor_cli, unknown_kernel_and_cpus)
{
    expect_bad((const char *const[]){ "--kernel", "avx1024", NULL }, "--kernel");
    expect_bad((const char *const[]){ "--cpus", "4096", NULL }, "--cpus");
    expect_bad((const char *const[]){ "--passes", "3", NULL }, "--passes");
}

Test(memfloor_cli, kernel_the_cpu_lacks)
{
    /* Only testable where some kernel is missing: every one this CPU cannot run must be refused by name. */
    for (const pb_memkern *k = pb_memkerns; k->name; k++)
        if (!pb_memkern_supported(k))
            expect_bad((const char *const[]){ "--kernel", k->name, NULL }, k->name);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

Test(memfloor_cli, tiny_run_writes_both_csvs)
{
    char dir[] = "/tmp/pbmf-XXXXXX", err[8192], path[256];
    cr_assert_not_null(mkdtemp(dir));
    int rc = run_mf((const char *const[]){ "--size", "4", "--threads", "1", "--kernel", "scalar,copy-scalar,write-scalar",
                                           "--passes", "10", NULL },
                    dir, err, sizeof err);
    cr_assert_eq(rc, 0, "stderr: %s", err);
    snprintf(path, sizeof path, "%s/run/memory_floor.csv", dir);
    char *csv = slurp(path);
    static const char mf_header[] = "run_id,host,op,kernel,threads,cpus,size_mib,thp_mib,passes,gbps_best,gbps_median,"
                                    "gbps_min,rt_ns,placement\n";
    cr_expect(strncmp(csv, mf_header, strlen(mf_header)) == 0, "%s", csv);
    cr_expect(strstr(csv, ",read,scalar,1,") && strstr(csv, ",copy,copy-scalar,1,") &&
              strstr(csv, ",write,write-scalar,1,"), "%s", csv);
    snprintf(path, sizeof path, "%s/run/token_floor.csv", dir);
    csv = slurp(path);
    static const char tok_header[] = "run_id,host,model,format,threads,weight_bytes,floor_gbps,ms_per_token,"
                                     "tok_per_s_ceiling,";
    cr_expect(strncmp(csv, tok_header, strlen(tok_header)) == 0, "%s", csv);
    cr_expect(strstr(csv, ",qwen3-0.6b,q4_0,1,335241216,") != NULL, "%s", csv);
    int lines = 0;
    for (char *p = csv; *p; p++)
        lines += *p == '\n';
    cr_expect_eq(lines, 1 + 3 * 5, "3 models x 5 formats x 1 thread count");
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    cr_expect_eq(system(rm), 0);
}
