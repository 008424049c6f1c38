/* kern_act.c — activations: allocation, and quantization once per matvec. The reference path (ggml's
 * quantizer, then the derived arrays) is the oracle; a SIMD variant may quantize instead, and must give the
 * same bytes (tests/kernels/test_kernels_act.c compares every array). kern_act_set uses the chosen ISA's quantizer
 * (kern_isa_chosen: POOLBENCH_ISA, else the fastest this CPU runs), since the activation is quantized on
 * every matvec; POOLBENCH_ISA=scalar quantizes with the reference. */
#include "kern_impl.h"
#include "kern_act_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int fail(int err)
{
    errno = err;
    return -1;
}

int kern_act_init(kern_act *a, kern_format fmt, size_t cols, size_t cap)
{
    memset(a, 0, sizeof *a);
    if (cols == 0 || !kern_format_whole_blocks(fmt, cols) || cap == 0 || cap > KERN_GEMM_MAX)
        return fail(EINVAL);
    a->fmt = fmt;
    a->cols = cols;
    a->cap = cap;
    kern_act_kind kind = kern_format_act[fmt];
    bool ok;
    if (kind == KERN_ACT_F32) {
        ok = (a->f32 = malloc(cap * cols * sizeof(float))) != NULL;
    } else {
        size_t nb = cap * kern_act_blocks(a);
        if (kind == KERN_ACT_Q8_0)
            a->q8 = malloc(nb * sizeof(block_q8_0));
        else
            a->q8k = malloc(nb * sizeof(block_q8_K));
        a->qs = malloc(cap * cols);
        a->scale = malloc(nb * sizeof(float));
        a->nsumb = malloc(nb * sizeof(int32_t));
        a->nsum4 = malloc(cap * (cols / 4) * sizeof(int32_t));
        if (fmt == KERN_Q8_0) {
            a->seed4 = malloc(cap * (cols / 4) * sizeof(int32_t));
            a->dx4 = malloc(cap * (cols / 4) * sizeof(float));
        }
        if (kind == KERN_ACT_Q8_0) {
            /* zeroed: a row's padding to its last whole chunk stays 0 (kern.h) */
            if (fmt == KERN_Q1_0 || fmt == KERN_Q4_0)
                a->qt = calloc(cap, kern_act_qt_cols(cols));
            if (fmt == KERN_Q4_0) {
                a->seedt = calloc(cap * kern_act_qt_cols(cols) / 8, sizeof(int32_t));
                a->dxt = calloc(cap * kern_act_qt_cols(cols) / 8, sizeof(float));
            }
        } else {
            a->qsp = malloc(cap * cols);
        }
        ok = a->qs && a->scale && a->nsumb && a->nsum4 && (a->q8 || (a->q8k && a->qsp)) &&
             (fmt != KERN_Q8_0 || (a->seed4 && a->dx4)) &&
             (fmt != KERN_Q1_0 || a->qt) && (fmt != KERN_Q4_0 || (a->qt && a->seedt && a->dxt));
    }
    if (!ok) {
        kern_act_free(a);
        return fail(ENOMEM);
    }
    return 0;
}

void kern_act_free(kern_act *a)
{
    void *const held[] = { a->f32, a->q8, a->q8k, a->qs, a->scale, a->nsumb, a->nsum4,
                           a->seed4, a->dx4, a->qsp, a->qt, a->seedt, a->dxt, a->lut, a->lut256, a->q6r1_qs };
    for (size_t i = 0; i < sizeof held / sizeof *held; i++)
        free(held[i]);
    memset(a, 0, sizeof *a);
}

/* The derived arrays of block b of row m (n quants q with scale): the copy into qs, scale, nsum4, nsumb. */
static void set_derived(kern_act *a, size_t m, size_t b, size_t n, const int8_t *q, float scale)
{
    size_t nb = kern_act_blocks(a);
    memcpy(a->qs + m * a->cols + b * n, q, n);
    a->scale[m * nb + b] = scale;
    int32_t *nsum4 = a->nsum4 + m * (a->cols / 4) + b * (n / 4);
    int32_t sum = 0;
    for (size_t i = 0; i < n / 4; i++) {
        nsum4[i] = -(q[4 * i] + q[4 * i + 1] + q[4 * i + 2] + q[4 * i + 3]);
        sum += nsum4[i];
    }
    a->nsumb[m * nb + b] = sum;
}

