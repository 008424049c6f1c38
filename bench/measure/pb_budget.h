/* pb_budget.h — a decode token's time budget: the median token of a point split into parts that add up to it,
 * each measured on its own in the same point (sweep.csv's budget_<part>_ms, in pb_schema.h's order):
 *
 *   floor        the token's weight and KV bytes at the read floor measured beside the point (the machine's); the
 *                KV bytes alone where the roof binds
 *   roof         where it binds: the matvecs' multiply-adds at the compute roof measured on the point's cpus, when
 *                that takes longer than the weights at the floor (a prompt, a wide batch); else 0
 *   kernel       the matvec slices' mean busy time per thread beyond the binding one of those two: what the kernels
 *                cost over streaming, or over the core's arithmetic (negative where they beat the floor: weights a
 *                cache holds)
 *   quant        activations quantized on the calling thread (fused glue: down's is inside up's slices, and
 *                o's inside q, k, v's when they are split by head: pb_decode.h); a prompt's norms and
 *                quantization run a dispatch over its rows, timed here whole
 *   glue         the other serial glue: norms, residual adds, SiLU, the token's input
 *   attn         attention's time (its serial part and its dispatches, or split by head its threads' time inside
 *                q, k, v's dispatch over the thread count) beyond its KV bytes at the floor
 *   dispatch     matvec dispatches x the cost of one empty dispatch measured on the point's own executor
 *   wait         each matvec dispatch's slowest thread's busy time beyond its threads' mean, summed: the barriers'
 *                wait for it (from the token's totals, busy_max - busy_mean, where a token has no such sum)
 *   unexplained  the token minus all of the above: clock reads and the loop between the timed pieces, a
 *                dispatch costing more in a decode than empty, a worker preempted between its slices
 *
 * No part comes from the token's total: each is its own clock reads (pb_decode's glue_ns, quant_ns, attn_ns,
 * the slices' accounts) or a measurement beside the point (the floor, the dispatch cost), so unexplained says
 * how much of the token the instrument did not see (PB_BUDGET_UNEXPLAINED_PCT). Every part is of the median
 * token: the parts of the token whose time is the median, or, for an even count, the mean of the two middle
 * tokens' (as pb_summarize's median), so they add up to ms_per_token_median exactly. */
#ifndef PB_BUDGET_H
#define PB_BUDGET_H

#include <stddef.h>

#include "pb_schema.h"

/* One timed token, as measured: its time and its pieces. */
typedef struct pb_budget_token {
    double ms;                        /* the token */
    double glue_ms, quant_ms, attn_ms; /* its serial pieces and attention (pb_decode) */
    double busy_mean_ms, busy_max_ms; /* its matvec slices: the threads' mean busy time and the slowest's */
    double wait_ms;                   /* its matvec dispatches' slowest thread beyond their mean, dispatch by dispatch
                                       * (pb_decode's wait_ns); NaN: from the totals, busy_max - busy_mean */
} pb_budget_token;

/* What the parts are held against, measured beside the point. */
typedef struct pb_budget_in {
    double floor_gbps;    /* the read floor through the point's cpus (median) */
    double weight_bytes;  /* one token's (one step's, for a batch) */
    double kv_bytes;
    double calls;         /* matvec dispatches per token (attention's are in its time) */
    double dispatch_ns;   /* one empty dispatch of the point's executor */
    double macs;          /* the matvecs' multiply-adds per token (step) */
    double roof_gmacs;    /* the compute roof on the point's cpus; NaN or 0: not measured (the floor binds) */
} pb_budget_in;

typedef struct pb_budget {
    double token_ms;                /* the median token the parts add up to */
    double ms[PB_BUDGET_NPARTS];    /* indexed by pb_budget_part; NaN throughout when not measured */
} pb_budget;

/* The median token of t[0..n) with its pieces (see the top); every field NaN when n is 0. Sorts a copy. */
pb_budget_token pb_budget_median(const pb_budget_token *t, size_t n);
/* The parts of token t against in. A part that cannot be formed (no floor, no dispatch cost) is NaN, and so
 * is unexplained then. Pure. */
void pb_budget_split(const pb_budget_token *t, const pb_budget_in *in, pb_budget *out);
/* unexplained as a share of the token, in %; NaN when not measured. */
double pb_budget_unexplained_pct(const pb_budget *b);

#endif
