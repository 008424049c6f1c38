/* test_kernels_kquant.c — what is particular to the K-quants (q4_K, q6_K): their byte layouts from hand-built
 * blocks (ggml's, byte for byte), the word-wise unpacking of q4_K's scales against the byte-wise rule, every
 * variant on blocks at the extremes (largest codes, scales and activations, largest and smallest d) and on
 * blocks with one sub-block's scale and min alone (the SIMD kernels' lanes), and the q8_K activation that one
 * input shares between K-quant matvecs. The generic tests (test_kernels_dot.c, _pool.c, _layout.c's round
 * trips) run every format, these two included. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "kern_kquant.h"
#include "kern_test_util.h"

/* ---- layouts ---- */

Test(kern_kquant, offsets)
{
    cr_assert_eq(offsetof(block_q4_K, d), 0);
    cr_assert_eq(offsetof(block_q4_K, dmin), 2);
    cr_assert_eq(offsetof(block_q4_K, scales), 4);
    cr_assert_eq(offsetof(block_q4_K, qs), 16);
    cr_assert_eq(offsetof(block_q6_K, ql), 0);
    cr_assert_eq(offsetof(block_q6_K, qh), 128);
    cr_assert_eq(offsetof(block_q6_K, scales), 192);
    cr_assert_eq(offsetof(block_q6_K, d), 208, "q6_K's scale trails everything");
    cr_assert_eq(kern_format_get(KERN_Q4_K)->block_bytes, 144);
    cr_assert_eq(kern_format_get(KERN_Q6_K)->block_bytes, 210);
    kern_format f;
    cr_assert(kern_format_parse("q4_K", &f) == 0 && f == KERN_Q4_K, "the names are ggml's, capital K");
    cr_assert(kern_format_parse("q6_K", &f) == 0 && f == KERN_Q6_K);
}

/* Scales (1, 2, 3, 63, 17, 33, 48, 5) and mins (0, 7, 62, 1, 16, 40, 9, 63) packed by ggml's rule (written
 * out by hand, not by kern_quant_k.c): sub-blocks 4-7 take their top two bits from bytes 0-7. */
static const uint8_t q4_K_packed[12] = { 0x41, 0x82, 0xc3, 0x3f, 0x40, 0x87, 0x3e, 0xc1, 0x01, 0x81, 0x90, 0xf5 };
static const int q4_K_sc[8] = { 1, 2, 3, 63, 17, 33, 48, 5 }, q4_K_m[8] = { 0, 7, 62, 1, 16, 40, 9, 63 };

Test(kern_kquant, q4_K_scales_mins_and_nibbles)
{
    uint8_t raw[144] = { 0x00, 0x3c, 0x00, 0x38 }; /* d = 1.0, dmin = 0.5 */
    memcpy(raw + 4, q4_K_packed, 12);
    for (int c = 0; c < 4; c++) /* byte 32c + l: element 64c + l low, 64c + 32 + l high */
        for (int l = 0; l < 32; l++)
            raw[16 + 32 * c + l] = (uint8_t)((l & 15) | (15 - (l & 15)) << 4);
    float x[256];
    cr_assert_eq(kern_dequantize_row(KERN_Q4_K, raw, x, 256), 0);
    for (int e = 0; e < 256; e++) {
        int j = e / 32, l = e % 32, q = j % 2 ? 15 - (l & 15) : l & 15;
        float want = 1.0f * (float)q4_K_sc[j] * (float)q - 0.5f * (float)q4_K_m[j];
        cr_assert_eq(x[e], want, "element %d (sub-block %d): %g vs %g", e, j, x[e], want);
    }
}

/* The word-wise unpacking the SIMD kernels use gives the byte-wise rule's values, for the hand-built bytes
 * and for random ones. */
