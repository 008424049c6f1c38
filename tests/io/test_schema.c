/* The CSV schemas (bench/io/pb_schema.h): the headers are the ones published before the schema existed, a row
 * written through pb_csv_values reads back as written, bench_report --check accepts a fresh run and names the
 * file and column of a renamed header column or a malformed cell, and docs/csv.md's columns block is the schema's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulation.h"
#include "harness_run.h"
#include "pb_csv.h"
#include "pb_csvread.h"
#include "pb_schema.h"
#include "report_fixture.h"

/* The header lines as the harnesses wrote them before the schema: the schema must not have changed a byte. */
static const struct {
    pb_kind kind;
    const char *header;
} published[] = {
    { PB_K_MACHINE, "key,value" },
    { PB_K_POOL, "run_id,host,policy,threads,cpus,co_runner,gap_us,job_ns,spin_us,reps,k,ns_min,ns_median,ns_p90,ns_p99,ns_max,"
                 "ns_batch_mean,ns_batch_min,ns_batch_max,rt_ns_before,rt_ns_after,placement,ratio_to_rt,ratio_to_omp,"
                 "rt_1line_rmw_ns,rt_2line_store_ns,rt_2line_rmw_ns,rt_tight_ns" },
    { PB_K_MEMORY, "run_id,host,op,kernel,threads,cpus,size_mib,thp_mib,passes,gbps_best,gbps_median,gbps_min,rt_ns,"
                   "placement,why" },
    { PB_K_TOKEN, "run_id,host,model,format,threads,weight_bytes,context,kv_bytes,floor_gbps,ms_per_token,"
                  "tok_per_s_ceiling,floor_kernel,placement" },
    { PB_K_KERNELS, "run_id,host,format,variant,rows,cols,batch,threads,bytes,level,gbps_min,gbps_median,gbps_max,"
                    "gbps_act_median,gops_median,ns_per_row,emulate_slow,ghz_before,ghz_after,cycles_per_block,counters,ipc,why,stream,layout,repack_ms,layout_bytes,read_gbps,read_kernel,"
                    "macs_per_byte,roof_gmacs,roof_share" },
    { PB_K_SWEEP, "run_id,host,point,model,model_file,weights,arch,type_mix,format,kernel,policy,schedule,glue,"
                  "threads,cpuset,cpus,batch,tokens,ms_per_token_min,ms_per_token_median,ms_per_token_max,tok_per_s,weight_bytes,"
                  "context,kv_type,kv_bytes,gbps_effective,floor_gbps,floor_gbps_best,floor_kernel,floor_source,"
                  "pct_of_floor,floor_tok_per_s,dispatches_per_token,glue_ms_median,glue_pct,attn_ms_median,"
                  "attn_pct,busy_pct_mean,busy_pct_min,busy_pct_max,"
                  "imbalance_flag,rt_ns,rt_ns_before,rt_ns_after,placement,p_cores,e_cores,smt_threads,oversubscribed,co_runner,verified,"
                  "series_id,series,emulate_slow,share_source,thread_rows_pct,thread_busy_ms,thread_slice_us,"
                  "thread_wait_ms,slowest_thread,slowest_cpu,wait_for_slowest_ms,dispatch_cost_ns,budget_floor_ms,"
                  "budget_kernel_ms,budget_quant_ms,budget_glue_ms,budget_attn_ms,budget_dispatch_ms,budget_wait_ms,"
                  "budget_unexplained_ms,ghz_before,ghz_after,watts_package,watts_dram,j_per_token,kernel_why,kernel_stream,floor_why,kernel_layout,"
                  "counters,ipc,repack_ms,repacked_bytes,prompt,macs,roof_gmacs,roof_share,budget_roof_ms" },
    { PB_K_CPUUTIL, "run_id,host,t_ms,cpu,busy_pct,user_pct,sys_pct,steal_pct" },
    { PB_K_OVERLAP, "run_id,host,mode,ratio,prep_us,job_us,us_per_step,speedup,pct_of_ceiling,cpus,ceiling,"
                    "us_per_step_min,us_per_step_max,prep_ratio_measured,steps,reps,rows,cols,prep_n,variant,rt_ns,"
                    "placement,why" },
    { PB_K_LIKWID, "round,threads,cpus,tool,kernel,gbps,gbps_median,gbps_best,gbps_min,rt_ns,placement" },
    { PB_K_LATENCY, "run_id,host,phase,level,size_kib,thp_mib,cpu,duty_pct,load_threads,load_cpus,load_kernel,hops,"
                    "rounds,run_pct,ns_median,ns_min,ns_max,load_gbps,total_gbps,ghz_before,ghz_after,cycles_median" },
    { PB_K_ROOF, "run_id,host,isa,ran,op,instr,threads,cpus,gmacs_median,gmacs_min,gmacs_max,gflops,ghz,"
                 "macs_per_cycle" },
    { PB_K_PAIRS, "run_id,host,model,format,policy,schedule,glue,threads,cpuset,batch,context,kv_type,round,slot,"
                  "ms_per_token,steal_pct,set_aside,moved,stopped" },
    { PB_K_SWEEPUTIL, "run_id,host,t_ms,cpu,busy_pct,user_pct,sys_pct,steal_pct,point" },
    { PB_K_SWEEPCPU, "run_id,host,point,cpu,pinned,busy_pct,user_pct,sys_pct,steal_pct" },
};

