/* test_kernels_layout.c — the formats are ggml's byte for byte: half conversion, hand-built blocks that
 * dequantize to known values, and quantize -> dequantize round trips within each format's stated bound. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include "kern_kquant.h"
#include "kern_test_util.h"

/* ---- half precision ---- */

Test(kern_half, every_half_round_trips)
{
    for (uint32_t h = 0; h < 0x10000; h++) {
        float f = kern_half_to_float((kern_half)h);
        bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
        if (nan) {
            cr_assert(isnan(f), "half 0x%04x is a NaN", h);
            cr_assert(isnan(kern_half_to_float(kern_float_to_half(f))));
        } else {
            cr_assert_eq(kern_float_to_half(f), h, "half 0x%04x -> %g -> 0x%04x", h, f, kern_float_to_half(f));
        }
    }
}

Test(kern_half, known_values_and_rounding)
{
    cr_assert_eq(kern_float_to_half(1.0f), 0x3c00);
    cr_assert_eq(kern_float_to_half(-2.0f), 0xc000);
    cr_assert_eq(kern_float_to_half(65504.0f), 0x7bff);
    cr_assert_eq(kern_float_to_half(65519.0f), 0x7bff, "below the midpoint to inf");
    cr_assert_eq(kern_float_to_half(65520.0f), 0x7c00, "the midpoint ties away to inf (even)");
    cr_assert_eq(kern_float_to_half(1.0f + 0x1p-11f), 0x3c00, "tie to even (down)");
    cr_assert_eq(kern_float_to_half(1.0f + 3 * 0x1p-11f), 0x3c02, "tie to even (up)");
    cr_assert_eq(kern_float_to_half(0x1p-24f), 0x0001, "smallest subnormal");
    cr_assert_eq(kern_float_to_half(0x1p-25f), 0x0000, "half of it ties to zero");
    cr_assert_eq(kern_float_to_half(0x1.000002p-25f), 0x0001);
    cr_assert_eq(kern_float_to_half(0x1p-14f - 0x1p-25f), 0x0400, "rounds up into the smallest normal");
    cr_assert_eq(kern_float_to_half(1e-40f), 0x0000, "a float subnormal is zero");
    cr_assert_eq(kern_float_to_half(-0.0f), 0x8000);
    cr_assert_eq(kern_float_to_half(INFINITY), 0x7c00);
    cr_assert_eq(kern_half_to_float(0x0001), 0x1p-24f);
    cr_assert_eq(kern_half_to_float(0x7c00), INFINITY);
}

/* The hardware's conversions, both round to nearest even: F16C on x86-64 (where the CPU has it), FCVT on every
 * arm64 CPU. */
#if defined(__x86_64__)
__attribute__((target("f16c"))) static kern_half hw_to_half(float f)
{
    return (kern_half)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
}

__attribute__((target("f16c"))) static float hw_to_float(kern_half h)
{
    return _cvtsh_ss(h);
}

static bool hw_half(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("f16c");
}
#elif defined(__aarch64__)
static kern_half hw_to_half(float f)
{
    return vget_lane_u16(vreinterpret_u16_f16(vcvt_f16_f32(vdupq_n_f32(f))), 0);
}

static float hw_to_float(kern_half h)
{
    return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(h))), 0);
}

static bool hw_half(void)
{
    return true;
}
#endif

#if defined(__x86_64__) || defined(__aarch64__)
Test(kern_half, agrees_with_f16c)
{
    if (!hw_half())
        cr_skip_test("no F16C on this CPU");
    for (uint64_t u = 0; u < 0x100000000ull; u += 4099) { /* about a million floats over every exponent */
        uint32_t bits = (uint32_t)u;
        float f;
        memcpy(&f, &bits, sizeof f);
        if (isnan(f))
            continue;
        cr_assert_eq(kern_float_to_half(f), hw_to_half(f), "float 0x%08x", bits);
    }
    for (uint32_t h = 0; h < 0x10000; h++) {
        float a = kern_half_to_float((kern_half)h), b = hw_to_float((kern_half)h);
        cr_assert(memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b)), "half 0x%04x", h);
    }
}
#endif

/* ---- hand-built blocks ---- */

static void dequant(kern_format f, const void *blk, float *out, size_t n)
{
    cr_assert_eq(kern_dequantize_row(f, blk, out, n), 0);
}

Test(kern_layout, offsets)
{
    cr_assert_eq(offsetof(block_q8_0, qs), 2);
    cr_assert_eq(offsetof(block_q4_0, qs), 2);
    cr_assert_eq(offsetof(block_q1_0, qs), 2);
    cr_assert_eq(offsetof(block_tq2_0, d), 64, "tq2_0's scale trails its quants");
    cr_assert_eq(offsetof(block_q8_K, qs), 4);
    cr_assert_eq(offsetof(block_q8_K, bsums), 260);
}

