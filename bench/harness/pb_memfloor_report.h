/* pb_memfloor_report.h — bench_memory_floor's reporters: memory_floor.csv's rows of a block once its round trip
 * after completed them, token_floor.csv at the end, and the tables. They only format what pb_memfloor_run
 * measured and derived. */
#ifndef PB_MEMFLOOR_REPORT_H
#define PB_MEMFLOOR_REPORT_H

#include <stdio.h>

#include "pb_csv.h"
#include "pb_memfloor_run.h"
#include "pb_run.h"

typedef struct pb_memfloor_report {
    const pb_run *run;
    pb_csv *csv, *token_csv; /* memory_floor.csv, token_floor.csv */
    int written;             /* rows[0..written) are in memory_floor.csv */
    uint64_t llc_bytes;      /* what the buffer's size is held against (0: unknown) */
} pb_memfloor_report;

/* Writes the run's rows not yet written. */
void pb_memfloor_report_rows(pb_memfloor_report *r, const pb_memfloor_run *run);
/* token_floor.csv: every token floor derived. */
void pb_memfloor_report_tokens(const pb_memfloor_report *r, const pb_memfloor_run *run);
/* The points, the floors and the per-token floors on f. */
void pb_memfloor_report_print(FILE *f, const pb_memfloor_report *r, const pb_memfloor_run *run);

#endif
