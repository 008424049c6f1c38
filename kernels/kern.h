/* kern.h — quantized weight formats (ggml byte layouts) and the matvec / matmul kernels that stream them.
 *
 * Formats: kern_format.h's KERN_FORMATS, the one list of them. Every format has a
 * reference quantize/dequantize here, and a dot product per ISA variant: the scalar reference (the oracle
 * every other variant is tested against), AVX2, AVX-512 with VNNI on x86-64 (kernels/x86/), NEON, dotprod
 * (SDOT) and i8mm (SMMLA, for batches) on arm64 (kernels/arm/; kern_isa.h: the ISAs). On arm64 dotprod and
 * i8mm lack f32 and f16, which run NEON's.
 *
 * How a matvec runs:
 *   1. kern_act_init(&a, fmt, cols, batch) once; kern_act_set(&a, x, batch) quantizes the activation rows
 *      ONCE per matvec (q8_0 for q8_0/q4_0/q1_0 weights, q8_K for tq2_0/q4_K/q6_K, f32 kept as is for
 *      f32/f16).
 *   2. A kern_job names the weights, the activation, the output and the variant; kern_job_rows(job, r0, r1)
 *      computes rows r0..r1 for every activation row; it is what the pool calls through pool_rows.
 *   3. kern_matvec / kern_matmul (one thread) and kern_run_pool (threads) wrap the two steps.
 *
 * Bit-exactness: a row's result depends only on (format, variant, weights row, activation row). A variant
 * computes each row with the same instruction sequence whether it handles it alone or in a group of rows
 * (its rows-per-pass), so splitting rows over threads, in any chunks, never changes a bit. Integer parts of
 * the quantized dot products are exact; the float accumulation order differs between variants, so variants
 * agree within a tolerance (tests/kernels/test_kernels_dot.c states it), not bit for bit.
 *
 * Errors: functions return 0, or -1 with errno = EINVAL (bad shape: cols not a multiple of the format's
 * block, zero or too many batch rows, an activation that cannot feed the format (kern_act_feeds) or of
 * another width) or ENOTSUP (an ISA this build or CPU cannot run). Nothing is read or written on an error.
 */
#ifndef KERN_H
#define KERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kern_format.h"
#include "kern_isa.h"
#include "kern_layout.h"
#include "pool.h"

/* ---- block layouts (ggml's, byte for byte) ---- */

typedef uint16_t kern_half; /* IEEE 754 binary16 bits */

#define QK8_0 32
#define QK4_0 32
#define QK1_0 128
#define QK_K 256

/* x = qs[j] * d */
typedef struct block_q8_0 {
    kern_half d;
    int8_t qs[QK8_0];
} block_q8_0;

/* x[j] = ((qs[j] & 15) - 8) * d and x[j + 16] = ((qs[j] >> 4) - 8) * d, j < 16 */
typedef struct block_q4_0 {
    kern_half d;
    uint8_t qs[QK4_0 / 2];
} block_q4_0;

/* bit j = (qs[j / 8] >> (j % 8)) & 1 (least significant bit first); x[j] = bit ? +d : -d; d = mean |x| */
typedef struct block_q1_0 {
    kern_half d;
    uint8_t qs[QK1_0 / 8];
} block_q1_0;

/* Element e = 128*h + 32*l + m (h < 2, l < 4, m < 32) is q = (qs[32*h + m] >> (2*l)) & 3, x = (q - 1) * d:
 * each byte holds four elements 32 apart. d comes after the quants. */
typedef struct block_tq2_0 {
    uint8_t qs[QK_K / 4];
    kern_half d;
} block_tq2_0;

/* Eight sub-blocks of 32 (element e in sub-block e / 32), each with a 6-bit scale sc and a 6-bit min m:
 * x = d * sc * q - dmin * m, q = a nibble. Byte 32c + l of qs holds element 64c + l in its low nibble and
 * 64c + 32 + l in its high one. scales packs the 16 six-bit values (kern_q4_K_scales unpacks them):
 * j < 4: sc = scales[j] & 63, m = scales[j + 4] & 63; j >= 4: the low 4 bits in scales[j + 4] (sc: low
 * nibble, m: high nibble), the top 2 in bits 6-7 of scales[j - 4] (sc) and scales[j] (m). */