void kern_act_q8_0_ref(kern_act *a, size_t m, const float *x, size_t b0, size_t b1)
{
    block_q8_0 *q = a->q8 + m * (a->cols / QK8_0);
    kern_quantize_row_q8_0(x + b0 * QK8_0, q + b0, (b1 - b0) * QK8_0); /* ggml's quantizer is block by block */
    for (size_t b = b0; b < b1; b++)
        set_derived(a, m, b, QK8_0, q[b].qs, kern_h2f(q[b].d));
}

void kern_act_q8_K_ref(kern_act *a, size_t m, const float *x, size_t b0, size_t b1)
{
    block_q8_K *q = a->q8k + m * (a->cols / QK_K);
    kern_quantize_row_q8_K(x + b0 * QK_K, q + b0, (b1 - b0) * QK_K);
    for (size_t b = b0; b < b1; b++)
        set_derived(a, m, b, QK_K, q[b].qs, q[b].d);
}

/* A SIMD builder of one derived array over a span of row m (blocks or 4-value groups from..to): the same bytes as
 * its portable loop below. */
typedef void act_span_fn(kern_act *a, size_t m, size_t from, size_t to);

/* q1_0's transposed quants and q1_0_r32lut's tables, per ISA (NULL: none there). */
static act_span_fn *const act_transposers[KERN_ISA_COUNT] = {
    [KERN_ISA_SCALAR] = NULL, /* the portable loop; named, so that a build without SIMD builders has an entry */
#if defined(__x86_64__)
    [KERN_ISA_AVX2] = kern_act_transposed_avx2,
#endif
};
static act_span_fn *const act_tablers[KERN_ISA_COUNT] = {
    [KERN_ISA_SCALAR] = NULL,
#if defined(__x86_64__)
    [KERN_ISA_AVX2] = kern_act_tables_avx2,
    [KERN_ISA_AVX512] = kern_act_tables_avx512, /* integers: the same bytes as the loop */
#endif
};

/* isa's builder in t, else the first down its chain's (as act_pick's quantizers); NULL: the portable loop. */
static act_span_fn *act_span_pick(act_span_fn *const t[KERN_ISA_COUNT], kern_isa isa)
{
    for (; (unsigned)isa < KERN_ISA_COUNT; isa = kern_isa_below(isa))
        if (t[isa])
            return t[isa];
    return NULL;
}

/* q1_0's transposed quants of blocks b0..b1 of row m (kern.h), by isa's builder where its chain has one. */
static void set_transposed(kern_act *a, size_t m, size_t b0, size_t b1, kern_isa isa)
{
    act_span_fn *simd = act_span_pick(act_transposers, isa);
    if (simd) {
        simd(a, m, b0, b1);
        return;
    }
    const int8_t *qs = a->qs + m * a->cols;
    int8_t *qt = a->qt + m * kern_act_qt_cols(a->cols);
    for (size_t b = b0; b < b1; b++)
        kern_act_transpose_block(qs, qt, b);
}

/* q4_0's regrouped quants and lanes of blocks b0..b1 of row m (kern.h): block b is block i = b % 4 of group
 * b / 4. */
static void set_grouped(kern_act *a, size_t m, size_t b0, size_t b1)
{
    size_t qc = kern_act_qt_cols(a->cols);
    const int8_t *qs = a->qs + m * a->cols;
    const int32_t *nsum4 = a->nsum4 + m * (a->cols / 4);
    for (size_t b = b0; b < b1; b++) {
        size_t g = b / 4, i = b % 4, lane = m * (qc / 8) + 16 * g + 4 * i;
        memcpy(a->qt + m * qc + 128 * g + 16 * i, qs + b * QK8_0, 16);
        memcpy(a->qt + m * qc + 128 * g + 64 + 16 * i, qs + b * QK8_0 + 16, 16);
        for (size_t k = 0; k < 4; k++) {
            a->seedt[lane + k] = 8 * (nsum4[8 * b + k] + nsum4[8 * b + 4 + k]); /* nsum4: minus the sums */
            a->dxt[lane + k] = a->scale[m * (a->cols / QK8_0) + b];
        }
    }
}

/* The q1_0_r32lut tables of blocks b0..b1 of row m (kern_act.lut): entry n of a group of 4 quants is the sum of
 * +-quant i, + where bit i of n is set. Built by the best of isa's chain that has a builder (the same bytes). */
