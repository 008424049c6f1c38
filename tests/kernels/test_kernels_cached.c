/* kern_job.cached only drops the software prefetch: wherever a variant has a cached kernel of its own
 * (kern_table.rows_cached), it gives the same bits as the streaming one, and both stay within the stated
 * tolerance of the exact dot. A pair without one is not compared: kern_job_rows would run rows[] twice and
 * compare a kernel with itself. With no such pair on this CPU the test is skipped, with the reason printed. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "kern_impl.h"
#include "kern_test_util.h"

/* variant v's kernel on rows x cols weights, streaming and cached: equal bits, both near the exact dot. */
static void run_both(kern_format f, kern_isa v, size_t rows, size_t cols)
{
    const char *what = kern_format_names[f], *vname = kern_isa_name(v);
    kt_rng r = { .s = 7 + (uint64_t)f };
    void *w = kt_weights(&r, f, rows, cols);
    float *x = kt_floats(&r, cols, -1.0f, 1.0f);
    float *y0 = calloc(rows, sizeof *y0), *y1 = calloc(rows, sizeof *y1);
    kern_act a;
    cr_assert_eq(kern_act_init(&a, f, cols, 1), 0);
    cr_assert_eq(kern_act_set(&a, x, 1), 0);
    kern_job job = { .fmt = f, .isa = v, .w = w, .rows = rows, .act = &a, .y = y0, .ldy = rows };
    cr_assert_eq(kern_run(&job), 0);
    job.y = y1;
    job.cached = true;
    cr_assert_eq(kern_run(&job), 0);
    cr_assert_eq(memcmp(y0, y1, rows * sizeof *y0), 0, "%s/%s: cached and streaming rows differ", what, vname);
    for (size_t k = 0; k < rows; k++) {
        double mag, exact = kt_oracle(f, (const char *)w + k * kt_row_bytes(f, cols), &a, 0, &mag);
        cr_assert(fabs(y1[k] - exact) <= KT_DOT_REL_TOL * mag + 1e-30, "%s/%s cached row %zu: %.9g vs exact %.9g",
                  what, vname, k, y1[k], exact);
    }
    kern_act_free(&a);
    free(x);
    free(w);
    free(y0);
    free(y1);
}

Test(kernels_cached, same_bits_as_streaming)
{
    int pairs = 0;
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        const kern_table *t = kern_table_get((kern_isa)v);
        for (int f = 0; t && f < KERN_FORMAT_COUNT; f++) {
            if (!t->rows[f] || !t->rows_cached[f])
                continue;
            cr_assert(t->rows_cached[f] != t->rows[f], "%s/%s: the cached kernel is the streaming one",
                      kern_format_names[f], kern_isa_name((kern_isa)v));
            run_both((kern_format)f, (kern_isa)v, 37, 512);
            pairs++;
        }
    }
    if (pairs == 0) {
        printf("kernels_cached::same_bits_as_streaming: skipped: no variant this CPU runs has a cached kernel "
               "(AVX-512 q8_0 and q4_0 have; no arm64 one has)\n");
        cr_skip_test("no variant this CPU runs has a cached kernel");
    }
}

/* What a setting that follows the vendor is: on x86-64, on everything but AMD; elsewhere, `elsewhere`. */
static bool on_but_amd(bool elsewhere)
{
#if defined(__x86_64__)
    (void)elsewhere;
    __builtin_cpu_init();
    return !__builtin_cpu_is("amd");
#else
    return elsewhere;
#endif
}

/* The streaming passes' prefetch hint (kern.h): non-temporal on AMD, level 2 elsewhere (on Intel prefetchnta
 * held them far under the plain read floor), settled before main. */
Test(kernels_cached, prefetch_hint_follows_the_vendor)
{
    cr_assert_eq(kern_prefetch_temporal, on_but_amd(true));
    cr_assert_eq(kern_prefetch_vendor_temporal(), kern_prefetch_temporal);
}

