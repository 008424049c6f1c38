/* pb_digest.h — the figures a write-up is made of, read out of a run directory's CSVs into plain structs.
 * Reading (pb_digest_*.c) is kept apart from formatting (pb_report_*.c, pb_compare.c): a finding or a table
 * cell is always computed from these fields, which come straight from the CSVs. A section whose CSV is missing
 * or malformed has have = false. */
#ifndef PB_DIGEST_H
#define PB_DIGEST_H

#include <stdbool.h>

#include "pb_rundata.h"

#define PB_DG_MAX 64
#define PB_DG_NAME 40

/* Dispatch cost of one policy at the headline thread count, gap 0, empty job. */
typedef struct pb_dg_dispatch {
    char policy[PB_DG_NAME], placement[PB_DG_NAME];
    double ns, ns_median, ns_p99, rt_before, rt_after, rt_ns, x_rt, x_omp;
    double rt_var[3]; /* the block's round trip per ping-pong variant (1line_rmw, 2line_store, 2line_rmw); NaN in a
                       * CSV from before they were measured */
} pb_dg_dispatch;

/* One policy's cost at one caller gap (hybrid vs spin as the gap grows). */
typedef struct pb_dg_gap {
    char policy[PB_DG_NAME];
    double gap_us, ns;
} pb_dg_gap;

typedef struct pb_dg_pool {
    bool have;
    int threads;                    /* the headline thread count */
    int n;
    pb_dg_dispatch d[16];
    double pingpong_ns;             /* the pingpong row's batch mean near the headline, NaN when absent */
    int ngap;
    pb_dg_gap gap[PB_DG_MAX];       /* spin and hybrid at the headline threads, empty job, every gap */
    double spin_us;                 /* hybrid's budget */
    int nthr;
    struct { int threads; char policy[PB_DG_NAME]; double ns; } thr[PB_DG_MAX]; /* gap 0, empty job */
} pb_dg_pool;

/* The read floor at one thread count: the best kernel. */
typedef struct pb_dg_floorpt {
    int threads;
    char kernel[PB_DG_NAME], placement[PB_DG_NAME], cpus[PB_DG_NAME];
    double best, median, min, rt_ns, thp_mib, size_mib;
} pb_dg_floorpt;

typedef struct pb_dg_floor {
    bool have;
    int n;
    pb_dg_floorpt pt[PB_DG_MAX];    /* op = read, ascending threads */
    double copy_best, write_best;   /* the best of op copy / write at any thread count, NaN when absent */
    int copy_threads, write_threads;
} pb_dg_floor;

/* A per-token floor from token_floor.csv. */
typedef struct pb_dg_token {
    bool have;
    char model[PB_DG_NAME];
    int n;
    struct { char format[PB_DG_NAME]; int threads; double ms, ceiling, weight_bytes; } t[PB_DG_MAX];
} pb_dg_token;

/* The best decode point of one model × format (batch 1). */
typedef struct pb_dg_decode {
    char model[PB_DG_NAME], format[PB_DG_NAME], policy[PB_DG_NAME], schedule[PB_DG_NAME], cpuset[PB_DG_NAME];
    char glue[PB_DG_NAME];          /* "serial", "fused", or "" when the CSV predates the glue column */
    char placement[PB_DG_NAME];     /* near, far, mixed, n/a; "" when the CSV has no such column */
    int threads;
    double tok_s, ms_median, pct_floor, gbps, floor_gbps, weight_bytes, dispatches, glue_pct;
    /* The unequal-core columns ("" / -1 / NaN in a CSV from before them): the emulated cpus, where a weighted
     * split's shares came from, the slowest thread's cpu, the others' wait for it per token, and the least and
     * most busy thread's ms per token. */
    char emulate[PB_DG_NAME], share_source[PB_DG_NAME];
    int slowest_cpu;
    double wait_slowest_ms, busy_lo_ms, busy_hi_ms;
} pb_dg_decode;

typedef struct pb_dg_sweep {
    bool have;
    int nbest;
    pb_dg_decode best[16];          /* per model × format, in order of first appearance */
    char focus[PB_DG_NAME];         /* the format the scaling findings use (q8_0 when swept) */
    int nthr;                       /* focus format: best per thread count */
    pb_dg_decode by_thr[PB_DG_MAX];
    int npol;                       /* focus format at its best thread count: best per policy */
    pb_dg_decode by_pol[16];
    int nset;                       /* focus format: best per core set */
    pb_dg_decode by_set[16];
    int npoints, nimbalanced, nbusy; /* nbusy: points with busy figures or a flag */
    pb_dg_decode worst_imb;         /* the flagged point with the widest busy range */
    double worst_busy_min, worst_busy_max;
    double ms_spread_max;           /* the largest (max - min) / median of ms per token over points */
    pb_dg_decode noisiest;
    bool have_glue;                 /* the focus format ran one point with both glue modes: */
    pb_dg_decode glue_fused, glue_serial; /* that pair, at its most threads */
    int nemulated;                  /* rows run with an emulated slow cpu, and the first such emulation */
    char emulated[PB_DG_NAME];
    int ncliff;                     /* the focus format's points of 2 threads or more, in CSV order */
    pb_dg_decode cliff[PB_DG_MAX];
} pb_dg_sweep;

/* Kernel throughput of one format: the best variant per level at 1 thread, and at the most threads. */
typedef struct pb_dg_kern {
    char format[PB_DG_NAME], variant_l2[PB_DG_NAME], variant_dram[PB_DG_NAME];
    double l2, l3, dram, dram_nthr, scalar_l2;
    double l2_act; /* the best in L2 quantizing the activation before every call; NaN before the column */
    int nthr;
} pb_dg_kern;

