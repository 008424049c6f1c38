/* pb_kernels_report.h — bench_kernels' reporters: kernels.csv's row of each point as it is measured, and the
 * tables (every point, the 1-thread batch-1 roofline, the activation quantization's cost). They only format what
 * pb_kernels_run measured. */
#ifndef PB_KERNELS_REPORT_H
#define PB_KERNELS_REPORT_H

#include <stdio.h>

#include "pb_csv.h"
#include "pb_kernels_run.h"
#include "pb_run.h"

typedef struct pb_kbr_report {
    const pb_run *run;
    pb_csv *csv; /* kernels.csv */
} pb_kbr_report;

/* pb_kbr_plan's row hook: ctx is the pb_kbr_report. */
void pb_kbr_write_row(void *ctx, const pb_kbr_row *r);

/* The working sets, every point, the roofline and the activation costs on f. */
void pb_kbr_print(FILE *f, const pb_kbr_plan *p, const pb_kbr_run *run);

#endif
