/* pb_overlap_report.h — bench_overlap's reporters: overlap.csv's rows of a point as it ends, and the table. They
 * only format what pb_overlap measured. */
#ifndef PB_OVERLAP_REPORT_H
#define PB_OVERLAP_REPORT_H

#include <stdio.h>

#include "pb_cli.h"
#include "pb_csv.h"
#include "pb_overlap.h"
#include "pb_run.h"

typedef struct pb_overlap_report {
    const pb_run *run;
    pb_csv *csv;             /* overlap.csv */
    const pb_overlap *ov;
    const pb_list *modes;    /* the modes asked for (serial is reported whatever: every speedup's base) */
    long rows, cols;         /* the job's matvec */
    pb_kernel_choice kernel; /* the q8_0 kernel (its ISA and why: pb_kernel_choice.h) */
} pb_overlap_report;

/* The point's rows: every mode measured and asked for. */
void pb_overlap_write_point(const pb_overlap_report *r, const pb_overlap_point *pt);

/* The table of points[0..n) on f, with its legend. */
void pb_overlap_print_table(FILE *f, const pb_overlap_report *r, const pb_overlap_point *points, int n);

#endif
