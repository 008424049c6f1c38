/* bench_report and bench_compare on the fixture run directories in tests/data/runs (complete, missing
 * harnesses, malformed CSVs, a second machine), findings that follow the data, and the CI's run check. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb_digest.h"
#include "pb_findings.h"
#include "pb_plot.h"
#include "report_fixture.h"

Test(report, complete_run_every_section_and_plot)
{
    char dir[256], out[8192];
    copy_fixture("complete", dir, sizeof dir);
    int rc = sh(out, sizeof out, "$B/bench_report %s", dir);
    cr_assert_eq(rc, 0, "%s", out);
    const char *md = tf_slurp("%s/report.md", dir);
    static const char *const sections[] = { "## Machine", "## Sources", "## Headline", "## Findings", "## Noise",
                                            "## Plots", NULL };
    for (const char *const *s = sections; *s; s++)
        cr_expect(strstr(md, *s), "report.md has %s", *s);
    /* Figures straight from the CSVs: spin at 2 threads gap 0 (ns_batch_mean 129.3), the floor at 2 threads. */
    cr_expect(strstr(md, "| spin | 129 ns |"), "dispatch row");
    cr_expect(strstr(md, "| 2 | 36.1 | avx512-nt |"), "floor row");
    cr_expect(strstr(md, "| qwen3-0.6b | q8_0 | 53.0 |"), "decode row");
    cr_expect(strstr(md, "| q8_0 | 60.9 | 1.84× | avx512 | — | 50.1 | 31.3 | 94% | avx512 |"), "kernel row");
    cr_expect(strstr(md, "A condvar dispatch costs 331× a spin dispatch here"), "finding");
    cr_expect(strstr(md, "brand | AMD EPYC 9R14, 2 vCPUs |"), "machine block, quoted field");
    /* The pool plot is drawn (PNG and SVG) and embedded. */
    cr_expect_gt(file_size(dir, "pool_overhead_threads.png"), 1000);
    cr_expect_gt(file_size(dir, "pool_overhead_threads.svg"), 1000);
    cr_expect(strstr(md, "![pool_overhead_threads](pool_overhead_threads.png)"));
}

Test(report, missing_harnesses_are_lines_not_errors)
{
    char dir[256], out[8192];
    copy_fixture("missing", dir, sizeof dir);
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report --no-plots %s", dir), 0, "%s", out);
    const char *md = tf_slurp("%s/report.md", dir);
    cr_expect(strstr(md, "- kernels.csv: missing: bench_kernels did not run"), "%s", md);
    cr_expect(strstr(md, "- sweep.csv: missing"));
    cr_expect(strstr(md, "- overlap.csv: missing"));
    cr_expect_null(strstr(md, "**Decode**"), "no decode table without sweep.csv");
    cr_expect(strstr(md, "**Dispatch**") && strstr(md, "**Read floor**"));
    cr_expect(strstr(md, "2 threads read 1.89× the 1-thread floor (64.0 vs 33.8 GB/s, placement far)"), "%s", md);
}

Test(report, malformed_csv_named_by_file_line_column)
{
    char dir[256], out[8192];
    copy_fixture("malformed", dir, sizeof dir);
    int rc = sh(out, sizeof out, "$B/bench_report --no-plots %s", dir);
    cr_assert_eq(rc, 1, "a malformed CSV makes the exit status 1: %s", out);
    cr_expect(strstr(out, "sweep.csv:6:156: 27 fields where the header has 26"), "stderr: %s", out);
    cr_expect(strstr(out, "kernels.csv:4:") && strstr(out, "unterminated quoted field"), "stderr: %s", out);
    const char *md = tf_slurp("%s/report.md", dir);
    cr_expect(strstr(md, "- sweep.csv: MALFORMED, left out:"));
    cr_expect(strstr(md, "**Dispatch**"), "the good CSVs are still reported");
    cr_expect_null(strstr(md, "**Kernels**"));
}

Test(report, bad_usage)
{
    char out[2048];
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report"), 2);
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report /nonexistent/run"), 2);
    cr_expect(strstr(out, "/nonexistent/run"), "%s", out);
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report --bogus x"), 2);
    cr_expect(strstr(out, "unknown option '--bogus'") && strstr(out, "--help"), "pb_cli's line: %s", out);
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report a b"), 2, "one run directory: %s", out);
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report --schema-md x"), 2, "a mode stands alone: %s", out);
    cr_expect(strstr(out, "stand alone"), "%s", out);
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report --check a --header b"), 2, "one mode at a time: %s", out);
    cr_expect_eq(sh(out, sizeof out, "$B/bench_report --help"), 0);
    cr_expect(strstr(out, "--no-plots") && strstr(out, "--check DIR"), "the option table's help: %s", out);
}