Test(kern_layout, q8_0)
{
    uint8_t raw[34];
    raw[0] = 0x00; /* d = 0.5 = half 0x3800, little endian */
    raw[1] = 0x38;
    for (int j = 0; j < 32; j++)
        raw[2 + j] = (uint8_t)(int8_t)(j - 16);
    float x[32];
    dequant(KERN_Q8_0, raw, x, 32);
    for (int j = 0; j < 32; j++)
        cr_assert_eq(x[j], (float)(j - 16) * 0.5f, "element %d", j);
}

Test(kern_layout, q4_0_low_nibble_is_j_high_is_j_plus_16)
{
    uint8_t raw[18] = { 0x00, 0x40 }; /* d = 2.0 */
    for (int j = 0; j < 16; j++)
        raw[2 + j] = (uint8_t)(j | ((15 - j) << 4));
    float x[32];
    dequant(KERN_Q4_0, raw, x, 32);
    for (int j = 0; j < 16; j++) {
        cr_assert_eq(x[j], (float)(j - 8) * 2.0f, "element %d (low nibble of byte %d)", j, j);
        cr_assert_eq(x[j + 16], (float)(7 - j) * 2.0f, "element %d (high nibble of byte %d)", j + 16, j);
    }
}

Test(kern_layout, q1_0_lsb_first_one_is_plus_d)
{
    uint8_t raw[18] = { 0x00, 0x3e }; /* d = 1.5 */
    raw[2 + 0] = 0x01;  /* element 0 */
    raw[2 + 1] = 0x80;  /* element 15 */
    raw[2 + 9] = 0x24;  /* elements 74, 77 */
    raw[2 + 15] = 0xff; /* elements 120..127 */
    float x[128];
    dequant(KERN_Q1_0, raw, x, 128);
    for (int j = 0; j < 128; j++) {
        bool plus = j == 0 || j == 15 || j == 74 || j == 77 || j >= 120;
        cr_assert_eq(x[j], plus ? 1.5f : -1.5f, "element %d", j);
    }
}

Test(kern_layout, tq2_0_four_elements_32_apart_per_byte_then_d)
{
    uint8_t raw[66];
    memset(raw, 0x55, 64); /* code 1 everywhere: value 0 */
    raw[0] = 0x86;         /* codes (bits 0-1, 2-3, 4-5, 6-7) = 2, 1, 0, 2: elements 0, 32, 64, 96 */
    raw[33] = 0x54;        /* codes 0, 1, 1, 1: element 128 + 1 = 129 is -1 */
    raw[63] = 0x15;        /* codes 1, 1, 1, 0: element 128 + 96 + 31 = 255 is -1 */
    raw[64] = 0x00;        /* d = 0.25 = half 0x3400, after the quants */
    raw[65] = 0x34;
    float x[256];
    dequant(KERN_TQ2_0, raw, x, 256);
    for (int e = 0; e < 256; e++) {
        float want = 0.0f;
        if (e == 0 || e == 96)
            want = 0.25f;
        if (e == 64 || e == 129 || e == 255)
            want = -0.25f;
        cr_assert_eq(x[e], want, "element %d", e);
    }
}

Test(kern_layout, q8_K_bsums)
{
    float x[256];
    for (int i = 0; i < 256; i++)
        x[i] = (float)(i % 16) - 7.0f;
    block_q8_K y;
    kern_quantize_row_q8_K(x, &y, 256);
    cr_assert_float_eq(y.d, 8.0f / 127.0f, 1e-9);
    for (int i = 0; i < 16; i++) {
        int sum = 0;
        for (int j = 0; j < 16; j++)
            sum += y.qs[16 * i + j];
        cr_assert_eq(y.bsums[i], sum);
    }
    cr_assert_eq(y.qs[15], 127);
}

/* ---- round trips ---- */

/* Sub-block j's grid of a K-quant block: its values are lo + step x k, k = 0..n-1 (q4_K: -dmin x m + d x sc x
 * q; q6_K: d x sc x (q - 32), a negative scale turning it over). */
static void kq_grid(kern_format f, const void *blk, int e, double *lo, double *step, int *n)
{
    if (f == KERN_Q4_K) {
        const block_q4_K *b = blk;
        int sc, m;
        kern_q4_K_scale_min(b->scales, e / 32, &sc, &m);
        *step = (double)(kern_half_to_float(b->d) * (float)sc);
        *lo = -(double)(kern_half_to_float(b->dmin) * (float)m);
        *n = 16;
        return;
    }
    const block_q6_K *b = blk;
    double s = (double)(kern_half_to_float(b->d) * (float)b->scales[e / 16]);
    *step = fabs(s);
    *lo = s >= 0 ? -32.0 * s : 31.0 * s;
    *n = 64;
}

