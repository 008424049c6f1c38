/* pb_cpu_util.h — what bench_cpu_util writes and prints around the command it samples: cpu_util.csv, each sample
 * reaching its partial file as the sampler takes it, published with machine.csv and the plots once the command
 * has ended; and the per-cpu summary (mpstat -P ALL) on stderr, since the command owns stdout. */
#ifndef PB_CPU_UTIL_H
#define PB_CPU_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pb_csv.h"
#include "pb_machine.h"
#include "pb_run.h"
#include "pb_sampler.h"

#define PB_CU_MIN_TRUSTED_TICKS 20 /* per cpu: 0.2 s, so one tick moves a mean by at most 5 points */

typedef struct pb_cpu_util_out {
    const char *prog;
    pb_run run;
    pb_csv *csv; /* cpu_util.csv */
} pb_cpu_util_out;

/* The run directory and cpu_util.csv, claimed before the command starts. 0, or -1 with the one line ("PROG:
 * ...") in err, the directory removed again when this call made it: the command then never runs. */
int pb_cpu_util_open(pb_cpu_util_out *k, const char *prog, const char *out, const char *run_dir, char *err, size_t errlen);

/* The sampler's sink (pb_sampler_start_sink): one sample as a row of cpu_util.csv. ctx: the pb_cpu_util_out. */
void pb_cpu_util_sample(void *ctx, const pb_sampler_sample *x);

/* Drops cpu_util.csv and the run directory (when made by pb_cpu_util_open and still empty): a command that could not
 * run leaves nothing behind. */
void pb_cpu_util_discard(pb_cpu_util_out *k);

/* The summary on f: the run's context, one row per cpu and an "all" row; warnings for gaps (sampled_ok false)
 * and for a run too short to trust. cmd: the command's argv. */
void pb_cpu_util_print(FILE *f, const pb_cpu_util_out *k, const pb_sampler_result *u, bool sampled_ok, char **cmd);

/* Publishes cpu_util.csv and machine.csv and draws the plots (none when no full interval was sampled). 0, or 1
 * after a line on stderr. */
int pb_cpu_util_finish(pb_cpu_util_out *k, const pb_machine *m, const pb_sampler_result *u);

#endif