/* A tuner sets the hint between calls; the vendor's choice stays known, and the names are the CSVs'. */
Test(kernels_cached, prefetch_hint_set_by_a_tuner)
{
    bool vendor = kern_prefetch_vendor_temporal();
    kern_prefetch_set_temporal(!vendor);
    cr_assert_eq(kern_prefetch_temporal, !vendor);
    cr_assert_eq(kern_prefetch_vendor_temporal(), vendor);
    kern_prefetch_set_temporal(vendor);
    cr_assert_eq(kern_prefetch_temporal, vendor);
    cr_assert_str_eq(kern_prefetch_hint_name(true), "t2");
    cr_assert_str_eq(kern_prefetch_hint_name(false), "nta");
}

/* The distance is a setting from a small set: another value is refused and leaves it alone; a distance never changes a
 * result bit (streaming rows at the nearest and farthest distance equal the cached twin's). */
Test(kernels_cached, prefetch_distance_from_its_set)
{
    cr_assert_eq(kern_prefetch_ahead, KERN_PREFETCH_BYTES, "the default before any tuner");
    bool has_default = false;
    for (int i = 0; i < KERN_PREFETCH_NDIST; i++) {
        unsigned d = kern_prefetch_distances[i];
        cr_assert(d % 64 == 0 && (i == 0 || d > kern_prefetch_distances[i - 1]), "lines, ascending: %u", d);
        has_default = has_default || kern_prefetch_distances[i] == KERN_PREFETCH_BYTES;
    }
    cr_assert(has_default && kern_prefetch_distances[KERN_PREFETCH_NDIST] == 0);
    errno = 0;
    cr_assert_eq(kern_prefetch_set_distance(1000), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(kern_prefetch_ahead, KERN_PREFETCH_BYTES, "a refused value changes nothing");
    cr_assert_str_eq(kern_prefetch_setting_name(true, KERN_PREFETCH_BYTES, false), "t2");
    cr_assert_str_eq(kern_prefetch_setting_name(false, 3072, false), "nta@3072");
    cr_assert_str_eq(kern_prefetch_setting_name(true, 3072, true), "t2+l1@3072");
    cr_assert_str_eq(kern_prefetch_setting_name(false, KERN_PREFETCH_BYTES, true), "nta+l1");
    const unsigned ends[2] = { kern_prefetch_distances[0], kern_prefetch_distances[KERN_PREFETCH_NDIST - 1] };
    for (int e = 0; e < 2; e++) {
        cr_assert_eq(kern_prefetch_set_distance(ends[e]), 0);
        cr_assert_eq(kern_prefetch_ahead, ends[e]);
        kern_prefetch_set_near(e == 0); /* the near prefetch on at one end, off at the other: the same bits */
        for (int v = 0; v < KERN_ISA_COUNT; v++) {
            const kern_table *t = kern_table_get((kern_isa)v);
            for (int f = 0; t && f < KERN_FORMAT_COUNT; f++)
                if (t->rows[f] && t->rows_cached[f])
                    run_both((kern_format)f, (kern_isa)v, 37, 512);
        }
    }
    cr_assert_eq(kern_prefetch_set_distance(KERN_PREFETCH_BYTES), 0);
    kern_prefetch_set_near(kern_prefetch_vendor_near());
}

/* The near prefetch into L1 follows the vendor (on where it was measured: x86-64 but AMD) until a tuner sets it. */
Test(kernels_cached, near_prefetch_follows_the_vendor)
{
    cr_assert_eq(kern_prefetch_near, on_but_amd(false));
    cr_assert_eq(kern_prefetch_vendor_near(), kern_prefetch_near);
    kern_prefetch_set_near(!kern_prefetch_near);
    cr_assert_neq(kern_prefetch_vendor_near(), kern_prefetch_near, "the vendor's choice stays known");
    kern_prefetch_set_near(kern_prefetch_vendor_near());
}

/* kern_matvec_prefetches answers from the table that runs: its cached twin, through the fallback (avxvnni's f32
 * runs avx2's, which prefetches); never for scalar, an unknown format or an ISA the CPU lacks. */
Test(kernels_cached, prefetches_where_a_twin_is)
{
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
            const kern_table *t = kern_isa_supported((kern_isa)v) ? kern_table_for((kern_format)f, (kern_isa)v)
                                                                     : NULL;
            bool want = t && t->rows_cached[f];
            cr_assert_eq(kern_matvec_prefetches((kern_format)f, (kern_isa)v), want, "%s/%s", kern_format_names[f],
                         kern_isa_name((kern_isa)v));
        }
        cr_assert(!kern_matvec_prefetches(KERN_FORMAT_COUNT, (kern_isa)v));
    }
    cr_assert(!kern_matvec_prefetches(KERN_Q8_0, KERN_ISA_SCALAR));
