/* bench_kernels as a user runs it ($POOLBENCH_BIN, set by make test): bad input is one line naming the
 * option, exit status 2 and nothing written; a tiny run writes kernels.csv with the columns. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct kc_result {
    int status;      /* exit status, -1 when killed */
    char err[2048];  /* stderr */
    char dir[64];    /* the --out directory given to the run (removed by kc_cleanup) */
    bool dir_exists; /* it was created */
} kc_result;

/* Runs `env bench_kernels args --out DIR` from the repository root, DIR a name that does not exist yet. */
static void kc_run(const char *env, const char *args, kc_result *r)
{
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin, "POOLBENCH_BIN is set by make test");
    char base[] = "/tmp/pbkc-XXXXXX";
    cr_assert_not_null(mkdtemp(base));
    snprintf(r->dir, sizeof r->dir, "%s/out", base);
    char errpath[80], cmd[4096];
    snprintf(errpath, sizeof errpath, "%s/stderr", base);
    snprintf(cmd, sizeof cmd, "%s %s/bench_kernels %s --out %s >/dev/null 2>%s", env ? env : "", bin, args, r->dir,
             errpath);
    int rc = system(cmd);
    r->status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    FILE *f = fopen(errpath, "r");
    size_t n = f ? fread(r->err, 1, sizeof r->err - 1, f) : 0;
    r->err[n] = '\0';
    if (f)
        fclose(f);
    struct stat st;
    r->dir_exists = stat(r->dir, &st) == 0;
}

static void kc_cleanup(kc_result *r)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%.*s'", (int)(strlen(r->dir) - 4), r->dir); /* the mkdtemp base */
    cr_assert_eq(system(cmd), 0);
}

static void expect_refused(const char *env, const char *args, const char *named)
{
    kc_result r;
    kc_run(env, args, &r);
    cr_expect_eq(r.status, 2, "'%s %s': exit %d: %s", env ? env : "", args, r.status, r.err);
    cr_expect(strstr(r.err, named), "'%s': the message names %s: %s", args, named, r.err);
    const char *nl = strchr(r.err, '\n');
    cr_expect(nl && nl[1] == '\0', "'%s': one line: %s", args, r.err);
    cr_expect(!r.dir_exists, "'%s': nothing written", args);
    kc_cleanup(&r);
}

Test(kernels_cli, bad_options)
{
    expect_refused(NULL, "--threads 0", "--threads");
    expect_refused(NULL, "--batch 17", "--batch");
    expect_refused(NULL, "--format q9_9", "--format");
    expect_refused(NULL, "--level l4", "--level");
    expect_refused(NULL, "--cols 1000", "--cols");
    expect_refused(NULL, "--variant neon", "neon"); /* a variant this CPU or build cannot run */
    expect_refused("POOLBENCH_KERNEL=avx9", "", "avx9");
    expect_refused(NULL, "--bogus", "--bogus");
}

Test(kernels_cli, tiny_run_writes_the_csv, .timeout = 60)
{
    kc_result r;
    kc_run(NULL, "--format q8_0,tq2_0 --variant scalar --level l2 --threads 1 --batch 1,2 --budget-ms 2 --cols 512",
           &r);
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    char path[128], line[512];
    snprintf(path, sizeof path, "%s/kernels.csv", r.dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_assert_str_eq(line, "run_id,host,format,variant,rows,cols,batch,threads,bytes,level,gbps_min,gbps_median,"
                           "gbps_max,gops_median,ns_per_row\n");
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        cr_assert(strstr(line, ",scalar,") && strstr(line, ",l2,"), "%s", line);
        rows++;
    }
    fclose(f);
    cr_assert_eq(rows, 4, "2 formats x 2 batches");
    kc_cleanup(&r);
}