/* A K-quant block's error: half its sub-block's step, plus how far a value lies outside the grid. The
 * quantizer rounds each scale up to reach its sub-block's values, so outside the grid is only the scales'
 * rounding to halves (and q6_K's +32, which the codes stop one short of): checked where the scales are
 * normal halves (amax >= 0.1); below, subnormal or zero scales lose the values, as every format's do. */
static double kq_bound(kern_format f, const float *x, const void *blk, double amax)
{
    double worst = 0.0;
    for (int e = 0; e < 256; e++) {
        double lo, step, hi, miss;
        int n;
        kq_grid(f, blk, e, &lo, &step, &n);
        hi = lo + step * (n - 1);
        miss = fmax(0.0, fmax(lo - x[e], x[e] - hi));
        if (amax >= 0.1)
            cr_assert(miss <= amax * 0x1p-9 + (f == KERN_Q6_K ? step : 0.0), "%s element %d: %g lies %g outside "
                      "its grid [%g, %g]", kern_format_names[f], e, x[e], miss, lo, hi);
        worst = fmax(worst, 0.5 * step + miss);
    }
    return worst;
}

/* What one block's error may be, from its inputs and the stored scale. */
static double rt_bound(kern_format f, const float *x, int n, const void *blk)
{
    double amax = 0.0, mean = 0.0;
    for (int j = 0; j < n; j++) {
        amax = fmax(amax, fabs(x[j]));
        mean += fabs(x[j]);
    }
    mean /= n;
    double slack = amax * 0x1p-20;
    switch (f) {
    case KERN_Q8_0: { /* d = amax / 127 rounded to a half: half a step, plus 127 times the rounding */
        double d16 = kern_half_to_float(((const block_q8_0 *)blk)->d), d = amax / 127.0;
        return 0.5 * d16 + 127.0 * fabs(d16 - d) + slack;
    }
    case KERN_Q4_0: { /* d = -max / 8; the top code is 7, so values near +8d are off by up to one step */
        double d16 = fabs(kern_half_to_float(((const block_q4_0 *)blk)->d)), d = amax / 8.0;
        return d16 + 8.0 * fabs(d16 - d) + slack;
    }
    case KERN_Q1_0: { /* +-d (d = mean |x| rounded to a half): the error is | |x| - d | */
        double d16 = kern_half_to_float(((const block_q1_0 *)blk)->d);
        cr_assert(fabs(d16 - mean) <= mean * 0x1p-11 + 0x1p-25, "q1_0's d is the mean |x|");
        return fmax(amax - d16, d16) + slack;
    }
    case KERN_TQ2_0: { /* d = amax: half a step, plus the scale's rounding */
        double d16 = kern_half_to_float(((const block_tq2_0 *)blk)->d);
        return 0.5 * d16 + fabs(d16 - amax) + slack;
    }
    case KERN_Q4_K:
    case KERN_Q6_K:
        return kq_bound(f, x, blk, amax) + slack;
    case KERN_F32:
    case KERN_F16:
    case KERN_FORMAT_COUNT:
        break;
    } /* no default: a format added to KERN_FORMATS and left out here does not compile (-Wswitch) */
    return 0.0;
}

/* Quantizes n values, dequantizes, and checks each element against its block's bound (f32: exact; f16:
 * half an ulp of a half); never NaN or inf. */
static void check_round_trip(kern_format f, const float *x, size_t n, const char *what)
{
    const kern_format_info *fi = kern_format_get(f);
    size_t bytes = (size_t)kern_format_matrix_bytes(f, 1, n);
    char *w = malloc(bytes);
    float *y = malloc(n * sizeof(float));
    cr_assert_eq(kern_quantize_row(f, x, w, n), 0);
    dequant(f, w, y, n);
    for (size_t i = 0; i < n; i++) {
        size_t b = i / (size_t)fi->block;
        cr_assert(isfinite(y[i]), "%s %s: element %zu is %g", fi->name, what, i, y[i]);
        double err = fabs((double)y[i] - (double)x[i]), bound;
        if (f == KERN_F32)
            bound = 0.0;
        else if (f == KERN_F16)
            bound = fabs(x[i]) * 0x1p-11 + 0x1p-25;
        else
            bound = rt_bound(f, x + b * fi->block, fi->block, w + b * (size_t)fi->block_bytes);
        cr_assert(err <= bound, "%s %s: element %zu: %.9g -> %.9g, error %.3g > bound %.3g", fi->name, what, i,
                  x[i], y[i], err, bound);
    }
    free(w);
    free(y);
}

#define RT_N 1024

static void round_trip_all(const char *what, void (*make)(kern_format f, kt_rng *r, float *x, size_t n))
{
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        kt_rng r = { .s = 42 + (uint64_t)f };
        float x[RT_N];
        make((kern_format)f, &r, x, RT_N);
        check_round_trip((kern_format)f, x, RT_N, what);
    }
}

