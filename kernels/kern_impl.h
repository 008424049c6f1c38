/* kern_impl.h — internals shared by the kernel files: the format traits, the per-ISA kernel tables and the
 * helpers every variant uses to walk an activation. Not part of the public API (kern.h is). */
#ifndef KERN_IMPL_H
#define KERN_IMPL_H

#include <math.h>

#include "kern.h"

typedef enum kern_act_kind {
    KERN_ACT_F32,  /* the floats as given */
    KERN_ACT_Q8_0, /* q8_0 blocks of 32 */
    KERN_ACT_Q8_K, /* q8_K blocks of 256 */
    KERN_ACT_KINDS
} kern_act_kind;

/* The activation kind of every format, from KERN_FORMATS' last field (f32, q8_0, q8_K): written once there. A
 * format naming a kind with no KERN_ACT_OF_ line below does not compile. */
#define KERN_ACT_OF_f32 KERN_ACT_F32
#define KERN_ACT_OF_q8_0 KERN_ACT_Q8_0
#define KERN_ACT_OF_q8_K KERN_ACT_Q8_K
extern const kern_act_kind kern_format_act[KERN_FORMAT_COUNT];

/* Per format: the reference conversions. n is a multiple of the format's block (checked by the public
 * wrappers). */
typedef struct kern_traits {
    void (*quantize)(const float *x, void *w, size_t n);
    void (*dequantize)(const void *w, float *x, size_t n);
    int32_t offset;  /* added to the weight quants by the SIMD kernels to make them unsigned (kern_act.seed4) */
} kern_traits;


extern const kern_traits kern_traits_table[KERN_FORMAT_COUNT];

/* y[i] = dot(row i, activation row m) for i < n, the rows starting at w, row_bytes apart. A kernel computes
 * each row with the same instructions whatever n is (it may group rows, never change a row's arithmetic),
 * which is what makes threaded results bit-identical. */
typedef void (*kern_rows_fn)(const void *w, size_t row_bytes, size_t n, const kern_act *a, size_t m,
                             float *y);

/* Matmul: y[j * ldy + i] = dot(row i, activation row m0 + j) for i < n, j < nm (nm <= KERN_BATCH_STEP),
 * decoding each weight step once for the nm activations. Every (row, activation) pair goes through the same
 * instructions as in the variant's kern_rows_fn, so a matmul row equals the matvec bit for bit. */
typedef void (*kern_batch_fn)(const void *w, size_t rb, size_t n, const kern_act *a, size_t m0, size_t nm,
                              float *y, size_t ldy);
#define KERN_BATCH_STEP 4

/* A format's matmul pass: one weight row against na (1 or KERN_BATCH_STEP) activation rows from m0, into
 * y[j * ldy] for j < na. */
typedef void (*kern_bpass_fn)(const char *row, int na, const kern_act *a, size_t m0, float *y, size_t ldy);

/* kern_batch_fn through a format's pass: each row against the nm activations, KERN_BATCH_STEP of them in one pass
 * where nm is that, else one at a time. Always inlined with a constant bpass, so the pass is inlined in turn with
 * na a constant. */
static inline __attribute__((always_inline)) void kern_batch_in_steps(kern_bpass_fn bpass, const void *w, size_t rb,
                                                                     size_t n, const kern_act *a, size_t m0,
                                                                     size_t nm, float *y, size_t ldy)
{
    for (size_t i = 0; i < n; i++) {
        const char *row = (const char *)w + i * rb;
        if (nm == KERN_BATCH_STEP)
            bpass(row, KERN_BATCH_STEP, a, m0, y + i, ldy);
        else
            for (size_t j = 0; j < nm; j++)
                bpass(row, 1, a, m0 + j, y + j * ldy + i, ldy);
    }
}

/* Quantizes blocks b0..b1 of one activation row x (the whole row: block b reads x + b x block) into row m of
 * a (ggml blocks and the derived arrays). Writes only those blocks' entries, so threads may fill disjoint
 * block ranges of one row. */
typedef void (*kern_act_fn)(kern_act *a, size_t m, const float *x, size_t b0, size_t b1);

/* One ISA's matvec kernels: a kernel per format (NULL = not written: the format falls back down the ISA's
 * chain, kern_table_for), a matmul kernel per format (optional), and its rows per pass. */