typedef struct block_q4_K {
    kern_half d;
    kern_half dmin;
    uint8_t scales[12];
    uint8_t qs[QK_K / 2];
} block_q4_K;

/* Sixteen sub-blocks of 16, each with an int8 scale: x = d * scales[e / 16] * (q - 32), q a 6-bit code. In
 * half h (elements 128h ..), element 128h + 32k + l (k < 4, l < 32) has its low 4 bits in ql[64h + l + 32 *
 * (k & 1)] (low nibble for k < 2, high for k >= 2) and its top 2 bits in bits 2k, 2k + 1 of qh[32h + l]. */
typedef struct block_q6_K {
    uint8_t ql[QK_K / 2];
    uint8_t qh[QK_K / 4];
    int8_t scales[QK_K / 16];
    kern_half d;
} block_q6_K;

/* The activation format of tq2_0's, q4_K's and q6_K's dot products: x = qs[j] * d, bsums[i] = sum of
 * qs[16*i .. 16*i + 15]. */
typedef struct block_q8_K {
    float d;
    int8_t qs[QK_K];
    int16_t bsums[QK_K / 16];
} block_q8_K;

_Static_assert(sizeof(block_q8_0) == 34, "q8_0 block is 34 bytes");
_Static_assert(sizeof(block_q4_0) == 18, "q4_0 block is 18 bytes");
_Static_assert(sizeof(block_q1_0) == 18, "q1_0 block is 18 bytes");
_Static_assert(sizeof(block_tq2_0) == 66, "tq2_0 block is 66 bytes");
_Static_assert(sizeof(block_q8_K) == 292, "q8_K block is 292 bytes");
_Static_assert(sizeof(block_q4_K) == 144, "q4_K block is 144 bytes");
_Static_assert(sizeof(block_q6_K) == 210, "q6_K block is 210 bytes");

/* ---- half precision, portable (no F16C): round to nearest even, overflow to inf, NaN stays NaN ---- */

float kern_half_to_float(kern_half h);
kern_half kern_float_to_half(float f);

/* ---- reference quantization (ggml's algorithms), one row of n values, n a multiple of the block ----
 * A block whose scale would overflow a half stores the largest finite half (65504) and saturates its
 * quants, so no input makes an infinite or NaN scale; an all-zero block stores d = 0 and no NaN. */

/* 0, or -1 (errno = EINVAL) when n is not a multiple of the format's block. */
int kern_quantize_row(kern_format f, const float *x, void *w, size_t n);
int kern_dequantize_row(kern_format f, const void *w, float *x, size_t n);

/* The activation formats. Quants stay within [-127, 127] (never -128): the SIMD kernels rely on it. */
void kern_quantize_row_q8_0(const float *x, block_q8_0 *y, size_t n);
void kern_quantize_row_q8_K(const float *x, block_q8_K *y, size_t n);
void kern_dequantize_row_q8_K(const block_q8_K *y, float *x, size_t n);

/* ---- ISA variants: a kernel variant is the ISA it is written for (kern_isa.h is the seam) ----
 * A variant's table may lack a format: the format then runs with the best variant below it that has it
 * (kern_matvec_isa says which), so asking for a variant the CPU runs never fails for want of a kernel. */

/* The ISA whose matvec kernel runs for format f when want is asked for: want when its table has f, else the
 * first ISA down want's chain that has f (kern_isa_below). KERN_ISA_COUNT when want cannot run on this CPU
 * or f is unknown. What a harness reports as the variant that ran. */
kern_isa kern_matvec_isa(kern_format f, kern_isa want);
/* Whether that kernel (kern_matvec_isa's) prefetches its weights in software: then kern_job.cached runs its twin
 * without the prefetch (the same bits), and the prefetch hint reaches it. A setting a tuner can try: false for the
 * kernels that never prefetch (compute-bound ones, scalar) and for an unknown format or an ISA this CPU lacks. */
