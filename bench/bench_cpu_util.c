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
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "pb_cli.h"
#include "pb_cpu_util.h"
#include "pb_harness.h"
#include "pb_procstat.h"
#include "pb_sampler.h"
#include "pb_spawn.h"
#include "pb_topo.h"

#define PROG "bench_cpu_util"

typedef struct cu_opts {
    long interval_ms;
    const char *out;
    const char *run_dir;
    const char *cpus;        /* NULL: every cpu */
    int cpu[PB_PROCSTAT_MAX_CPUS];
    int ncpu;
} cu_opts;

/* --cpus: a named set (p, e, physical, numa:N, ...) or a list of OS cpu ids, resolved by pb_topo, which
 * refuses a cpu that does not exist here. */
static int cu_resolve_cpus(pb_harness *h, cu_opts *o)
{
    char err[512];
    if (!o->cpus)
        return 0;
    pb_cpulist set; /* 4 KiB: on the stack */
    if (pb_topo_set(h->topo, o->cpus, &set, err, sizeof err) != 0)
        return pb_harness_refuse_opt(h, "cpus", o->cpus, "%s", err);
    for (int i = 0; i < set.n && o->ncpu < PB_PROCSTAT_MAX_CPUS; i++)
        o->cpu[o->ncpu++] = set.cpu[i];
    return 0;
}

/* The options, and everything refused before the command runs: no command, --out with --run-dir, an unknown
 * --cpus, an output that cannot be claimed. 0, or -1 for pb_harness_refused. */
static int cu_setup(pb_harness *h, cu_opts *o, pb_cpu_util_out *k, int argc, char **argv, int *first)
{
    const pb_opt opts[] = {
        PB_OPT_INTERVAL_MS(&o->interval_ms, " while CMD runs"),
        PB_OPT_OUT(&o->out),
        PB_OPT_RUN_DIR(&o->run_dir),
        { .name = "cpus", .kind = PB_OPT_STRING, .dest = &o->cpus, .metavar = "SET",
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
    if (pb_harness_parse(h, &cli, argc, argv, first) != 0)
        return -1;
    if (*first >= argc)
        return pb_harness_refusef(h, "no command given: accepted %s [options] -- CMD [ARGS...]", PROG);
    if (pb_harness_begin(h, PROG, o->out, o->run_dir) != 0 || cu_resolve_cpus(h, o) != 0)
        return -1;
    o->out = h->out; /* the command line's, where the other came from the environment */
    o->run_dir = h->run_dir;
    /* Probed before the command starts: libcpuid moves this thread across the cpus, and the load average
     * in the header should be the machine's before the command added to it. */
    pb_harness_probe(h);
    pb_topo_free(h->topo);
    h->topo = NULL;
    return pb_cpu_util_open(k, PROG, o->out, o->run_dir, h->err, sizeof h->err);
}

/* The command could not be run: its one line, nothing left behind, and a shell's status for it. */
static int cu_not_run(pb_sampler *s, pb_cpu_util_out *k, const char *cmd)
{
    int e = errno;
    fprintf(stderr, "%s: %s: %s\n", PROG, cmd, strerror(e));
    pb_sampler_result discard;
    pb_sampler_stop(s, &discard);
    pb_sampler_result_free(&discard);
    pb_cpu_util_discard(k);
    return e == ENOENT ? PB_EXIT_NOT_FOUND : PB_EXIT_CANNOT_EXEC;
}

int main(int argc, char **argv)
{
    static pb_harness h; /* large; static keeps it off the stack (main runs once) */
    static pb_cpu_util_out k;
    cu_opts o = { .interval_ms = PB_SAMPLER_INTERVAL_DEFAULT_MS };
    int first;
    if (cu_setup(&h, &o, &k, argc, argv, &first) != 0)
        return pb_harness_refused(&h);
    signal(SIGPIPE, SIG_IGN); /* a closed stdout or stderr must not cost the command's status */
    /* Blocked from here on in every thread (the sampler blocks all signals itself): pb_spawn_wait takes them
     * synchronously. The child gets the original mask back before exec. */
    sigset_t waitset, old;
    pb_spawn_block(&waitset, &old);
    char err[512];
    pb_sampler *s = pb_sampler_start_sink((int)o.interval_ms, o.ncpu ? o.cpu : NULL, o.ncpu, pb_cpu_util_sample, &k, err,
                                          sizeof err);
    if (!s) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        pb_cpu_util_discard(&k);
        return 1;
    }
    char **cmd = argv + first;
    pid_t pid = pb_spawn(cmd, &old);
    if (pid < 0)
        return cu_not_run(s, &k, cmd[0]);
    fprintf(stderr, "%s: sampling every %ld ms until %s exits (pid %d)\n", PROG, o.interval_ms, cmd[0], (int)pid);
    int code = pb_exit_status(pb_spawn_wait(pid, &waitset));
    pb_sampler_result u;
    bool sampled_ok = pb_sampler_stop(s, &u) == 0;
    pb_machine_print_header(&h.machine, stderr);
    pb_cpu_util_print(stderr, &k, &u, sampled_ok, cmd);
    int wrote = pb_cpu_util_finish(&k, &h.machine, &u);
    pb_sampler_result_free(&u);
    /* Results that could not be written are a failure of their own, unless the command already failed; only a
     * run that succeeded becomes latest. */
    if (code != 0)
        return code;
    return wrote != 0 ? wrote : pb_harness_mark_latest(PROG, &k.run);
}