static void act_tables_int16(kern_act *a, size_t m, size_t b0, size_t b1, kern_isa isa)
{
    act_span_fn *simd = act_span_pick(act_tablers, isa);
    if (simd) {
        simd(a, m, b0 * (QK8_0 / 4), b1 * (QK8_0 / 4));
        return;
    }
    const int8_t *q = kern_act_qs(a, m);
    int16_t *t = a->lut + m * a->cols * 4;
    for (size_t g = b0 * (QK8_0 / 4); g < b1 * (QK8_0 / 4); g++) {
        int16_t *e = t + 16 * g;
        const int8_t *x = q + 4 * g;
        e[0] = (int16_t)(-x[0] - x[1] - x[2] - x[3]);
        for (int i = 0; i < 4; i++) /* setting bit i turns -x[i] into +x[i] */
            for (int n = 0; n < (1 << i); n++)
                e[n | (1 << i)] = (int16_t)(e[n] + 2 * x[i]);
    }
}

/* The tables of blocks b0..b1 of row m, then where the 256-bit kernels read them (kern_act.lut256) their planes. */
static void act_tables(kern_act *a, size_t m, size_t b0, size_t b1, kern_isa isa)
{
    act_tables_int16(a, m, b0, b1, isa);
#if defined(__x86_64__)
    if (a->lut256)
        kern_act_planes_avx2(a, m, b0 * (QK8_0 / 4), b1 * (QK8_0 / 4));
#endif
}

/* q6_K_r1's quants of blocks b0..b1 of row m (kern.h): each half's in its codes' order, four at a time (a dword
 * of a chunk holds four consecutive elements). */
static void set_q6r1(kern_act *a, size_t m, size_t b0, size_t b1)
{
    const int8_t *qs = a->qs + m * a->cols;
    int8_t *to = a->q6r1_qs + m * a->cols;
    for (size_t h = 2 * b0; h < 2 * b1; h++) /* h: a 128-quant half */
        for (size_t k = 0; k < 4; k++)
            for (size_t p = 0; p < 32; p += 4)
                memcpy(to + 128 * h + 32 * k + p, qs + 128 * h + kern_q6_K_r1_element(k, p), 4);
}

/* The per-lane forms of blocks b0..b1 of row m (kern.h), from what the quantizer wrote: shared by every variant,
 * with isa's SIMD form where one exists (q1_0's transposed quants and tables), the same bytes either way. */
static void set_lanes(kern_act *a, size_t m, size_t b0, size_t b1, kern_isa isa)
{
    if (a->fmt == KERN_Q1_0)
        set_transposed(a, m, b0, b1, isa);
    if (a->fmt == KERN_Q4_0)
        set_grouped(a, m, b0, b1);
    if (a->lut)
        act_tables(a, m, b0, b1, isa);
    size_t n4 = a->cols / 4;
    if (a->seed4) {
        const int32_t *nsum4 = a->nsum4 + m * n4;
        const float *scale = a->scale + m * (a->cols / QK8_0);
        int32_t offset = kern_traits_table[a->fmt].offset;
        for (size_t i = b0 * (QK8_0 / 4); i < b1 * (QK8_0 / 4); i++) {
            a->seed4[m * n4 + i] = nsum4[i] * offset;
            a->dx4[m * n4 + i] = scale[i / (QK8_0 / 4)];
        }
    } else if (a->qsp) {
        const int8_t *qs = a->qs + m * a->cols;
        int8_t *qsp = a->qsp + m * a->cols;
        for (size_t b = b0; b < b1; b++)
            for (int l = 0; l < 4; l++) {
                memcpy(qsp + b * QK_K + 64 * l, qs + b * QK_K + 32 * l, 32);
                memcpy(qsp + b * QK_K + 64 * l + 32, qs + b * QK_K + 128 + 32 * l, 32);
            }
    }
    if (a->q6r1_qs)
        set_q6r1(a, m, b0, b1);
}

/* The quantizers per ISA and activation kind: the one table kern_act_set reads. A row per ISA; NULL where
 * that ISA has none, so the kind falls back down the ISA's chain. f32 activations are copied, not quantized. */
static const kern_act_fn act_quantizers[KERN_ISA_COUNT][KERN_ACT_KINDS] = {
    [KERN_ISA_SCALAR] = { [KERN_ACT_Q8_0] = kern_act_q8_0_ref, [KERN_ACT_Q8_K] = kern_act_q8_K_ref },
#if defined(__x86_64__)
    [KERN_ISA_AVX2] = { [KERN_ACT_Q8_0] = kern_act_q8_0_avx2, [KERN_ACT_Q8_K] = kern_act_q8_K_avx2 },
    [KERN_ISA_AVX512] = { [KERN_ACT_Q8_0] = kern_act_q8_0_avx512, [KERN_ACT_Q8_K] = kern_act_q8_K_avx512 },
#endif
#if defined(__aarch64__) /* dotprod and i8mm have nothing to add: they run NEON's */
    [KERN_ISA_NEON] = { [KERN_ACT_Q8_0] = kern_act_q8_0_neon, [KERN_ACT_Q8_K] = kern_act_q8_K_neon },
#endif
};

