/* pb_digest.h — the figures a write-up is made of, read out of a run directory's CSVs into plain structs.
 * Reading (pb_digest_*.c) is kept apart from formatting (pb_report_*.c, pb_compare.c): a finding or a table
 * cell is always computed from these fields, which come straight from the CSVs. A section whose CSV is missing
 * or malformed has have = false. */
#ifndef PB_DIGEST_H
#define PB_DIGEST_H

#include <stdbool.h>

#include "pb_rundata.h"

#define PB_DIGEST_MAX 64
#define PB_DIGEST_NAME 40

/* Dispatch cost of one policy at the headline thread count, gap 0, empty job. */
typedef struct pb_dispatch_digest {
    char policy[PB_DIGEST_NAME], placement[PB_DIGEST_NAME];
    double ns, ns_median, ns_p99, rt_before, rt_after, rt_ns, x_rt, x_omp;
    double rt_var[3]; /* the block's round trip per ping-pong variant (1line_rmw, 2line_store, 2line_rmw); NaN in a
                       * CSV from before they were measured */
} pb_dispatch_digest;

/* One policy's cost at one caller gap (hybrid vs spin as the gap grows). */
typedef struct pb_gap_digest {
    char policy[PB_DIGEST_NAME];
    double gap_us, ns;
} pb_gap_digest;

typedef struct pb_pool_digest {
    bool have;
    int threads;                    /* the headline thread count */
    int n;
    pb_dispatch_digest d[16];
    double pingpong_ns;             /* the pingpong row's batch mean near the headline, NaN when absent */
    int ngap;
    pb_gap_digest gap[PB_DIGEST_MAX];       /* spin and hybrid at the headline threads, empty job, every gap */
    double spin_us;                 /* hybrid's budget */
    int nthr;
    struct { int threads; char policy[PB_DIGEST_NAME]; double ns; } thr[PB_DIGEST_MAX]; /* gap 0, empty job */
} pb_pool_digest;

/* The read floor at one thread count: the best kernel. */
typedef struct pb_floor_point {
    int threads;
    char kernel[PB_DIGEST_NAME], placement[PB_DIGEST_NAME], cpus[PB_DIGEST_NAME];
    double best, median, min, rt_ns, thp_mib, size_mib;
} pb_floor_point;

typedef struct pb_floor_digest {
    bool have;
    int n;
    pb_floor_point pt[PB_DIGEST_MAX];    /* op = read, ascending threads */
    double copy_best, write_best;   /* the best of op copy / write at any thread count, NaN when absent */
    int copy_threads, write_threads;
} pb_floor_digest;

/* A per-token floor from token_floor.csv. */
typedef struct pb_token_digest {
    bool have;
    char model[PB_DIGEST_NAME];
    int n;
    struct { char format[PB_DIGEST_NAME]; int threads; double ms, ceiling, weight_bytes; } t[PB_DIGEST_MAX];
} pb_token_digest;

/* The best decode point of one model × format (batch 1). */
typedef struct pb_decode_point {
    char model[PB_DIGEST_NAME], format[PB_DIGEST_NAME], policy[PB_DIGEST_NAME], schedule[PB_DIGEST_NAME], cpuset[PB_DIGEST_NAME];
    char glue[PB_DIGEST_NAME];          /* "serial", "fused", or "" when the CSV predates the glue column */
    char placement[PB_DIGEST_NAME];     /* near, far, mixed, n/a; "" when the CSV has no such column */
    int threads;
    double tok_s, ms_median, pct_floor, gbps, floor_gbps, weight_bytes, dispatches, glue_pct;
    /* The unequal-core columns ("" / -1 / NaN in a CSV from before them): the emulated cpus, where a weighted
     * split's shares came from, the slowest thread's cpu, the others' wait for it per token, and the least and
     * most busy thread's ms per token. */
    char emulate[PB_DIGEST_NAME], share_source[PB_DIGEST_NAME];
    int slowest_cpu;
    double wait_slowest_ms, busy_lo_ms, busy_hi_ms;
} pb_decode_point;