Test(schema, headers_are_the_published_ones)
{
    cr_assert_eq(sizeof published / sizeof published[0], PB_SCHEMA_COUNT, "every kind is listed here");
    for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
        pb_kind k = published[i].kind;
        cr_expect_str_eq(pb_schema_header(k), published[i].header, "%s", pb_schema_get(k)->file);
        cr_expect_eq(pb_schema_get(k)->kind, k);
    }
    cr_expect_eq(pb_schema_col(PB_K_SWEEP, "pct_of_floor"), PB_SWEEP_pct_of_floor);
    cr_expect_str_eq(PB_COL(SWEEP, pct_of_floor), "pct_of_floor");
    cr_expect_eq(pb_schema_col(PB_K_SWEEP, "no_such_column"), -1);
    cr_expect_str_eq(PB_MKEY(schema_version), "schema_version");
}

/* A value of each column's type: text that needs quoting, and numbers the formats cut or keep. */
static pb_value sample(const pb_column *col, int i)
{
    switch (col->type) {
    case PB_T_TEXT:
        return (pb_value){ .s = i % 2 ? "a,b \"quoted\"" : "plain" };
    case PB_T_INT:
        return (pb_value){ .i = 1000 + i };
    case PB_T_U64:
        return (pb_value){ .u = (1ull << 40) + (unsigned)i };
    default:
        return (pb_value){ .d = 12.345678 * i };
    }
}

/* Every kind: one row through pb_csv_values, read back by pb_csvread: each cell is its value, as the column's
 * format prints it (text unquoted again). */
Test(schema, values_round_trip)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pbschema");
    for (int k = 0; k < PB_SCHEMA_COUNT; k++) {
        const pb_schema *s = pb_schema_get((pb_kind)k);
        char name[64], path[160];
        snprintf(name, sizeof name, "kind%d.csv", k);
        pb_csv *c = pb_csv_open(dir, name, s->header);
        cr_assert_not_null(c);
        pb_value v[128];
        cr_assert_leq(s->ncols, 128);
        for (int i = 0; i < s->ncols; i++)
            v[i] = sample(&s->cols[i], i);
        pb_csv_values(c, s, v);
        cr_assert_eq(pb_csv_close(c), 0);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        pb_table t;
        pb_csverr e;
        cr_assert_eq(pb_table_load(&t, path, &e), 0, "%s", e.msg);
        cr_assert_eq(t.ncols, (size_t)s->ncols);
        cr_assert_eq(t.nrows, 1);
        for (int i = 0; i < s->ncols; i++) {
            char want[128];
            pb_value_format(want, sizeof want, &s->cols[i], v[i]);
            cr_expect_str_eq(t.header[i], s->cols[i].name);
            cr_expect_str_eq(pb_table_str(&t, 0, i), want, "%s column %s", s->file, s->cols[i].name);
        }
        pb_table_free(&t);
    }
    tf_rmrf(dir);
}