/* The first finding that starts with prefix, copied out. */
static void finding(const char *dir, const char *prefix, char *out, size_t len)
{
    pb_rundata rd;
    char err[256];
    cr_assert_eq(pb_rundata_load(&rd, dir, err, sizeof err), 0);
    pb_digest d;
    pb_digest_run(&d, &rd);
    pb_findings f;
    pb_findings_make(&f, &d);
    out[0] = '\0';
    for (int i = 0; i < f.n; i++)
        if (strncmp(f.s[i], prefix, strlen(prefix)) == 0) {
            snprintf(out, len, "%s", f.s[i]);
            break;
        }
    pb_rundata_free(&rd);
    cr_assert(out[0], "a finding starts with '%s'", prefix);
}

Test(report, findings_follow_the_data)
{
    char dir[256], before[640], after[640];
    copy_fixture("complete", dir, sizeof dir);

    static const char *const condvar2[] = { "policy", "condvar", "threads", "2", "gap_us", "0", NULL };
    finding(dir, "A condvar dispatch", before, sizeof before);
    set_cell(dir, "pool_overhead.csv", find_row(dir, "pool_overhead.csv", condvar2), "ns_batch_mean", "86000.0");
    finding(dir, "A condvar dispatch", after, sizeof after);
    cr_expect_str_neq(before, after);
    cr_expect(strstr(after, "costs 667× a spin dispatch here (86.0 µs vs 129 ns"), "%s", after);

    static const char *const read2[] = { "op", "read", "kernel", "avx512-nt", "threads", "2", NULL };
    set_cell(dir, "memory_floor.csv", find_row(dir, "memory_floor.csv", read2), "gbps_best", "68.4");
    finding(dir, "2 threads read", after, sizeof after);
    cr_expect(strstr(after, "2 threads read 2.00× the 1-thread floor (68.4 vs 34.2 GB/s"), "%s", after);
    cr_expect_null(strstr(after, "saturates"), "the judgement follows the ratio: %s", after);

    static const char *const spin2[] = { "format", "q8_0", "policy", "spin", "threads", "2", "cpuset", "physical", NULL };
    finding(dir, "2 threads decode", before, sizeof before);
    set_cell(dir, "sweep.csv", find_row(dir, "sweep.csv", spin2), "tok_per_s", "101.4");
    finding(dir, "2 threads decode", after, sizeof after);
    cr_expect_str_neq(before, after);
    cr_expect(strstr(after, "2 threads decode 2.00× faster than 1 (101.4 vs 50.7 tok/s"), "%s", after);
}

/* The finding starting with prefix in a copy of the complete fixture holds every one of before (NULL-ended); with
 * column set to value in the kernels.csv row that row names (key, value pairs), it holds after. */
static void kernel_finding_follows(const char *prefix, const char *const *before, const char *const *row,
                                   const char *column, const char *value, const char *after)
{
    char dir[256], out[640];
    copy_fixture("complete", dir, sizeof dir);
    finding(dir, prefix, out, sizeof out);
    for (; *before; before++)
        cr_expect(strstr(out, *before), "%s: %s", *before, out);
    set_cell(dir, "kernels.csv", find_row(dir, "kernels.csv", row), column, value);
    finding(dir, prefix, out, sizeof out);
    cr_expect(strstr(out, after), "%s: %s", after, out);
}

/* Each format's best L2 kernel beside the 1-thread read floor's median (the fixture: avx512-nt, 33.17 GB/s; q8_0
 * 60.9 GB/s in L2): the multiple follows the kernels' rows. */
Test(report, l2_kernels_against_the_floor)
{
    static const char *const before[] = { "read floor's median (avx512-nt, 33.2 GB/s;", "q8_0 60.9 GB/s (1.84×)",
                                          "q1_0 22.0 GB/s (0.66×)", NULL };
    static const char *const q1[] = { "format", "q1_0", "variant", "avx512", "threads", "1", "level", "l2", NULL };
    kernel_finding_follows("Best kernel in L2 on one thread", before, q1, "gbps_median", "66.34",
                           "q1_0 66.3 GB/s (2.00×)");
}