typedef struct kern_table {
    kern_isa isa; /* the ISA it is written for: kern_tables[isa] points here (tests/kernels/test_isa.c checks) */
    kern_rows_fn rows[KERN_FORMAT_COUNT];
    /* The same rows without software prefetch, for a job whose weights are in cache (kern_job.cached);
     * NULL: rows[] serves both. Same arithmetic, so the same bits. Set exactly where rows[] prefetches
     * (kern_matvec_prefetches answers from it). */
    kern_rows_fn rows_cached[KERN_FORMAT_COUNT];
    kern_batch_fn batch[KERN_FORMAT_COUNT]; /* NULL: the matmul applies rows[] once per activation row */
    int rows_per_pass;
} kern_table;

/* The rows[] entries of every format but the K-quants, each file's static rows_<format>: the one list of
 * formats the tables share. Each table adds its K-quant kernels after it (x86's from kern_kquant_<isa>.c,
 * arm64's from kern_kquant_arm.h); a table that lacks a format lists its rows itself. */
#define KERN_ROWS_FIRST_SIX                                                                                   \
    [KERN_F32] = rows_f32, [KERN_F16] = rows_f16, [KERN_Q8_0] = rows_q8_0, [KERN_Q4_0] = rows_q4_0,           \
    [KERN_Q1_0] = rows_q1_0, [KERN_TQ2_0] = rows_tq2_0

/* The activation quantizers: the reference (kern_act.c) and the SIMD ones (kern_act_<isa>.c), gathered in
 * kern_act.c's table. */
void kern_act_q8_0_ref(kern_act *a, size_t m, const float *x, size_t b0, size_t b1);
void kern_act_q8_K_ref(kern_act *a, size_t m, const float *x, size_t b0, size_t b1);
#if defined(__x86_64__)
void kern_act_q8_0_avx2(kern_act *a, size_t m, const float *x, size_t b0, size_t b1);
void kern_act_q8_K_avx2(kern_act *a, size_t m, const float *x, size_t b0, size_t b1);
void kern_act_q8_0_avx512(kern_act *a, size_t m, const float *x, size_t b0, size_t b1);
void kern_act_q8_K_avx512(kern_act *a, size_t m, const float *x, size_t b0, size_t b1);
#endif
#if defined(__aarch64__)
void kern_act_q8_0_neon(kern_act *a, size_t m, const float *x, size_t b0, size_t b1);
void kern_act_q8_K_neon(kern_act *a, size_t m, const float *x, size_t b0, size_t b1);
#endif

extern const kern_table kern_table_scalar;
/* The scalar reference's arithmetic on block b of a row of a block format (kern_scalar.c), blk its bytes, against
 * activation row m: the row's running float sum after that block. Its dot products fold it over a row's blocks from
 * 0; a repacked layout's scalar kernel over the blocks it gathers back (kern_repack.c). NULL for f32 and f16. */
typedef float (*kern_scalar_step_fn)(const void *blk, const kern_act *a, size_t m, size_t b, float sum);
extern const kern_scalar_step_fn kern_scalar_steps[KERN_FORMAT_COUNT];
#if defined(__x86_64__)
extern const kern_table kern_table_avx2;
extern const kern_table kern_table_avxvnni;
extern const kern_table kern_table_avx512;
extern const kern_table kern_table_avx512gfni;
#endif
#if defined(__aarch64__)
extern const kern_table kern_table_neon;
extern const kern_table kern_table_dotprod;
extern const kern_table kern_table_i8mm;
#endif

/* ISA isa's own table (no fallback); NULL when this build has none or the CPU cannot run it. */
const kern_table *kern_table_get(kern_isa isa);
/* The table whose rows[f] runs for a job asking for ISA isa: isa's own when it has f, else the best one
 * down isa's chain that has f. No CPU check (the hot path, after kern_job_check); NULL when none has f. */
const kern_table *kern_table_for(kern_format f, kern_isa isa);
/* The same over any tables by ISA (NULL = none): kern_table_for is this over the built ones; tests give
 * tables with holes to see the fallback that no built table needs today. */
const kern_table *kern_table_pick(const kern_table *const tables[KERN_ISA_COUNT], kern_format f, kern_isa isa);