typedef struct pb_dg_kernels {
    bool have;
    int n;
    pb_dg_kern k[16];
    int nemulated;                  /* rows run with an emulated slow cpu, and the first such emulation */
    char emulated[PB_DG_NAME];
} pb_dg_kernels;

typedef struct pb_dg_overlap {
    bool have;
    int n;
    struct { char mode[PB_DG_NAME]; double ratio, speedup, pct_ceiling, us_per_step; } m[16]; /* ratio nearest 1 */
} pb_dg_overlap;

typedef struct pb_dg_util {
    bool have;
    int n;
    struct { int cpu; double mean, max, steal_max; int samples; } c[PB_DG_MAX];
} pb_dg_util;

/* likwid_compare.csv, per thread count: over the rounds, our best one-stream kernel (median of its passes) and
 * our floor (the best median of every read kernel) as ratios to likwid-bench's best load kernel of the same
 * round: the median ratio and its range. */
typedef struct pb_dg_likwid_pt {
    int threads, rounds;
    double likwid_median;                    /* the median over rounds of likwid's best GB/s */
    double one_x, one_min, one_max;          /* one-stream / likwid: median, min, max over rounds (NaN: none ran) */
    double floor_x, floor_min, floor_max;    /* floor / likwid */
    char placement[PB_DG_NAME];              /* the rounds' placements: one word, or "mixed" */
} pb_dg_likwid_pt;
typedef struct pb_dg_likwid {
    bool have;
    int n;
    pb_dg_likwid_pt t[16];
} pb_dg_likwid;

/* latency.csv: the idle ladder by working set, and the loaded curve (the idle point first, then ascending
 * bandwidth). */
typedef struct pb_dg_latpt {
    char level[PB_DG_NAME];
    int duty;
    double kib, ns, ns_min, ns_max, gbps, cycles; /* gbps: total drawn (streamers + chase) */
    double run_pct;                 /* the chase's share on its cpu (NaN: a CSV from before the column) */
} pb_dg_latpt;
typedef struct pb_dg_latency {
    bool have;
    int nladder, ncurve;
    pb_dg_latpt ladder[PB_DG_MAX];
    pb_dg_latpt curve[PB_DG_MAX];   /* [0]: the idle point (the ladder's largest set); then loaded, by gbps */
    int load_threads;
    double thp_mib;
    double double_gbps;             /* where latency first reaches twice idle (interpolated); NaN: not on the curve */
    double top_gbps, top_x;         /* the curve's largest bandwidth and its latency over idle */
} pb_dg_latency;

/* The curve's latency at gbps, interpolated between its points; NaN outside it or without one. */
double pb_dg_latency_at(const pb_dg_latency *l, double gbps);

/* Noise: placements seen, round-trip range, load. */
typedef struct pb_dg_noise {
    int near, far, other;           /* rows tagged so, over every CSV with a placement column */
    int smt, hidden_smt;            /* of the others: smt (topology: siblings), smt? (a round trip under
                                     * PB_HIDDEN_SMT_RT_NS: likely siblings a hypervisor hides) */
    double rt_min, rt_max;          /* over every rt column */
    double dispatch_p99_over_median;/* spin at the headline threads */
    double floor_spread_max;        /* max over thread counts of (best - min) / best */
    int floor_spread_threads;
    double ghz_min, ghz_max;        /* the clock around every kernels.csv and sweep.csv point (NaN: none) */
    int ghz_points;                 /* points with a clock */
} pb_dg_noise;

typedef struct pb_digest {
    pb_dg_pool pool;
    pb_dg_floor floor;
    pb_dg_token token;
    pb_dg_sweep sweep;
    pb_dg_kernels kern;
    pb_dg_overlap overlap;
    pb_dg_util util;
    pb_dg_noise noise;
    pb_dg_likwid likwid;
    pb_dg_latency latency;
} pb_digest;

/* Reads every section the run directory has. */
void pb_digest_run(pb_digest *d, const pb_rundata *rd);

/* The sections, one file each. */
void pb_digest_pool(pb_dg_pool *p, const pb_rundata *rd);
void pb_digest_floor(pb_dg_floor *f, pb_dg_token *tk, const pb_rundata *rd);
void pb_digest_sweep(pb_dg_sweep *s, const pb_rundata *rd);
void pb_digest_kernels(pb_dg_kernels *k, const pb_rundata *rd);
void pb_digest_overlap_util(pb_dg_overlap *o, pb_dg_util *u, const pb_rundata *rd);
void pb_digest_noise(pb_dg_noise *n, const pb_digest *d, const pb_rundata *rd);
void pb_digest_likwid(pb_dg_likwid *l, const pb_rundata *rd);
void pb_digest_latency(pb_dg_latency *l, const pb_rundata *rd);

/* Row r of sweep.csv (c: its columns, pb_dg_cols) as the digest reads a decode point. */
void pb_dg_decode_row(pb_dg_decode *out, const pb_table *t, const int *c, size_t r);

/* Look-ups: NULL when absent. */
const pb_dg_dispatch *pb_dg_find_policy(const pb_dg_pool *p, const char *policy);
const pb_dg_floorpt *pb_dg_floor_at(const pb_dg_floor *f, int threads);

/* Small helpers shared by the digest files. */
void pb_dg_copy(char *dst, const char *src);          /* into a PB_DG_NAME buffer */
int pb_dg_int(const pb_table *t, size_t row, int col); /* a number column as int, -1 when not a number */
/* Where each of kind k's columns is in t, looked up once: col[PB_SWEEP_model] ... (pb_schema_get(k)->ncols
 * entries), -1 for a column t lacks (a CSV from before it). */
void pb_dg_cols(const pb_table *t, pb_kind k, int *col);

#endif
