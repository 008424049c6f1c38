/* kern_act_impl.h — the activation row driver the SIMD quantizers share (kern_act_<isa>.c). Not public.
 *
 * Each ISA file writes the two per-block steps with its intrinsics — amax (the block's largest |x|) and
 * quant (the quants, minus their sums per 4; returns minus the block's sum) — and defines its
 * kern_act_q8_0_<isa> / kern_act_q8_K_<isa> as one call to the driver below with them. The driver is always
 * inlined, so in that file the steps are direct calls the compiler inlines with the file's -m flags: the same
 * code the drivers' former macro expanded to. Per block: the scale from the reference's rule
 * (kern_impl.h), the quants in ggml's block and in the back-to-back copy, the scale as the kernels read it;
 * q8_K also fills bsums from the sums per 4. */
#ifndef KERN_ACT_IMPL_H
#define KERN_ACT_IMPL_H

#include <string.h>

#include "kern_impl.h"

#if defined(__x86_64__)
/* kern_act.c's q1_0_r32lut tables g0..g1 (4 values each) of row m with AVX-512 VNNI (kern_act_avx512.c) or AVX2
 * (kern_act_avx2.c): the same bytes as its loop. */
void kern_act_tables_avx512(kern_act *a, size_t m, size_t g0, size_t g1);
void kern_act_tables_avx2(kern_act *a, size_t m, size_t g0, size_t g1);
/* kern_act.c's q1_0 transposed quants of blocks b0..b1 of row m with AVX2 (kern_act_avx2.c): the same bytes. */
void kern_act_transposed_avx2(kern_act *a, size_t m, size_t b0, size_t b1);
/* Tables g0..g1 of row m (kern_act.lut, built) as kern_act.lut256's planes, with AVX2 (kern_act_avx2.c). */
void kern_act_planes_avx2(kern_act *a, size_t m, size_t g0, size_t g1);

/* Byte i of entry n's 4: 2 x bit i of n, the unsigned side of the products that make entry n of a table from its
 * 4 quants (the tables' builders). */
static const uint8_t kern_act_sign_bytes[64] = {
    0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 0, 0, 2, 0, 2, 0, 2, 0, 0, 2, 2, 0, 2, 2, 2, 0,
    0, 0, 0, 2, 2, 0, 0, 2, 0, 2, 0, 2, 2, 2, 0, 2, 0, 0, 2, 2, 2, 0, 2, 2, 0, 2, 2, 2, 2, 2, 2, 2,
};
#endif

typedef float (*kern_amax_fn)(const float *x, int n);
typedef int32_t (*kern_quant_fn)(const float *x, int n, kern_inv s, int8_t *q, int32_t *nsum4);

#define KERN_ACT_INLINE static inline __attribute__((always_inline))

/* ggml's q8_0 block from the block's quants and scale; returns the scale as the kernels read it (the half's
 * value). */
static inline float kern_act_store_q8_0(block_q8_0 *blk, kern_inv s, const int8_t *q)
{
    blk->d = kern_float_to_half(s.d);
    memcpy(blk->qs, q, QK8_0);
    return kern_h2f(blk->d);
}

/* ggml's q8_K block, its bsums from the minus sums per 4; returns the scale (a float: as it is). */
static inline float kern_act_store_q8_K(block_q8_K *blk, kern_inv s, const int8_t *q, const int32_t *n4)
{
    blk->d = s.d;
    memcpy(blk->qs, q, QK_K);
    for (int i = 0; i < QK_K / 16; i++)
        blk->bsums[i] = (int16_t)-(n4[4 * i] + n4[4 * i + 1] + n4[4 * i + 2] + n4[4 * i + 3]);
    return s.d;
}

/* Blocks whose maxima and scales the row driver finds before it quantizes any of them: each block's chain (its
 * maximum, a horizontal max, two divisions, then its quants) is long and its own, so eight of them side by side
 * keep the core busy where one after another waited on each. */
#define KERN_ACT_SCALE_STEP 8

/* Blocks b0..b1 of row m, blocks of qk values (QK8_0 or QK_K: a constant where this is inlined, so each
 * expansion keeps one kind's code only). Each block's bytes are what they would be alone: only the order of
 * independent steps changes. */
KERN_ACT_INLINE void kern_act_quant_rows(kern_act *a, size_t m, const float *x, size_t b0, size_t b1, int qk,
                                     kern_amax_fn amax, kern_quant_fn quant)
{
    size_t nb = a->cols / (size_t)qk;
    int8_t *qs = a->qs + m * a->cols;
    int32_t *nsum4 = a->nsum4 + m * (a->cols / 4);
    for (size_t b = b0; b < b1; b += KERN_ACT_SCALE_STEP) {
        size_t n = b1 - b < KERN_ACT_SCALE_STEP ? b1 - b : KERN_ACT_SCALE_STEP;
        kern_inv s[KERN_ACT_SCALE_STEP];
        for (size_t i = 0; i < n; i++) {
            float amx = amax(x + (b + i) * (size_t)qk, qk);
            s[i] = qk == QK8_0 ? kern_q8_0_scale(amx) : kern_q8_K_scale(amx);
        }
        for (size_t i = 0; i < n; i++) {
            size_t k = b + i;
            int8_t *q = qs + k * (size_t)qk;
            int32_t *n4 = nsum4 + k * (size_t)(qk / 4);
            a->nsumb[m * nb + k] = quant(x + k * (size_t)qk, qk, s[i], q, n4);
            a->scale[m * nb + k] = qk == QK8_0 ? kern_act_store_q8_0(a->q8 + m * nb + k, s[i], q)
                                               : kern_act_store_q8_K(a->q8k + m * nb + k, s[i], q, n4);
        }
    }
}

/* An ISA's two quantizers, kern_act_q8_0_ISA and kern_act_q8_K_ISA (kern_impl.h declares them): the row driver
 * above with the file's steps, which every SIMD file names amax_of and quant_block. */
#define KERN_ACT_QUANTIZERS(isa)                                                                              \
    void kern_act_q8_0_##isa(kern_act *a, size_t m, const float *x, size_t b0, size_t b1)                     \
    {                                                                                                         \
        kern_act_quant_rows(a, m, x, b0, b1, QK8_0, amax_of, quant_block);                                    \
    }                                                                                                         \
    void kern_act_q8_K_##isa(kern_act *a, size_t m, const float *x, size_t b0, size_t b1)                     \
    {                                                                                                         \
        kern_act_quant_rows(a, m, x, b0, b1, QK_K, amax_of, quant_block);                                     \
    }

#endif
