/* bench_cpu_util — per-cpu utilisation of any command, sampled from /proc/stat while it runs.
 *
 *   bench_cpu_util [--interval-ms N] [--out DIR | --run-dir DIR] [--cpus SET] -- CMD [ARGS...]
 *
 * Runs CMD (fork/exec, inheriting stdin/stdout/stderr), samples until it exits, then writes cpu_util.csv,
 * prints a per-cpu summary (mean and max busy, like `mpstat -P ALL`) and draws plots/cpu_util.gp (a time ×
 * cpu heatmap and the mean per cpu). It exits with CMD's status (128 + N when a signal N ended it), so it can
 * stand in front of any command in a script; SIGINT, SIGTERM and SIGHUP are passed on to CMD. A command that is
 * missing: one error line and 127; one that cannot be executed (not executable, a directory): 126, as a shell
 * does; bad options, or an output that cannot be claimed: 2, before anything runs. Its own header and table go
 * to stderr: CMD's stdout is CMD's alone. Each sample reaches cpu_util.csv's partial file as it is taken. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb_cli.h"
#include "pb_csv.h"
#include "pb_harness.h"
#include "pb_plot.h"
#include "pb_procstat.h"
#include "pb_run.h"
#include "pb_topo.h"
#include "pb_sampler.h"
#include "pb_schema.h"

#define PROG "bench_cpu_util"
#define EXIT_NOT_FOUND 127   /* what sh answers for a command it cannot find */
#define EXIT_CANNOT_EXEC 126 /* ... and for one it found but cannot execute */
#define CU_HEADER pb_schema_header(PB_K_CPUUTIL)
#define MIN_TRUSTED_TICKS 20 /* per cpu: 0.2 s, so one tick moves a mean by at most 5 points */

typedef struct cu_opts {
    long interval_ms;
    const char *out;
    const char *run_dir;
    const char *cpus;        /* NULL: every cpu */
    int cpu[PB_PROCSTAT_MAX_CPUS];
    int ncpu;
} cu_opts;

/* What one run of the command gave: the sampler's result and how the command ended. */
typedef struct cu_run {
    pb_sampler_result util;
    int status;              /* the waitpid status */
    bool sampled_ok;
} cu_run;

/* --cpus: a named set (p, e, physical, numa:N, ...) or a list of OS cpu ids, resolved by pb_topo, which
 * refuses a cpu that does not exist here. */
static void resolve_cpus(cu_opts *o, const pb_topo *t)
{
    char err[512];
    if (!o->cpus)
        return;
    pb_cpulist set; /* 4 KiB: on the stack, so the exit below leaks nothing */
    if (pb_topo_set(t, o->cpus, &set, err, sizeof err) != 0)
        pb_cli_fail_opt(PROG, "cpus", o->cpus, "%s", err);
    for (int i = 0; i < set.n && o->ncpu < PB_PROCSTAT_MAX_CPUS; i++)
        o->cpu[o->ncpu++] = set.cpu[i];
}

/* fork + exec with stdio inherited. The child reports a failed exec through a close-on-exec pipe: a
 * successful exec closes it unread, so the parent's read returns 0, and anything else is the child's errno.
 * Returns the pid, or -1 with errno set when the command cannot be run. */
static pid_t spawn(char **argv, const sigset_t *child_mask)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        /* Only async-signal-safe calls here: the parent has a sampler thread. */
        pb_stop_child_defaults(); /* SIGPIPE was ignored here; the command gets the default back */
        sigprocmask(SIG_SETMASK, child_mask, NULL);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t w = write(fds[1], &e, sizeof e);
        (void)w;
        _exit(EXIT_NOT_FOUND);
    }
    close(fds[1]);
    int child_errno = 0;
    ssize_t n;
    while ((n = read(fds[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR)
        ;
    close(fds[0]);
    if (n > 0) {
        waitpid(pid, NULL, 0);
        errno = child_errno;
        return -1;
    }
    return pid;
}

/* Waits for the child, passing SIGINT, SIGTERM and SIGHUP on. The signals are blocked in every thread and taken here
 * with sigwaitinfo, so no handler and no global are needed. Returns the waitpid status. */
static int wait_forwarding(pid_t pid, const sigset_t *waitset)
{
    int status = 0;
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(waitset, &si);
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
            kill(pid, sig);
        } else if (sig == SIGCHLD) {
            pid_t r = waitpid(pid, &status, WNOHANG);
            if (r == pid)
                return status;
        }
        /* sig < 0 (EINTR): wait again */
    }
}

static int exit_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

static void print_cell(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, " %8s", "-");
    else
        fprintf(f, " %8.1f", v);
}

