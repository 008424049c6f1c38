/* pb_sampler.h — per-cpu utilisation while something runs: a thread reads /proc/stat every interval and keeps
 * one sample per cpu per interval, plus tick-weighted means. Start it before the work, stop it after:
 *
 *   pb_sampler *s = pb_sampler_start(100, cpus, ncpus, err, sizeof err);   // cpus NULL = all
 *   ... the work (a command, a sweep point) ...
 *   pb_sampler_result r;
 *   pb_sampler_stop(s, &r);          // r.cpu[i].mean.busy: mean busy % of cpus[i]; r.samples: the series
 *   pb_sampler_result_free(&r);
 *
 * Resolution: /proc/stat counts in 1/100 s ticks, so one sample over a 100 ms interval is good to ~10 points
 * and one over 10 ms is 0 or 100; the means weigh every tick, so they are as good as the run is long.
 * The readings (one /proc/stat read each) happen on the sampler's own thread: the only load it adds. */
#ifndef PB_SAMPLER_H
#define PB_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_procstat.h"

#define PB_SAMPLER_INTERVAL_MIN_MS 10
#define PB_SAMPLER_INTERVAL_MAX_MS 10000
#define PB_SAMPLER_INTERVAL_DEFAULT_MS 100

/* One cpu over one interval; percentages of the ticks that elapsed (see pb_cpu_load). */
typedef struct pb_sampler_sample {
    double t_ms;   /* end of the interval, ms since the sampler started */
    int cpu;       /* OS cpu id */
    float busy, user, sys, steal;
} pb_sampler_sample;

/* One cpu (or all the kept ones together) over the whole run. */
typedef struct pb_sampler_cpu {
    int cpu;              /* OS cpu id; -1 for all */
    size_t nsamples;      /* 0: the cpu never had a full interval (offline the whole time) */
    pb_cpu_load mean;     /* tick-weighted over the run (mean.busy = busy ticks / all ticks); NAN when none */
    double max_busy;      /* the busiest interval (of the "all" row: the busiest machine-wide interval) */
} pb_sampler_cpu;

typedef struct pb_sampler_result {
    pb_sampler_sample *samples; /* in time order, cpus ascending within one time */
    size_t nsamples;
    pb_sampler_cpu *cpu;        /* one per requested cpu, in the order given (ascending ids when all) */
    int ncpu;
    pb_sampler_cpu all;         /* every requested cpu together (cpu = -1): the machine-wide mean */
    int interval_ms;
    double wall_ms;          /* from start to stop */
} pb_sampler_result;

typedef struct pb_sampler pb_sampler;

/* Takes a first reading and starts the thread. interval_ms within [PB_SAMPLER_INTERVAL_MIN_MS,
 * PB_SAMPLER_INTERVAL_MAX_MS]; cpus: the ids to keep (NULL or ncpu 0 = every cpu in /proc/stat at start,
 * plus any that appears later). NULL with a one-line reason in err on failure. */
pb_sampler *pb_sampler_start(int interval_ms, const int *cpus, int ncpu, char *err, size_t errlen);
/* The same, and sink(ctx, sample) is called with every sample as it is made (on the sampler's thread, with its
 * lock held: keep it short; pb_sampler_stop returns after the last call), so a caller can write each
 * sample to disk as it comes (bench_cpu_util) and lose none to a kill. */
typedef void (*pb_sampler_sink)(void *ctx, const pb_sampler_sample *x);
pb_sampler *pb_sampler_start_sink(int interval_ms, const int *cpus, int ncpu, pb_sampler_sink sink,
                                            void *sink_ctx, char *err, size_t errlen);
/* Between pause and resume nothing is counted, neither in the means nor in the series (which jumps over the
 * gap): bench_sweep pauses around the floor pass it runs after each token, so busy % is the tokens' alone.
 * Each takes one /proc/stat reading. A second pause, or a resume without a pause, does nothing. */
void pb_sampler_pause(pb_sampler *s);
void pb_sampler_resume(pb_sampler *s);

/* Takes a last reading (the partial interval since the last sample counts in the means, and becomes a
 * sample when it lasted at least half an interval), stops the thread, fills out and frees the sampler.
 * 0, or -1 when a reading failed or memory ran out during the run (out is then still filled with what was
 * gathered). */
int pb_sampler_stop(pb_sampler *s, pb_sampler_result *out);

void pb_sampler_result_free(pb_sampler_result *r);

/* The spread of a run: the busiest kept cpu's mean busy % minus the least busy one's (cpus without samples
 * ignored; 0 with fewer than two). A sweep that pinned N threads to the kept cpus flags a point whose spread
 * exceeds PB_IMBALANCE_POINTS (pb_tuning.h): the work did not spread over the cpus it claims. */
double pb_sampler_spread(const pb_sampler_result *r);

/* Adds one interval to a run's summary: its ticks to the mean, its busy % to the max. The caller then
 * computes the shares with pb_cpu_load_finish(&c->mean). */
void pb_sampler_cpu_add(pb_sampler_cpu *c, const pb_cpu_load *l);

#endif
