/* pb_roof_report.h — bench_kernels' compute roof: every ISA asked x int8 and f32 x thread count measured
 * (pb_roof.h) into points, then roof.csv's rows and the table under the roofline. */
#ifndef PB_ROOF_REPORT_H
#define PB_ROOF_REPORT_H

#include <stdio.h>

#include "pb_csv.h"
#include "pb_cli.h"
#include "pb_roof.h"
#include "pb_run.h"

#define PB_ROOF_MAX_POINTS 128

typedef struct pb_roof_report {
    pb_roof_point pt[PB_ROOF_MAX_POINTS];
    char cpus[PB_ROOF_MAX_POINTS][64];
    int n;
} pb_roof_report;

/* Measures isas (ISA ids; empty: every one this CPU runs) x both operations x threads (each a count of cpus from
 * cpus[0..]); an ISA whose kernel for an operation is another ISA's already measured is left out. Points into r,
 * each the better of two measures, the second after all the firsts. 0, or -1 with the reason in err. */
int pb_roof_report_measure(pb_roof_report *r, const pb_list *isas, const pb_list *threads, const int *cpus,
                           int ncpus, char *err, size_t errlen);
/* The roof measured for what an ISA's matvec kernel (isa: the ISA that ran it) multiplies, op, at threads: the
 * GMAC/s of the roof kernel isa runs for op; NaN when no point measured it. */
double pb_roof_report_gmacs(const pb_roof_report *r, kern_isa isa, kern_peak_op op, int threads);
/* roof.csv's rows. */
void pb_roof_report_write(const pb_roof_report *r, pb_csv *csv, const pb_run *run);
/* The table. */
void pb_roof_report_print(FILE *f, const pb_roof_report *r);

#endif
