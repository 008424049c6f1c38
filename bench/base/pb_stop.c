/* pb_stop.c — see pb_stop.h. */
#include "pb_stop.h"

#include <signal.h>
#include <stdio.h>

/* The one piece of global mutable state in bench/: a signal handler has no context argument, so the signal
 * number can only reach the measuring loop through a static. sig_atomic_t and volatile make the handler's
 * store and the loop's load well defined (C11 7.14.1.1); no other data is shared with the handler. */
static volatile sig_atomic_t pb_stop_sig;

static void pb_stop_handler(int sig) { pb_stop_sig = sig; }

static const int pb_stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

void pb_stop_install(void)
{
    struct sigaction sa = { .sa_handler = pb_stop_handler, .sa_flags = SA_RESETHAND | SA_RESTART };
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof pb_stop_signals / sizeof pb_stop_signals[0]; i++)
        sigaction(pb_stop_signals[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int pb_stop_signal(void) { return pb_stop_sig; }

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