static void print_row(FILE *f, const pb_sampler_cpu *c)
{
    if (c->cpu < 0)
        fprintf(f, "%-5s", "all");
    else
        fprintf(f, "%-5d", c->cpu);
    print_cell(f, c->mean.busy);
    print_cell(f, c->max_busy);
    print_cell(f, c->mean.user);
    print_cell(f, c->mean.sys);
    print_cell(f, c->mean.steal);
    fprintf(f, " %8zu\n", c->nsamples);
}

/* The summary table, on f (stderr: the command owns stdout): the run's context first, then one row per cpu and
 * an "all" row (mpstat -P ALL). */
static void print_summary(FILE *f, const pb_run *run, const cu_run *r, char **cmd)
{
    fprintf(f, "# %s  host %s  run %s  interval %d ms  wall %.2f s\n# command:", PROG, run->host, run->run_id,
            r->util.interval_ms, r->util.wall_ms / 1000.0);
    for (char **a = cmd; *a; a++)
        fprintf(f, " %s", *a);
    fprintf(f, "\n# %% of each cpu's time (USER_HZ ticks); busy = user + sys + steal; max over %d ms samples\n",
            r->util.interval_ms);
    fprintf(f, "%-5s %8s %8s %8s %8s %8s %8s\n", "cpu", "busy%", "max%", "user%", "sys%", "steal%", "samples");
    print_row(f, &r->util.all);
    for (int i = 0; i < r->util.ncpu; i++)
        print_row(f, &r->util.cpu[i]);
    if (!r->sampled_ok)
        fprintf(f, "# WARNING: some /proc/stat readings failed: the series has gaps\n");
    /* /proc/stat counts 1/100 s ticks: a run of a few ticks per cpu gives figures in steps of tens of points */
    uint64_t per_cpu = r->util.ncpu ? r->util.all.mean.ticks / (uint64_t)r->util.ncpu : 0;
    if (per_cpu < MIN_TRUSTED_TICKS)
        fprintf(f, "# WARNING: the command ran for %llu tick(s) per cpu (1/100 s each): these figures are too coarse "
                   "to trust\n", (unsigned long long)per_cpu);
}

/* Where the samples go as the sampler takes them: cpu_util.csv's partial file. */
typedef struct cu_sink {
    const pb_run *run;
    pb_csv *csv;
} cu_sink;

static void cu_write_sample(void *ctx, const pb_sampler_sample *x)
{
    const cu_sink *k = ctx;
    const pb_value v[PB_CPUUTIL_NCOLS] = {
        [PB_CPUUTIL_run_id].s = k->run->run_id, [PB_CPUUTIL_host].s = k->run->host, [PB_CPUUTIL_t_ms].d = x->t_ms,
        [PB_CPUUTIL_cpu].i = x->cpu, [PB_CPUUTIL_busy_pct].d = x->busy, [PB_CPUUTIL_user_pct].d = x->user,
        [PB_CPUUTIL_sys_pct].d = x->sys, [PB_CPUUTIL_steal_pct].d = x->steal,
    };
    pb_csv_values(k->csv, pb_schema_get(PB_K_CPUUTIL), v);
}

/* The run directory and cpu_util.csv, claimed before the command starts (exit 2 when refused: the command
 * never runs). */
static void cu_open(pb_run *run, cu_sink *k, const cu_opts *o)
{
    char err[512];
    const char *dir = o->run_dir ? o->run_dir : o->out;
    if (pb_run_prepare(run, dir, o->run_dir != NULL, err, sizeof err) != 0)
        pb_cli_fail(PROG, "%s", err);
    k->run = run;
    k->csv = pb_csv_open(run->dir, "cpu_util.csv", CU_HEADER);
    if (k->csv)
        return;
    int e = errno;
    pb_run_discard(run);
    if (e == EEXIST)
        pb_cli_fail(PROG, "--run-dir: '%s' already holds cpu_util.csv: accepted a run directory without one",
                    run->dir);
    if (e == EBUSY)
        pb_cli_fail(PROG, "%s/cpu_util.csv: another process is writing it now", run->dir);
    pb_cli_fail(PROG, "cannot create %s/cpu_util.csv: %s", run->dir, strerror(e));
}

