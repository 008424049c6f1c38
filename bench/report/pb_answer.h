/* pb_answer.h — what report.md answers first, computed from a run's CSVs: which sweep points can be trusted; per
 * format the fastest trusted decode point, its budget's biggest loss past the floor and who owns it (the machine
 * or poolbench, with the figure that says so); what to run and what each way of deviating from it costs. From a
 * pb_rundata and its pb_digest into plain structs; pb_report_answers prints them.
 *
 * A point is noisy when its tokens spread more than PB_NOISY_SPREAD, its round trips changed placement (mixed, at
 * two threads or more),
 * its budget left more than PB_BUDGET_UNEXPLAINED_PCT of its token unexplained, or its pinned cpus lost more than
 * PB_STEAL_NOISY_PCT to the hypervisor. The recommendation is the fastest trusted point of the focus format;
 * where every point is noisy, the one whose slowest token was the fastest: what held for every token.
 *
 * Owners of a loss: floor, unexplained: the machine; quant, glue, attn, dispatch: poolbench; kernel: poolbench
 * when the format's best L2 kernel computes slower than a thread's share of the point's floor (it cannot
 * stream), or when its best kernel at DRAM size reads under PB_KERNEL_STREAMS of the read measured beside it (it
 * computes fast enough in cache but does not stream from memory), the machine when it does both (it waits on
 * memory); wait: the machine when the point's cpus lost
 * time to steal, changed placement or were emulated slow, poolbench (its split) otherwise. */
#ifndef PB_ANSWER_H
#define PB_ANSWER_H

#include <stdbool.h>

#include "pb_digest.h"
#include "pb_paired.h"

/* A kernel at DRAM size reading this fraction of the read beside it streams at memory's pace. It is judged against
 * the read of the same moment, not the run's floor, so that the host's drift between the two does not decide the
 * owner. */
#define PB_KERNEL_STREAMS 0.9

typedef enum pb_owner { PB_OWNER_MACHINE, PB_OWNER_POOLBENCH } pb_owner;
extern const char *const pb_owner_names[2]; /* "machine", "poolbench" */

/* One batch-1 sweep point, with its budget and what marks it noisy. */
typedef struct pb_answer_point {
    pb_decode_point d;
    int point, context;                /* sweep.csv's point (-1: the column is absent) and context */
    char kv[PB_DIGEST_NAME];
    double ms_max, spread;             /* slowest token; (max - min) / median */
    double steal_pct;                  /* mean steal of its pinned cpus over its samples (cpu_util.csv); NaN */
    double dispatch_ns;                /* its executor's cost of a dispatch (dispatch_cost_ns); NaN */
    double part[PB_BUDGET_NPARTS];     /* ms; NaN throughout without a budget */
    int prompt;                        /* a prompt point's tokens (its ms_median: the time to first token); 0 */
    double roof_share;                 /* its multiply-adds per step over the compute roof beside it; NaN */
    bool have_budget, noisy;
    char noisy_why[128];               /* "spread 42%, 13% unexplained"; "" when trusted */
} pb_answer_point;

/* The biggest part of a point's budget past the floor, and who owns it. */
typedef struct pb_answer_biggest_loss {
    int part;                          /* a pb_budget_part; -1 without a budget */
    double ms, pct;                    /* and its share of the token, % */
    pb_owner owner;
    char why[512];                     /* the figure behind the owner */
} pb_answer_biggest_loss;

typedef struct pb_answer_format {
    pb_answer_point best;                 /* fastest trusted point (fastest of all when none is trusted) */
    bool trusted;
    pb_answer_biggest_loss loss;
} pb_answer_format;

/* Deviating from the recommended point in one dimension: the best point that differs there only. */
typedef struct pb_answer_dev {
    const char *dim;                   /* "policy", "threads", "core set", "schedule", "glue" */
    pb_answer_point p;
    double pct;                        /* its tok/s against the recommendation's, % (negative: slower) */
    bool paired;                       /* pairs.csv compared the two interleaved: cmp says how they differ */
    pb_paired cmp;                     /* its tok/s over the recommendation's, from the rounds both ran */
    int aside;                         /* rounds left out: the host spoiled one of the two tokens */
} pb_answer_dev;