bool kern_matvec_prefetches(kern_format f, kern_isa want);

/* ---- activations ---- */

#define KERN_BATCH_MAX 16 /* activation rows a decode step passes over its weights at once (bench_sweep --batch) */
#define KERN_GEMM_MAX 512 /* activation rows one kern_act holds: a prompt's, through the GEMM tiles */

/* An activation of `batch` rows of `cols` values, prepared for one weight format. The quantized forms keep
 * ggml's block layout plus derived arrays the SIMD kernels use so that no per-row work repeats: the quants
 * back to back, the block scales as floats, and minus the sums of the quants per block and per 4 (nsum4[i] =
 * -(q[4i] + .. + q[4i+3])), which seed an unsigned x signed integer dot product (VNNI vpdpbusd) so that an
 * offset added to the weights to make them unsigned cancels exactly. */
typedef struct kern_act {
    kern_format fmt;    /* weight format it feeds */
    size_t cols;        /* values per row */
    size_t cap;         /* rows allocated (1..KERN_GEMM_MAX) */
    size_t batch;       /* rows set by the last kern_act_set */
    kern_isa isa;       /* whose quantizer the last kern_act_set / _set_isa ran (kern_act_isa's answer) */
    float *f32;         /* f32, f16: cap x cols floats */
    block_q8_0 *q8;     /* q8_0, q4_0, q1_0: cap x cols/32 blocks */
    block_q8_K *q8k;    /* tq2_0, q4_K, q6_K: cap x cols/256 blocks */
    int8_t *qs;         /* quantized: the quants back to back, cap x cols (no scales in between) */
    float *scale;       /* quantized: per activation block, its scale as a float */
    int32_t *nsumb;     /* quantized: per activation block, minus the sum of its quants */
    int32_t *nsum4;     /* quantized: cap x cols/4 */
    /* Per-lane forms the SIMD kernels load instead of rebuilding them for every row (q8_0 weights; NULL for
     * the others): seed4[i] = nsum4[i] x 128, the offset the kernels add to the weight quants to make them
     * unsigned, dx4[i] = the scale of the block holding values 4i..4i+3. */
    int32_t *seed4;     /* cap x cols/4 */
    float *dx4;         /* cap x cols/4 */
    /* q8_K activations: each block's quants reordered for 512-bit tq2_0 kernels: 64-byte group l (l < 4)
     * holds quants 32l..32l+31 then 128+32l..128+32l+31, the elements one tq2_0 byte column covers. */
    int8_t *qsp;        /* cap x cols */
    /* q1_0 and q4_0 activations: the quants regrouped for their SIMD kernels, rows padded with zeros to whole
     * 512-value chunks (kern_act_qt_cols).
     * q1_0, for bit planes: 64-byte group s (s < 8) of a chunk holds, for each of its 16 blocks j, quants 8t + s
     * (t < 4) at bytes 4j + t, beside the bit byte 4j + t of a q1_0 row whose bit s they meet.
     * q4_0, as a row's nibbles meet them: in each 128-value group of 4 blocks, bytes 16i..16i+15 of the first 64
     * are block i's first 16 quants (the low nibbles' elements), of the next 64 its last 16. */
    int8_t *qt;         /* cap x kern_act_qt_cols(cols) */
    /* q4_0: per 128-value group, 16 int32 lanes as the sums of those halves come out: lane 4i + k covers quants
     * 4k..4k+3 and 16+4k..16+4k+3 of block i; seedt = -8 x their sum (the nibbles are q + 8), dxt = block i's
     * scale. Zero past the row. */
    int32_t *seedt;     /* cap x kern_act_qt_cols(cols) / 8 */
    float *dxt;         /* cap x kern_act_qt_cols(cols) / 8 */
    /* A repacked layout's tables (kern_repack.h), NULL unless kern_act_use_layout asked for them. q1_0_r32lut:
     * per 4 values 4g..4g+3 of a row, lut[16g + n] = sum over i < 4 of (bit i of n ? q : -q) of quant 4g + i. */
    kern_layout layout; /* the layout the tables serve (file: none) */
    int16_t *lut;       /* q1_0_r32lut: cap x 4 cols */
    /* q1_0_r32lut on a CPU with AVX2: each of lut's tables as the byte planes the 256-bit kernels look up
     * (kern_lut256.h), 16 bytes of L = entry & 31 then 16 of H = (entry >> 5) + 16, built with the tables, once a
     * row rather than once a pass. NULL elsewhere. */
    int8_t *lut256;     /* cap x 8 cols */
    /* q8_K activations readied for q6_K_r1 (kern_act_use_layout; NULL otherwise): each block's quants as that
     * layout's codes lie (kern_repack.h), in each 128-quant half dword 8k + i holding quants 16i + 4k .. + 3. */
    int8_t *q6r1_qs;    /* cap x cols */
    unsigned layouts;   /* bit l: readied for layout l (kern_act_use_layout); the file's needs none. Several at
                         * once where formats share the activation (a q4_K_M mix: q4_K_r16 and q6_K_r16) */
} kern_act;