/* The ISA whose quantizer of a (quantized) kind runs when isa is asked for: isa's own, else down its chain. */
static kern_isa act_pick(kern_act_kind kind, kern_isa isa)
{
    while ((unsigned)isa < KERN_ISA_COUNT && !act_quantizers[isa][kind])
        isa = kern_isa_below(isa);
    return isa;
}

kern_isa kern_act_isa(kern_format f, kern_isa want)
{
    if (!kern_format_get(f) || !kern_isa_supported(want))
        return KERN_ISA_COUNT;
    kern_act_kind kind = kern_format_act[f];
    return kind == KERN_ACT_F32 ? KERN_ISA_SCALAR : act_pick(kind, want);
}

/* Columns c0..c1 (block multiples, checked by the callers) of rows m0..m1 with isa's quantizer. */
static int set_block(kern_act *a, const float *x, size_t m0, size_t m1, size_t c0, size_t c1, kern_isa isa)
{
    if (!kern_isa_supported(isa))
        return fail(ENOTSUP);
    kern_act_kind kind = kern_format_act[a->fmt];
    size_t blk = kern_act_block(a->fmt);
    for (size_t m = m0; m < m1; m++) {
        if (kind == KERN_ACT_F32) {
            memcpy(a->f32 + m * a->cols + c0, x + m * a->cols + c0, (c1 - c0) * sizeof(float));
        } else {
            /* Scalar has every kind, so the pick always finds a quantizer. */
            act_quantizers[act_pick(kind, isa)][kind](a, m, x + m * a->cols, c0 / blk, c1 / blk);
            set_lanes(a, m, c0 / blk, c1 / blk, isa);
        }
    }
    return 0;
}

static int set_cols(kern_act *a, const float *x, size_t batch, size_t c0, size_t c1, kern_isa isa)
{
    return set_block(a, x, 0, batch, c0, c1, isa);
}

int kern_act_set_isa(kern_act *a, const float *x, size_t batch, kern_isa isa)
{
    if (batch == 0 || batch > a->cap)
        return fail(EINVAL);
    if (set_cols(a, x, batch, 0, a->cols, isa) != 0)
        return -1;
    /* Stored only on a change: the struct's line then stays shared in the cache of every thread that reads
     * this activation, where a store on every matvec would send each of them back to this core for it. */
    if (a->batch != batch)
        a->batch = batch;
    kern_isa ran = kern_act_isa(a->fmt, isa);
    if (a->isa != ran)
        a->isa = ran;
    return 0;
}

int kern_act_set(kern_act *a, const float *x, size_t batch)
{
    return kern_act_set_isa(a, x, batch, kern_isa_chosen());
}

size_t kern_act_block(kern_format f)
{
    const kern_format_info *fi = kern_format_get(f);
    if (!fi)
        return 0;
    switch (kern_format_act[f]) {
    case KERN_ACT_Q8_0:
        return QK8_0;
    case KERN_ACT_Q8_K:
        return QK_K;
    default:
        return 1;
    }
}

int kern_act_set_cols(kern_act *a, const float *x, size_t batch, size_t c0, size_t c1)
{
    size_t blk = kern_act_block(a->fmt);
    if (batch == 0 || batch > a->cap || c0 > c1 || c1 > a->cols || c0 % blk != 0 || c1 % blk != 0)
        return fail(EINVAL);
    return set_cols(a, x, batch, c0, c1, kern_isa_chosen());
}

int kern_act_set_rows(kern_act *a, const float *x, size_t m0, size_t m1)
{
    if (m0 > m1 || m1 > a->cap)
        return fail(EINVAL);
    return set_block(a, x, m0, m1, 0, a->cols, kern_isa_chosen());
}

bool kern_act_shared(kern_format a, kern_format b)
{
    if (!kern_format_get(a) || !kern_format_get(b))
        return false;
    return a == b || (kern_format_act[a] == KERN_ACT_Q8_K && kern_format_act[b] == KERN_ACT_Q8_K);
}

bool kern_act_feeds(const kern_act *a, kern_format f)
{
    return kern_act_shared(a->fmt, f);
}
