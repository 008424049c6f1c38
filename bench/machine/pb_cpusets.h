/* pb_cpusets.h — the named core sets a sweep runs over, as bench_sweep's --cpus gives them: set names (p, e, p+e,
 * physical, smt, all, numa:N: pb_topo_set) and OS cpu lists, comma-separated. Consecutive numeric items form
 * one list ("0-3,8" is one set) and ';' ends a list ("0-1;2-3" is two). */
#ifndef PB_CPUSETS_H
#define PB_CPUSETS_H

#include <stddef.h>

#include "pb_topo.h"

#define PB_CPUSETS_MAX 16

typedef struct pb_cpuset {
    char name[1024]; /* as given ("p", "0-3,8"): the cpuset column of a row */
    pb_cpulist cpus; /* the set, logical order */
} pb_cpuset;

typedef struct pb_cpusets {
    pb_cpuset set[PB_CPUSETS_MAX];
    int n;
} pb_cpusets;

/* spec NULL: this machine's distinct sets among p, e, p+e, physical, smt (a set equal to an earlier one is left
 * out). 0, or -1 with the reason in err, without a head: the caller names the option it came from. */
int pb_cpusets_parse(const pb_topo *t, const char *spec, pb_cpusets *out, char *err, size_t errlen);

/* The index of the set with the most cpus (the first of equals); 0 when there is none. */
int pb_cpusets_largest(const pb_cpusets *s);

#endif
