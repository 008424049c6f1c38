/* Nothing measured is lost: pb_csv streams rows to a locked partial file and quotes every text field; the
 * harnesses publish what they measured when a signal stops them (exit 128 + signal, machine.csv marked
 * incomplete), a SIGKILL leaves the partial file with every finished row, a closed stdout stops the printing
 * but not the measuring, and every output name is claimed before anything is measured. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emulation.h"
#include "harness_run.h"
#include "pb_csv.h"
#include "pb_csvread.h"
#include "run_dir.h"
#include "test_files.h"

/* ---------------------------------------------------------------- pb_csv */

Test(lossless, csv_row_quotes_every_text_field_and_formats_numbers)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    pb_csv *c = pb_csv_open(dir, "t.csv", "a,b,c,d,e,f,g,h");
    cr_assert_not_null(c);
    pb_csv_row(c, "%s,%d,%s,%.2f,%zu,%llu,%5.1f,%s%%", "x,y", -7, "say \"hi\"\nthere", 1.5, (size_t)12,
               (unsigned long long)1 << 40, 2.25, "plain");
    pb_csv_row(c, "%ld,%u,%x,%g,%e,%c,%s,%s", -5L, 3u, 255u, 0.5, 1e3, 'q', "", "a\rb");
    cr_assert_eq(pb_csv_close(c), 0);
    char *text = tf_read("%s/t.csv", dir);
    cr_assert_str_eq(text, "a,b,c,d,e,f,g,h\n"
                           "\"x,y\",-7,\"say \"\"hi\"\"\nthere\",1.50,12,1099511627776,  2.2,plain%\n"
                           "-5,3,ff,0.5,1.000000e+03,q,,\"a\rb\"\n");
    cr_expect_eq(tf_rmrf(dir), 0);
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; p && *p; p++)
        n += *p == '\n';
    return n;
}

Test(lossless, csv_rows_reach_the_partial_file_as_they_are_written)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    pb_csv *c = pb_csv_open(dir, "r.csv", "k,v");
    cr_assert_not_null(c);
    const char *partial = pb_csv_partial_path(c);
    cr_expect(strstr(partial, "/r.csv" PB_CSV_PARTIAL) != NULL, "the name says partial: %s", partial);
    for (int i = 0; i < 3; i++)
        pb_csv_row(c, "%d,%d", i, i * i);
    char *text = tf_read("%s", partial);
    cr_assert_not_null(text);
    cr_expect_eq(count_lines(text), 4, "header and 3 rows on disk before close: %s", text);
    cr_expect_eq(pb_csv_rows(c), 3);
    char final[128];
    snprintf(final, sizeof final, "%s/r.csv", dir);
    cr_expect(access(final, F_OK) != 0, "not published before close");
    char saved[4200];
    snprintf(saved, sizeof saved, "%s", partial);
    cr_assert_eq(pb_csv_close(c), 0);
    cr_expect(access(final, F_OK) == 0, "published");
    cr_expect(access(saved, F_OK) != 0, "the partial name is gone");
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(lossless, csv_second_writer_refused_stale_partial_ignored_result_never_replaced)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    /* A partial file left by a killed writer: unlocked, so it blocks nobody. */
    tf_write(dir, "w.csv" PB_CSV_PARTIAL "AbCdEf", "k\n1\n");
    pb_csv *a = pb_csv_open(dir, "w.csv", "k");
    cr_assert_not_null(a, "a stale partial file does not block: %s", strerror(errno));
    errno = 0;
    pb_csv *b = pb_csv_open(dir, "w.csv", "k");
    cr_expect_null(b, "a second writer of the same name is refused");
    cr_expect_eq(errno, EBUSY);
    pb_csv_row(a, "%d", 1);
    cr_assert_eq(pb_csv_close(a), 0);
    errno = 0;
    cr_expect_null(pb_csv_open(dir, "w.csv", "k"), "a published name is never replaced");
    cr_expect_eq(errno, EEXIST);
    char *stale = tf_read("%s/w.csv" PB_CSV_PARTIAL "AbCdEf", dir);
    cr_expect(stale && strcmp(stale, "k\n1\n") == 0, "the stale partial file is left as it was");
    pb_csv *d = pb_csv_open(dir, "x.csv", "k");
    cr_assert_not_null(d);
    pb_csv_abort(d);
    cr_expect(access(dir, F_OK) == 0);
    char x[128];
    snprintf(x, sizeof x, "%s/x.csv", dir);
    cr_expect(access(x, F_OK) != 0, "abort publishes nothing");
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* ---------------------------------------------------------------- harnesses stopped by a signal */

