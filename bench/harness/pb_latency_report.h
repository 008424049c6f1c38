/* pb_latency_report.h — bench_memory_floor --latency's reporters: latency.csv's rows through the schema, and the
 * table on stdout. They only format what pb_latency_run measured. */
#ifndef PB_LATENCY_REPORT_H
#define PB_LATENCY_REPORT_H

#include <stdio.h>

#include "pb_csv.h"
#include "pb_latency_run.h"
#include "pb_run.h"
#include "pb_schema.h"

typedef struct pb_latency_report {
    const pb_run *run;
    pb_csv *csv;  /* latency.csv */
    int written;  /* rows[0..written) are in it */
} pb_latency_report;

/* The values of one row, in latency.csv's column order (v: PB_LATENCY_NCOLS). */
void pb_latency_report_values(const pb_latency_report *r, const pb_latency_run *run, const pb_latency_row *row, pb_value *v);
/* Writes the run's rows not yet written. */
void pb_latency_report_rows(pb_latency_report *r, const pb_latency_run *run);
/* The ladder and the loaded curve on f. */
void pb_latency_report_print(FILE *f, const pb_latency_run *run);

#endif
