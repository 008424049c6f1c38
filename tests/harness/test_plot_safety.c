/* test_plot_safety.c — drawing plots never hands a path or a host name to a shell or to gnuplot's command
 * parser: run directories, report and comparison directories and a host name full of shell metacharacters run
 * nothing and still get their plots. And a plot that failed (gnuplot's error, or an empty file left behind as on
 * a full disk) makes the exit status 1, names the plot, removes the empty file and keeps the CSV.
 *
 * The programs are run with fork + exec, never through a shell, so whatever runs a payload is the program under
 * test. Every payload creates a file named MARK in the directory it runs in (the test's scratch directory, or
 * the run directory below it); the test then looks for MARK anywhere under the scratch directory. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emulation.h"
#include "run_dir.h"
#include "test_files.h"

#define MARK "PWNED"
#define RUNS "tests/data/runs"

/* Every shell metacharacter, each in a payload that runs `touch PWNED` from the quoting it breaks out of:
 * single quotes, double quotes, backquotes, a bare $( ), ; | & > (unquoted), then < * space and a newline. */
#define NASTY_LINE "r'$(touch PWNED)'\"$(touch PWNED)\"`touch PWNED`$(touch PWNED);touch PWNED;|touch PWNED|" \
                   "&touch PWNED&>PWNED<x *"
static const char NASTY[] = NASTY_LINE "\nz";
/* A harness's run directory: the newline only in the parent. A harness names its run after the directory's base
 * name (the run_id column), and gnuplot cannot read a CSV field that holds a newline, quoted or not. */
static const char NASTY_RUN[] = NASTY_LINE "\nz/" NASTY_LINE;
/* A name that begins with '<': gnuplot runs a data file so named as a command. */
static const char LT[] = "<touch PWNED;x";
/* A host name with a quote: a run directory's default name (results/<host>/<stamp>) and a CSV field. The
 * harness turns a space into '_', so the payloads make MARK with a bare redirection. */
static const char HOST[] = "h'$(>PWNED)'`>PWNED`";

typedef struct ps_out {
    int rc;          /* exit status, -1 when killed */
    char err[8192];  /* stderr */
    char out[8192];  /* stdout */
} ps_out;

/* The path of a harness: $POOLBENCH_BIN/prog, absolute (the programs run in other directories). */
static void bin_path(char *out, size_t len, const char *prog)
{
    const char *bin = getenv("POOLBENCH_BIN");
    cr_assert_not_null(bin, "POOLBENCH_BIN is set by make test");
    char cwd[4096];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(out, len, "%s%s%s/%s", bin[0] == '/' ? "" : cwd, bin[0] == '/' ? "" : "/", bin, prog);
}

static void slurp_fd(FILE *f, char *buf, size_t len)
{
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Runs argv (argv[0] looked up on PATH) in dir with env ("NAME=value", NULL-terminated, may be NULL) added to
 * the environment; no shell between. */
static void ps_run(ps_out *r, const char *dir, const char *const *env, const char *const *argv)
{
    FILE *err = tmpfile(), *out = tmpfile();
    cr_assert(err && out, "tmpfile");
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1, "fork");
    if (pid == 0) {
        for (int i = 0; env && env[i]; i++)
            putenv(strdup(env[i]));
        if (chdir(dir) != 0 || dup2(fileno(err), 2) < 0 || dup2(fileno(out), 1) < 0)
            _exit(126);
        execvp(argv[0], (char *const *)argv); /* execvp does not write the strings */
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    r->rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    slurp_fd(err, r->err, sizeof r->err);
    slurp_fd(out, r->out, sizeof r->out);
}

/* The size of the first file called name under dir (searched depth-first), -1 when there is none. */
static long find_size(const char *dir, const char *name)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    long size = -1;
    struct dirent *e;
    while (size < 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            size = find_size(path, name);
        else if (!strcmp(e->d_name, name))
            size = (long)st.st_size;
    }
    closedir(d);
    return size;
}

