/* bench_cpu_util — per-cpu utilisation of any command, sampled from /proc/stat while it runs.
 *
 *   bench_cpu_util [--interval-ms N] [--out DIR | --run-dir DIR] [--cpus SET] -- CMD [ARGS...]
 *
 * Runs CMD (fork/exec, inheriting stdin/stdout/stderr), samples until it exits, then writes cpu_util.csv,
 * prints a per-cpu summary (mean and max busy, like `mpstat -P ALL`) and draws plots/cpu_util.gp (a time ×
 * cpu heatmap and the mean per cpu). It exits with CMD's status (128 + N when a signal N ended it), so it can
 * stand in front of any command in a script; SIGINT and SIGTERM are passed on to CMD. A command that is
 * missing or cannot be executed: one error line and 127, as a shell does; bad options: 2, before anything
 * runs or is written. */
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
#include "pb_util.h"

#define PROG "bench_cpu_util"
#define EXIT_CANNOT_RUN 127 /* what sh answers for a command it cannot find or execute */
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
    pb_util_result util;
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
    pb_cpulist *set = malloc(sizeof *set);
    if (!set || pb_topo_set(t, o->cpus, set, err, sizeof err) != 0)
        pb_cli_fail_opt(PROG, "cpus", o->cpus, "%s", set ? err : "out of memory");
    for (int i = 0; i < set->n && o->ncpu < PB_PROCSTAT_MAX_CPUS; i++)
        o->cpu[o->ncpu++] = set->cpu[i];
    free(set);
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
        sigprocmask(SIG_SETMASK, child_mask, NULL);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t w = write(fds[1], &e, sizeof e);
        (void)w;
        _exit(EXIT_CANNOT_RUN);
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

/* Waits for the child, passing SIGINT and SIGTERM on. The signals are blocked in every thread and taken here
 * with sigwaitinfo, so no handler and no global are needed. Returns the waitpid status. */
