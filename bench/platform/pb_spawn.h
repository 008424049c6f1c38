/* pb_spawn.h — running a command the way a shell does, for bench_cpu_util: fork + exec with stdio inherited,
 * a failed exec told apart from the command's own failure, SIGINT/SIGTERM/SIGHUP passed on while it runs, and
 * its end turned into a shell's exit status. */
#ifndef PB_SPAWN_H
#define PB_SPAWN_H

#include <signal.h>
#include <sys/types.h>

#define PB_EXIT_NOT_FOUND 127   /* what sh answers for a command it cannot find */
#define PB_EXIT_CANNOT_EXEC 126 /* ... and for one it found but cannot execute */

/* Blocks SIGINT, SIGTERM, SIGHUP and SIGCHLD in the calling thread (and the threads it starts after), into
 * *waitset, the mask before in *old: pb_spawn_wait takes them synchronously, so no handler and no global are
 * needed. */
void pb_spawn_block(sigset_t *waitset, sigset_t *old);

/* Starts argv[0] (PATH searched) with child_mask as its signal mask (the one before pb_spawn_block) and
 * pb_stop's dispositions undone. The pid, or -1 with errno set when the command cannot be run (ENOENT: not
 * found; anything else: found but not executable): exec's own errno, reported by the child through a
 * close-on-exec pipe. */
pid_t pb_spawn(char **argv, const sigset_t *child_mask);

/* Waits for pid, passing SIGINT, SIGTERM and SIGHUP on to it (waitset: from pb_spawn_block). Returns the
 * waitpid status. */
int pb_spawn_wait(pid_t pid, const sigset_t *waitset);

/* A waitpid status as a shell's exit status: the code, 128 + N for a signal N, 1 otherwise. */
int pb_exit_status(int wait_status);

#endif
