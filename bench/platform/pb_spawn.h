/* pb_spawn.h — running a command the way a shell does, for bench_cpu_util: fork + exec with stdio inherited,
 * a failed exec told apart from the command's own failure, SIGINT/SIGTERM/SIGHUP passed on while it runs, and
 * its end turned into a shell's exit status. */
#ifndef PB_SPAWN_H
#define PB_SPAWN_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#define PB_EXIT_NOT_FOUND 127   /* what sh answers for a command it cannot find */
#define PB_EXIT_CANNOT_EXEC 126 /* ... and for one it found but cannot execute */

/* Blocks SIGINT, SIGTERM, SIGHUP and SIGCHLD in the calling thread (and the threads it starts after), into
 * *waitset, the mask before in *old: pb_spawn_wait takes them synchronously, so no handler and no global are
 * needed. */
void pb_spawn_block(sigset_t *waitset, sigset_t *old);

/* The file argv[0] names, found as execvp finds it: as given when it holds a '/', else the first directory of
 * PATH (its default when unset; an empty entry is ".") holding an executable regular file of that name. 0 and
 * the path in out, or -1 with errno ENOENT (none) or EACCES (some, none executable). */
int pb_spawn_find(const char *name, char *out, size_t len);

/* Starts argv[0] with child_mask as its signal mask (the one before pb_spawn_block) and pb_stop's dispositions
 * undone: found by pb_spawn_find, run by execv, never through /bin/sh (execvp's answer to a file the kernel
 * refuses, ENOEXEC: here that file is "Exec format error", 126). The pid, or -1 with errno set when the command
 * cannot be run (ENOENT: not found; anything else: found but not executable): exec's own errno, reported by the
 * child through a close-on-exec pipe. */
pid_t pb_spawn(char **argv, const sigset_t *child_mask);

/* Waits for pid, passing SIGINT, SIGTERM and SIGHUP on to it (waitset: from pb_spawn_block). Returns the
 * waitpid status. */
int pb_spawn_wait(pid_t pid, const sigset_t *waitset);

/* A waitpid status as a shell's exit status: the code, 128 + N for a signal N, 1 otherwise. */
int pb_exit_status(int wait_status);

#endif