static long size_in(const char *dir, const char *sub, const char *name)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Nothing ran a payload anywhere under the scratch directory. */
static void expect_nothing_ran(const char *scratch, const ps_out *r)
{
    cr_expect_eq(find_size(scratch, MARK), -1, "a payload ran: %s exists under %s; stderr: %s", MARK, scratch,
                 r->err);
}

/* Each name of a NULL-terminated list is a non-empty file in scratch/sub. */
static void expect_drawn(const char *scratch, const char *sub, const char *const *names, const ps_out *r)
{
    for (const char *const *n = names; *n; n++)
        cr_expect_gt(size_in(scratch, sub, *n), 0, "%s drawn in the directory %s; stderr: %s", *n, sub, r->err);
}

/* Copies the files of a fixture run directory into scratch/name (made here). */
static void copy_fixture(const char *fixture, const char *scratch, const char *name)
{
    char src[512], dst[8192];
    snprintf(src, sizeof src, RUNS "/%s", fixture);
    snprintf(dst, sizeof dst, "%s/%s", scratch, name);
    cr_assert_eq(mkdir(dst, 0755), 0, "mkdir %s: %s", dst, strerror(errno));
    DIR *d = opendir(src);
    cr_assert_not_null(d, "%s", src);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *text = tf_slurp("%s/%s", src, e->d_name);
        tf_write(dst, e->d_name, text);
    }
    closedir(d);
}

static const char *const OVERLAP_PLOTS[] = { "overlap.png", "overlap.svg", "overlap_pct.png", "overlap_pct.svg",
                                             NULL };
static const char *const CPU_UTIL_PLOTS[] = { "cpu_util_heatmap.png", "cpu_util_mean.png", NULL };
static const char *const REPORT_PLOTS[] = { "pool_overhead_threads.png", "memory_floor.png", "token_floor.png",
                                            "kernels.png", "sweep.png", "cpu_util_heatmap.png", "overlap.png",
                                            NULL };
static const char *const COMPARE_PLOTS[] = { "compare_floor.png", "compare_decode.png", "compare_dispatch.png",
                                             NULL };

#define OVERLAP_TINY "--ratios", "0.5", "--steps", "10", "--reps", "3", "--rows", "64", "--cols", "64"

/* Runs argv in scratch: exit 0, no payload ran, and every plot is drawn in scratch/sub. */
static void expect_safe(const char *scratch, const char *const *argv, const char *sub, const char *const *plots)
{
    ps_out r;
    ps_run(&r, scratch, NULL, argv);
    cr_expect_eq(r.rc, 0, "%s on %s: exit %d: %s", argv[0], sub, r.rc, r.err);
    expect_nothing_ran(scratch, &r);
    expect_drawn(scratch, sub, plots, &r);
}

Test(plot_safety, harness_out_dir_with_metacharacters)
{
    char scratch[64], prog[4200];
    tf_tmpdir(scratch, sizeof scratch, "pbps-out");
    bin_path(prog, sizeof prog, "bench_cpu_util");
    expect_safe(scratch,
                (const char *const[]){ prog, "--interval-ms", "20", "--out", NASTY_RUN, "--", "sleep", "0.3", NULL },
                NASTY_RUN, CPU_UTIL_PLOTS);
    tf_rmrf(scratch);
}

Test(plot_safety, harness_run_dir_with_metacharacters)
{
    char scratch[64], prog[4200], run[8192];
    tf_tmpdir(scratch, sizeof scratch, "pbps-rundir");
    snprintf(run, sizeof run, "%s/%s", scratch, NASTY);
    cr_assert_eq(mkdir(run, 0755), 0);
    snprintf(run, sizeof run, "%s/%s", scratch, NASTY_RUN);
    cr_assert_eq(mkdir(run, 0755), 0);
    bin_path(prog, sizeof prog, "bench_overlap");
    expect_safe(scratch, (const char *const[]){ prog, OVERLAP_TINY, "--run-dir", NASTY_RUN, NULL }, NASTY_RUN,
                OVERLAP_PLOTS);
    tf_rmrf(scratch);
}