Test(schema, formats_are_the_published_ones)
{
    char buf[64];
    pb_value_format(buf, sizeof buf, &pb_schema_get(PB_K_SWEEP)->cols[PB_SWEEP_pct_of_floor], (pb_value){ .d = 67.5 });
    cr_expect_str_eq(buf, "67.50");
    pb_value_format(buf, sizeof buf, &pb_schema_get(PB_K_OVERLAP)->cols[PB_OVERLAP_ratio], (pb_value){ .d = 0.25 });
    cr_expect_str_eq(buf, "0.25");
    pb_value_format(buf, sizeof buf, &pb_schema_get(PB_K_CPUUTIL)->cols[PB_CPUUTIL_busy_pct], (pb_value){ .d = 1 });
    cr_expect_str_eq(buf, "1.00");
    pb_value_format(buf, sizeof buf, &pb_schema_get(PB_K_SWEEPUTIL)->cols[PB_SWEEPUTIL_busy_pct], (pb_value){ .d = 1 });
    cr_expect_str_eq(buf, "1.0");
}

/* ---------------------------------------------------------------- bench_report --check */

/* A small run of every harness of the suite but bench_cpu_util (its cpu_util.csv would meet bench_sweep's), no
 * plots: a few seconds. */
static void fresh_run(char *dir, size_t len)
{
    tf_tmpdir(dir, len, "pbcheck");
    const char *env = "POOLBENCH_PLOTS=/nonexistent";
    harness_run_ok(dir, "bench_pool_overhead", env,
                   "--policy spin --threads 1 --gap-us 0 --reps 3 --batch-ms 0.2 --out run");
    harness_run_ok(dir, "bench_memory_floor", env,
                   "--size 4 --threads 1 --kernel scalar --passes 10 --run-dir run");
    harness_run_ok(dir, "bench_kernels", env,
                   "--format q8_0 --variant scalar --level l2 --threads 1 --batch 1 --budget-ms 2 --cols 512 "
                   "--run-dir run");
    harness_run_ok(dir, "bench_sweep", env,
                   "--policy spin --threads 1 --tokens 2 --warmup 0 --floor-passes 3 --interval-ms 10 --run-dir run");
    harness_run_ok(dir, "bench_overlap", env, "--ratios 0.5 --steps 10 --reps 3 --rows 64 --cols 64 --run-dir run");
}

/* sed -i on DIR/run/FILE. */
static void edit(const char *dir, const char *file, const char *script)
{
    char out[512];
    cr_assert_eq(sh(out, sizeof out, "sed -i '%s' %s/run/%s", script, dir, file), 0, "%s", out);
}

Test(schema, check_fresh_run_then_broken_ones, .timeout = 120)
{
    skip_if_emulated(EMULATED_SWEEP_WHY);
    char dir[64], out[8192];
    fresh_run(dir, sizeof dir);
    int rc = sh(out, sizeof out, "$B/bench_report --check %s/run", dir);
    cr_assert_eq(rc, 0, "a fresh run matches the schemas: %s", out);
    rc = sh(out, sizeof out, "$B/bench_report %s/run >/dev/null && sh scripts/check_run.sh %s/run $B", dir, dir);
    cr_expect_eq(rc, 0, "and passes CI's check_run.sh once reported: %s", out);

    edit(dir, "sweep.csv", "1s/,pct_of_floor,/,pct_floor,/");
    rc = sh(out, sizeof out, "$B/bench_report --check %s/run", dir);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "sweep.csv:1:") && strstr(out, "'pct_floor'") && strstr(out, "'pct_of_floor'"),
              "names the file and the column: %s", out);
    edit(dir, "sweep.csv", "1s/,pct_floor,/,pct_of_floor,/");

    edit(dir, "kernels.csv", "2s/^\\(\\([^,]*,\\)\\{6\\}\\)[^,]*,/\\1-2,/"); /* batch: column 7 */
    rc = sh(out, sizeof out, "$B/bench_report --check %s/run", dir);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "kernels.csv:2:7: column 'batch': '-2'"), "names file, line, column: %s", out);
    cr_expect(!strstr(out, "sweep.csv"), "the restored sweep.csv passes: %s", out);
    edit(dir, "kernels.csv", "2s/^\\(\\([^,]*,\\)\\{6\\}\\)-2,/\\11,/");

    /* a run from before the compute roof: kernels.csv without its last three columns is read, one more is not */
    cr_assert_eq(sh(out, sizeof out, "cut -d, -f1-%d %s/run/kernels.csv > %s/k && cp %s/k %s/run/kernels.csv",
                    PB_KERNELS_macs_per_byte, dir, dir, dir, dir), 0, "%s", out);
    rc = sh(out, sizeof out, "$B/bench_report --check %s/run", dir);
    cr_expect_eq(rc, 0, "an older run's kernels.csv: %s", out);
    cr_assert_eq(sh(out, sizeof out, "cut -d, -f1-%d %s/run/kernels.csv > %s/k && cp %s/k %s/run/kernels.csv",
                    PB_KERNELS_macs_per_byte - 1, dir, dir, dir, dir), 0, "%s", out);
    rc = sh(out, sizeof out, "$B/bench_report --check %s/run", dir);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "kernels.csv:1: header lacks column 'read_kernel'"), "%s", out);

    cr_expect_eq(sh(out, sizeof out, "$B/bench_report --check %s/nothing-here", dir), 2, "%s", out);
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report --check"), 2, "%s", out);
    tf_rmrf(dir);
}