/* Publishes cpu_util.csv and machine.csv and draws the plots. 0, or 1 after a line on stderr. */
static int cu_finish(const pb_harness *h, const pb_run *run, cu_sink *k, const cu_run *r)
{
    char err[512];
    if (pb_csv_close(k->csv) != 0) {
        fprintf(stderr, "%s: cannot write %s/cpu_util.csv: %s\n", PROG, run->dir, strerror(errno));
        return 1;
    }
    if (pb_machine_write_csv(&h->machine, run->dir, run->run_id, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return 1;
    }
    fprintf(stderr, "%s: wrote %s/cpu_util.csv\n", PROG, run->dir);
    if (r->util.nsamples == 0) {
        fprintf(stderr, "%s: no full interval was sampled: no plot\n", PROG);
        return 0;
    }
    int rc = pb_plot_run("cpu_util.gp", run->dir);
    if (rc == 0)
        fprintf(stderr, "%s: plots %s/cpu_util_heatmap.png %s/cpu_util_mean.png\n", PROG, run->dir, run->dir);
    return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    cu_opts o = { .interval_ms = PB_SAMPLER_INTERVAL_DEFAULT_MS };
    const pb_opt opts[] = {
        { .name = "interval-ms", .kind = PB_OPT_INT, .dest = &o.interval_ms, .min = PB_SAMPLER_INTERVAL_MIN_MS,
          .max = PB_SAMPLER_INTERVAL_MAX_MS, .metavar = "N", .help = "sampling interval in ms", .dflt = "100" },
        { .name = "out", .kind = PB_OPT_STRING, .dest = &o.out, .metavar = "DIR",
          .help = "write into a new (or empty) directory DIR", .dflt = "results/<host>/<stamp>" },
        { .name = "run-dir", .kind = PB_OPT_STRING, .dest = &o.run_dir, .metavar = "DIR",
          .help = "write into the existing run directory DIR (never replacing a file)" },
        { .name = "cpus", .kind = PB_OPT_STRING, .dest = &o.cpus, .metavar = "SET",
          .help = "the cpus to report: all, physical, p, e, p+e, numa:N, or ids like 0-1,4",
          .dflt = "all" },
        { 0 },
    };
    const pb_cli cli = {
        .prog = PROG,
        .summary = "Runs CMD and samples each cpu's utilisation (/proc/stat) until it exits; writes cpu_util.csv,\n"
                   "a per-cpu summary and a heatmap. Exits with CMD's status (127: CMD cannot be run).",
        .usage_tail = "-- CMD [ARGS...]",
        .opts = opts,
        .positional = true,
    };
    int first = pb_cli_parse(&cli, argc, argv);
    if (first >= argc)
        pb_cli_fail(PROG, "no command given: accepted %s [options] -- CMD [ARGS...]", PROG);
    if (o.out && o.run_dir)
        pb_cli_fail(PROG, "--out and --run-dir: accepted one of them, not both");
    static pb_harness h; /* large; static keeps it off the stack (main runs once) */
    pb_harness_begin(&h, PROG, o.out, o.run_dir);
    resolve_cpus(&o, h.topo);
    /* Probed before the command starts: libcpuid moves this thread across the cpus, and the load average
     * in the header should be the machine's before the command added to it. */
    pb_harness_probe(&h);
    pb_topo_free(h.topo);
    h.topo = NULL;
    pb_run run;
    cu_sink sink;
    cu_open(&run, &sink, &o);
    signal(SIGPIPE, SIG_IGN); /* a closed stdout or stderr must not cost the command's status */

    /* Blocked from here on in every thread (the sampler blocks all signals itself): wait_forwarding takes
     * them synchronously. The child gets the original mask back before exec. */
    sigset_t waitset, old;
    sigemptyset(&waitset);
    sigaddset(&waitset, SIGINT);
    sigaddset(&waitset, SIGTERM);
    sigaddset(&waitset, SIGHUP);
    sigaddset(&waitset, SIGCHLD);
    sigprocmask(SIG_BLOCK, &waitset, &old);

    char err[512];
    pb_sampler *s = pb_sampler_start_sink((int)o.interval_ms, o.ncpu ? o.cpu : NULL, o.ncpu,
                                                    cu_write_sample, &sink, err, sizeof err);
    if (!s) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        pb_csv_abort(sink.csv);
        pb_run_discard(&run);
        return 1;
    }
    char **cmd = argv + first;
    pid_t pid = spawn(cmd, &old);
    if (pid < 0) {
        int e = errno;
        fprintf(stderr, "%s: %s: %s\n", PROG, cmd[0], strerror(e));
        pb_sampler_result discard;
        pb_sampler_stop(s, &discard);
        pb_sampler_result_free(&discard);
        /* A command that cannot run leaves nothing behind. */
        pb_csv_abort(sink.csv);
        pb_run_discard(&run);
        return e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
    }
    fprintf(stderr, "%s: sampling every %ld ms until %s exits (pid %d)\n", PROG, o.interval_ms, cmd[0], (int)pid);

    cu_run r = { .status = wait_forwarding(pid, &waitset) };
    r.sampled_ok = pb_sampler_stop(s, &r.util) == 0;
    int code = exit_code(r.status);
    pb_machine_print_header(&h.machine, stderr);
    print_summary(stderr, &run, &r, cmd);
    int wrote = cu_finish(&h, &run, &sink, &r);
    pb_sampler_result_free(&r.util);
    /* Results that could not be written are a failure of their own, unless the command already failed. */
    return code == 0 ? wrote : code;
}