Test(plot_safety, report_dirs_with_metacharacters)
{
    char scratch[64], prog[4200];
    tf_tmpdir(scratch, sizeof scratch, "pbps-report");
    bin_path(prog, sizeof prog, "bench_report");
    const char *const names[] = { NASTY, LT, NULL };
    for (const char *const *n = names; *n; n++) {
        copy_fixture("complete", scratch, *n);
        expect_safe(scratch, (const char *const[]){ prog, *n, NULL }, *n, REPORT_PLOTS);
    }
    tf_rmrf(scratch);
}

/* The inputs' names never reach gnuplot (it reads the data bench_compare wrote), the output's name no command. */
Test(plot_safety, compare_dirs_with_metacharacters)
{
    char scratch[64], prog[4200], out[256];
    tf_tmpdir(scratch, sizeof scratch, "pbps-compare");
    bin_path(prog, sizeof prog, "bench_compare");
    copy_fixture("complete", scratch, NASTY);
    copy_fixture("laptop", scratch, LT);
    snprintf(out, sizeof out, "%s-cmp", NASTY);
    expect_safe(scratch, (const char *const[]){ prog, NASTY, LT, "--out", out, NULL }, out, COMPARE_PLOTS);
    tf_rmrf(scratch);
}

/* The host name is set in a UTS namespace of the run's own (unshare -u), so the machine keeps its name. */
Test(plot_safety, host_name_with_a_quote)
{
    char scratch[64], prog[4200];
    tf_tmpdir(scratch, sizeof scratch, "pbps-host");
    ps_out r;
    ps_run(&r, scratch, NULL,
           (const char *const[]){ "unshare", "-u", "sh", "-c", "printf h > /proc/sys/kernel/hostname", NULL });
    if (r.rc != 0) {
        tf_rmrf(scratch);
        cr_skip("cannot set a host name in a new UTS namespace here (unshare -u: exit %d): %s", r.rc, r.err);
    }
    bin_path(prog, sizeof prog, "bench_cpu_util");
    /* The test's own sh only copies its arguments: $1 and $2 are never parsed as code. */
    const char *script = "printf %s \"$1\" > /proc/sys/kernel/hostname && exec \"$2\" --interval-ms 20 -- sleep 0.3";
    ps_run(&r, scratch, NULL, (const char *const[]){ "unshare", "-u", "sh", "-c", script, "sh", HOST, prog, NULL });
    cr_expect_eq(r.rc, 0, "bench_cpu_util under host %s: %s", HOST, r.err);
    expect_nothing_ran(scratch, &r);
    cr_expect_gt(find_size(scratch, "cpu_util_heatmap.png"), 0, "the heatmap is drawn; stderr: %s", r.err);
    tf_rmrf(scratch);
}

/* A harness ignores SIGPIPE, and an ignored disposition survives exec: gnuplot must get the default back. A
 * stand-in gnuplot first on PATH reads its own SigIgn mask (bit 12 is SIGPIPE, signal 13): it exits 3 when the
 * bit is set, else writes the four files overlap.gp would, in its working directory, under the temporary names
 * of the process that started it (its tmp_tag, in the -e argument). (The real gnuplot cannot tell: it ignores
 * SIGPIPE itself.) */
