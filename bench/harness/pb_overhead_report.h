/* pb_overhead_report.h — bench_pool_overhead's reporters: pool_overhead.csv's rows once a thread count is
 * complete (its ratio_to_omp known), and the table. They only format what pb_overhead_run measured. */
#ifndef PB_OVERHEAD_REPORT_H
#define PB_OVERHEAD_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "pb_csv.h"
#include "pb_overhead_run.h"
#include "pb_run.h"

typedef struct pb_overhead_report {
    const pb_run *run;
    pb_csv *csv;    /* pool_overhead.csv */
    size_t written; /* rows[0..written) are in it */
} pb_overhead_report;

/* Writes the run's rows not yet written. */
void pb_overhead_report_rows(pb_overhead_report *r, const pb_overhead_run *run);

/* The dispatch rows on f, grouped by thread count, with the legend. */
void pb_overhead_report_table(FILE *f, const pb_overhead_run *run);

#endif
