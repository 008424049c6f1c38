/* pb_runcheck.h — a run directory checked against the CSV schemas (bench_report --check DIR).
 *
 * For every CSV kind (pb_schema.h) whose file is in DIR: its header is exactly the schema's, it has rows (unless
 * they are samples over time: a run shorter than a sample has none), and every cell follows its column's rule. A harness that wrote one of its files must have written them all
 * (bench_sweep: sweep.csv, cpu_util.csv and sweep_cpu.csv). machine.csv must be there with every fixed key
 * and each core kind's keys, their values valid by their rules; an `incomplete` key, and a partial file a
 * killed harness left, are problems too. Each problem is one line on out, "FILE: what" or "FILE:LINE:COL:
 * what", naming the column. bench_report --check prints them as they are; bench_check, which refuses the same
 * runs, with "FAIL " before each. */
#ifndef PB_RUNCHECK_H
#define PB_RUNCHECK_H

#include <stdio.h>

/* Malformed cells reported per file; the rest are counted in one more line. */
#define PB_CHECK_CELLS_SHOWN 8

/* How many problems (0: the directory matches the schemas); -1 with a line on out when dir is not a
 * directory. Every line starts with prefix. */
int pb_check_run_dir(FILE *out, const char *dir, const char *prefix);

#endif
