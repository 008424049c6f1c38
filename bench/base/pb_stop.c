/* pb_stop.c — see pb_stop.h. */
#include "pb_stop.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

/* The one piece of global mutable state in bench/: a signal handler has no context argument, so the signal
 * number can only reach the measuring loop through a static. Lock-free atomics are the one shared state C11
 * allows a handler that may run on any thread (7.14.1.1 and 5.1.2.3: volatile sig_atomic_t is enough for a
 * handler on the loop's own thread, not for one on a worker's); sequentially consistent, since the handler and
 * the loop share nothing else that an ordering could protect. first_ns: when the first stop signal came. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2, "a signal handler may only use lock-free atomics");
static _Atomic int pb_stop_sig;
static _Atomic long long pb_stop_first_ns;

/* A repeat within this long of the first signal is the same request: coreutils' timeout sends its signal to the
 * command and then to the command's process group, which holds the command too, so `timeout -s INT` delivers
 * SIGINT twice, microseconds apart (a 16-core machine took the second one as "kill now" and lost a sweep's
 * rows); a wrapper that forwards a terminal's Ctrl-C can do the same. A later one kills, as a second Ctrl-C
 * should. */
#define PB_STOP_REPEAT_NS 1000000000ll

static long long pb_stop_now_ns(void)
{
    struct timespec t; /* clock_gettime is async-signal-safe (POSIX.1-2008, 2.4.3) */
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

static void pb_stop_handler(int sig)
{
    long long now = pb_stop_now_ns();
    int none = 0;
    if (atomic_compare_exchange_strong(&pb_stop_sig, &none, sig)) {
        atomic_store(&pb_stop_first_ns, now);
        return;
    }
    long long first = atomic_load(&pb_stop_first_ns);
    if (first == 0 || now - first < PB_STOP_REPEAT_NS) /* 0: the first's handler, on another thread, is between */
        return;                                      /* its two stores, microseconds ago */
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL); /* sigaction and raise are async-signal-safe */
    raise(sig);
}

static const int pb_stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

void pb_stop_install(void)
{
    struct sigaction sa = { .sa_handler = pb_stop_handler, .sa_flags = SA_RESTART };
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof pb_stop_signals / sizeof pb_stop_signals[0]; i++)
        sigaction(pb_stop_signals[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int pb_stop_signal(void) { return atomic_load(&pb_stop_sig); }

const char *pb_stop_name(int sig)
{
    static const struct { int sig; const char *name; } names[] = {
        { SIGINT, "SIGINT" }, { SIGTERM, "SIGTERM" }, { SIGHUP, "SIGHUP" }, { SIGKILL, "SIGKILL" },
        { SIGPIPE, "SIGPIPE" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return "another signal";
}

void pb_stop_child_defaults(void)
{
    for (size_t i = 0; i < sizeof pb_stop_signals / sizeof pb_stop_signals[0]; i++)
        signal(pb_stop_signals[i], SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
}