#define STAND_IN_GNUPLOT                                                                                          \
    "#!/bin/sh\n"                                                                                                \
    "mask=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status)\n"                                               \
    "case $mask in *[13579bdf][0-9a-f][0-9a-f][0-9a-f])\n"                                                       \
    "    echo 'stand-in gnuplot: SIGPIPE is ignored' >&2; exit 3;;\n"                                            \
    "esac\n"                                                                                                     \
    "tag=$(printf '%s' \"$2\" | sed -n 's/.*tmp_tag=\\([0-9]*\\).*/\\1/p')\n"                                    \
    "for f in overlap.png overlap.svg overlap_pct.png overlap_pct.svg; do echo drawn > \"$f.tmp-$tag\"; done\n"

Test(plot_safety, gnuplot_starts_with_sigpipe_at_default)
{
    char scratch[64], prog[4200], dir[128], path[256];
    tf_tmpdir(scratch, sizeof scratch, "pbps-sigpipe");
    snprintf(dir, sizeof dir, "%s/bin", scratch);
    cr_assert_eq(mkdir(dir, 0755), 0);
    tf_write(dir, "gnuplot", STAND_IN_GNUPLOT);
    snprintf(path, sizeof path, "%s/gnuplot", dir);
    cr_assert_eq(chmod(path, 0755), 0);
    snprintf(path, sizeof path, "PATH=%s:/usr/bin:/bin", dir);
    bin_path(prog, sizeof prog, "bench_overlap");
    ps_out r;
    ps_run(&r, scratch, (const char *const[]){ path, NULL },
           (const char *const[]){ "sh", "-c", "trap '' PIPE; exec \"$0\" \"$@\"", prog, OVERLAP_TINY, "--out", "run",
                                  NULL });
    cr_expect_eq(r.rc, 0, "gnuplot started with SIGPIPE at its default: %s", r.err);
    expect_drawn(scratch, "run", OVERLAP_PLOTS, &r);
    tf_rmrf(scratch);
}

/* ---------------------------------------------------------------- a plot that failed */

/* A plots/ directory of the test's holding one script, overlap.gp, with the given text. The other scripts are
 * still found beside the executable. */
static void fake_plots(const char *scratch, const char *text, char *env, size_t len)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/plots", scratch);
    cr_assert_eq(mkdir(dir, 0755), 0);
    tf_write(dir, "overlap.gp", text);
    snprintf(env, len, "POOLBENCH_PLOTS=%s", dir);
}

/* What a full disk leaves: gnuplot exits 0 and the PNG (under the name pb_plot gave it) is an empty file. */
#define EMPTY_PNG "set terminal pngcairo\nset output sprintf('overlap.png.tmp-%d', tmp_tag)\nunset output\n"

/* A line on stderr names the failed plot and says "failed". */
static void expect_failure_line(const ps_out *r, const char *what)
{
    bool found = false;
    const char *line = r->err;
    while (*line && !found) {
        size_t n = strcspn(line, "\n");
        found = memmem(line, n, what, strlen(what)) && memmem(line, n, "failed", 6);
        line += n + (line[n] == '\n');
    }
    cr_expect(found, "a line names %s and says it failed: %s", what, r->err);
}

static void run_overlap(ps_out *r, const char *scratch, const char *env, const char *const *dir_args)
{
    char prog[4200];
    bin_path(prog, sizeof prog, "bench_overlap");
    ps_run(r, scratch, (const char *const[]){ env, NULL },
           (const char *const[]){ prog, OVERLAP_TINY, dir_args[0], dir_args[1], NULL });
}

Test(plot_failure, gnuplot_error_fails_the_harness)
{
    char scratch[64], env[512];
    tf_tmpdir(scratch, sizeof scratch, "pbpf-err");
    fake_plots(scratch, "this is not gnuplot\n", env, sizeof env);
    ps_out r;
    run_overlap(&r, scratch, env, (const char *const[]){ "--out", "run" });
    cr_expect_eq(r.rc, 1, "a gnuplot error is exit 1: %s", r.err);
    expect_failure_line(&r, "overlap.gp");
    cr_expect_gt(size_in(scratch, "run", "overlap.csv"), 0, "the CSV is kept");
    cr_expect_null(strstr(r.out, "plots:"), "no plots listed: %s", r.out);
    tf_rmrf(scratch);
}