typedef struct pb_sweep_digest {
    bool have;
    int nbest;
    pb_decode_point best[16];          /* per model × format, in order of first appearance */
    char focus[PB_DIGEST_NAME];         /* the format the scaling findings use (q8_0 when swept) */
    int nthr;                       /* focus format: best per thread count */
    pb_decode_point by_thr[PB_DIGEST_MAX];
    int npol;                       /* focus format at its best thread count: best per policy */
    pb_decode_point by_pol[16];
    int nset;                       /* focus format: best per core set */
    pb_decode_point by_set[16];
    int npoints, nimbalanced, nbusy; /* nbusy: points with busy figures or a flag */
    pb_decode_point worst_imb;         /* the flagged point with the widest busy range */
    double worst_busy_min, worst_busy_max;
    double ms_spread_max;           /* the largest (max - min) / median of ms per token over points */
    pb_decode_point noisiest;
    bool have_glue;                 /* the focus format ran one point with both glue modes: */
    pb_decode_point glue_fused, glue_serial; /* that pair, at its most threads */
    const pb_table *pairs;             /* pairs.csv's rows, when the run has them: the findings' intervals */
    int nemulated;                  /* rows run with an emulated slow cpu, and the first such emulation */
    char emulated[PB_DIGEST_NAME];
    int ncliff;                     /* the focus format's points of 2 threads or more, in CSV order */
    pb_decode_point cliff[PB_DIGEST_MAX];
} pb_sweep_digest;

/* Kernel throughput of one format: the best variant per level at 1 thread, and at the most threads. */
typedef struct pb_kernel_digest {
    char format[PB_DIGEST_NAME], isa_l2[PB_DIGEST_NAME], isa_dram[PB_DIGEST_NAME];
    double l2, l3, dram, dram_nthr, scalar_l2;
    double l2_act; /* the best in L2 quantizing the activation before every call; NaN before the column */
    double dram_read; /* the floor's read beside the best DRAM point (kernels.csv read_gbps); NaN before the column */
    int nthr;
} pb_kernel_digest;

typedef struct pb_kernels_digest {
    bool have;
    int n;
    pb_kernel_digest k[16];
    int nemulated;                  /* rows run with an emulated slow cpu, and the first such emulation */
    char emulated[PB_DIGEST_NAME];
} pb_kernels_digest;

/* A kernel doing this share of its ISA's compute roof is bound by the core's arithmetic, not by its code. */
#define PB_ROOF_NEAR 0.8

/* The compute roof (roof.csv): per ISA asked, operation and thread count, what its kernel issued. */
#define PB_ROOF_DIGEST_MAX 64
typedef struct pb_roof_digest {
    bool have;
    int n;
    struct {
        char isa[PB_DIGEST_NAME], ran[PB_DIGEST_NAME], op[PB_DIGEST_NAME], instr[PB_DIGEST_NAME];
        int threads;
        double gmacs, ghz, macs_per_cycle;
    } r[PB_ROOF_DIGEST_MAX];
} pb_roof_digest;

/* The row of op at threads for ISA isa, or for the first ISA down its chain that has one (an ISA whose kernel is
 * another's was measured once, under that one); -1 when none. */
int pb_roof_find(const pb_roof_digest *r, const char *isa, const char *op, int threads);
/* A format's multiply-accumulates per weight byte (a block's weights over its bytes); NaN for an unknown name. */
double pb_roof_macs_per_byte(const char *format);
/* A kernel of format on isa streaming gbps at threads as a share of that ISA's compute roof (int8; f32 for f32
 * and f16), %; NaN where roof.csv has no such roof. */
double pb_roof_share(const pb_roof_digest *r, const char *format, const char *isa, double gbps, int threads);

typedef struct pb_overlap_digest {
    bool have;
    int n;
    struct { char mode[PB_DIGEST_NAME]; double ratio, speedup, pct_ceiling, us_per_step; } m[16]; /* ratio nearest 1 */
} pb_overlap_digest;

typedef struct pb_util_digest {
    bool have;
    int n;
    struct { int cpu; double mean, max, steal_max; int samples; } c[PB_DIGEST_MAX];
} pb_util_digest;

/* likwid_compare.csv, per thread count: over the rounds, our best one-stream kernel (median of its passes) and
 * our floor (the best median of every read kernel) as ratios to likwid-bench's best load kernel of the same
 * round: the median ratio and its range. */
typedef struct pb_likwid_point {
    int threads, rounds;
    double likwid_median;                    /* the median over rounds of likwid's best GB/s */
    double one_x, one_min, one_max;          /* one-stream / likwid: median, min, max over rounds (NaN: none ran) */
    double floor_x, floor_min, floor_max;    /* floor / likwid */
    char placement[PB_DIGEST_NAME];              /* the rounds' placements: one word, or "mixed" */
} pb_likwid_point;
typedef struct pb_likwid_digest {
    bool have;
    int n;
    pb_likwid_point t[16];
} pb_likwid_digest;