/* The rows driver shared by the SIMD variants. A pass computes ROWS rows side by side, sharing each activation load
 * among them. The rows it takes are a quarter of the call's rows apart (i, i + q, i + 2q, i + 3q), so the weights
 * arrive as four long sequential streams: neighbours (i .. i+3) make short streams the hardware prefetcher learns
 * too late (docs/history/kernels.md); in cache both shapes run alike. The rest (n % ROWS rows) goes one at a
 * time through the same inline pass; a row has the same instructions either way, so no result bit depends on how
 * rows were grouped. pass(w, rs, nr, a, m, y, ys) computes nr rows rs bytes apart from w against activation row m,
 * row r's result into y[r * ys]. */
typedef void kern_pass_fn(const char *w, size_t rs, int nr, const kern_act *a, size_t m, float *y, size_t ys);

static inline __attribute__((always_inline)) void kern_quarter_rows(kern_pass_fn *pass, const int rows, const void *w,
                                                                    size_t rb, size_t n, const kern_act *a, size_t m,
                                                                    float *y)
{
    const char *wr = w;
    size_t q = n / (size_t)rows;
    for (size_t i = 0; i < q; i++)
        pass(wr + i * rb, q * rb, rows, a, m, y + i, q);
    for (size_t i = q * (size_t)rows; i < n; i++)
        pass(wr + i * rb, rb, 1, a, m, y + i, 1);
}

/* rows_NAME, a kern_rows_fn: kern_quarter_rows over pass_NAME, ROWS rows a pass. Inlined, each one compiles to
 * its own loop around its own pass. */
#define KERN_QUARTER_ROWS_FN(name, ROWS)                                                                      \
    static void rows_##name(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y)        \
    {                                                                                                         \
        kern_quarter_rows(pass_##name, (ROWS), w, rb, n, a, m, y);                                            \
    }

/* The 8x8 bit matrix (a qword) with which GFNI's vgf2p8affineqb moves bit field (shift, bits) of every byte to
 * bits to..to+bits-1 and clears the rest: output bit to + i is input bit shift + i (row 7 - (to + i) of the
 * matrix, its byte 7 - (to + i), holds that one bit), the other rows zero. The x86 GFNI kernels' shared rule
 * (kern_subbyte_avx512gfni.c on 512 bits, kern_avx2.h's kern256_field on 256); plain C, for any build. */
static inline uint64_t kern_gf2_field_matrix(int shift, int bits, int to)
{
    uint64_t m = 0;
    for (int i = 0; i < bits; i++)
        m |= (uint64_t)(1u << (shift + i)) << (8 * (7 - (to + i)));
    return m;
}

/* Row r of a pass whose rows are rb bytes apart. */
static inline const char *kern_row_ptr(const char *w, size_t rb, int r)
{
    return w + (size_t)r * rb;
}

/* Half to float, inlined into the scalar loops (kern_half_to_float is this, out of line). */
static inline float kern_h2f(kern_half h)
{
    union {
        uint32_t u;
        float f;
    } v;
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) { /* inf, NaN: keep the payload, NaN stays NaN */
        v.u = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) { /* normal: rebias 15 -> 127 */
        v.u = sign | ((exp + 112u) << 23) | (man << 13);
    } else { /* zero or subnormal: man * 2^-24, exact in a float */
        v.f = (float)man * 0x1p-24f;
        v.u |= sign;
    }
    return v.f;
}

/* ---- scale arithmetic shared by the reference quantizers and the SIMD activation quantizers, so that both
 * give the same bits ---- */

#define KERN_HALF_MAX 65504.0f

/* The smaller of two floats that are not NaN (fminf is a libm call on baseline x86-64). */
static inline float kern_fmin(float a, float b)
{
    return b < a ? b : a;
}

/* The largest |x[j]|; a NaN is skipped. */
static inline float kern_amax(const float *x, int n)
{
    float amax = 0.0f;
    for (int j = 0; j < n; j++)
        amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax;
    return amax;
}

/* x / d as x * (1/d) like ggml, except when 1/d overflows (d below ~2.9e-39): then divide. */
typedef struct kern_inv {
    float d, id;
    bool divide;
} kern_inv;

static inline kern_inv kern_inv_of(float d)
{
    kern_inv s = { .d = d, .id = d != 0.0f ? 1.0f / d : 0.0f };
    s.divide = isinf(s.id);
    return s;
}

static inline float kern_inv_apply(kern_inv s, float x)
{
    return s.divide ? x / s.d : x * s.id;
}

