/* pb_counters.h — hardware and software event counts of the calling thread around a measured stretch, through
 * perf_event_open, the event names resolved by libpfm4 (cycles, instructions, cache-misses, task-clock,
 * context-switches, cpu-migrations, page-faults, or any PMU event libpfm4 knows for this CPU, e.g.
 * perf::cycles). A name libpfm4 does not know is bad input; an event it knows that this machine cannot count (a
 * VM without a virtual PMU: cycles and instructions) is recorded as unsupported, never fatal. Counts are the
 * calling thread's, user space only, scaled by time enabled over time running when the PMU multiplexed them.
 * x86-64 builds only: the arm64 build does not link libpfm4 and reports every event as unsupported, saying why. */
#ifndef PB_COUNTERS_H
#define PB_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_COUNTERS_MAX 8
#define PB_COUNTERS_NAME_LEN 64

typedef struct pb_counter {
    char name[PB_COUNTERS_NAME_LEN];
    int fd;                     /* -1: unsupported here */
    char why[96];               /* why it is unsupported ("" when it counts) */
    double count;               /* the last stretch's, scaled; NaN when unsupported */
} pb_counter;

typedef struct pb_counters {
    int n;
    pb_counter c[PB_COUNTERS_MAX];
} pb_counters;

/* Resolves a comma-separated list of event names (at most PB_COUNTERS_MAX) and opens each on the calling thread.
 * -1 with err filled for bad input (an empty name, too many, a name libpfm4 does not know): before any work. */
int pb_counters_open(pb_counters *pc, const char *list, char *err, size_t errlen);
/* Zeroes and starts every supported counter; pb_counters_stop stops them and reads their counts. */
void pb_counters_start(pb_counters *pc);
void pb_counters_stop(pb_counters *pc);
/* The count of the event named name after the last stop; NaN when it is absent or unsupported. */
double pb_counters_get(const pb_counters *pc, const char *name);
/* "name=count name=unsupported(why) ..." of the last stretch, into out. */
void pb_counters_text(const pb_counters *pc, char *out, size_t len);
/* A measured point's end: stops pc and writes its text into out; returns instructions per cycle where both
 * counted, else NaN. pc NULL (no counters asked for): out is "" and NaN. */
double pb_counters_finish(pb_counters *pc, char *out, size_t len);
void pb_counters_close(pb_counters *pc);

/* The perf_event_attr of one event name (pb_counters_names_*.c: libpfm4 on x86-64). 0; -1 with why filled when
 * the name is unknown. attr points to a struct perf_event_attr. */
int pb_counters_encode(const char *name, void *attr, char *why, size_t whylen);

#endif
