/* pb_procstat.h — per-cpu time counters from /proc/stat, and the busy % of an interval between two readings.
 *
 * /proc/stat is the one place Linux reports how each cpu spent its time (hwloc gives the topology, not the
 * load). Each "cpuN" line holds cumulative counters in USER_HZ ticks (1/100 s on every Linux build):
 *     cpuN user nice system idle iowait irq softirq steal guest guest_nice
 * Older kernels print fewer columns (the missing ones read as 0). guest and guest_nice are already counted
 * inside user and nice, so they are not read, to avoid counting them twice.
 *
 * The parser is pure (it reads a string), so the tests feed it text fixtures; pb_procstat_read is the only
 * function here that touches the file system. What it holds up against:
 *   - a cpu line missing (an offline cpu): the cpu is marked absent, and no interval is reported for it;
 *   - a cpu that appears between two readings: it has no interval until its second reading;
 *   - a counter that goes backwards (Linux documents that iowait can; idle on NO_HZ kernels jitters too) or
 *     wraps at 2^32 (32-bit kernels): a step back counts as no time, a wrap (a drop of more than 2^31 from
 *     a value that fits 32 bits) is unwrapped, and an interval in which no counter moved forward is not
 *     reported. Every figure is a share of the ticks that did elapse, so it lies in [0, 100]. */
#ifndef PB_PROCSTAT_H
#define PB_PROCSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Cpus with a higher id are ignored: /proc/stat lines beyond this are skipped, not an error. */
#define PB_PROCSTAT_MAX_CPUS 1024

/* The counters of one cpu, in USER_HZ ticks, in /proc/stat's column order. */
typedef enum pb_tick_field {
    PB_TICK_USER, PB_TICK_NICE, PB_TICK_SYSTEM, PB_TICK_IDLE, PB_TICK_IOWAIT,
    PB_TICK_IRQ, PB_TICK_SOFTIRQ, PB_TICK_STEAL, PB_TICK_NFIELDS
} pb_tick_field;

typedef struct pb_cpu_ticks {
    uint64_t t[PB_TICK_NFIELDS];
} pb_cpu_ticks;

/* One reading of /proc/stat. */
typedef struct pb_procstat {
    int ncpu;                                /* 1 + the highest cpu id present; 0 when none */
    int npresent;                            /* how many cpu lines were read */
    bool present[PB_PROCSTAT_MAX_CPUS];      /* false: no line for that id (offline, or never existed) */
    pb_cpu_ticks cpu[PB_PROCSTAT_MAX_CPUS];
} pb_procstat;

/* How one cpu (or several together) spent an interval: the ticks that elapsed, by kind, and their shares in
 * % (each in [0, 100]). busy = everything but idle and iowait = user + sys + steal. */
typedef struct pb_cpu_load {
    uint64_t ticks;        /* all that elapsed: the weight of this interval in a mean */
    uint64_t busy_ticks, user_ticks, sys_ticks, steal_ticks, idle_ticks;
    double busy;
    double user;    /* user + nice */
    double sys;     /* system + irq + softirq */
    double steal;   /* the hypervisor running something else on this cpu (a VM's host taking the core) */
    double idle;    /* idle + iowait */
} pb_cpu_load;

/* Parses /proc/stat text (len bytes; it need not end in a NUL). Returns the number of cpu lines read, or -1
 * when the text holds none (not /proc/stat). Malformed cpu lines are skipped. The aggregate "cpu" line is
 * not read: a mean over cpus is computed from the per-cpu lines. */
int pb_procstat_parse(const char *text, size_t len, pb_procstat *out);

/* The elapsed ticks of one counter: cur - prev, unwrapping a 32-bit wrap; 0 when it went backwards, or
 * forwards by more than 2^48 ticks (a corrupt counter, not time). */
uint64_t pb_tick_delta(uint64_t prev, uint64_t cur);

/* The load of one cpu between two readings. false when the interval holds no information (no tick elapsed). */
bool pb_cpu_load_between(const pb_cpu_ticks *prev, const pb_cpu_ticks *cur, pb_cpu_load *out);

/* Sums: acc's ticks += l's ticks (the shares are left alone: call pb_cpu_load_finish after the last). A sum
 * over intervals or over cpus weighs each by its ticks, which is what mpstat's figures over time do too. */
void pb_cpu_load_sum(pb_cpu_load *acc, const pb_cpu_load *l);
/* Computes the shares from the ticks; NAN when no tick elapsed. */
void pb_cpu_load_finish(pb_cpu_load *l);

/* The load of cpu between two whole readings: false also when the cpu is absent from either. */
bool pb_procstat_load(const pb_procstat *prev, const pb_procstat *cur, int cpu, pb_cpu_load *out);

/* Reads the file at path (NULL = "/proc/stat") into a caller-owned growable buffer (*buf, *cap; both may
 * start as NULL/0, free(*buf) when done) and parses it. Returns as pb_procstat_parse, or -1 (errno set) when
 * the file cannot be read. */
int pb_procstat_read(const char *path, pb_procstat *out, char **buf, size_t *cap);

#endif