#if defined(__x86_64__)
    if (kern_isa_supported(KERN_ISA_AVX2))
        cr_assert(kern_matvec_prefetches(KERN_Q8_0, KERN_ISA_AVX2), "avx2's q8_0 streams with a prefetch");
#endif
}

/* An ISA whose kernels differ from the one below only in instructions that are exact either way: every row's
 * bits are equal, for every format isa's table has (want of them), a row count that is not a multiple of the
 * pass's 4 rows and a column count that ends in a partial step. Skipped (with the reason) where the CPU lacks
 * isa. */
static void same_bits_as(kern_isa isa, kern_isa base, int want, const char *test)
{
    if (!kern_isa_supported(isa)) {
        printf("kernels_cached::%s: skipped: this CPU or build has no %s (needs %s)\n", test, kern_isa_name(isa),
               kern_isa_needs(isa));
        cr_skip_test("no %s here", kern_isa_name(isa));
    }
    const kern_table *t = kern_table_get(isa);
    int formats = 0;
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        if (!t->rows[f])
            continue;
        size_t rows = 37, cols = 256 * 5; /* 1280: q1_0's 4-block steps end in a partial one (10 blocks) */
        kt_rng r = { .s = 11 + (uint64_t)f };
        void *w = kt_weights(&r, (kern_format)f, rows, cols);
        float *x = kt_floats(&r, cols, -1.0f, 1.0f);
        float *y[2] = { calloc(rows, sizeof(float)), calloc(rows, sizeof(float)) };
        kern_act a;
        cr_assert_eq(kern_act_init(&a, (kern_format)f, cols, 1), 0);
        cr_assert_eq(kern_act_set(&a, x, 1), 0);
        for (int i = 0; i < 2; i++) {
            kern_job job = { .fmt = (kern_format)f, .isa = i ? isa : base, .w = w, .rows = rows, .act = &a,
                             .y = y[i], .ldy = rows };
            cr_assert_eq(kern_run(&job), 0);
        }
        cr_assert_eq(memcmp(y[0], y[1], rows * sizeof(float)), 0, "%s: %s and %s rows differ", kern_format_names[f],
                     kern_isa_name(isa), kern_isa_name(base));
        kern_act_free(&a);
        free(x);
        free(w);
        free(y[0]);
        free(y[1]);
        formats++;
    }
    cr_assert_eq(formats, want, "%s's table has %d formats", kern_isa_name(isa), formats);
}

/* avx512gfni's kernels differ from avx512's only in how a code leaves its byte (one vgf2p8affineqb for a shift
 * and a mask, kernels/x86/kern_subbyte_avx512gfni.c); its table: q4_0, q1_0, tq2_0. */
Test(kernels_cached, gfni_same_bits_as_avx512)
{
    same_bits_as(KERN_ISA_AVX512GFNI, KERN_ISA_AVX512, 3, "gfni_same_bits_as_avx512");
}

/* avxvnni's kernels differ from avx2's only in how byte products are summed (one vpdpbusd for vpmaddubsw, an int16
 * add and vpmaddwd, one vpdpwssd for vpmaddwd and an add, one vgf2p8affineqb for a shift and a mask;
 * kernels/x86/kern_int256.h, kern_kquant256.h): q8_0 with weights of -128 included (kt_weights draws every byte),
 * q4_0, q1_0, tq2_0, q4_K, q6_K. */
Test(kernels_cached, avxvnni_same_bits_as_avx2)
{
    same_bits_as(KERN_ISA_AVXVNNI, KERN_ISA_AVX2, 6, "avxvnni_same_bits_as_avx2");
}
