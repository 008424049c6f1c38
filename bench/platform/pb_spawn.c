/* pb_spawn.c — see pb_spawn.h. */
#include "pb_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb_stop.h"

void pb_spawn_block(sigset_t *waitset, sigset_t *old)
{
    sigemptyset(waitset);
    sigaddset(waitset, SIGINT);
    sigaddset(waitset, SIGTERM);
    sigaddset(waitset, SIGHUP);
    sigaddset(waitset, SIGCHLD);
    sigprocmask(SIG_BLOCK, waitset, old);
}

int pb_spawn_find(const char *name, char *out, size_t len)
{
    if (!name[0]) {
        errno = ENOENT;
        return -1;
    }
    if (strchr(name, '/')) {
        snprintf(out, len, "%s", name);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    int why = ENOENT;
    for (const char *p = path;; p++) {
        size_t n = strcspn(p, ":");
        struct stat st;
        if ((size_t)snprintf(out, len, "%.*s/%s", (int)n, n ? p : ".", name) < len && stat(out, &st) == 0) {
            if (S_ISREG(st.st_mode) && access(out, X_OK) == 0)
                return 0;
            why = EACCES; /* there, but not to be run: execvp's answer too when nothing later is */
        }
        p += n;
        if (!*p)
            break;
    }
    errno = why;
    return -1;
}

/* In the forked child: exec, or report exec's errno on fd and end. Only async-signal-safe calls: the parent
 * has a sampler thread. */
static void exec_child(const char *file, char **argv, const sigset_t *child_mask, int fd) __attribute__((noreturn));
static void exec_child(const char *file, char **argv, const sigset_t *child_mask, int fd)
{
    pb_stop_child_defaults(); /* SIGPIPE was ignored here; the command gets the default back */
    sigprocmask(SIG_SETMASK, child_mask, NULL);
    execv(file, argv);
    int e = errno;
    ssize_t w = write(fd, &e, sizeof e);
    (void)w;
    /* The one exit outside the mains, and the POSIX idiom: a forked child whose exec failed must _exit, not
     * return into a copy of the parent (or run its atexit handlers and flush its stdio buffers twice). */
    _exit(PB_EXIT_NOT_FOUND);
}

pid_t pb_spawn(char **argv, const sigset_t *child_mask)
{
    char file[PATH_MAX]; /* found before the fork: the child may only make async-signal-safe calls */
    if (pb_spawn_find(argv[0], file, sizeof file) != 0)
        return -1;
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
    if (pid == 0)
        exec_child(file, argv, child_mask, fds[1]);
    close(fds[1]);
    /* A successful exec closes the pipe unread, so the read returns 0; anything else is the child's errno. */
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

int pb_spawn_wait(pid_t pid, const sigset_t *waitset)
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

int pb_exit_status(int wait_status)
{
    if (WIFEXITED(wait_status))
        return WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status))
        return 128 + WTERMSIG(wait_status);
    return 1;
}