/* q8_0's scale: amax / 127, saturated at the largest half. */
static inline kern_inv kern_q8_0_scale(float amax)
{
    return kern_inv_of(kern_fmin(amax / 127.0f, KERN_HALF_MAX));
}

/* q8_K's scale: amax / 127 (a float, no saturation needed). */
static inline kern_inv kern_q8_K_scale(float amax)
{
    return kern_inv_of(amax / 127.0f);
}

/* roundf (nearest, halves away from zero) clamped to [lo, hi], without a libm call (baseline x86-64 has no
 * rounding instruction). Exact: after the clamp |v| is small, so v - trunc(v) is computed without rounding.
 * NaN gives lo. The SIMD quantizers do the same steps: clamp, truncate, +-1 on a fraction of at least 1/2. */
static inline int kern_round_clamp(float v, int lo, int hi)
{
    if (!(v >= (float)lo))
        return lo;
    if (v > (float)hi)
        return hi;
    int t = (int)v;
    float frac = v - (float)t;
    return t + (frac >= 0.5f) - (frac <= -0.5f);
}

/* Activation row m's pieces; per-block arrays have kern_act_blocks entries per row. */
static inline size_t kern_act_blocks(const kern_act *a)
{
    return kern_format_act[a->fmt] == KERN_ACT_Q8_K ? a->cols / QK_K : a->cols / QK8_0;
}

static inline const float *kern_act_f32(const kern_act *a, size_t m)
{
    return a->f32 + m * a->cols;
}

static inline const block_q8_0 *kern_act_q8(const kern_act *a, size_t m)
{
    return a->q8 + m * (a->cols / QK8_0);
}

static inline const block_q8_K *kern_act_q8k(const kern_act *a, size_t m)
{
    return a->q8k + m * (a->cols / QK_K);
}

static inline const float *kern_act_scale(const kern_act *a, size_t m)
{
    return a->scale + m * kern_act_blocks(a);
}

static inline const int8_t *kern_act_qs(const kern_act *a, size_t m)
{
    return a->qs + m * a->cols;
}

/* q6_K_r1's order within a 128-element half (kern_repack.h): the element at byte p of chunk k (k < 4, 32 bytes),
 * so that 32-bit lane p / 4 of every chunk is sub-block p / 4 of the half. Its codes and its activations' quants
 * (kern_act.q6r1_qs) lie this way alike. */
static inline size_t kern_q6_K_r1_element(size_t k, size_t p)
{
    return 16 * (p / 4) + 4 * k + p % 4;
}

/* Row m's quants as q6_K_r1's kernels read them (kern.h: kern_act.q6r1_qs). */
static inline const int8_t *kern_act_q6r1_qs(const kern_act *a, size_t m)
{
    return a->q6r1_qs + m * a->cols;
}

/* q1_0's transposed quants (kern.h) of block b of a row, qs the row's quants and qt its transposed form: block b is
 * block j = b % 16 of chunk b / 16, its quant 8 t + s at 64 s + 4 j + t. kern_act.c's loop, and the ends of a
 * range the SIMD forms take four blocks at a time. */
static inline void kern_act_transpose_block(const int8_t *qs, int8_t *qt, size_t b)
{
    for (size_t s = 0; s < 8; s++)
        for (size_t t = 0; t < 4; t++)
            qt[b / 16 * 512 + 64 * s + 4 * (b % 16) + t] = qs[b * QK8_0 + 8 * t + s];
}

static inline const int32_t *kern_act_nsumb(const kern_act *a, size_t m)
{
    return a->nsumb + m * kern_act_blocks(a);
}

static inline const int32_t *kern_act_nsum4(const kern_act *a, size_t m)
{
    return a->nsum4 + m * (a->cols / 4);
}

/* Row m of a q8_K activation as the K-quant kernels walk it, block by block: the quants back to back, the
 * blocks (their bsums), the block scales as floats, and how many blocks. */
typedef struct kern_q8_K_row {
    const int8_t *qs;
    const block_q8_K *blk;
    const float *d;
    size_t nb;
} kern_q8_K_row;

static inline kern_q8_K_row kern_q8_K_row_of(const kern_act *a, size_t m)
{
    return (kern_q8_K_row){ kern_act_qs(a, m), kern_act_q8k(a, m), kern_act_scale(a, m), a->cols / QK_K };
}

#endif