Test(kern_kquant, q4_K_unpack_matches_the_rule)
{
    kt_rng r = { .s = 11 };
    for (int t = 0; t < 2000; t++) {
        uint8_t p[12];
        for (int i = 0; i < 12; i++)
            p[i] = t == 0 ? q4_K_packed[i] : (uint8_t)kt_next(&r);
        uint64_t sc, m;
        kern_q4_K_unpack(p, &sc, &m);
        for (int j = 0; j < 8; j++) {
            int s1, m1;
            kern_q4_K_scale_min(p, j, &s1, &m1);
            cr_assert_eq((int)(sc >> 8 * j & 0xff), s1, "scale %d", j);
            cr_assert_eq((int)(m >> 8 * j & 0xff), m1, "min %d", j);
            if (t == 0)
                cr_assert(s1 == q4_K_sc[j] && m1 == q4_K_m[j], "sub-block %d: %d, %d", j, s1, m1);
        }
    }
}

Test(kern_kquant, q6_K_low_nibbles_high_bits_and_signed_scales)
{
    uint8_t raw[210];
    memset(raw, 0x00, 128);       /* low 4 bits 0 */
    memset(raw + 128, 0xaa, 64);  /* top 2 bits 2: code 32 (weight 0) everywhere */
    for (int g = 0; g < 16; g++)
        raw[192 + g] = (uint8_t)(int8_t)(g - 8);
    raw[208] = 0x00; /* d = 0.25 */
    raw[209] = 0x34;
    raw[0] = 0x0f;   /* element 0 (half 0, k 0, l 0): low nibble of ql[0] = 15 ... */
    raw[128] = 0xab; /* ... and qh[0] bits 0-1 = 3: code 63 */
    raw[128 + 1] = 0x2a; /* element 97 (k 3, l 1): qh[1] bits 6-7 = 0 and ql[33]'s high nibble 0: code 0 */
    raw[69] = 0x50;  /* element 197 (half 1, k 2, l 5): high nibble of ql[64 + 5] = 5 ... */
    raw[128 + 37] = 0x8a; /* ... and qh[37] bits 4-5 = 0: code 5 */
    raw[127] = 0x80; /* element 255 (half 1, k 3, l 31): high nibble of ql[127] = 8, qh bits 2: code 40 */
    float x[256];
    cr_assert_eq(kern_dequantize_row(KERN_Q6_K, raw, x, 256), 0);
    for (int e = 0; e < 256; e++) {
        int code = e == 0 ? 63 : e == 97 ? 0 : e == 197 ? 5 : e == 255 ? 40 : 32;
        float want = 0.25f * (float)(e / 16 - 8) * (float)(code - 32);
        cr_assert_eq(x[e], want, "element %d: %g vs %g", e, x[e], want);
    }
}

/* ---- every variant at the extremes ---- */

/* Three blocks of the largest products: codes at the top and bottom of their range against activations of
 * +-127 (x = +-127.0: q8_K's d is exactly 1), the largest scales (q4_K 63, q6_K -128 and 127), and d = 1,
 * the largest half and the smallest subnormal. vpmaddubsw's int16 pairs and the int32 sums must not
 * saturate: every variant stays within the tolerance of the exact dot. */
static void extreme_q4_K(block_q4_K *b, kern_half d)
{
    b->d = d;
    b->dmin = kern_float_to_half(0.5f);
    memset(b->scales, 0xff, sizeof b->scales); /* every scale and min 63 */
    for (int i = 0; i < 128; i++)
        b->qs[i] = i % 3 ? 0xff : 0x0f; /* codes 15, and 0 above */
}

static void extreme_q6_K(block_q6_K *b, kern_half d)
{
    memset(b->ql, 0xff, sizeof b->ql); /* codes 63 ... */
    memset(b->qh, 0xff, sizeof b->qh);
    for (int i = 0; i < 64; i += 3) { /* ... and 0 (weight -32) for the 4 elements of every third qh byte */
        int h = i / 32, l = i % 32;
        b->qh[i] = 0x00;
        b->ql[64 * h + l] = b->ql[64 * h + 32 + l] = 0x00;
    }
    for (int g = 0; g < 16; g++)
        b->scales[g] = (int8_t)(g % 2 ? -128 : 127);
    b->d = d;
}

