/* pb_plot.c — see pb_plot.h. gnuplot is started with posix_spawnp, never through a shell, with its working
 * directory set to the run directory; the script reads fixed relative names there, and what it needs to know
 * beyond them comes from pb_plot_spec.c as numbers. A path or a host name is therefore never part of a command
 * line that anything parses. */
#include "pb_plot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb_plot_spec.h"
#include "pb_repofile.h"
#include "pb_spawn.h"

extern char **environ;

int pb_plot_script(const char *name, char *out, size_t len)
{
    return pb_repo_file("POOLBENCH_PLOTS", "plots", name, out, len);
}

/* The PATH search execvp does (its default when PATH is unset), so the answer agrees with the spawn. */
bool pb_plot_available(void)
{
    char found[PATH_MAX];
    return pb_spawn_find("gnuplot", found, sizeof found) == 0;
}

/* Starts `gnuplot [-e VARS] SCRIPT` in the directory dirfd. The child gets SIGPIPE back to its default (a
 * harness ignores it, and an ignored disposition survives exec) and an empty signal mask. 0 and *pid, or the
 * errno of the spawn (ENOENT: no gnuplot on PATH). */
static int spawn_gnuplot(const char *script, int dirfd, const char *vars, pid_t *pid)
{
    char *argv[5]; /* posix_spawnp takes char *const[]; it does not write the strings */
    int n = 0;
    argv[n++] = "gnuplot";
    if (vars[0]) {
        argv[n++] = "-e";
        argv[n++] = (char *)vars;
    }
    argv[n++] = (char *)script;
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t dflt, none;
    sigemptyset(&dflt);
    sigaddset(&dflt, SIGPIPE);
    sigemptyset(&none);
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    int e = posix_spawn_file_actions_addfchdir_np(&fa, dirfd);
    if (!e)
        e = posix_spawnattr_setsigdefault(&at, &dflt);
    if (!e)
        e = posix_spawnattr_setsigmask(&at, &none);
    if (!e)
        e = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    if (!e)
        e = posix_spawnp(pid, "gnuplot", &fa, &at, argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    return e;
}

/* gnuplot's wait status: "" when it exited 0, else what happened, in why. */
static void wait_gnuplot(pid_t pid, char *why, size_t len)
{
    int st;
    pid_t r;
    while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR) {
        /* a harness's stop handler interrupted the wait: gnuplot still runs, wait on */
    }
    if (r < 0)
        snprintf(why, len, "could not be waited for: %s", strerror(errno));
    else if (WIFSIGNALED(st))
        snprintf(why, len, "was killed by signal %d", WTERMSIG(st));
    else if (WEXITSTATUS(st) != 0)
        snprintf(why, len, "exited with status %d (its error is above)", WEXITSTATUS(st));
    else
        why[0] = '\0';
}

/* One output, drawn under its temporary name tmp: 0 when it is a non-empty file (or an optional one gnuplot did
 * not draw), renamed to name; else -1 after a line on stderr when say is set. An empty file is what gnuplot
 * leaves on a full disk or when it stopped after `set output`: it is removed, so nothing lists it as a plot. The
 * temporary name is this process's alone: what is found there is this gnuplot's doing. */
static int check_output(int dirfd, const char *tmp, const char *name, bool optional, bool say)
{
    struct stat st;
    const char *why = NULL;
    if (fstatat(dirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) != 0)
        why = optional ? NULL : "gnuplot did not write it";
    else if (!S_ISREG(st.st_mode))
        why = "its temporary name is taken by something that is not a file";
    else if (st.st_size == 0)
        why = unlinkat(dirfd, tmp, 0) == 0 ? "gnuplot left it empty (a full disk?); removed"
                                           : "gnuplot left it empty (a full disk?)";
    else if (renameat(dirfd, tmp, dirfd, name) != 0)
        why = strerror(errno);
    if (why && say)
        fprintf(stderr, "plot: %s failed: %s; the data is kept\n", name, why);
    return why ? -1 : 0;
}

/* Every output of the job, as PNG and SVG. The number that failed. */
static int check_outputs(int dirfd, const pb_plot_job *job, bool say)
{
    static const char *const ext[] = { "png", "svg" };
    int bad = 0;
    for (int i = 0; i < job->n; i++) {
        for (int e = 0; e < 2; e++) {
            char name[256], tmp[300];
            snprintf(name, sizeof name, "%s.%s", job->stem[i], ext[e]);
            pb_plot_tmp_name(job, job->stem[i], ext[e], tmp, sizeof tmp);
            bad += check_output(dirfd, tmp, name, job->optional[i], say) != 0;
        }
    }
    return bad;
}

/* Draws with the script at the absolute path `path`, in dirfd. As pb_plot_run. */
static int draw(const char *script, const char *path, int dirfd, const pb_plot_job *job)
{
    pid_t pid;
    int e = spawn_gnuplot(path, dirfd, job->vars, &pid);
    if (e == ENOENT) {
        fprintf(stderr, "plot: gnuplot not found (make deps installs gnuplot-nox); CSV kept, no plot\n");
        return 1;
    }
    if (e) {
        fprintf(stderr, "plot: %s failed: cannot start gnuplot: %s; the data is kept\n", script, strerror(e));
        return -1;
    }
    char why[128];
    wait_gnuplot(pid, why, sizeof why);
    int bad = check_outputs(dirfd, job, why[0] == '\0');
    if (why[0]) {
        fprintf(stderr, "plot: %s failed: gnuplot %s; the data is kept\n", script, why);
        return -1;
    }
    return bad ? -1 : 0;
}

int pb_plot_run(const char *script, const char *run_dir)
{
    char found[PATH_MAX], path[PATH_MAX];
    if (pb_plot_script(script, found, sizeof found) != 0 || !realpath(found, path)) {
        fprintf(stderr, "plot: %s not found (set POOLBENCH_PLOTS to the plots/ directory); CSV kept\n", script);
        return 1;
    }
    int dirfd = open(run_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        fprintf(stderr, "plot: %s failed: cannot open the directory %s: %s\n", script, run_dir, strerror(errno));
        return -1;
    }
    pb_plot_job job;
    int rc;
    if (pb_plot_job_for(script, dirfd, &job) != 0) {
        fprintf(stderr, "plot: %s failed: pb_plot_spec.c does not list what it draws\n", script);
        rc = -1;
    } else if (job.skip) {
        fprintf(stderr, "plot: %s\n", job.skip);
        rc = 1;
    } else {
        rc = draw(script, path, dirfd, &job);
    }
    close(dirfd);
    return rc;
}