/* The best DRAM kernel beside the read of the same buffer just before it (kernels.csv's read_gbps; the fixture's
 * 1-thread DRAM rows: 33.17 GB/s beside them, q8_0's best avx512 at 31.33): the share follows that row's read. */
Test(report, dram_kernels_against_the_read_beside_them)
{
    static const char *const before[] = { "94% of the read of the same buffer just before it (33.2 GB/s)", NULL };
    static const char *const q8[] = { "format", "q8_0", "variant", "avx512", "threads", "1", "level", "dram", NULL };
    kernel_finding_follows("q8_0's best kernel streams", before, q8, "read_gbps", "15.665",
                           "200% of the read of the same buffer just before it (15.7 GB/s)");
}

/* likwid_compare.csv, when the script ran into the run: one finding per thread count, the ratios from the rows
 * (tests/data/likwid_compare.csv: 1 thread one-stream 31.5 vs 30, floor 36; 2 threads 45 and 60 vs 50). */
Test(report, likwid_comparison_finding)
{
    char dir[256], out[640], cmd[600];
    copy_fixture("complete", dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "cp tests/data/likwid_compare.csv %s/", dir);
    cr_assert_eq(system(cmd), 0);
    finding(dir, "Against likwid-bench, 1 round back to back at 1 thread (likwid", out, sizeof out);
    cr_expect(strstr(out, "likwid's best 30.0 GB/s") && strstr(out, "read 1.05× its best load kernel") &&
                  strstr(out, "floor, which also counts the 4-stream kernels a decode reads with, 1.20×"), "%s", out);
    finding(dir, "Against likwid-bench, 1 round back to back at 2 threads (far placement; ", out, sizeof out);
    cr_expect(strstr(out, "read 0.90× its best") && strstr(out, "with, 1.20× (range 1.200-1.200)"), "%s", out);
}

/* The ceiling from bench_memory_floor says so when the decode it is held against ran in another placement. */
Test(report, ceiling_names_a_placement_mismatch)
{
    char dir[256], out[640], cmd[600];
    copy_fixture("complete", dir, sizeof dir);
    finding(dir, "bench_memory_floor's best read caps", out, sizeof out);
    cr_expect_null(strstr(out, "another placement"), "both near: %s", out);
    snprintf(cmd, sizeof cmd, "sed -i 's/,near$/,far/' %s/sweep.csv", dir);
    cr_assert_eq(system(cmd), 0);
    finding(dir, "bench_memory_floor's best read caps", out, sizeof out);
    cr_expect(strstr(out, "but bench_memory_floor ran near and that decode far, so the ceiling is another placement's"),
              "%s", out);
}

/* A sweep that ran a point with both glue modes: the finding pairs them at the most threads that have both. */
Test(report, glue_modes_side_by_side)
{
    char dir[64], out[640];
    tf_tmpdir(dir, sizeof dir, "pbglue");
    tf_write(dir, "sweep.csv",
          "model,format,policy,schedule,glue,threads,cpuset,batch,tok_per_s,ms_per_token_median,glue_pct\n"
          "qwen3-0.6b,q8_0,spin,static,serial,1,p,1,50.0,20.0,1.9\n"
          "qwen3-0.6b,q8_0,spin,static,fused,1,p,1,51.0,19.6,1.0\n"
          "qwen3-0.6b,q8_0,spin,static,serial,2,p,1,80.0,12.5,8.0\n"
          "qwen3-0.6b,q8_0,spin,static,fused,2,p,1,88.0,11.4,3.0\n"
          "qwen3-0.6b,q8_0,hybrid,static,fused,4,p,1,90.0,11.1,3.0\n");
    finding(dir, "Fused glue", out, sizeof out);
    cr_expect(strstr(out, "(qwen3-0.6b q8_0, spin, 2 threads): 88.0 vs 80.0 tok/s (1.10×, measured apart)") &&
                  strstr(out, "3.0% vs 8.0%"), "%s", out);
    tf_rmrf(dir);
}

/* The slowest thread's finding: a static point whose others waited a tenth of the token or more for it (as the
 * sentence prints it, a whole percent) points to a balancing split, unless the sweep ran one; under a tenth it says
 * nothing more. */
