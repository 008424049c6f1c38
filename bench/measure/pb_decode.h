/* pb_decode.h — one decode token of a model (a preset on synthetic weights, or a model file's weights:
 * bench/measure/model): every layer's 7 matvecs in order (q, k, v, o, gate, up, down) through an executor's
 * dispatches, attention over the KV cache between v and o (bench/measure/attn: one or two dispatches), with the
 * serial glue between them, then lm_head. What a real engine does for a token:
 *
 *   h = RMSNorm(x)            quantized once per format that reads it, shared by q, k and v (3 dispatches; fused: 1)
 *   q = Wq h, k = Wk h, v = Wv h     (+ biases: qwen2 files)
 *   q, k: RMSNorm per head (qwen3), RoPE at the cache's position; k and v appended to the cache
 *   a = attention of q over the cache's context positions and its own (1 dispatch up to 256 positions, else 2)
 *   x += Wo a
 *   h = RMSNorm(x)            quantized once, shared by gate and up (2 dispatches; fused: 1)
 *   x += Wdown (SiLU(Wgate h) · Wup h)
 *   ... every layer, then logits = Wlm RMSNorm(x)
 *
 * Every matvec keeps its own format (a model file mixes them): each activation is quantized once per format
 * that reads it. The cache holds `context` positions filled once with seeded values (pb_decode_set_context; 0
 * after init), and every token writes its own k and v at position `context`: each token of a point does the
 * same work, and the logits of the last one can be compared bit for bit.
 *
 * A batch of M activation rows runs the same matvecs as matmuls (each weight row streamed once for all M).
 * Weights are synthetic: each row from a seeded generator keyed by (seed, matrix, row), quantized once into
 * one 2 MiB-aligned arena (THP requested) by the executor's threads, so the bits never depend on the thread
 * count, and the memory floor can be read over the very same pages. Outputs are bit-identical for any
 * executor, thread count, schedule and glue mode (the kernels compute a row whole; the glue of a value never
 * depends on who computes it; attention's chunks and merge are fixed by the context alone: pb_attn.h).
 *
 * Glue modes. serial: every line of glue above runs on the calling thread between dispatches, as the simplest
 * engine does. fused: the glue that is row-local runs inside the dispatch that produced its rows, on the thread
 * that computed them: SiLU(gate)·up plus its quantization into down's activation, and the matvecs that read one
 * activation share a dispatch: q, k and v one, gate and up one (a thread takes the same share of each matrix, and
 * the same rows of gate and up, in whole activation blocks, so its gate rows are its own): a dispatch's start and
 * wait cost a core-to-core round trip or two, which two of every five were. What needs a whole row (the norms' sum
 * of squares) and the residual adds stay serial.
 * Serial glue reads the other cores' halves of gate and up where fused mode moves only their quants. Fused,
 * while the key/value heads split evenly over the threads, q, k and v are split by head instead: a thread
 * computes its heads' rows, then their norms, RoPE and attention, and, where its heads are whole blocks of o's
 * activation, quantizes their output into it, so attention needs no dispatch of its own and q, k, v never cross
 * cores (28 fewer dispatches a token on qwen3-0.6b). Otherwise attention's output reaches o's activation
 * serially. */
#ifndef PB_DECODE_H
#define PB_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "kern.h"
#include "pb_attn.h"
#include "pb_kernel_choice.h"
#include "pb_decode_weights.h"
#include "pb_exec.h"
#include "pb_memfloor.h"
#include "pb_model.h"

typedef enum pb_glue_mode { PB_GLUE_SERIAL, PB_GLUE_FUSED, PB_GLUE_MODES } pb_glue_mode;
extern const char *const pb_glue_mode_names[PB_GLUE_MODES + 1]; /* "serial", "fused", NULL */