/* One row of weights w (cols wide) against x through every variant, each within the tolerance of the exact
 * dot; what names the case in a failure. a: x's activation (the oracle's), set by the caller. */
static void check_every_variant(kern_format f, const void *w, const float *x, const kern_act *a, const char *what)
{
    double mag, exact = kt_oracle(f, w, a, 0, &mag);
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        if (!kern_isa_supported((kern_isa)v))
            continue;
        float y;
        cr_assert_eq(kern_matvec(f, (kern_isa)v, w, x, &y, 1, a->cols), 0);
        cr_assert(fabs(y - exact) <= KT_DOT_REL_TOL * mag, "%s/%s %s: %.9g vs exact %.9g", kern_format_names[f],
                  kern_isa_name((kern_isa)v), what, y, exact);
    }
}

static void check_extremes(kern_format f, const void *w, size_t cols)
{
    float x[768];
    for (size_t i = 0; i < cols; i++)
        x[i] = i % 2 ? 127.0f : -127.0f;
    kern_act a;
    cr_assert_eq(kern_act_init(&a, f, cols, 1), 0);
    cr_assert_eq(kern_act_set_isa(&a, x, 1, KERN_ISA_SCALAR), 0);
    cr_assert_eq(a.q8k[0].d, 1.0f, "the activation's quants are +-127 with d = 1");
    check_every_variant(f, w, x, &a, "extremes");
    kern_act_free(&a);
}

Test(kern_kquant, extreme_blocks_every_variant)
{
    const kern_half ds[3] = { 0x3c00, 0x7bff, 0x0001 }; /* 1.0, 65504, 2^-24 */
    block_q4_K w4[3];
    block_q6_K w6[3];
    for (int b = 0; b < 3; b++) {
        extreme_q4_K(&w4[b], ds[b]);
        extreme_q6_K(&w6[b], ds[b]);
    }
    check_extremes(KERN_Q4_K, w4, 768);
    check_extremes(KERN_Q6_K, w6, 768);
    /* each block alone too: the largest d's block would hide the others in the sum */
    for (int b = 0; b < 3; b++) {
        check_extremes(KERN_Q4_K, &w4[b], 256);
        check_extremes(KERN_Q6_K, &w6[b], 256);
    }
}

/* ---- one sub-block at a time ---- */

/* q4_K's packed bytes with sub-block j's scale sc and min m and every other one 0, by kern.h's layout rule. */
static void q4_K_pack_one(uint8_t packed[12], int j, int sc, int m)
{
    memset(packed, 0, 12);
    if (j < 4) {
        packed[j] = (uint8_t)sc;
        packed[j + 4] = (uint8_t)m;
    } else { /* low 4 bits in byte j + 4, the top 2 in bits 6-7 of bytes j - 4 (scale) and j (min) */
        packed[j + 4] = (uint8_t)((sc & 15) | (m & 15) << 4);
        packed[j - 4] = (uint8_t)((sc >> 4) << 6);
        packed[j] = (uint8_t)((m >> 4) << 6);
    }
    for (int k = 0; k < 8; k++) { /* the test's own bytes, read back by the rule the kernels are held to */
        int s1, m1;
        kern_q4_K_scale_min(packed, k, &s1, &m1);
        cr_assert(s1 == (k == j ? sc : 0) && m1 == (k == j ? m : 0), "packing %d: %d, %d at %d", j, s1, m1, k);
    }
}

/* Blocks where only sub-block j has a scale (q4_K: and a min), random codes, against random activations on
 * every variant: each scale and min must meet its own sub-block's codes and activation sums, in whatever lane
 * a kernel keeps them (the SIMD kernels keep sub-block dots and bsums side by side and pair them by lane). q4_K:
 * scale 63 and min 47 (their top 2 bits, which sit in other bytes for j >= 4), so the mins' subtraction is
 * checked alone too; q6_K: scale -128 or 127. */
