/* pb_decode_impl.h — what pb_decode.c (set-up) and pb_decode_token.c (a token's run) share: the matvec jobs and
 * steps that pb_decode holds pointers to, and where each matvec reads. Not public. */
#ifndef PB_DECODE_IMPL_H
#define PB_DECODE_IMPL_H

#include "pb_decode.h"

/* The matvecs of a layer, in pb_model_matvecs' order. */
enum { MV_Q, MV_K, MV_V, MV_O, MV_GATE, MV_UP, MV_DOWN };

/* A matvec and the row-local glue fused after it (pb_decode.h): on rows r0..r1 of y, for every batch row,
 * y = SiLU(gate) * y when gate is set, then the slice quantized into next when next is set. */
struct pb_fused {
    kern_job job;
    const float *gate; /* batch x job.rows, computed by the previous dispatch */
    kern_act *next;    /* the next matvec's activation (cols = job.rows), its batch set before the dispatch */
    size_t grain;      /* rows are split in multiples of it: fused, the blocks of the activation it fills */
};
typedef struct pb_fused pb_fused;

/* Matvecs that read one activation (q, k, v; gate, up) as one dispatch with fused glue: unit u of units takes of
 * job i (first + i) grain-sized pieces [u grains_i / units, (u + 1) grains_i / units). A layer's q, k, v can also
 * be split by key/value head (layer >= 0): unit g is head g's rows of each, attended where they were computed
 * (pb_heads_rows), its output quantized into o's activation there when next is set. */
enum { PB_STEP_MAX = 3 };
struct pb_step {
    const pb_decode *d;
    int first, n;               /* n 0: no such step (a layer whose heads cannot split its rows) */
    size_t grain[PB_STEP_MAX];  /* job i's rows per grain */
    size_t grains[PB_STEP_MAX]; /* job i's rows in its grains, the last one cut */
    size_t units;               /* the most grains of any */
    size_t unit_rows;           /* the rows a unit stands for in the dispatch: the grain of the job with the most
                                 * grains (by head: q's rows of a head group), so that a dynamic claim of N rows
                                 * takes about N rows of each matrix, as it does of a plain matvec */
    int layer;                  /* split by head: the layer; else -1 */
    kern_act *next;             /* split by head: o's activation when a head group is whole blocks of it */
};
typedef struct pb_step pb_step;

/* The activation matvec i reads: its slot (o reads act_q, down act_ffn, the others act_hidden) by its format. */
kern_act *pb_decode_act(pb_decode *d, int i);
/* Where matrix i's job reads it: the repacked copy for a repacked layout, else the weights' arena. */
const unsigned char *pb_decode_matrix(const pb_decode *d, int i);

#endif