/* A sampled series (cpu_util.csv) has a row per interval: a run shorter than half of one has none, and is still a
 * complete run. A one-token sweep whose point lasts less than half its 10 s interval, and a copy of a run whose
 * cpu_util.csv is cut to its header, both pass --check; an empty sweep.csv (its rows are results) does not. */
Test(schema, a_run_too_short_for_a_sample_passes_check, .timeout = 120)
{
    skip_if_emulated(EMULATED_SWEEP_WHY);
    char dir[64], out[8192];
    tf_tmpdir(dir, sizeof dir, "pbcheck");
    harness_run_ok(dir, "bench_sweep", "POOLBENCH_PLOTS=/nonexistent",
                   "--policy spin --threads 1 --tokens 1 --warmup 0 --floor-passes 3 --interval-ms 10000 --out run");
    cr_assert_eq(sh(out, sizeof out, "test $(wc -l < %s/run/cpu_util.csv) -eq 1", dir), 0,
                 "the point was shorter than half an interval: cpu_util.csv holds its header only");
    int rc = sh(out, sizeof out, "$B/bench_report --check %s/run", dir);
    cr_expect_eq(rc, 0, "a complete one-token sweep matches the schemas: %s", out);
    tf_rmrf(dir);

    char run[256];
    copy_fixture("xeon16", run, sizeof run);
    cr_assert_eq(sh(out, sizeof out, "sed -i '2,$d' %s/cpu_util.csv", run), 0, "%s", out);
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report --check %s", run), 0, "%s", out);
    cr_assert_eq(sh(out, sizeof out, "sed -i '2,$d' %s/sweep.csv", run), 0, "%s", out);
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report --check %s", run), 1, "%s", out);
    cr_expect(strstr(out, "sweep.csv: a header but no rows"), "%s", out);
    drop_fixture(run);
}

/* scripts/likwid_compare.sh takes its header from here: the schema's, and an unknown file is bad usage. */
Test(schema, header_option)
{
    char out[1024];
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report --header likwid_compare.csv"), 0, "%s", out);
    cr_expect(strncmp(out, pb_schema_header(PB_K_LIKWID), strlen(pb_schema_header(PB_K_LIKWID))) == 0 &&
              strcmp(out + strlen(pb_schema_header(PB_K_LIKWID)), "\n") == 0, "%s", out);
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report --header nosuch.csv"), 2, "%s", out);
}

/* ---------------------------------------------------------------- docs/csv.md */

Test(schema, csv_doc_block_is_the_generated_one)
{
    char *doc = tf_slurp("docs/csv.md"); /* make test runs from the repository root */
    const char *begin_mark = "<!-- schema:begin -->\n", *end_mark = "<!-- schema:end -->";
    char *begin = strstr(doc, begin_mark), *end = strstr(doc, end_mark);
    cr_assert(begin && end && end > begin, "docs/csv.md holds the schema block between its markers");
    begin += strlen(begin_mark);
    tf_mem t;
    pb_schema_markdown(tf_mem_open(&t));
    char *md = tf_mem_text(&t);
    cr_expect(t.len == (size_t)(end - begin) && memcmp(md, begin, t.len) == 0,
              "docs/csv.md's columns differ from the schema: paste `bench_report --schema-md` between the markers");
    free(md);
}