static int wait_forwarding(pid_t pid, const sigset_t *waitset)
{
    int status = 0;
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(waitset, &si);
        if (sig == SIGINT || sig == SIGTERM) {
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

static void print_cell(double v)
{
    if (isnan(v))
        printf(" %8s", "-");
    else
        printf(" %8.1f", v);
}

static void print_row(const pb_util_cpu *c)
{
    if (c->cpu < 0)
        printf("%-5s", "all");
    else
        printf("%-5d", c->cpu);
    print_cell(c->mean.busy);
    print_cell(c->max_busy);
    print_cell(c->mean.user);
    print_cell(c->mean.sys);
    print_cell(c->mean.steal);
    printf(" %8zu\n", c->nsamples);
}

/* The summary table: the run's context first, then one row per cpu and an "all" row (mpstat -P ALL). */
static void print_summary(const pb_run *run, const cu_run *r, char **cmd)
{
    printf("# %s  host %s  run %s  interval %d ms  wall %.2f s\n# command:", PROG, run->host, run->run_id,
           r->util.interval_ms, r->util.wall_ms / 1000.0);
    for (char **a = cmd; *a; a++)
        printf(" %s", *a);
    printf("\n# %% of each cpu's time (USER_HZ ticks); busy = user + sys + steal; max over %d ms samples\n",
           r->util.interval_ms);
    printf("%-5s %8s %8s %8s %8s %8s %8s\n", "cpu", "busy%", "max%", "user%", "sys%", "steal%", "samples");
    print_row(&r->util.all);
    for (int i = 0; i < r->util.ncpu; i++)
        print_row(&r->util.cpu[i]);
    if (!r->sampled_ok)
        printf("# WARNING: some /proc/stat readings failed: the series has gaps\n");
    /* /proc/stat counts 1/100 s ticks: a run of a few ticks per cpu gives figures in steps of tens of points */
    uint64_t per_cpu = r->util.ncpu ? r->util.all.mean.ticks / (uint64_t)r->util.ncpu : 0;
    if (per_cpu < MIN_TRUSTED_TICKS)
        printf("# WARNING: the command ran for %llu tick(s) per cpu (1/100 s each): these figures are too coarse "
               "to trust\n", (unsigned long long)per_cpu);
}

/* A CSV field as text (quoted when needed), for fields that repeat on every row. */
static char *csv_text(const char *s)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    pb_csv_field(f, s);
    fclose(f);
    return out;
}

static int write_csv(const pb_run *run, const cu_run *r)
{
    pb_csv *c = pb_csv_open(run->dir, "cpu_util.csv",
                            "run_id,host,t_ms,cpu,busy_pct,user_pct,sys_pct,steal_pct");
    char *id = csv_text(run->run_id), *host = csv_text(run->host);
    if (!c || !id || !host) {
        fprintf(stderr, "%s: cannot write %s/cpu_util.csv: %s\n", PROG, run->dir, strerror(errno));
        if (c)
            pb_csv_abort(c);
        free(id);
        free(host);
        return -1;
    }
    for (size_t i = 0; i < r->util.nsamples; i++) {
        const pb_util_sample *x = &r->util.samples[i];
        pb_csv_row(c, "%s,%s,%.1f,%d,%.2f,%.2f,%.2f,%.2f", id, host, x->t_ms, x->cpu, x->busy, x->user, x->sys,
                   x->steal);
    }
    free(id);
    free(host);
    if (pb_csv_close(c) != 0) {
        fprintf(stderr, "%s: cannot write %s/cpu_util.csv: %s\n", PROG, run->dir, strerror(errno));
        return -1;
    }
    fprintf(stderr, "%s: wrote %s/cpu_util.csv\n", PROG, run->dir);
    return 0;
}

static void draw_plots(const pb_run *run, const cu_run *r)
{
    if (r->util.nsamples == 0) {
        fprintf(stderr, "%s: no full interval was sampled: no plot\n", PROG);
        return;
    }
    if (pb_plot_run("cpu_util.gp", run->dir) == 0)
        fprintf(stderr, "%s: plots %s/cpu_util_heatmap.png %s/cpu_util_mean.png\n", PROG, run->dir, run->dir);
}

int main(int argc, char **argv)
{
    cu_opts o = { .interval_ms = PB_UTIL_INTERVAL_DEFAULT_MS };
    const pb_opt opts[] = {
        { .name = "interval-ms", .kind = PB_OPT_INT, .dest = &o.interval_ms, .min = PB_UTIL_INTERVAL_MIN_MS,
          .max = PB_UTIL_INTERVAL_MAX_MS, .metavar = "N", .help = "sampling interval in ms", .dflt = "100" },
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
    char err[512];
    const char *dir = o.run_dir ? o.run_dir : o.out;
    if (pb_run_check(dir, o.run_dir != NULL, err, sizeof err) != 0)
        pb_cli_fail(PROG, "%s", err);
    if (o.run_dir) {
        char csv[4096];
        snprintf(csv, sizeof csv, "%s/cpu_util.csv", o.run_dir);
        if (access(csv, F_OK) == 0)
            pb_cli_fail(PROG, "--run-dir: '%s' already holds cpu_util.csv: accepted a run directory without one",
                        o.run_dir);
    }
    /* The run directory is not pb_harness's: it is made only once the command runs (see below). */
    static pb_harness h; /* large; static keeps it off the stack (main runs once) */
    pb_harness_begin(&h, PROG, o.out, o.run_dir);
    resolve_cpus(&o, h.topo);
    /* Probed before the command starts: libcpuid moves this thread across the cpus, and the load average
     * in the header should be the machine's before the command added to it. */
    pb_harness_probe(&h);
    pb_topo_free(h.topo);
    h.topo = NULL;

    /* Blocked from here on in every thread (the sampler blocks all signals itself): wait_forwarding takes
     * them synchronously. The child gets the original mask back before exec. */
    sigset_t waitset, old;
    sigemptyset(&waitset);
    sigaddset(&waitset, SIGINT);
    sigaddset(&waitset, SIGTERM);
    sigaddset(&waitset, SIGCHLD);
    sigprocmask(SIG_BLOCK, &waitset, &old);

    pb_util_sampler *s = pb_util_sampler_start((int)o.interval_ms, o.ncpu ? o.cpu : NULL, o.ncpu, err,
                                               sizeof err);
    if (!s) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        return 1;
    }
    char **cmd = argv + first;
    pid_t pid = spawn(cmd, &old);
    if (pid < 0) {
        fprintf(stderr, "%s: %s: %s\n", PROG, cmd[0], strerror(errno));
        pb_util_result discard;
        pb_util_sampler_stop(s, &discard);
        pb_util_result_free(&discard);
        return EXIT_CANNOT_RUN;
    }
    /* The run directory is created only once the command is running: a command that cannot run leaves
     * nothing behind. pb_run_check passed above, so this fails only if the directory changed meanwhile. */
    pb_run run;
    bool have_dir = pb_run_prepare(&run, dir, o.run_dir != NULL, err, sizeof err) == 0;
    if (!have_dir)
        fprintf(stderr, "%s: %s; the command runs on, but nothing will be written\n", PROG, err);
    else
        fprintf(stderr, "%s: sampling every %ld ms until %s exits (pid %d)\n", PROG, o.interval_ms, cmd[0],
                (int)pid);

    cu_run r = { .status = wait_forwarding(pid, &waitset) };
    r.sampled_ok = pb_util_sampler_stop(s, &r.util) == 0;
    int code = exit_code(r.status);
    if (have_dir) {
        pb_machine_print_header(&h.machine, stdout);
        print_summary(&run, &r, cmd);
        fflush(stdout);
        if (write_csv(&run, &r) == 0 && pb_machine_write_csv(&h.machine, run.dir, run.run_id, err, sizeof err) >= 0)
            draw_plots(&run, &r);
        else
            have_dir = false;
    }
    pb_util_result_free(&r.util);
    /* Results that could not be written are a failure of their own, unless the command already failed. */
    return code == 0 && !have_dir ? 1 : code;
}
