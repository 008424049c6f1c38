/* pb_roof.h — the compute roof measured (kern_peak.h's kernels): int8 multiply-accumulates and f32 fused
 * multiply-adds a second through one ISA's best instruction, on a spin pool of one thread per given cpu, every
 * thread running the kernel at once; beside the clock the add chain measures on those cpus, so that the figure
 * per cycle says what the core issues, whatever its clock did. The median of PB_ROOF_REPS runs of about
 * PB_ROOF_RUN_MS each; the spread too (a hypervisor's steal lowers a run, never raises it). */
#ifndef PB_ROOF_H
#define PB_ROOF_H

#include <stddef.h>

#include "kern_peak.h"

/* Many short runs, not a few long ones: the best is the roof, and on a shared host a 5 ms window free of steal on
 * every cpu at once comes far more often than a 20 ms one. */
#define PB_ROOF_REPS 21
#define PB_ROOF_RUN_MS 5

typedef struct pb_roof_point {
    kern_isa isa, ran;      /* the ISA asked, and the one whose kernel ran (kern_peak_get) */
    kern_peak_op op;
    const char *instr;
    int threads;
    double gmacs_median, gmacs_min, gmacs_max; /* over the runs, all threads together */
    double ghz;             /* the pinned cpus' mean clock just after (NaN where not measured) */
    double macs_per_cycle;  /* per thread: the roof (pb_roof_bound) / threads / ghz */
} pb_roof_point;

/* The roof every share and bound takes: the best run. A hypervisor's steal lowers a run, never raises it (a median
 * of 93 GMAC/s beside runs of 200 at 2 threads made a decode's roof outlast its whole token). */
static inline double pb_roof_bound(const pb_roof_point *p)
{
    return p->gmacs_max;
}

/* One point: isa's kernel for op on threads threads pinned to cpus[0..threads). 0, or -1 with the reason in err
 * (the CPU cannot run isa, or the pool cannot start). */
int pb_roof_measure(kern_isa isa, kern_peak_op op, const int *cpus, int threads, pb_roof_point *out, char *err,
                    size_t errlen);

/* The roof (pb_roof_bound) DIR/roof.csv measured for isa and op on exactly these cpus (in this order), the best of
 * its matching rows: a run's bench_kernels measured it beside the sweep, and the best of two measures is the
 * nearer to the core's (steal only lowers one). 0 found, 1 when the file or a matching row is absent, -1 when the
 * file cannot be parsed (reason in err). */
int pb_roof_from_csv(const char *dir, kern_isa isa, kern_peak_op op, const int *cpus, int threads, double *gmacs,
                     char *err, size_t errlen);

#endif
