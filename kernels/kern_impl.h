/* kern_impl.h — internals shared by the kernel files: the format traits, the per-ISA kernel tables and the
 * helpers every variant uses to walk an activation. Not part of the public API (kern.h is). */
#ifndef KERN_IMPL_H
#define KERN_IMPL_H

#include "kern.h"

typedef enum kern_act_kind {
    KERN_ACT_F32,  /* the floats as given */
    KERN_ACT_Q8_0, /* q8_0 blocks of 32 */
    KERN_ACT_Q8_K, /* q8_K blocks of 256 */
} kern_act_kind;

/* Per format: the reference conversions and the activation its dot product takes. n is a multiple of the
 * format's block (checked by the public wrappers). */
typedef struct kern_traits {
    void (*quantize)(const float *x, void *w, size_t n);
    void (*dequantize)(const void *w, float *x, size_t n);
    kern_act_kind act;
} kern_traits;

extern const kern_traits kern_traits_table[KERN_FORMAT_COUNT];

/* y[i] = dot(row i, activation row m) for i < n, the rows starting at w, row_bytes apart. A kernel computes
 * each row with the same instructions whatever n is (it may group rows, never change a row's arithmetic),
 * which is what makes threaded results bit-identical. */
typedef void (*kern_rows_fn)(const void *w, size_t row_bytes, size_t n, const kern_act *a, size_t m,
                             float *y);

/* One ISA variant: a kernel per format (NULL = not implemented) and whether this CPU can run it. */
typedef struct kern_isa {
    kern_rows_fn rows[KERN_FORMAT_COUNT];
    int rows_per_pass;
} kern_isa;

extern const kern_isa kern_isa_scalar;
#if defined(__x86_64__)
extern const kern_isa kern_isa_avx2;
extern const kern_isa kern_isa_avx512;
#endif

/* The variant's table; NULL when this build or CPU cannot run it. */
const kern_isa *kern_isa_get(kern_variant v);
/* The same without the CPU check, for hot paths after kern_job_check. */
const kern_isa *kern_isa_unchecked(kern_variant v);

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

/* Activation row m's pieces; per-block arrays have kern_act_blocks entries per row. */
static inline size_t kern_act_blocks(const kern_act *a)
{
    return kern_traits_table[a->fmt].act == KERN_ACT_Q8_K ? a->cols / QK_K : a->cols / QK8_0;
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

static inline const int32_t *kern_act_nsumb(const kern_act *a, size_t m)
{
    return a->nsumb + m * kern_act_blocks(a);
}

static inline const int32_t *kern_act_nsum4(const kern_act *a, size_t m)
{
    return a->nsum4 + m * (a->cols / 4);
}

#endif