/* latency.csv: the idle ladder by working set, and the loaded curve (the idle point first, then ascending
 * bandwidth). */
typedef struct pb_latency_point {
    char level[PB_DIGEST_NAME];
    int duty;
    double kib, ns, ns_min, ns_max, gbps, cycles; /* gbps: total drawn (streamers + chase) */
    double run_pct;                 /* the chase's share on its cpu (NaN: a CSV from before the column) */
} pb_latency_point;
typedef struct pb_latency_digest {
    bool have;
    int nladder, ncurve;
    pb_latency_point ladder[PB_DIGEST_MAX];
    pb_latency_point curve[PB_DIGEST_MAX];   /* [0]: the idle point (the ladder's largest set); then loaded, by gbps */
    int load_threads;
    double thp_mib;
    double double_gbps;             /* where latency first reaches twice idle (interpolated); NaN: not on the curve */
    double top_gbps, top_x;         /* the curve's largest bandwidth and its latency over idle */
} pb_latency_digest;

/* The curve's latency at gbps, interpolated between its points; NaN outside it or without one. */
double pb_digest_latency_at(const pb_latency_digest *l, double gbps);

/* Noise: placements seen, round-trip range, load. */
typedef struct pb_noise_digest {
    int near, far, other;           /* rows tagged so, over every CSV with a placement column */
    int smt, hidden_smt;            /* of the others: smt (topology: siblings), smt? (a round trip under
                                     * PB_HIDDEN_SMT_RT_NS: likely siblings a hypervisor hides) */
    double rt_min, rt_max;          /* over every rt column */
    double dispatch_p99_over_median;/* spin at the headline threads */
    double floor_spread_max;        /* max over thread counts of (best - min) / best */
    int floor_spread_threads;
    double ghz_min, ghz_max;        /* the clock around every kernels.csv and sweep.csv point (NaN: none) */
    int ghz_points;                 /* points with a clock */
} pb_noise_digest;

typedef struct pb_digest {
    pb_pool_digest pool;
    pb_floor_digest floor;
    pb_token_digest token;
    pb_sweep_digest sweep;
    pb_kernels_digest kern;
    pb_overlap_digest overlap;
    pb_util_digest util;
    pb_noise_digest noise;
    pb_likwid_digest likwid;
    pb_latency_digest latency;
    pb_roof_digest roof;
} pb_digest;

/* Reads every section the run directory has. */
void pb_digest_run(pb_digest *d, const pb_rundata *rd);

/* The sections, one file each. */
void pb_digest_pool(pb_pool_digest *p, const pb_rundata *rd);
void pb_digest_floor(pb_floor_digest *f, pb_token_digest *tk, const pb_rundata *rd);
void pb_digest_sweep(pb_sweep_digest *s, const pb_rundata *rd);
void pb_digest_kernels(pb_kernels_digest *k, const pb_rundata *rd);
void pb_digest_overlap_util(pb_overlap_digest *o, pb_util_digest *u, const pb_rundata *rd);
void pb_digest_noise(pb_noise_digest *n, const pb_digest *d, const pb_rundata *rd);
void pb_digest_likwid(pb_likwid_digest *l, const pb_rundata *rd);
void pb_digest_latency(pb_latency_digest *l, const pb_rundata *rd);
void pb_digest_roof(pb_roof_digest *r, const pb_rundata *rd);

/* Whether row r of sweep.csv is a decode point of batch 1 with a tok/s (not a prompt's, not a batch's). */
bool pb_digest_is_decode(const pb_table *t, const int *c, size_t r);
/* Row r of sweep.csv (c: its columns, pb_digest_cols) as the digest reads a decode point. */
void pb_digest_sweep_row(pb_decode_point *out, const pb_table *t, const int *c, size_t r);

/* Look-ups: NULL when absent. */
const pb_dispatch_digest *pb_digest_pool_policy(const pb_pool_digest *p, const char *policy);
const pb_floor_point *pb_digest_floor_at(const pb_floor_digest *f, int threads);

/* Small helpers shared by the digest files. */
void pb_digest_copy(char *dst, const char *src);          /* into a PB_DIGEST_NAME buffer */
int pb_digest_int(const pb_table *t, size_t row, int col); /* a number column as int, -1 when not a number */
/* Where each of kind k's columns is in t, looked up once: col[PB_SWEEP_model] ... (pb_schema_get(k)->ncols
 * entries), -1 for a column t lacks (a CSV from before it). */
void pb_digest_cols(const pb_table *t, pb_kind k, int *col);

#endif