/* Columns of a row of kern_act.qt: cols rounded up to whole 512-value chunks. */
static inline size_t kern_act_qt_cols(size_t cols)
{
    return (cols + 511) / 512 * 512;
}

/* Allocates for up to cap rows. 0, or -1 with errno EINVAL (cols not a multiple of the block, cap out of
 * 1..KERN_GEMM_MAX, unknown format) or ENOMEM. */
int kern_act_init(kern_act *a, kern_format fmt, size_t cols, size_t cap);
void kern_act_free(kern_act *a);
/* Prepares rows 0..batch-1 from x (batch x cols floats, row-major), quantizing with the chosen ISA's
 * quantizer (kern_isa_chosen: POOLBENCH_ISA, else the fastest this CPU runs; every ISA's quantizer gives
 * the reference's bytes). 0, or -1 (EINVAL: batch out of 1..cap). Values must not be NaN. */
int kern_act_set(kern_act *a, const float *x, size_t batch);
/* The same with a given ISA's quantizer (-1, ENOTSUP when it cannot run here): for tests and A/B runs. */
int kern_act_set_isa(kern_act *a, const float *x, size_t batch, kern_isa isa);
/* The ISA whose activation quantizer runs for weights of format f when want is asked for (want's own, else
 * the first down its chain with one); KERN_ISA_COUNT when want cannot run here or f is unknown. f32 and f16
 * keep their floats: no quantizer, so scalar. */
kern_isa kern_act_isa(kern_format f, kern_isa want);
/* Whether activation a can feed weights of format f: a was prepared for f, or a and f both take q8_K
 * activations (tq2_0, q4_K, q6_K), whose arrays do not depend on the weight format, so one quantized input
 * serves matvecs of different K-quants (a q4_K_M-like mix). q8_0 activations are not shared: seed4 holds
 * the format's offset. */
bool kern_act_feeds(const kern_act *a, kern_format f);
/* The same for two formats: an activation prepared for either feeds the other (false for an unknown one). */
bool kern_act_shared(kern_format a, kern_format b);
/* Columns per activation block for weights of format f: 32 (q8_0 activations), 256 (q8_K), 1 (f32 kept as
 * is); 0 for an unknown format. */
size_t kern_act_block(kern_format f);
/* Prepares only columns c0..c1 of rows 0..batch-1 (x: the full batch x cols rows), with kern_act_set's
 * quantizer and bytes: threads that each produced a slice of the activation can quantize their own slices of
 * one kern_act concurrently (disjoint slices write disjoint bytes). c0 and c1 must be multiples of
 * kern_act_block. Leaves a->batch alone: whoever starts the slices sets it, before, on one thread. 0, or -1
 * with errno EINVAL. */
