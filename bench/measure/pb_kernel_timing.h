/* pb_kernel_timing.h — measuring the kernels' roofline: GB/s of weights streamed by one format x ISA at a
 * working-set level (fits L2, fits L3, DRAM), a batch of activation rows and a thread count. Measuring only
 * fills a pb_kernel_timing_result; bench_kernels prints and writes it.
 *
 * How a point is timed:
 *  - l2: the whole matrix is one sample (repeated within a sample until it lasts min_sample_us), so it
 *    stays in L2 between samples; with threads, each thread's static share of rows is the same every time,
 *    so each core keeps its own share in its own L2.
 *  - l3, dram: samples are consecutive windows of rows walking through the matrix (read once beforehand
 *    for l3), so a row comes back only after the whole matrix has passed: from L3 for an l3-sized matrix,
 *    from memory for one several times the last-level cache. A window lasts about 2 x min_sample_us and
 *    holds at most window_bytes and half the matrix.
 *  - The activation is quantized once before the samples (it is O(cols); pb_kernel_timing_act_ns measures it
 *    apart): the GB/s are the weight stream's alone. Every plain sample is followed by one that quantizes
 *    the activation again (the point's ISA, on the calling thread) before every call, as a decode pays it
 *    once per matvec input: gbps_act. A call is the point's matrix in l2, a window in l3 and dram.
 *  - One untimed warm-up sample; then samples until budget_s has passed and at least min_samples were
 *    taken (at most max_samples). */
#ifndef PB_KERNEL_TIMING_H
#define PB_KERNEL_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kern.h"
#include "kern_repack.h"
#include "pb_memread.h"
#include "pb_stats.h"
#include "pool.h"

typedef enum pb_kernel_timing_level {
    PB_KERNEL_TIMING_L2,
    PB_KERNEL_TIMING_L3,
    PB_KERNEL_TIMING_DRAM,
    PB_KERNEL_TIMING_LEVELS
} pb_kernel_timing_level;

/* "l2", "l3", "dram"; NULL-terminated, indexed by level. */
extern const char *const pb_kernel_timing_level_names[PB_KERNEL_TIMING_LEVELS + 1];

/* A weight matrix big enough for every point: filled once per format (a few distinct quantized rows
 * repeated, so that filling hundreds of MiB costs a copy, not a quantization), paged in before timing. */
typedef struct pb_kernel_timing_buf {
    char *mem;
    size_t cap;        /* bytes allocated */
    size_t filled;     /* bytes holding format fmt's rows */
    kern_format fmt;
    size_t cols;
    /* The same rows re-laid (kern_repack.h), made by pb_kernel_timing_buf_repack; NULL until then. */
    char *rp;
    size_t rp_cap;        /* bytes allocated */
    size_t rp_rows;       /* rows of the filled ones it holds (0: none, or stale after a refill) */
    kern_layout rp_layout;
    double repack_ms;     /* what kern_repack took for them, wall clock */
} pb_kernel_timing_buf;

/* 0, or -1 with errno. Asks for transparent huge pages (madvise), like a memory-floor read would use. */
int pb_kernel_timing_buf_init(pb_kernel_timing_buf *b, size_t cap);
void pb_kernel_timing_buf_free(pb_kernel_timing_buf *b);
/* Makes the first bytes (whole rows of cols) hold format f; returns the rows that fit. */
size_t pb_kernel_timing_buf_fill(pb_kernel_timing_buf *b, kern_format f, size_t cols, size_t bytes);
/* Makes b's repacked copy hold its first rows filled rows in layout l (timed: repack_ms), paged in before any
 * timing. 0 (file: nothing to do), or -1 with errno (EINVAL: l does not fit the filled format; ENOMEM). */
int pb_kernel_timing_buf_repack(pb_kernel_timing_buf *b, kern_layout l, size_t rows);

typedef struct pb_kernel_timing_point {
    kern_format fmt;
    kern_isa isa;
    kern_layout layout;     /* the weights' layout: file, or the buffer's repacked copy (pb_kernel_timing_buf_repack) */
    pb_kernel_timing_level level;
    size_t cols;
    size_t rows;            /* rows of the matrix (its bytes are the level's working set); a whole number of the
                             * layout's groups for a repacked one */
    int batch;              /* activation rows, 1..KERN_GEMM_MAX */
    pool *pool;             /* NULL: one thread, the caller */
    size_t window_bytes;    /* l3, dram: most bytes per sample */
    double budget_s;        /* time to spend sampling */
    int min_samples, max_samples;
    double min_sample_us;   /* shortest sample (l2: more passes; l3, dram: windows of twice this) */
    size_t start_row;       /* l3, dram: the first window starts here (a tuner timing many points in a row walks on
                             * where the last one stopped, so no point reads what the one before left in cache) */
    bool no_prefetch;       /* dram: run the kernel's twin without software prefetch (kern_job.cached), where it has
                             * one; l2 and l3 always do */
    bool plain;             /* only the plain samples (a tuner's): gbps_act is not measured (NaN) */
} pb_kernel_timing_point;

typedef struct pb_kernel_timing_result {
    pb_summary gbps;        /* per sample: weight bytes / time */
    pb_summary gbps_act;    /* the same with the activation quantized before every call (the samples between) */
    double gops_median;     /* weight elements x batch / median time, 1e9 per second */
    double ns_per_row;      /* median time per weight row (for the whole batch) */
    size_t rows_per_sample; /* rows streamed in one sample */
    kern_isa ran;           /* the ISA whose kernel ran (kern_matvec_isa): the point's ISA, or the one below
                             * it that a format its table lacks fell back to; what kernels.csv's variant column says */
    size_t next_row;        /* l3, dram: where the window after the last one would start (the next start_row) */
} pb_kernel_timing_result;

/* Times one point on the matrix in b (filled for pt->fmt). 0, or -1 with errno (the job was refused). */
int pb_kernel_timing_measure(const pb_kernel_timing_buf *b, const pb_kernel_timing_point *pt,
                             pb_kernel_timing_result *out);

/* The same-run floor beside the dram points: GB/s (median over samples) of read kernel k over windows of
 * window_bytes walking through the first bytes of b, on the calling thread. NaN when nothing could be read. */
double pb_kernel_timing_read_gbps(const pb_kernel_timing_buf *b, const pb_memkern *k, size_t bytes, size_t window_bytes,
                                  double budget_s, int min_samples);

/* The read kernel for that floor: of every read kernel of pb_memread this CPU runs, the one whose median over the
 * same windows is best (each measured for budget_s): the best physical reference, not the one-stream read of the
 * chosen ISA (4-stream reads, the decode's pattern, can be faster). NULL when none runs. */
const pb_memkern *pb_kernel_timing_best_read(const pb_kernel_timing_buf *b, size_t bytes, size_t window_bytes,
                                             double budget_s, int min_samples);

/* Nanoseconds to quantize one activation row of cols values for format f (median of a few). */
double pb_kernel_timing_act_ns(kern_format f, size_t cols);

/* Checks ISA v (its activation quantizer and matvec kernels, with their fallbacks) against the scalar
 * reference on a small matrix: 0 when every row agrees within 1e-3
 * of the largest |y| (the Criterion tests hold the exact tolerances), -1 otherwise with a line in err. */
int pb_kernel_timing_verify(kern_format f, kern_isa v, size_t cols, char *err, size_t errlen);

#endif