Test(plot_failure, empty_png_fails_the_harness_and_is_removed)
{
    char scratch[64], env[512];
    tf_tmpdir(scratch, sizeof scratch, "pbpf-empty");
    fake_plots(scratch, EMPTY_PNG, env, sizeof env);
    ps_out r;
    run_overlap(&r, scratch, env, (const char *const[]){ "--out", "run" });
    cr_expect_eq(r.rc, 1, "an empty PNG is exit 1: %s", r.err);
    expect_failure_line(&r, "overlap.png");
    cr_expect_eq(size_in(scratch, "run", "overlap.png"), -1, "the empty PNG is removed");
    cr_expect_gt(size_in(scratch, "run", "overlap.csv"), 0, "the CSV is kept");
    tf_rmrf(scratch);
}

/* gnuplot cannot open overlap.png when a directory holds the name. */
Test(plot_failure, png_name_taken_by_a_directory)
{
    char scratch[64], run[128];
    tf_tmpdir(scratch, sizeof scratch, "pbpf-dir");
    snprintf(run, sizeof run, "%s/run", scratch);
    cr_assert_eq(mkdir(run, 0755), 0);
    snprintf(run, sizeof run, "%s/run", scratch);
    rd_machine_csv(run, NULL, NULL); /* a run directory of this host, which --run-dir joins */
    snprintf(run, sizeof run, "%s/run/overlap.png", scratch);
    cr_assert_eq(mkdir(run, 0755), 0);
    ps_out r;
    run_overlap(&r, scratch, NULL, (const char *const[]){ "--run-dir", "run" });
    cr_expect_eq(r.rc, 1, "an unwritable plot is exit 1: %s", r.err);
    expect_failure_line(&r, "overlap");
    cr_expect_gt(size_in(scratch, "run", "overlap.csv"), 0, "the CSV is kept");
    tf_rmrf(scratch);
}

Test(plot_failure, empty_png_fails_the_report)
{
    char scratch[64], env[512], prog[4200];
    tf_tmpdir(scratch, sizeof scratch, "pbpf-report");
    fake_plots(scratch, EMPTY_PNG, env, sizeof env);
    copy_fixture("complete", scratch, "run");
    bin_path(prog, sizeof prog, "bench_report");
    ps_out r;
    ps_run(&r, scratch, (const char *const[]){ env, NULL }, (const char *const[]){ prog, "run", NULL });
    cr_expect_eq(r.rc, 1, "bench_report: an empty PNG is exit 1: %s", r.err);
    expect_failure_line(&r, "overlap.png");
    cr_expect_eq(size_in(scratch, "run", "overlap.png"), -1, "the empty PNG is removed");
    cr_expect_gt(size_in(scratch, "run", "report.md"), 0, "the report is still written");
    cr_expect_gt(size_in(scratch, "run", "pool_overhead_threads.png"), 0, "the other plots are drawn");
    tf_rmrf(scratch);
}

Test(plot_failure, missing_gnuplot_is_a_warning)
{
    skip_if_emulated("qemu-user runs posix_spawn's CLONE_VFORK child as a plain fork, so a missing gnuplot is that "
                     "child's exit 127, not posix_spawnp's ENOENT");
    char scratch[64];
    tf_tmpdir(scratch, sizeof scratch, "pbpf-nognuplot");
    ps_out r;
    run_overlap(&r, scratch, "PATH=/nonexistent", (const char *const[]){ "--out", "run" });
    cr_expect_eq(r.rc, 0, "no gnuplot is not a failure: %s", r.err);
    cr_expect_not_null(strstr(r.err, "gnuplot not found"), "%s", r.err);
    cr_expect_gt(size_in(scratch, "run", "overlap.csv"), 0, "the CSV is kept");
    tf_rmrf(scratch);
}
