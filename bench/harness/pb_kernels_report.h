/* pb_kernels_report.h — bench_kernels' reporters: kernels.csv's row of each point as it is measured, and the
 * tables (every point, the 1-thread batch-1 roofline, the activation quantization's cost). They only format what
 * pb_kernels_run measured. */
#ifndef PB_KERNELS_REPORT_H
#define PB_KERNELS_REPORT_H

#include <stdio.h>

#include "pb_csv.h"
#include "pb_kernels_run.h"
#include "pb_roof_report.h"
#include "pb_run.h"

typedef struct pb_kernels_report {
    const pb_run *run;
    pb_csv *csv;                 /* kernels.csv */
    const pb_roof_report *roof;  /* the compute roof, measured before the points (NULL: none) */
} pb_kernels_report;

/* pb_kernels_plan's row hook: ctx is the pb_kernels_report. */
void pb_kernels_report_row(void *ctx, const pb_kernels_row *r);

/* The working sets, every point, the roofline and the activation costs on f. */
void pb_kernels_report_print(FILE *f, const pb_kernels_plan *p, const pb_kernels_run *run);

#endif