int kern_act_set_cols(kern_act *a, const float *x, size_t batch, size_t c0, size_t c1);
/* The same by rows: rows m0..m1 whole (x: the full batch's rows), so that threads with disjoint rows of one
 * kern_act quantize them concurrently (a prompt's). Leaves a->batch and a->isa alone. 0, or -1 with errno EINVAL
 * (m1 past the cap). */
int kern_act_set_rows(kern_act *a, const float *x, size_t m0, size_t m1);

/* Software prefetch of a weight stream (public so that a reader of the same pattern, bench_memory_floor's 4-stream
 * kernels, reads exactly as the decode's passes do): the streaming passes (every AVX-512 one; AVX2 and AVX-VNNI
 * f32, f16 and q8_0; not AVX2's q4_0, q1_0, tq2_0 or K-quants, compute-bound on their cores) ask, every step and
 * for each of their rows, for each line kern_prefetch_ahead (KERN_PREFETCH_BYTES by default) ahead of what they
 * read. A pass reads 4 rows a quarter of the call apart, so this keeps 4 x 1.5 KiB (96 lines) in flight per thread,
 * more than the hardware prefetcher keeps on 4 streams (docs/history/kernels.md, streaming). A prefetch past the
 * end of the weights (the last rows of a call) is harmless: a prefetch never faults, and the address is formed as
 * an integer, not as a pointer past its object. */
#define KERN_PREFETCH_BYTES 1536u

/* The hint, chosen once before main from the CPU's vendor (kern_prefetch.c) and only read after: 0 on AMD,
 * non-temporal (locality 0: the weights are read once, so they should not push the activation and the other
 * thread's data out of L2); 1 elsewhere, level 2 (locality 1): on Intel prefetchnta skips L2 and its streamer,
 * which starves the passes (docs/history/kernels.md, streaming: each rule's measurement). */
extern unsigned char kern_prefetch_temporal;

/* The vendor's choice above (what kern_prefetch_temporal held before main), whatever a tuner set since. */
bool kern_prefetch_vendor_temporal(void);
/* Sets the hint for every later streaming pass (a tuner's measured choice, or a wisdom file's: the vendor rule
 * above is a default for a vendor, not a measurement of this CPU). Call only while no kernel runs, from the thread that starts them:
 * a pool dispatch then orders the write before every worker's read. */
void kern_prefetch_set_temporal(bool temporal);
/* The hint's name in the CSVs and wisdom files: "t2" (locality 1) or "nta" (locality 0). */
const char *kern_prefetch_hint_name(bool temporal);

/* The distance every streaming pass prefetches at, in bytes: KERN_PREFETCH_BYTES until a tuner or a wisdom file sets
 * another (kern_prefetch_set_distance; the same rule as the hint's). */
extern unsigned kern_prefetch_ahead;
/* The distances a tuner tries (KERN_PREFETCH_BYTES among them), ascending, 0-terminated: 16 to 48 lines ahead per
 * stream. A wisdom file may only name one of these. */
#define KERN_PREFETCH_NDIST 4
extern const unsigned kern_prefetch_distances[KERN_PREFETCH_NDIST + 1];
/* Sets the distance (one of kern_prefetch_distances) for every later streaming pass: 0, or -1 (errno = EINVAL) for
 * another value, which leaves it unchanged. Call only as kern_prefetch_set_temporal. */
int kern_prefetch_set_distance(unsigned bytes);
/* Whether the streaming passes also ask for the line KERN_PREFETCH_NEAR_BYTES ahead into L1 (locality 3, T0), besides
 * the far one into L2: the far prefetch alone leaves each demand load an L2 hit to wait for. Chosen before main: on
 * x86-64 but AMD's, where it was measured to help, off elsewhere, where it is unmeasured; a tuner or wisdom may set
 * it as the hint. */
#define KERN_PREFETCH_NEAR_BYTES 640u
extern unsigned char kern_prefetch_near;
bool kern_prefetch_vendor_near(void);
void kern_prefetch_set_near(bool near);
/* A streaming setting's name in the CSVs: the hint's ("t2", "nta"), "+l1" with the near prefetch, then "@BYTES"
 * when the distance is not KERN_PREFETCH_BYTES ("t2+l1@3072"). */