Test(report, a_long_wait_for_the_slowest_thread_points_to_steal)
{
    char dir[64], out[640];
    static const char *const head =
        "model,format,policy,schedule,glue,threads,cpuset,batch,tok_per_s,ms_per_token_median,glue_pct,"
        "slowest_cpu,wait_for_slowest_ms,thread_busy_ms\n";
    static const char *const rows[] = {
        "qwen3-0.6b,q8_0,spin,static,fused,2,all,1,80.0,12.5,3.0,1,2.5,9.1 11.6\n", /* waited 20% */
        "qwen3-0.6b,q8_0,spin,static,fused,2,all,1,80.0,12.5,3.0,1,0.5,11.0 11.6\n", /* waited 4% */
        "qwen3-0.6b,q8_0,spin,static,fused,2,all,1,80.0,12.5,3.0,1,1.2,10.4 11.6\n", /* 9.6%, printed 10% */
    };
    static const char *const steal = "qwen3-0.6b,q8_0,spin,steal:64,fused,2,all,1,85.0,11.8,3.0,1,0.2,11.1 11.3\n";
    const char *const hint = "run the sweep with --schedule static,steal:64";
    static const struct { int row; bool steal, hint; const char *what; } cases[] = {
        { 0, false, true, "a 20% wait, static alone" }, { 1, false, false, "a 4% wait" },
        { 0, true, false, "steal ran beside it" }, { 2, false, true, "a wait printed as 10%" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char csv[1024];
        snprintf(csv, sizeof csv, "%s%s%s", head, rows[cases[k].row], cases[k].steal ? steal : "");
        tf_tmpdir(dir, sizeof dir, "pbslow");
        tf_write(dir, "sweep.csv", csv);
        finding(dir, "The barrier's slowest thread", out, sizeof out);
        cr_assert(out[0], "%s: the finding is there", cases[k].what);
        cr_expect_eq(strstr(out, hint) != NULL, cases[k].hint, "%s: %s", cases[k].what, out);
        tf_rmrf(dir);
    }
}

Test(compare, two_machines_side_by_side)
{
    char tmpl[128], out[8192];
    tf_tmpdir(tmpl, sizeof tmpl, "pbcmp");
    char dir[300];
    snprintf(dir, sizeof dir, "%s/cmp", tmpl);
    int rc = sh(out, sizeof out, "$B/bench_compare " RUNS "/complete " RUNS "/laptop --out %s", dir);
    cr_assert_eq(rc, 0, "%s", out);
    const char *md = tf_slurp("%s/compare.md", dir);
    cr_expect(strstr(md, "# poolbench comparison: devbox vs laptop"));
    cr_expect(strstr(md, "| spin dispatch, no gap, empty job | ns | 129 ns | 179 ns (1.39×) |"), "%s", md);
    cr_expect(strstr(md, "| read floor, 1 thread | GB/s | 34.2 | 22.0 (0.64×) |"));
    cr_expect(strstr(md, "| best decode, qwen3-0.6b q8_0 | tok/s | 53.0 | 76.8 (1.45×) |"));
    cr_expect(strstr(md, "- overlap.csv (overlap of serial work with a pool job): in devbox; not in laptop."));
    cr_expect(strstr(md, "async-pinned speed-up over serial, ratio nearest 1: only in devbox."));
    static const char *const plots[] = { "compare_floor.png", "compare_floor.svg", "compare_decode.png",
                                         "compare_dispatch.png", "compare_dispatch.svg", NULL };
    for (const char *const *p = plots; *p; p++)
        cr_expect_gt(file_size(dir, *p), 1000, "%s drawn", *p);
}

Test(compare, refuses_bad_usage_and_a_used_out_dir)
{
    char out[4096];
    cr_expect_eq(sh(out, sizeof out, "$B/bench_compare " RUNS "/complete --out /tmp/x"), 2, "one run is not a comparison");
    cr_expect_eq(sh(out, sizeof out, "$B/bench_compare " RUNS "/complete " RUNS "/laptop"), 2, "--out is required");
    cr_expect_eq(sh(out, sizeof out, "$B/bench_compare " RUNS "/complete " RUNS "/laptop --out " RUNS "/complete"), 2,
                 "a non-empty --out is refused: %s", out);
    cr_expect(strstr(out, "--out"), "%s", out);
}

Test(compare, malformed_run_is_compared_on_what_it_has)
{
    char tmpl[128], out[8192], dir[300];
    tf_tmpdir(tmpl, sizeof tmpl, "pbcmp");
    snprintf(dir, sizeof dir, "%s/cmp", tmpl);
    int rc = sh(out, sizeof out, "$B/bench_compare --no-plots " RUNS "/complete " RUNS "/malformed --out %s", dir);
    cr_assert_eq(rc, 1, "%s", out);
    const char *md = tf_slurp("%s/compare.md", dir);
    cr_expect(strstr(md, "sweep.csv (decode-token sweep): in devbox/complete; not in devbox/malformed."), "%s", md);
    cr_expect(strstr(md, "- devbox/malformed, sweep.csv: MALFORMED, left out: " RUNS "/malformed/sweep.csv:6:156:"),
              "%s", md);
}

/* The CI check (scripts/check_run.sh) passes on a reported complete run and names what a run lacks. */
Test(report, ci_check_of_a_run_directory)
{
    char dir[256], out[16384];
    copy_fixture("complete", dir, sizeof dir);
    cr_assert_eq(sh(out, sizeof out, "$B/bench_report %s", dir), 0, "%s", out);
    /* The fixture's CSVs are older than the schemas (bench_report reads them; --check holds them to today's
     * columns): check_run.sh says so, and still prints the headline. A fresh run passes (test_schema.c). */
    cr_expect_eq(sh(out, sizeof out, "sh scripts/check_run.sh %s $B", dir), 1, "%s", out);
    cr_expect(strstr(out, "sweep.csv:1:3: header column 3 is 'model', the schema's is 'point'"), "%s", out);
    cr_expect(strstr(out, "== report.md headline") && strstr(out, "| spin | 129 ns |"), "%s", out);

    /* A run whose bench_kernels is built but left no kernels.csv, and whose report is gone. */
    char bin[300];
    snprintf(bin, sizeof bin, "%s-bin", dir);
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && : >%s/bench_kernels && chmod +x %s/bench_kernels && rm %s/kernels.csv %s/report.md",
             bin, bin, bin, dir, dir);
    cr_assert_eq(system(cmd), 0);
    cr_expect_eq(sh(out, sizeof out, "sh scripts/check_run.sh %s %s", dir, bin), 1, "%s", out);
    cr_expect(strstr(out, "kernels.csv is missing") && strstr(out, "report.md is missing"), "%s", out);
}