Test(kern_kquant, each_sub_block_alone_every_variant)
{
    kt_rng r = { .s = 31 };
    float *x = kt_floats(&r, QK_K, -1.0f, 1.0f);
    kern_act a;
    cr_assert_eq(kern_act_init(&a, KERN_Q4_K, QK_K, 1), 0);
    cr_assert_eq(kern_act_set(&a, x, 1), 0); /* the same q8_K quants whichever K-quant it feeds */
    char what[32];
    for (int j = 0; j < 8; j++) {
        block_q4_K b = { .d = kern_float_to_half(0.01f), .dmin = kern_float_to_half(0.02f) };
        q4_K_pack_one(b.scales, j, 63, 47);
        for (int i = 0; i < 128; i++)
            b.qs[i] = (uint8_t)kt_next(&r);
        snprintf(what, sizeof what, "sub-block %d", j);
        check_every_variant(KERN_Q4_K, &b, x, &a, what);
    }
    for (int g = 0; g < 16; g++) {
        block_q6_K b = { .d = kern_float_to_half(0.01f) };
        for (size_t i = 0; i < sizeof b.ql; i++)
            b.ql[i] = (uint8_t)kt_next(&r);
        for (size_t i = 0; i < sizeof b.qh; i++)
            b.qh[i] = (uint8_t)kt_next(&r);
        b.scales[g] = (int8_t)(g % 2 ? -128 : 127);
        snprintf(what, sizeof what, "sub-block %d", g);
        check_every_variant(KERN_Q6_K, &b, x, &a, what);
    }
    kern_act_free(&a);
    free(x);
}

/* ---- the shared q8_K activation ---- */

Test(kern_kquant, one_q8_K_activation_feeds_every_K_format)
{
    kt_rng r = { .s = 21 };
    float *x = kt_floats(&r, 512, -1.0f, 1.0f);
    kern_act k4, q4;
    cr_assert_eq(kern_act_init(&k4, KERN_Q4_K, 512, 1), 0);
    cr_assert_eq(kern_act_init(&q4, KERN_Q4_0, 512, 1), 0);
    cr_assert_eq(kern_act_set(&k4, x, 1), 0);
    cr_assert_eq(kern_act_set(&q4, x, 1), 0);
    cr_assert(kern_act_feeds(&k4, KERN_Q4_K) && kern_act_feeds(&k4, KERN_Q6_K) && kern_act_feeds(&k4, KERN_TQ2_0));
    cr_assert(!kern_act_feeds(&k4, KERN_Q8_0) && !kern_act_feeds(&k4, KERN_F32));
    cr_assert(kern_act_feeds(&q4, KERN_Q4_0) && !kern_act_feeds(&q4, KERN_Q8_0), "q8_0 activations hold the offset");
    cr_assert(!kern_act_feeds(&k4, KERN_FORMAT_COUNT));
    /* a q6_K matvec on the q4_K activation: the bits of one on its own activation */
    void *w = kt_weights(&r, KERN_Q6_K, 5, 512);
    kern_act k6;
    cr_assert_eq(kern_act_init(&k6, KERN_Q6_K, 512, 1), 0);
    cr_assert_eq(kern_act_set(&k6, x, 1), 0);
    float y0[5], y1[5];
    kern_job job = { .fmt = KERN_Q6_K, .isa = kern_isa_best(), .w = w, .rows = 5, .act = &k6, .y = y0 };
    cr_assert_eq(kern_run(&job), 0);
    job.act = &k4;
    job.y = y1;
    cr_assert_eq(kern_run(&job), 0);
    cr_assert(memcmp(y0, y1, sizeof y0) == 0);
    job.fmt = KERN_Q8_0;
    errno = 0;
    cr_assert_eq(kern_run(&job), -1, "a q8_K activation cannot feed q8_0");
    cr_assert_eq(errno, EINVAL);
    kern_act_free(&k4);
    kern_act_free(&q4);
    kern_act_free(&k6);
    free(w);
    free(x);
}