/* A token's working state for batch rows (1..KERN_BATCH_MAX) and a kernel per format. */
typedef struct pb_decode {
    const pb_decode_weights *w;
    pb_kernel_choice kernel[KERN_FORMAT_COUNT]; /* each format's matvec kernel and its prefetch (pb_kernel_choice.h) */
    size_t batch;  /* activation rows: a decode's sequences, or a prompt's tokens */
    bool prompt;   /* the rows are one prompt's successive positions (pb_decode_init_prompt) */
    size_t logit_rows; /* rows of logits: batch, or a prompt's last row alone */
    float *x;      /* the residual stream, batch x hidden */
    float *h;      /* normed input / matvec output of width hidden */
    float *q;      /* batch x q_dim */
    float *kv;     /* k (batch x kv_dim), then v (the same): appended to the cache */
    float *g, *u;  /* batch x ffn */
    float *logits; /* logit_rows x vocab */
    /* The matvecs' inputs, one per format that reads them (a model file mixes formats; cap 0: none reads it):
     * the normed hidden state (q, k, v, gate, up, lm_head), o's input and down's input. */
    kern_act act_hidden[KERN_FORMAT_COUNT], act_q[KERN_FORMAT_COUNT], act_ffn[KERN_FORMAT_COUNT];
    pb_glue_mode glue;    /* serial after pb_decode_init; the caller may set it between tokens */
    struct pb_fused *jobs; /* every matvec's job, built once per glue mode (a worker then finds each one where
                            * it left it, in its own cache, instead of on the caller's stack) */
    struct pb_step *steps; /* with fused glue, each layer's q, k, v and its gate, up as one dispatch each */
    int jobs_glue;         /* the glue mode jobs were built for; -1 none */
    int mv_dispatches;     /* the last token's matvec dispatches */
    int dispatches;        /* and all of its dispatches, attention's too */
    uint64_t dispatch_ns; /* the last token's time inside dispatches; the rest of the token is serial glue */
    /* The last token's serial pieces, each timed on its own (the token's budget: pb_budget.h): glue_ns the norms'
     * sums, residual adds, SiLU and the input; quant_ns the activations quantized on the calling thread (with fused
     * glue down's input is quantized inside up's dispatch, so in the matvecs' time). The time between the timed
     * pieces (the job checks, the loop, the clock reads) is in none of them. */
    uint64_t glue_ns, quant_ns;
    /* The last token's matvec dispatches' wait for their slowest thread: each dispatch's slowest matvec busy time
     * beyond its threads' mean, summed (a slowest thread that changes between dispatches, as a shared host's
     * preemptions make it, waits more than the token's totals show). wait_prev: each thread's matvec busy ns after
     * the last dispatch (its executor's slices), wait_n of them. */
    uint64_t wait_ns;
    uint64_t *wait_prev;
    int wait_n;
    /* Attention (bench/measure/attn): the cache at `context` positions of kv_type, RoPE at that position. */
    pb_kv_cache cache;
    pb_attn attn;
    pb_rope rope;
    uint64_t attn_ns;     /* the last token's time in attention: q/k norms, RoPE, its dispatches (tagged in the
                           * executor's slices, pb_slices_tag); o's input quantized after it is in quant_ns.
                           * Split by head (fused glue), attention runs inside q, k, v's dispatch: its threads'
                           * time there over the thread count, also in attn_mv_ns */
    uint64_t attn_mv_ns;  /* the part of the matvecs' slices (per thread, mean) that was attention's */
    uint64_t *attn_group_ns; /* split by head: the attention time of each thread's range of heads in the last
                              * dispatch, at the range's first head */
    /* When a format's kernel runs a repacked layout (pb_kernel_choice.layout): its matrices re-laid once at init
     * (kern_repack.h) into one mapping beside the weights' own, in huge pages as the arena; the others are read
     * where they are. NULL when no format is repacked. */
    unsigned char *repacked;
    pb_membuf repacked_buf;  /* the mapping repacked points into */
    uint64_t *repacked_off;  /* per matvec of a repacked format, its matrix's offset in repacked */
    uint64_t repacked_bytes; /* the copy's size: memory the decode holds on top of the weights */
    double repack_ms;        /* what making it took */
    /* The memory a token reads its matrices from, what its floor reads (pb_decode_read_spans): the arena whole when
     * no format is repacked, else each matrix where its job reads it, in matvec order, neighbours merged. */
    pb_memspan *read_spans;
    int read_nspans;
} pb_decode;

/* The cache starts empty (context 0, f16). 0, or -1 with errno (EINVAL: batch out of range, a shape without
 * grouped-query heads (pb_model_attn_ok) or a variant that cannot run a format; ENOMEM). */
int pb_decode_init(pb_decode *d, const pb_decode_weights *w, kern_isa v, size_t batch);
/* The same with each format's kernel chosen (kernel: KERN_FORMAT_COUNT entries, pb_kernel_choice_for's). */
int pb_decode_init_with(pb_decode *d, const pb_decode_weights *w, const pb_kernel_choice *kernel, size_t batch);
/* A prompt of rows tokens (1..KERN_GEMM_MAX) through the same weights and kernels: every matvec a matmul over all
 * rows (the GEMM tiles where the layout has them: kern_repack.h), attention causal over the prompt (pb_attn.h),
 * RoPE and the cache's writes at each row's own position, and lm_head over the last row alone (the next token's
 * logits, as an engine's prompt computes them). Its cache is one sequence of context + rows positions. Fused glue
 * runs SiLU and down's input in up's dispatch as for a decode; q, k and v are never split by head. 0, or -1 with
 * errno as pb_decode_init_with. */
int pb_decode_init_prompt(pb_decode *d, const pb_decode_weights *w, const pb_kernel_choice *kernel, size_t rows);
/* A cache of type holding context positions (seeded from the weights' seed, filled through ex's threads): every
 * later token attends over them and its own position. 0, or -1 with errno (EINVAL: a type that cannot hold the
 * heads; ENOMEM). */
int pb_decode_set_context(pb_decode *d, size_t context, pb_kv_type type, pb_exec *ex);
void pb_decode_free(pb_decode *d);
/* The cache bytes one token reads from memory: a decode's rows each their sequence's positions up to their own; a
 * prompt's the sequence's positions once (every row's re-reads of earlier positions come from cache). */
uint64_t pb_decode_kv_bytes(const pb_decode *d);
/* The memory a token reads its matrices from (d->read_spans, laid end to end: pb_memspan_lay), *n of them. A
 * floor measured over them reads what the token reads: over the whole arena with a repacked format, it would read
 * memory the token never touches, evicting the copy from a large last-level cache between tokens. */
const pb_memspan *pb_decode_read_spans(const pb_decode *d, int *n);

/* One token (a prompt: all of its rows): the input hidden state for `token` (seeded), every matvec and attention
 * through ex, logits in d->logits; d->dispatches says how many dispatches it made. 0, or -1 with errno from a job check. */
int pb_decode_token(pb_decode *d, pb_exec *ex, uint64_t token);
/* Sets the glue mode and builds its jobs now, so that the next token does not (interleaved alternatives switch
 * glue between tokens, and a build inside a timed token would count against the one that switched). */
void pb_decode_set_glue(pb_decode *d, pb_glue_mode glue);

#endif
