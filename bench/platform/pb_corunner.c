/* pb_corunner.c — see pb_corunner.h. */
#include "pb_corunner.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pb_cli.h"
#include "pb_err.h"
#include "pb_tuning.h"

#define PB_CORUNNER_ACCEPTED                                                                                   \
    "accepted: CPUS:DUTY, a cpu list (1, 0-3,8) and the busy %% of every " PB_STR(PB_CORUNNER_PERIOD_MS)         \
    " ms (1..100), e.g. 1:50"

int pb_corunner_parse(const char *spec, pb_corunner *c, char *err, size_t errlen)
{
    pb_corunner out = { 0 };
    if (!spec || !spec[0]) {
        *c = out;
        return 0;
    }
    const char *colon = strchr(spec, ':');
    if (strlen(spec) >= sizeof out.text || !colon || strchr(colon + 1, ':'))
        return pb_errf(err, errlen, "'%s' is not CPUS:DUTY; " PB_CORUNNER_ACCEPTED, spec);
    char cpus[sizeof out.text];
    snprintf(cpus, sizeof cpus, "%.*s", (int)(colon - spec), spec);
    pb_list l = { 0 };
    char why[256];
    if (pb_parse_list(cpus, 0, CPU_SETSIZE - 1, &l, why, sizeof why) != 0)
        return pb_errf(err, errlen, "'%s': the cpus: %s; " PB_CORUNNER_ACCEPTED, spec, why);
    if (l.n > PB_CORUNNER_MAX)
        return pb_errf(err, errlen, "'%s': %d cpus, at most %d; " PB_CORUNNER_ACCEPTED, spec, l.n, PB_CORUNNER_MAX);
    const char *d = colon + 1;
    long duty = 0;
    for (; *d >= '0' && *d <= '9' && duty <= 100; d++)
        duty = duty * 10 + (*d - '0');
    if (d == colon + 1 || *d || duty < 1 || duty > 100)
        return pb_errf(err, errlen, "'%s': the duty '%s' is not a whole percentage 1..100; " PB_CORUNNER_ACCEPTED,
                       spec, colon + 1);
    out.n = l.n;
    for (int i = 0; i < l.n; i++)
        out.cpu[i] = (int)l.v[i];
    out.duty_pct = (int)duty;
    snprintf(out.text, sizeof out.text, "%s", spec);
    *c = out;
    return 0;
}

static uint64_t pb_corunner_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The child: pinned to cpu, busy duty % of every period until killed. Only async-signal-safe calls (the harness
 * may have threads when it forks). It never returns: a failure to pin ends it by SIGKILL, no exit. */
static void pb_corunner_child(int cpu, int duty_pct)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the harness gone, so is its co-runner */
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    sigaction(SIGINT, &dfl, NULL); /* not pb_stop's handlers: a Ctrl-C ends the child too */
    sigaction(SIGTERM, &dfl, NULL);
    sigaction(SIGHUP, &dfl, NULL);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (getppid() == 1 || sched_setaffinity(0, sizeof set, &set) != 0)
        raise(SIGKILL);
    const uint64_t period = (uint64_t)PB_CORUNNER_PERIOD_MS * 1000000u, busy = period * (uint64_t)duty_pct / 100;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (;;) {
        uint64_t t0 = (uint64_t)next.tv_sec * 1000000000u + (uint64_t)next.tv_nsec;
        while (pb_corunner_now() - t0 < busy)
            ; /* busy: each clock read is a call the compiler keeps */
        uint64_t t1 = t0 + period;
        next.tv_sec = (time_t)(t1 / 1000000000u);
        next.tv_nsec = (long)(t1 % 1000000000u);
        if (busy < period)
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
}

int pb_corunner_start(pb_corunner *c, char *err, size_t errlen)
{
    for (c->started = 0; c->started < c->n; c->started++) {
        fflush(NULL); /* no buffered output twice: the child never flushes, but a copy is a copy */
        pid_t pid = fork();
        if (pid == 0)
            pb_corunner_child(c->cpu[c->started], c->duty_pct);
        if (pid < 0) {
            int e = errno;
            pb_corunner_stop(c);
            return pb_errf(err, errlen, "--co-runner %s: fork: %s", c->text, strerror(e));
        }
        c->pid[c->started] = pid;
    }
    return 0;
}

void pb_corunner_stop(pb_corunner *c)
{
    for (int i = 0; i < c->started; i++) {
        kill(c->pid[i], SIGKILL);
        while (waitpid(c->pid[i], NULL, 0) < 0 && errno == EINTR)
            ;
    }
    c->started = 0;
}
