/* pb_results_json.h — results.json: a run directory in Google Benchmark's JSON format, so its compare.py and the
 * CI services that read that format take poolbench runs unchanged.
 *
 *   context     Google Benchmark's keys (date, host_name, executable, num_cpus, mhz_per_cpu,
 *               cpu_scaling_enabled, caches, load_avg, library_build_type) from machine.csv, and every machine.csv
 *               fact as text under "poolbench"
 *   benchmarks  one per point (pb_points.h): name and run_name, family_index, per_family_instance_index,
 *               run_type "iteration", repetitions 1, repetition_index 0, threads, iterations, real_time, cpu_time,
 *               time_unit, and the point's figures as user counters (tok_per_s, pct_of_floor, ratio_to_rt, ...)
 * cpu_time is real_time: poolbench measures wall time only, and compare.py reads both. */
#ifndef PB_RESULTS_JSON_H
#define PB_RESULTS_JSON_H

#include "pb_points.h"

/* Writes path through a temporary file and a rename (pb_write_file). 0, or -1 with errno set. */
int pb_results_json(const char *path, const pb_rundata *rd, const pb_points *ps);

#endif