/* Two bench_report runs on one directory at once: each draws into names of its own and renames them over the
 * plots, so neither finds the other's half-written PNG (and removes it as "a full disk?"), both exit 0 and every
 * plot, report.md and results.json are whole afterwards, with no temporary name left. Seen failing with gnuplot
 * writing the final names (exit 1, "gnuplot did not write it", a PNG missing), within four rounds. */
Test(report, two_reports_on_one_directory_at_once, .timeout = 120)
{
    if (!pb_plot_available())
        cr_skip_test("no gnuplot on PATH: nothing is drawn, so nothing can collide");
    static const char *const stems[] = { "pool_overhead_threads", "pool_overhead_gap", "overlap", "overlap_pct",
                                         "memory_floor", "token_floor", "kernels", "kernels_threads", "sweep",
                                         "sweep_floor", "cpu_util_heatmap", "cpu_util_mean", NULL };
    char dir[256], out[16384];
    copy_fixture("complete", dir, sizeof dir);
    for (int round = 0; round < 4; round++) {
        int rc = sh(out, sizeof out,
                    "B=$(cd \"$B\" && pwd) && cd %s && { \"$B/bench_report\" . >a.log 2>&1 & "
                    "\"$B/bench_report\" . >b.log 2>&1; b=$?; wait $!; a=$?; echo \"exit $a $b\"; "
                    "grep -h 'plot:\\|cannot' a.log b.log; rm -f a.log b.log; }",
                    dir);
        cr_assert_eq(rc, 0, "%s", out);
        cr_expect(strncmp(out, "exit 0 0\n", 9) == 0 && out[9] == '\0', "round %d: both exit 0, no plot failed: %s",
                  round, out);
        for (const char *const *s = stems; *s; s++) {
            char png[128], svg[128];
            snprintf(png, sizeof png, "%s.png", *s);
            snprintf(svg, sizeof svg, "%s.svg", *s);
            cr_expect_gt(file_size(dir, png), 1000, "round %d: %s", round, png);
            cr_expect_gt(file_size(dir, svg), 1000, "round %d: %s", round, svg);
        }
        cr_expect_gt(file_size(dir, "report.md"), 1000, "round %d", round);
        cr_expect_gt(file_size(dir, "results.json"), 100, "round %d", round);
    }
    cr_expect_eq(sh(out, sizeof out, "ls %s | grep tmp", dir), 1, "no temporary name left: %s", out);
    drop_fixture(dir);
}
