/* bench_memory_floor as a user runs it ($POOLBENCH_BIN, set by make test): bad input is one line on stderr
 * naming the option, exit status 2, and nothing written or allocated; a tiny run writes both CSVs with the
 * documented columns. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness_run.h"
#include "pb_memfloor_run.h"
#include "pb_memread.h"

/* With --out: the directory it names must not appear either. */
static void expect_bad(const char *args, const char *needle)
{
    harness_expect_bad_out("bench_memory_floor", args, needle);
}

Test(memfloor_cli, size_zero)
{
    expect_bad("--size 0", "--size");
}

Test(memfloor_cli, size_beyond_memory)
{
    /* 16 TiB: past half of MemAvailable on any machine this runs on; refused before mapping anything */
    expect_bad("--size 16777216", "--size");
}

Test(memfloor_cli, threads_zero_and_beyond_the_set)
{
    expect_bad("--threads 0", "--threads");
    expect_bad("--threads 1-100000", "--threads");
    char many[32];
    snprintf(many, sizeof many, "--threads %ld", sysconf(_SC_NPROCESSORS_ONLN) + 1);
    expect_bad(many, "--threads");
}

Test(memfloor_cli, unknown_kernel_and_cpus)
{
    expect_bad("--kernel avx1024", "--kernel");
    expect_bad("--cpus 4096", "--cpus");
    expect_bad("--passes 3", "--passes");
}

Test(memfloor_cli, kernel_the_cpu_lacks)
{
    /* Only testable where some kernel is missing: every one this CPU cannot run must be refused by name. */
    for (const pb_memkern *k = pb_memkerns; k->name; k++) {
        if (pb_memkern_supported(k))
            continue;
        char args[128];
        snprintf(args, sizeof args, "--kernel %s", k->name);
        expect_bad(args, k->name);
    }
}

Test(memfloor_cli, tiny_run_writes_both_csvs)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbmf");
    harness_run_ok(dir, "bench_memory_floor", "",
                   "--size 4 --threads 1 --kernel scalar,copy-scalar,write-scalar --passes 10 --out run");
    char *csv = tf_slurp("%s/run/memory_floor.csv", dir);
    static const char mf_header[] = "run_id,host,op,kernel,threads,cpus,size_mib,thp_mib,passes,gbps_best,gbps_median,"
                                    "gbps_min,rt_ns,placement,why\n";
    cr_expect(strncmp(csv, mf_header, strlen(mf_header)) == 0, "%s", csv);
    cr_expect_eq(tf_count(csv, ",forced\n"), 3, "--kernel named each row's kernel: %s", csv);
    cr_expect(strstr(csv, ",read,scalar,1,") && strstr(csv, ",copy,copy-scalar,1,") &&
              strstr(csv, ",write,write-scalar,1,"), "%s", csv);
    csv = tf_slurp("%s/run/token_floor.csv", dir);
    static const char tok_header[] = "run_id,host,model,format,threads,weight_bytes,context,kv_bytes,floor_gbps,"
                                     "ms_per_token,tok_per_s_ceiling,";
    cr_expect(strncmp(csv, tok_header, strlen(tok_header)) == 0, "%s", csv);
    cr_expect(strstr(csv, ",qwen3-0.6b,q4_0,1,335241216,") != NULL, "%s", csv);
    cr_expect(strstr(csv, ",qwen3-0.6b,q6_K,1,488893440,") && strstr(csv, ",qwen3-0.6b,q4_K_M,1,365518848,"), "%s",
              csv);
    int lines = 0;
    for (char *p = csv; *p; p++)
        lines += *p == '\n';
    pb_weight_format fl[PB_WEIGHT_FORMAT_COUNT];
    int nf = pb_memfloor_token_formats(fl);
    cr_expect_eq(lines, 1 + PB_MODEL_COUNT * nf, "%d models x %d formats (q4_K_M a mix) x 1 thread count",
                 PB_MODEL_COUNT, nf);
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* One meaning per variable: POOLBENCH_KERNEL is the ISA everywhere (docs/harnesses.md), so a read kernel's name there is an
 * unknown ISA, as in every other harness; the read kernels' variable is POOLBENCH_READ_KERNEL. */
Test(memfloor_cli, poolbench_kernel_is_the_isa_and_read_kernel_has_its_own_variable, .timeout = 60)
{
    harness_expect_bad("bench_memory_floor", "POOLBENCH_KERNEL=avx2-nt", "--size 4 --threads 1 --out run",
                       "POOLBENCH_KERNEL=avx2-nt");
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbmf");
    harness_run_ok(dir, "bench_memory_floor", "POOLBENCH_READ_KERNEL=scalar",
                   "--size 4 --threads 1 --passes 10 --out run");
    pb_table t;
    harness_load_csv(&t, dir, "run/memory_floor.csv");
    int k = pb_table_col(&t, "kernel");
    cr_expect_eq(t.nrows, 1, "one kernel, one thread count: %zu rows", t.nrows);
    for (size_t r = 0; r < t.nrows; r++)
        cr_expect_str_eq(pb_table_str(&t, r, k), "scalar");
    pb_table_free(&t);
    char help[16384];
    cr_expect_eq(tf_run(help, sizeof help, "$POOLBENCH_BIN/bench_memory_floor --help"), 0);
    cr_expect(strstr(help, "env POOLBENCH_READ_KERNEL]"), "--help names the variable: %s", help);
    cr_expect_eq(tf_rmrf(dir), 0);
}
