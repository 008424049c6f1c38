/* pb_kernels_run.h — bench_kernels' measuring loop: the roofline of the matvec kernels. Working sets in L2 (half
 * an L2 per thread), L3 (half an L3 instance) and DRAM, sized from hwloc's caches (or the options); one pool per
 * thread count, all alive together, the caller bound to one's cpus for its block only; for every format x level x
 * threads a buffer of weights, then every ISA x batch a point (pb_kernel_timing_measure), each row handed to the
 * caller as it is measured. Before any timing every (format, ISA) is checked against the scalar oracle.
 *
 * Measuring only, and it never exits: a failure returns -1 with the reason, the rows measured so far kept; a
 * signal (pb_stop_signal) ends the loop at the next point with 0. */
#ifndef PB_KERNELS_RUN_H
#define PB_KERNELS_RUN_H

#include "pb_counters.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_cli.h"
#include "pb_kernel_timing.h"
#include "pb_machine.h"
#include "pb_slices.h"
#include "pb_topo.h"

/* An L3 instance larger than this, seen under a hypervisor, is the host's total, not what a vCPU owns. */
#define PB_KERNELS_L3_IMPLAUSIBLE (256ull << 20)
#define PB_KERNELS_L3_ASSUMED (32ull << 20)

/* One point, one row of kernels.csv. */
typedef struct pb_kernels_row {
    pb_kernel_timing_point pt;
    int threads;
    uint64_t bytes;
    pb_kernel_timing_result r;
    double read_gbps; /* dram, 1 thread, batch 1: the plain read of the same buffer just before (NaN otherwise) */
    const char *read_kernel; /* the pb_memread kernel behind read_gbps ("" without one) */
    char emulate[128]; /* the emulated cpus among the pool's, "cpu=factor ..." ("": none) */
    double ghz_before, ghz_after; /* the pool's cpus' mean clock around the point (pb_poolclock; NaN: unmeasured) */
    char counters[512];           /* pb_counters_text of the point ("" without --counters) */
    double ipc;                   /* instructions / cycles of the caller's thread (NaN: not both counted) */
    const char *why;   /* pb_kernel_why_names: "forced" (--isa, POOLBENCH_ISA) or "all" */
    const char *stream; /* the prefetch that ran: "t2" or "nta" (dram, a kernel that prefetches), else "off" */
    double repack_ms;   /* a repacked layout (pt.layout): the time its copy of the matrix took to make; NaN for file */
    uint64_t layout_bytes; /* the bytes the layout holds the matrix in (the file's, or the repacked copy's) */
} pb_kernels_row;

/* The working sets, in bytes: an L2 instance, an L3 instance, all L3, the DRAM set. */
typedef struct pb_kernels_sizes {
    uint64_t l2, l3, l3_total, dram;
    bool l3_guessed; /* the L3 was implausible (a hypervisor's host total): PB_KERNELS_L3_ASSUMED instead */
} pb_kernels_sizes;

/* What to measure: the options, defaults applied (the caller's lists, alive for the run). */
typedef struct pb_kernels_plan {
    const pb_list *formats, *isas, *levels, *threads, *batches;
    const pb_list *layouts; /* kern_layout values; each format runs those that fit it (NULL or none: every one) */
    size_t cols;
    double budget_ms;
    bool quick;
    const int *cpus; /* pinning order, one thread per core first; threads wrap around it */
    int ncpus;
    pb_kernels_sizes sizes;
    void (*row)(void *ctx, const pb_kernels_row *r); /* each point's row as it is measured */
    void *ctx;
    const pb_emulate *emulate; /* --emulate-slow (NULL: none): the pools stretch those cpus' slices, 1 thread too */
    pb_counters *counters;     /* --counters, open on the calling thread (NULL: none) */
    bool forced;               /* the ISAs were named (--isa or POOLBENCH_ISA), not every one */
} pb_kernels_plan;

typedef struct pb_kernels_run {
    pb_kernels_row *rows;
    int nrows, total;
    double act_ns[KERN_FORMAT_COUNT]; /* activation quantization per row, per format measured (0: not reached) */
    const pb_memkern *read_kern;      /* pb_memread's kernel behind read_gbps (pb_kernel_timing_best_read's) */
    uint64_t t0;
} pb_kernels_run;

/* The working sets from the topology and the machine (its hypervisor and memory), or the options' sizes
 * (l2_kib, l3_kib: 0 = hwloc's). */
void pb_kernels_run_sizes(pb_kernels_sizes *s, const pb_topo *t, const pb_machine *m, long l2_kib, long l3_kib, bool quick);

/* The scalar kernel is the oracle: a (format, ISA) that disagrees is not worth timing. 0, or -1 with err. */
int pb_kernels_run_verify(const pb_kernels_plan *p, char *err, size_t errlen);

/* Every point of the plan (see the top). 0, or -1 with err. */
int pb_kernels_run_all(pb_kernels_run *run, const pb_kernels_plan *p, char *err, size_t errlen);

/* Whether the plan measures its ISA number v (an index into p->isas) for fmt: unless that ISA's table
 * lacks fmt and the ISA that would run in its place (kern_matvec_isa: the best below it that has fmt) is in
 * the plan too, which measures that kernel under its own name (avx512gfni has only the sub-byte formats: its q8_0
 * is avx512's). pb_kernels_run_all measures by it, and the console's roofline lists by it. */
bool pb_kernels_run_measures(const pb_kernels_plan *p, kern_format fmt, int v);
/* The same for layout number l of the plan's layouts (pb_kernels_run_layout): false where it does not fit fmt, or where
 * the ISA that would run it (kern_repack_isa) is measured under its own name. */
bool pb_kernels_run_measures_layout(const pb_kernels_plan *p, kern_format fmt, int v, int l);
/* The plan's layouts: how many, and number l. */
int pb_kernels_run_layouts(const pb_kernels_plan *p);
kern_layout pb_kernels_run_layout(const pb_kernels_plan *p, int l);

/* The row of (f, v, layout, level, threads, batch), NULL when it was not measured. */
const pb_kernels_row *pb_kernels_run_find(const pb_kernels_run *run, kern_format f, kern_isa v, kern_layout layout,
                              pb_kernel_timing_level level, int threads, int batch);

void pb_kernels_run_free(pb_kernels_run *run);
/* A row's GB/s over its side-by-side read (read_gbps): x_read; NaN for a row without one. */
double pb_kernels_row_x_read(const pb_kernels_row *r);
/* The row whose GB/s is the highest share of its side-by-side read (read_gbps) above pct percent of it, and in
 * *count how many rows are above; NULL (and 0) when none is or no row has a read beside it. */
const pb_kernels_row *pb_kernels_run_over_floor(const pb_kernels_run *run, double pct, int *count);

#endif