/* The rows (lines after the header) of dir's file called name, or with --- when name ends in PB_CSV_PARTIAL
 * --- of the first file whose name starts with it; -1 when none. */
static int rows_of(const char *dir, const char *name)
{
    size_t n = strlen(name), p = strlen(PB_CSV_PARTIAL);
    bool prefix = n > p && strcmp(name + n - p, PB_CSV_PARTIAL) == 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    int rows = -1;
    while (d && (e = readdir(d))) {
        if (prefix ? strncmp(e->d_name, name, n) != 0 : strcmp(e->d_name, name) != 0)
            continue;
        char *text = tf_read("%s/%s", dir, e->d_name);
        rows = text ? count_lines(text) - 1 : -1;
        break;
    }
    if (d)
        closedir(d);
    return rows;
}

/* Starts PROG with args in dir/run (args hold "--out", "run"), waits until its partial CSV `csv` holds at least
 * `want` rows, then sends sig (twice: again 5 ms later). Returns the exit status; the run directory is dir/run. */
static int stop_after_rows(const char *dir, const char *prog, const char *const *args, const char *csv, int want,
                           int sig, int twice)
{
    char log[256], partial[128], run[128];
    snprintf(log, sizeof log, "%s/log.txt", dir);
    pid_t pid = harness_start(prog, dir, args, log);
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(partial, sizeof partial, "%s" PB_CSV_PARTIAL, csv);
    int rows = -1;
    for (int i = 0; i < 6000 && (rows = rows_of(run, partial)) < want; i++) /* at most 60 s */
        harness_sleep_ms(10);
    cr_assert_geq(rows, want, "%s wrote %d rows before the signal: %s", prog, rows, tf_read("%s", log));
    kill(pid, sig);
    if (twice) { /* as coreutils' timeout does: to the command, then to its process group */
        harness_sleep_ms(5);
        kill(pid, sig);
    }
    return harness_finish(pid, 60000);
}

/* After a signal: the published CSV holds at least `want` rows and fewer than `total`, no partial file is
 * left, and machine.csv says which harness stopped, on which signal. */