const char *kern_prefetch_setting_name(bool temporal, unsigned distance, bool near);

/* The hints a streaming pass's prefetches take, as kern_prefetch_near and kern_prefetch_temporal hold them. A pass
 * inlined once per constant setting holds no branch on them: GCC otherwise copies a loop's blocks across those
 * branches, and scripts/predict_loop.awk can only model the loop's text with both hints' blocks in it. */
typedef struct kern_stream {
    bool near, temporal;
} kern_stream;

/* always_inline: GCC 12 takes a function whose only effects are prefetches for a const one, and where it has not
 * inlined it before that analysis it deletes the calls as dead (bench_memory_floor's 4-stream readers lost every
 * prefetch that way: scripts/check_prefetch.sh checks that they keep them). */
static inline __attribute__((always_inline)) void kern_prefetch_stream_as(const void *p, const kern_stream s)
{
    const void *ahead = (const void *)((uintptr_t)p + kern_prefetch_ahead);
    if (s.near)
        __builtin_prefetch((const void *)((uintptr_t)p + KERN_PREFETCH_NEAR_BYTES), 0, 3);
    if (s.temporal)
        __builtin_prefetch(ahead, 0, 1);
    else
        __builtin_prefetch(ahead, 0, 0);
}

/* The process's setting now (a tuner or wisdom may change it between calls, never during one). */
static inline __attribute__((always_inline)) kern_stream kern_stream_now(void)
{
    return (kern_stream){ .near = kern_prefetch_near, .temporal = kern_prefetch_temporal };
}

/* One line's prefetch with the process's setting, tested where it is called. */
static inline __attribute__((always_inline)) void kern_prefetch_stream(const void *p)
{
    kern_prefetch_stream_as(p, kern_stream_now());
}

/* ---- matvec / matmul ---- */

/* y[m * ldy + r] = dot(weights row r, activation row m) for r < rows and m < act->batch. */
typedef struct kern_job {
    kern_format fmt;
    kern_isa isa;         /* the ISA asked for; a format its table lacks runs with kern_matvec_isa's */
    const void *w;        /* rows x cols weights in fmt, rows back to back (kern_format_matrix_bytes) */
    size_t rows;
    const kern_act *act;  /* prepared for fmt and cols; its batch is M */
    float *y;
    size_t ldy;           /* >= rows when batch > 1 */
    bool cached;          /* the weights are expected in cache: skip the software prefetch that streaming from
                           * memory needs (it only costs instructions there: docs/kernels.md).
                           * Never changes a result bit. Default false: a decode streams its weights. */
    kern_layout layout;   /* how w is laid out: file (default), or a repacked layout (kern_repack.h) */
} kern_job;

/* 0 when the job can run, else -1 with errno (EINVAL; ENOTSUP: the ISA cannot run on this CPU). */
int kern_job_check(const kern_job *job);
/* Rows r0..r1 of a checked job, for every activation row. The weight rows are streamed once: a few rows
 * at a time are kept in L1 while every activation row is applied to them. Signature of pool_rows_fn. */
void kern_job_rows(void *job, size_t r0, size_t r1);
/* One thread: check, then all rows. */
int kern_run(const kern_job *job);
/* Threaded through pool_rows(p, rows, chunk, ...): chunk 0 = static split, k = dynamic claims of k rows.
 * Bit-identical to kern_run. */
int kern_run_pool(pool *p, size_t chunk, const kern_job *job);

/* Convenience for one activation row of floats: quantizes x once with v's quantizer (allocating a kern_act),
 * then runs. -1 with EINVAL when cols is not a multiple of the format's block. */
int kern_matvec(kern_format f, kern_isa v, const void *w, const float *x, float *y, size_t rows,
                size_t cols);
/* As kern_matvec for a batch of M (1..KERN_GEMM_MAX) activation rows x (M x cols); y is M x rows. */
int kern_matmul(kern_format f, kern_isa v, const void *w, const float *x, size_t m, float *y,
                size_t rows, size_t cols);

#endif