#define PB_ANS_POINTS 512
#define PB_ANS_DEVS 32
#define PB_ANS_DEVS_PER_DIM 3 /* the first screen's room: the three best other values of each dimension */

typedef struct pb_answers {
    bool have;                         /* sweep.csv had batch-1 points */
    int npoints, nnoisy, nunexplained; /* nunexplained: points whose budget left more than the threshold */
    int nbudget;                       /* points with a budget */
    double steal_max;                  /* the most any point's cpus lost, %; NaN unknown */
    pb_answer_point *pt;                  /* npoints, in CSV order */
    int nfmt;
    pb_answer_format fmt[16];             /* per model x format, in order of first appearance */
    pb_answer_point run;                  /* what to run (focus format) */
    bool run_by_slowest;               /* every focus point was noisy: chosen by its slowest token */
    bool run_by_pairs;                 /* then moved within its block to an alternative paired faster */
    pb_answer_point fastest;              /* the focus format's fastest point, when that is not run */
    bool fastest_differs;
    int ndev;
    pb_answer_dev dev[PB_ANS_DEVS];
    const pb_table *pairs;             /* pairs.csv's rows, when the run has them (the deviations' intervals) */
    double floor_gbps;                 /* the best read floor: memory_floor.csv's best median, else the sweep's */
    int floor_threads;
    bool floor_from_sweep;
    int npp;
    pb_answer_point *pp;               /* the prompt points, in CSV order */
    int nprompt;
    pb_answer_format prompt[16];       /* per model x format, the fastest trusted point of its longest prompt */
    double roof_gmacs;                 /* the best int8 compute roof (roof.csv) at the most threads it measured */
    int roof_threads;
    char roof_isa[32];
} pb_answers;

/* The comparison of p with run from pairs.csv's table t (NULL: none): the tokens of the rounds in which both ran
 * in their shared block (batch 1), a round the host spoiled for either left out and counted in *aside. false
 * when t holds no round of both. */
bool pb_answer_paired(const pb_table *t, const pb_answer_point *run, const pb_answer_point *p, pb_paired *out,
                      int *aside);

/* Moves *p to the alternative of its block that their interleaved rounds show faster beyond doubt (the one whose
 * interval's lower end is highest above 1), as long as there is one. Whether it moved. */
bool pb_answer_pairs_move(const pb_answers *a, pb_answer_point *p);
/* pb_answer_pairs_move on the recommendation. */
bool pb_answer_pairs_best(pb_answers *a);
/* The alternatives of p's block its interleaved rounds cannot tell from it (an interval that holds 1), as what each
 * changes ("hybrid; serial glue") into buf. How many. */
int pb_answer_ties(const pb_answers *a, const pb_answer_point *p, char *buf, size_t len);

/* Computes a's fields from rd and d. 0, or -1 (ENOMEM: a->have false). */
int pb_answers_make(pb_answers *a, const pb_rundata *rd, const pb_digest *d);
void pb_answers_free(pb_answers *a);
/* The biggest loss of p's budget past the floor (a prompt's: past its bound) and its owner (d: the kernels' L2
 * speeds). Where the compute roof binds a decode, the roof's time over the weights' at the floor is one. */
pb_answer_biggest_loss pb_answer_loss(const pb_answer_point *p, const pb_digest *d);
/* For pb_answers_make (pb_answer_run.c): from a's points, the per-format answers, the recommendation and its
 * deviations. */
void pb_answers_formats(pb_answers *a, const pb_digest *d);
/* For pb_answers_make (pb_answer_prompt.c): from a's prompt points, each format's prompt answer and its biggest loss
 * past the bound (the kernel part's owner: poolbench's matmuls, with their share of the roof). */
void pb_answers_prompts(pb_answers *a, const pb_digest *d);

#endif