static void make_random(kern_format f, kt_rng *r, float *x, size_t n)
{
    (void)f;
    kt_fill(r, x, n, -3.0f, 3.0f);
}

static void make_constant(kern_format f, kt_rng *r, float *x, size_t n)
{
    (void)f;
    (void)r;
    for (size_t i = 0; i < n; i++)
        x[i] = 0.37f;
}

static void make_zero(kern_format f, kt_rng *r, float *x, size_t n)
{
    (void)f;
    (void)r;
    memset(x, 0, n * sizeof(float));
}

/* Large but within each format's range: the stored scale stays below the largest half (65504). */
static void make_large(kern_format f, kt_rng *r, float *x, size_t n)
{
    static const float top[KERN_FORMAT_COUNT] = {
        [KERN_F32] = 3e38f, [KERN_F16] = 6.5e4f, [KERN_Q8_0] = 8e6f,
        [KERN_Q4_0] = 5e5f, [KERN_Q1_0] = 6e4f,  [KERN_TQ2_0] = 6e4f,
        [KERN_Q4_K] = 4e6f, [KERN_Q6_K] = 2e8f, /* dmin = max / 63, d = max / (32 x 127) */
    };
    cr_assert_gt(top[f], 0.0f, "%s has its largest value here (a zero would test zeros)", kern_format_names[f]);
    for (size_t i = 0; i < n; i++)
        x[i] = kt_uniform(r, 0.8f, 1.0f) * top[f] * ((kt_next(r) & 1) ? 1.0f : -1.0f);
}

/* Float subnormals: the scales underflow a half to zero, quants must not be NaN (1/d overflows). */
static void make_denormal(kern_format f, kt_rng *r, float *x, size_t n)
{
    (void)f;
    kt_fill(r, x, n, -1e-39f, 1e-39f);
    x[3] = 1e-45f; /* the smallest subnormal */
}

Test(kern_round_trip, random)
{
    round_trip_all("random", make_random);
}

Test(kern_round_trip, constant)
{
    round_trip_all("constant", make_constant);
}

Test(kern_round_trip, denormal)
{
    round_trip_all("denormal", make_denormal);
}

Test(kern_round_trip, very_large)
{
    round_trip_all("very large", make_large);
}

Test(kern_round_trip, all_zero_gives_zero_scale)
{
    round_trip_all("all zero", make_zero);
    float x[256] = { 0 };
    block_q8_0 q8;
    block_q4_0 q4;
    block_q1_0 q1;
    block_tq2_0 t2;
    block_q4_K k4;
    block_q6_K k6;
    kern_quantize_row(KERN_Q4_K, x, &k4, 256);
    kern_quantize_row(KERN_Q6_K, x, &k6, 256);
    cr_assert(k4.d == 0 && k4.dmin == 0 && k6.d == 0, "K-quants: zero scales");
    kern_quantize_row(KERN_Q8_0, x, &q8, 32);
    kern_quantize_row(KERN_Q4_0, x, &q4, 32);
    kern_quantize_row(KERN_Q1_0, x, &q1, 128);
    kern_quantize_row(KERN_TQ2_0, x, &t2, 256);
    /* q4_0's d = max / -8 is -0 for an all-zero block, as in ggml (half 0x8000) */
    cr_assert_eq(q8.d, 0);
    cr_assert_eq(kern_half_to_float(q4.d), 0.0f);
    cr_assert_eq(q1.d, 0);
    cr_assert_eq(t2.d, 0);
}

Test(kern_round_trip, beyond_half_range_saturates_finite)
{
    float x[256];
    for (int i = 0; i < 256; i++)
        x[i] = (i & 1) ? 1e30f : -1e30f;
    const kern_format fs[] = { KERN_Q8_0, KERN_Q4_0, KERN_Q1_0, KERN_TQ2_0, KERN_Q4_K, KERN_Q6_K };
    for (size_t k = 0; k < sizeof fs / sizeof fs[0]; k++) {
        char w[8 * 34];
        float y[256];
        cr_assert_eq(kern_quantize_row(fs[k], x, w, 256), 0);
        dequant(fs[k], w, y, 256);
        for (int i = 0; i < 256; i++)
            cr_assert(isfinite(y[i]) && fabsf(y[i]) >= 65504.0f * 0.5f, "%s element %d: %g",
                      kern_format_names[fs[k]], i, y[i]);
    }
}

Test(kern_round_trip, wrong_length_is_an_error)
{
    float x[64] = { 0 };
    char w[64 * 4];
    cr_assert_eq(kern_quantize_row(KERN_Q8_0, x, w, 33), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(kern_dequantize_row(KERN_TQ2_0, w, x, 64), -1);
    cr_assert_eq(kern_quantize_row(KERN_F16, x, w, 33), 0, "f16 takes any length");
}