static void expect_published(const char *dir, const char *prog, const char *csv, int want, int total, int sig)
{
    char run[128], note[160];
    snprintf(run, sizeof run, "%s/run", dir);
    int rows = rows_of(run, csv);
    cr_expect_geq(rows, want, "%s: %s holds the %d rows measured before the signal (%d)", prog, csv, want, rows);
    cr_expect_lt(rows, total, "%s stopped early (%d of %d rows)", prog, rows, total);
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s" PB_CSV_PARTIAL, csv);
    cr_expect_eq(rows_of(run, prefix), -1, "no partial file left");
    char *machine = tf_read("%s/machine.csv", run);
    cr_assert_not_null(machine);
    snprintf(note, sizeof note, "incomplete,%s: %s after ", prog,
             sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP");
    cr_expect(strstr(machine, note) != NULL, "machine.csv says %s: %s", note, machine);
}

static const char *const kernel_args[] = { "--format", "q8_0,q4_0,q1_0", "--isa", "scalar", "--level", "l2",
                                           "--threads", "1", "--batch", "1,2,4,8", "--budget-ms", "150",
                                           "--out", "run", NULL };
#define KERNEL_POINTS 12

static void kernels_stopped_by(int sig, int twice)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    int rc = stop_after_rows(dir, "bench_kernels", kernel_args, "kernels.csv", 3, sig, twice);
    cr_expect_eq(rc, 128 + sig, "exit 128 + signal: %d", rc);
    expect_published(dir, "bench_kernels", "kernels.csv", 3, KERNEL_POINTS, sig);
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(lossless, kernels_sigint_publishes_what_was_measured, .timeout = 120) { kernels_stopped_by(SIGINT, 0); }
Test(lossless, kernels_sigterm_publishes_what_was_measured, .timeout = 120) { kernels_stopped_by(SIGTERM, 0); }
Test(lossless, kernels_sighup_publishes_what_was_measured, .timeout = 120) { kernels_stopped_by(SIGHUP, 0); }
/* `timeout -s INT` signals the command and then its process group: two SIGINTs microseconds apart are one
 * request (a second one later kills). Seen failing when the first signal reset the handler (SA_RESETHAND). */
Test(lossless, kernels_a_signal_sent_twice_at_once_still_publishes, .timeout = 120) { kernels_stopped_by(SIGINT, 1); }

Test(lossless, kernels_sigkill_leaves_every_finished_row_in_the_partial_file, .timeout = 120)
{
    char dir[64], run[128];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    int rc = stop_after_rows(dir, "bench_kernels", kernel_args, "kernels.csv", 3, SIGKILL, 0);
    cr_expect_eq(rc, 128 + SIGKILL);
    snprintf(run, sizeof run, "%s/run", dir);
    cr_expect_eq(rows_of(run, "kernels.csv"), -1, "nothing published");
    int rows = rows_of(run, "kernels.csv" PB_CSV_PARTIAL);
    cr_expect_geq(rows, 3, "the partial file keeps the rows: %d", rows);
    cr_expect(access(run, F_OK) == 0 && rows_of(run, "machine.csv") > 0, "machine.csv was written at the start");
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(lossless, sweep_sigterm_publishes_every_finished_point, .timeout = 180)
{
    skip_if_emulated(EMULATED_SWEEP_WHY);
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    static const char *const args[] = { "--format", "q8_0", "--policy", "spin,condvar,spawn", "--threads", "1",
                                        "--glue", "serial,fused", "--tokens", "2", "--warmup", "0",
                                        "--floor-passes", "3", "--out", "run", NULL };
    int rc = stop_after_rows(dir, "bench_sweep", args, "sweep.csv", 1, SIGTERM, 0);
    cr_expect_eq(rc, 128 + SIGTERM, "%s", tf_read("%s/log.txt", dir));
    expect_published(dir, "bench_sweep", "sweep.csv", 1, 6, SIGTERM);
    char run[128];
    snprintf(run, sizeof run, "%s/run", dir);
    cr_expect_geq(rows_of(run, "sweep_cpu.csv"), 1, "the busy figures of the finished points are kept");
    cr_expect_geq(rows_of(run, "cpu_util.csv"), 0);
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(lossless, pool_overhead_sigint_publishes_the_finished_thread_counts, .timeout = 120)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    static const char *const args[] = { "--policy", "spin,omp", "--threads", "1,2", "--gap-us", "0,5,20,100",
                                        "--quick", "--out", "run", NULL };
    int rc = stop_after_rows(dir, "bench_pool_overhead", args, "pool_overhead.csv", 1, SIGINT, 0);
    cr_expect_eq(rc, 128 + SIGINT);
    expect_published(dir, "bench_pool_overhead", "pool_overhead.csv", 1, 24, SIGINT);
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(lossless, memory_floor_sigterm_publishes_the_finished_blocks, .timeout = 120)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    static const char *const args[] = { "--threads", "1,2", "--size", "256", "--passes", "10", "--out", "run", NULL };
    int rc = stop_after_rows(dir, "bench_memory_floor", args, "memory_floor.csv", 1, SIGTERM, 0);
    cr_expect_eq(rc, 128 + SIGTERM);
    expect_published(dir, "bench_memory_floor", "memory_floor.csv", 1, 1000, SIGTERM);
    char run[128];
    snprintf(run, sizeof run, "%s/run", dir);
    cr_expect_gt(rows_of(run, "token_floor.csv"), 0, "the token floors of the thread counts measured");
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* ---------------------------------------------------------------- a closed stdout */

Test(lossless, closed_stdout_stops_printing_not_measuring, .timeout = 120)
{
    char dir[64], cmd[2048], out[256];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin);
    snprintf(cmd, sizeof cmd,
             "cd %s && { '%s/%s/bench_kernels' --format q8_0 --isa scalar --layout file --level l2 --threads 1 "
             "--batch 1,2 --budget-ms 20 --out run 2>/dev/null; echo $? > rc; } | head -1 >/dev/null; cat rc",
             dir, bin[0] == '/' ? "" : getcwd(out, sizeof out), bin);
    cr_assert_eq(tf_run(out, sizeof out, cmd), 0);
    cr_expect_eq(atoi(out), 0, "bench_kernels | head -1: exit %s", out);
    char run[128];
    snprintf(run, sizeof run, "%s/run", dir);
    cr_expect_eq(rows_of(run, "kernels.csv" PB_CSV_PARTIAL), -1);
    cr_expect_eq(rows_of(run, "kernels.csv"), 2, "both points written");
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(lossless, cpu_util_keeps_the_commands_status_and_stdout, .timeout = 60)
{
    char dir[64], cmd[2048], out[256], cwd[256];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin);
    const char *root = bin[0] == '/' ? "" : getcwd(cwd, sizeof cwd);
    snprintf(cmd, sizeof cmd,
             "cd %s && { '%s/%s/bench_cpu_util' --out a -- sh -c 'sleep 0.2; exit 3' 2>/dev/null; echo $? > rc; } "
             "| true; cat rc",
             dir, root, bin);
    cr_assert_eq(tf_run(out, sizeof out, cmd), 0);
    cr_expect_eq(atoi(out), 3, "the command's status through a closed stdout: %s", out);
    snprintf(cmd, sizeof cmd, "cd %s && '%s/%s/bench_cpu_util' --out b -- echo hello 2>/dev/null", dir, root, bin);
    cr_assert_eq(tf_run(out, sizeof out, cmd), 0);
    cr_expect_str_eq(out, "hello\n", "stdout is the command's alone");
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* ---------------------------------------------------------------- refused before measuring */

/* PROG ARGS in dir: exit 2, one line naming what, and no progress line (nothing was measured). */
static void expect_refused_at_once(const char *dir, const char *prog, const char *args, const char *what)
{
    char err[4096];
    int rc = harness_run_in(dir, prog, "", args, err, sizeof err);
    cr_expect_eq(rc, 2, "%s %s: exit %d: %s", prog, args, rc, err);
    cr_expect(strstr(err, what) != NULL, "%s: the line names %s: %s", prog, what, err);
    char *nl = strchr(err, '\n');
    cr_expect(nl && nl[1] == '\0', "%s: one line: %s", prog, err);
}

Test(lossless, run_dir_holding_the_csv_is_refused_before_measuring)
{
    char dir[64];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    rd_machine_csv(dir, NULL, NULL); /* a run of this host: what is refused is the CSV it already holds */
    tf_write(dir, "kernels.csv", "x\n");
    tf_write(dir, "sweep.csv", "x\n");
    tf_write(dir, "memory_floor.csv", "x\n");
    expect_refused_at_once(dir, "bench_kernels", "--run-dir .", "kernels.csv");
    expect_refused_at_once(dir, "bench_sweep", "--run-dir . --quick", "sweep.csv");
    expect_refused_at_once(dir, "bench_memory_floor", "--run-dir . --quick --size 4096", "memory_floor.csv");
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(lossless, cpu_util_around_a_harness_in_the_same_run_dir_keeps_its_samples, .timeout = 120)
{
    char dir[64], path[4200];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    const char *bin = getenv("POOLBENCH_BIN");
    char cwd[4096];
    snprintf(path, sizeof path, "%s/%s/bench_sweep", bin[0] == '/' ? "" : getcwd(cwd, sizeof cwd), bin);
    char args[8400];
    snprintf(args, sizeof args, "--run-dir . -- '%s' --run-dir . --quick", path);
    char err[4096];
    int rc = harness_run_in(dir, "bench_cpu_util", "", args, err, sizeof err);
    cr_expect_eq(rc, 2, "the inner sweep is refused at once and its status passes through: %d %s", rc, err);
    cr_expect(strstr(err, "cpu_util.csv: another process is writing it") != NULL, "%s", err);
    cr_expect_geq(rows_of(dir, "cpu_util.csv"), 0, "bench_cpu_util published its samples");
    cr_expect_eq(rows_of(dir, "sweep.csv"), -1, "the sweep wrote nothing");
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(lossless, out_longer_than_path_max_is_refused)
{
    char dir[64], *args = malloc(5000);
    cr_assert_not_null(args);
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    char *p = args + sprintf(args, "--out ");
    for (int i = 0; i < 400; i++)
        p += sprintf(p, "abcdefghi/");
    expect_refused_at_once(dir, "bench_kernels", args, "--out");
    expect_refused_at_once(dir, "bench_cpu_util", strcat(args, " -- true"), "--out");
    free(args);
    cr_expect(tf_dir_empty(dir), "nothing created");
    cr_expect_eq(tf_rmrf(dir), 0);
}

Test(lossless, out_with_a_stale_partial_file_names_it)
{
    char dir[64], out[128];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    snprintf(out, sizeof out, "%s/old", dir);
    cr_assert_eq(mkdir(out, 0777), 0);
    tf_write(out, "kernels.csv.partial-Xy12Zz", "x\n");
    expect_refused_at_once(dir, "bench_kernels", "--out old", "kernels.csv.partial-Xy12Zz");
    cr_expect_eq(tf_rmrf(dir), 0);
}

/* ---------------------------------------------------------------- text fields */

/* The run id is the directory's base name with control characters made '_' (a newline in a field, though
 * quoted, is more than gnuplot's CSV reader takes), its comma and quote kept and quoted. */
Test(lossless, run_id_with_a_comma_quote_and_newline_stays_one_field, .timeout = 60)
{
    char dir[64], out[256], path[512];
    tf_tmpdir(dir, sizeof dir, "pb_lossless");
    snprintf(out, sizeof out, "%s/a,b\"c\nd", dir);
    char log[256];
    snprintf(log, sizeof log, "%s/log.txt", dir);
    int rc = harness_finish(harness_start("bench_cpu_util", NULL, (const char *const[]){ "--interval-ms", "10", "--out",
                                                                                     out, "--", "sleep", "0.1", NULL },
                                          log),
                            30000);
    cr_assert_eq(rc, 0, "%s", tf_read("%s", log));
    const char *names[] = { "cpu_util.csv", "machine.csv" };
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", out, names[i]);
        pb_table t;
        pb_csverr e;
        cr_assert_eq(pb_table_load(&t, path, &e), 0, "%s reads back: %s", names[i], e.msg);
        if (i == 0) {
            cr_assert_gt(t.nrows, 0);
            cr_expect_str_eq(pb_table_str(&t, 0, pb_table_col(&t, "run_id")), "a,b\"c_d");
        } else {
            cr_expect_str_eq(pb_table_str(&t, 0, pb_table_col(&t, "value")), "a,b\"c_d");
        }
        pb_table_free(&t);
    }
    cr_expect_eq(tf_rmrf(dir), 0);
}
