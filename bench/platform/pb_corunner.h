/* pb_corunner.h — a busy process of the harness's own beside its measurement (--co-runner CPUS:DUTY), what a
 * decode meets beside a compiler or another model: one forked child per cpu, pinned there, busy DUTY % of every
 * PB_CORUNNER_PERIOD_MS and asleep the rest, until pb_corunner_stop (or the harness's death: PR_SET_PDEATHSIG).
 * The spec is an input: parsed before any work, a bad one is one line saying what is accepted. */
#ifndef PB_CORUNNER_H
#define PB_CORUNNER_H

#include <stddef.h>
#include <sys/types.h>

#define PB_CORUNNER_MAX 64 /* cpus one co-runner may keep busy */

typedef struct pb_corunner {
    int n;                      /* cpus; 0: no co-runner */
    int cpu[PB_CORUNNER_MAX];
    int duty_pct;               /* 1..100 */
    pid_t pid[PB_CORUNNER_MAX]; /* the children, while started */
    int started;
    char text[160];             /* the spec as given: the co_runner column of the rows */
} pb_corunner;

/* "CPUS:DUTY": a cpu list ("1", "0-3,8") and the busy share of every period in % (1..100, decimal). NULL or "":
 * none. 0, or -1 with the reason (what was wrong, what is accepted; no head) in err, c untouched. */
int pb_corunner_parse(const char *spec, pb_corunner *c, char *err, size_t errlen);

/* Forks the children. 0, or -1 with the reason in err (those started are stopped again). */
int pb_corunner_start(pb_corunner *c, char *err, size_t errlen);

/* Kills and reaps the children; nothing when none runs. */
void pb_corunner_stop(pb_corunner *c);

#endif
