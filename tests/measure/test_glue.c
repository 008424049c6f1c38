/* The decode glue against a double-precision reference, and the pure helpers bench_sweep rests on: the
 * OpenMP/pool executor's row coverage, busy % over pinned cpus, the memory_floor.csv lookup. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_exec.h"
#include "pb_decode_floor.h"
#include "pb_glue.h"
#include "pb_glue_forms.h"
#include "pb_roof.h"
#include "pb_sweep.h"
#include "test_files.h"

static float glue_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

Test(glue, rmsnorm_matches_reference)
{
    static const size_t widths[] = { 1, 7, 1024, 14336 };
    unsigned seed = 7;
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
        size_t n = widths[w];
        float *x = malloc(n * sizeof *x), *g = malloc(n * sizeof *g), *y = malloc(n * sizeof *y);
        for (size_t i = 0; i < n; i++) {
            x[i] = 3.0f * glue_rand(&seed);
            g[i] = 1.0f + 0.1f * glue_rand(&seed);
        }
        double ss = 0;
        for (size_t i = 0; i < n; i++)
            ss += (double)x[i] * x[i];
        double inv = 1.0 / sqrt(ss / (double)n + PB_RMS_EPS);
        pb_rmsnorm(y, x, g, n, PB_RMS_EPS);
        for (size_t i = 0; i < n; i++) {
            double ref = x[i] * inv * g[i];
            cr_assert(fabs(y[i] - ref) <= 1e-5 * fabs(ref) + 1e-7, "n=%zu i=%zu: %g vs %g", n, i, y[i], ref);
        }
        /* In place gives the same bits. */
        float *z = malloc(n * sizeof *z);
        memcpy(z, x, n * sizeof *z);
        pb_rmsnorm(z, z, g, n, PB_RMS_EPS);
        cr_assert(memcmp(z, y, n * sizeof *z) == 0, "n=%zu: in place differs", n);
        free(x), free(g), free(y), free(z);
    }
}

/* The AVX2 and NEON sums of squares are the scalar form's, bit for bit, at every length around the vector
 * widths. */
Test(glue, sumsq_forms_agree)
{
    enum { N = 1000 };
    static float x[N];
    unsigned seed = 5;
    for (int i = 0; i < N; i++)
        x[i] = 1e3f * glue_rand(&seed) * glue_rand(&seed);
    for (size_t n = 0; n <= N; n += (n < 40 ? 1 : 97)) {
        double s = pb_sumsq_scalar(x, n), ref = 0;
        for (size_t i = 0; i < n; i++)
            ref += (double)x[i] * x[i];
        cr_assert(fabs(s - ref) <= 1e-12 * ref, "n=%zu: %.17g vs %.17g", n, s, ref);
#if defined(__x86_64__)
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
            double v = pb_sumsq_avx2(x, n);
            cr_assert(memcmp(&v, &s, sizeof v) == 0, "n=%zu: avx2 %.17g, scalar %.17g", n, v, s);
        }
#elif defined(__aarch64__)
        if (kern_isa_supported(KERN_ISA_NEON)) {
            double v = pb_sumsq_neon(x, n);
            cr_assert(memcmp(&v, &s, sizeof v) == 0, "n=%zu: neon %.17g, scalar %.17g", n, v, s);
        }
#endif
    }
}

Test(glue, rmsnorm_of_zeros_is_finite)
{
    float x[8] = { 0 }, g[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, y[8];
    pb_rmsnorm(y, x, g, 8, PB_RMS_EPS);
    for (int i = 0; i < 8; i++)
        cr_assert(y[i] == 0.0f, "y[%d] = %g", i, y[i]);
}

Test(glue, silu_mul_and_residual_match_reference)
{
    enum { N = 3072 };
    static float g[N], u[N], y[N], x[N], x0[N];
    unsigned seed = 3;
    for (int i = 0; i < N; i++) {
        g[i] = 8.0f * glue_rand(&seed);
        u[i] = glue_rand(&seed);
        x[i] = x0[i] = glue_rand(&seed);
    }
    g[0] = -100.0f; /* e^100 overflows a float: silu must still be -0, not NaN */
    g[1] = 100.0f;
    g[2] = -87.5f; /* around the exponential's clamps */
    g[3] = 88.5f;
    g[4] = 0.0f;
    g[5] = -1e-30f;
    pb_silu_mul(y, g, u, N);
    for (int i = 0; i < N; i++) {
        double ref = (double)g[i] / (1.0 + exp(-(double)g[i])) * u[i];
        cr_assert(isfinite(y[i]) && fabs(y[i] - ref) <= 1e-6 * fabs((double)g[i] * u[i]) + 1e-7,
                  "i=%d g=%g u=%g: %g vs %g", i, g[i], u[i], y[i], ref);
    }
    /* The scalar form (any CPU) gives the dispatched path's bits. */
    static float ys[N];
    pb_silu_mul_scalar(ys, g, u, N);
    cr_assert(memcmp(ys, y, sizeof y) == 0, "scalar and dispatched SiLU differ");
    pb_residual_add(x, y, N);
    for (int i = 0; i < N; i++)
        cr_assert(x[i] == x0[i] + y[i], "i=%d", i);
}

/* Each row exactly once, for every executor kind and schedule. hits[-1] counts ranges that start off the
 * grain (hits[-2]). */
static void count_rows(void *ctx, size_t r0, size_t r1)
{
    int *hits = ctx;
    for (size_t r = r0; r < r1; r++)
        __atomic_fetch_add(&hits[r], 1, __ATOMIC_RELAXED);
    if (r0 % (size_t)hits[-2] != 0)
        __atomic_fetch_add(&hits[-1], 1, __ATOMIC_RELAXED);
}

Test(exec, rows_cover_every_row_once)
{
    static const size_t rows[] = { 1, 2, 5, 97, 1000 };
    static const size_t chunks[] = { 0, 1, 7, 64 };
    for (int kind = 0; kind < PB_EXEC_KINDS; kind++)
        for (int t = 1; t <= 3; t++)
            for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
                pb_exec e;
                cr_assert_eq(pb_exec_open(&e, kind, t, NULL, chunks[c], 0), 0);
                for (size_t r = 0; r < sizeof rows / sizeof *rows; r++)
                    for (int grain = 1; grain <= 32; grain *= 32) {
                        int *mem = calloc(rows[r] + 2, sizeof *mem), *hits = mem + 2;
                        hits[-2] = grain;
                        if (grain == 1)
                            pb_exec_rows(&e, rows[r], count_rows, hits);
                        else
                            pb_exec_rows_grain(&e, rows[r], (size_t)grain, count_rows, hits);
                        for (size_t i = 0; i < rows[r]; i++)
                            cr_assert_eq(hits[i], 1, "%s t=%d chunk=%zu rows=%zu grain=%d: row %zu hit %d times",
                                         pb_exec_kind_names[kind], t, chunks[c], rows[r], grain, i, hits[i]);
                        cr_assert_eq(hits[-1], 0, "%s t=%d chunk=%zu rows=%zu: a range off the grain of %d",
                                     pb_exec_kind_names[kind], t, chunks[c], rows[r], grain);
                        free(mem);
                    }
                cr_assert_eq(e.dispatches, 10);
                pb_exec_close(&e);
            }
}

Test(exec, bad_kind_or_threads)
{
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, -1, 1, NULL, 0, 0), -1);
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_KINDS, 1, NULL, 0, 0), -1);
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 0, NULL, 0, 0), -1);
}

static pb_sampler_cpu ucpu(int cpu, double busy)
{
    pb_sampler_cpu c = { .cpu = cpu, .nsamples = 1 };
    c.mean.busy = busy;
    return c;
}

Test(sweep, busy_over_pinned_cpus_and_imbalance)
{
    pb_sampler_cpu cpus[] = { ucpu(0, 95), ucpu(1, 50), ucpu(2, 20), ucpu(3, NAN) };
    pb_sampler_result u = { .cpu = cpus, .ncpu = 4 };
    pb_sweep_meas m;
    int pinned[] = { 0, 1 };
    pb_sweep_busy(&u, pinned, 2, &m);
    cr_expect_float_eq(m.busy_mean, 72.5, 1e-9);
    cr_expect_float_eq(m.busy_min, 50, 1e-9);
    cr_expect_float_eq(m.busy_max, 95, 1e-9);
    cr_expect(m.imbalance, "95 vs 50 differ by 45 > 40 points");
    int pinned2[] = { 1, 2 };
    pb_sweep_busy(&u, pinned2, 2, &m);
    cr_expect(!m.imbalance, "50 vs 20: 30 points");
    int one[] = { 2 };
    pb_sweep_busy(&u, one, 1, &m);
    cr_expect(!m.imbalance && m.busy_mean == 20, "one cpu is never imbalanced");
    int none[] = { 3, 9 };
    pb_sweep_busy(&u, none, 2, &m);
    cr_expect(isnan(m.busy_mean) && !m.imbalance, "no pinned cpu with a sample: NaN");
}

Test(floor, parse_cpu_cells)
{
    int c[16];
    cr_assert_eq(pb_cell_cpus("0 1", c, 16), 2);
    cr_assert(c[0] == 0 && c[1] == 1);
    cr_assert_eq(pb_cell_cpus("4,0-2", c, 16), 4);
    cr_assert(c[0] == 4 && c[1] == 0 && c[2] == 1 && c[3] == 2);
    cr_assert_eq(pb_cell_cpus("3-1", c, 16), -1);
    cr_assert_eq(pb_cell_cpus("", c, 16), 0);
    const int pair[2] = { 0, 1 }, swapped[2] = { 1, 0 };
    cr_assert(pb_cell_cpus_are("0 1", pair, 2));
    cr_assert(pb_cell_cpus_are("0-1", pair, 2), "a range is its cpus");
    cr_assert_not(pb_cell_cpus_are("0 1", swapped, 2), "the order counts");
    cr_assert_not(pb_cell_cpus_are("0 1", pair, 1), "so does the count");
    cr_assert_not(pb_cell_cpus_are("1-0", swapped, 2), "a malformed range matches nothing");
}

Test(floor, from_memory_floor_csv)
{
    char dir[128], path[160];
    tf_tmpdir(dir, sizeof dir, "pbfloor");
    snprintf(path, sizeof path, "%s/memory_floor.csv", dir);
    tf_write(dir, "memory_floor.csv",
          "run_id,host,op,kernel,threads,cpus,size_mib,thp_mib,passes,gbps_best,gbps_median,gbps_min,rt_ns,placement\n"
          "r,h,read,avx2,1,0,768,768,10,31,30,29,nan,n/a\n"
          "r,h,read,avx512-nt,1,0,768,768,10,35,34,33,nan,n/a\n"
          "r,h,copy,copy-avx2,1,0,768,768,10,50,49,48,nan,n/a\n"
          "r,h,read,avx512-nt,2,\"0,1\",768,768,10,66,64,60,400,far\n"
          "r,h,read,avx2,2,1 0,768,768,10,99,99,99,400,far\n");
    pb_decode_floor fl;
    char err[256];
    int one[] = { 0 }, two[] = { 0, 1 }, other[] = { 5 };
    cr_assert_eq(pb_decode_floor_from_csv(dir, one, 1, &fl, err, sizeof err), 0);
    cr_expect_float_eq(fl.gbps_median, 34, 1e-9);
    cr_expect_str_eq(fl.kernel, "avx512-nt");
    cr_expect_str_eq(fl.source, "memory_floor.csv");
    cr_assert_eq(pb_decode_floor_from_csv(dir, two, 2, &fl, err, sizeof err), 0);
    cr_expect_float_eq(fl.gbps_median, 64, 1e-9, "the row for cpus 1 0 is another placement");
    cr_expect_eq(pb_decode_floor_from_csv(dir, other, 1, &fl, err, sizeof err), 1);
    unlink(path);
    cr_expect_eq(pb_decode_floor_from_csv(dir, one, 1, &fl, err, sizeof err), 1, "no file: not found");
    rmdir(dir);
}

/* The run's roof.csv for these very cpus, isa and op: its best row; another isa, op, thread count or placement
 * is not it; no file, or no such row, is not found; a file without the columns is an error. */
Test(roof, from_roof_csv)
{
    char dir[128], path[160], err[256];
    tf_tmpdir(dir, sizeof dir, "pbroof");
    snprintf(path, sizeof path, "%s/roof.csv", dir);
    tf_write(dir, "roof.csv",
             "run_id,host,isa,ran,op,instr,threads,cpus,gmacs_median,gmacs_min,gmacs_max,gflops,ghz,macs_per_cycle\n"
             "r,h,avx2,avx2,int8,x,1,0,96,90,99.5,199,3.2,31\n"
             "r,h,avx2,avx2,f32,x,1,0,50,49,51,102,3.2,16\n"
             "r,h,scalar,scalar,int8,x,1,0,47,46,49,98,3.2,15\n"
             "r,h,avx2,avx2,int8,x,2,0 1,150,140,160,320,3.2,25\n"
             "r,h,avx2,avx2,int8,x,2,0 1,120,95,198,396,3.2,31\n"
             "r,h,avx2,avx2,int8,x,2,0 1,130,90,170,340,3.2,27\n"
             "r,h,avx2,avx2,int8,x,2,1 0,300,300,300,600,3.2,47\n");
    int one[] = { 0 }, two[] = { 0, 1 }, other[] = { 5 };
    double g = 0;
    cr_assert_eq(pb_roof_from_csv(dir, KERN_ISA_AVX2, KERN_PEAK_INT8, one, 1, &g, err, sizeof err), 0, "%s", err);
    cr_expect_float_eq(g, 99.5, 1e-9);
    cr_assert_eq(pb_roof_from_csv(dir, KERN_ISA_AVX2, KERN_PEAK_F32, one, 1, &g, err, sizeof err), 0);
    cr_expect_float_eq(g, 51, 1e-9);
    cr_assert_eq(pb_roof_from_csv(dir, KERN_ISA_AVX2, KERN_PEAK_INT8, two, 2, &g, err, sizeof err), 0);
    cr_expect_float_eq(g, 198, 1e-9, "the best of three rows, not the first or the last; cpus 1 0 is another placement");
    cr_expect_eq(pb_roof_from_csv(dir, KERN_ISA_AVX2, KERN_PEAK_INT8, other, 1, &g, err, sizeof err), 1);
    cr_expect_eq(pb_roof_from_csv(dir, KERN_ISA_AVX512, KERN_PEAK_INT8, one, 1, &g, err, sizeof err), 1);
    tf_write(dir, "roof.csv", "run_id,host,isa\nr,h,avx2\n");
    cr_expect_eq(pb_roof_from_csv(dir, KERN_ISA_AVX2, KERN_PEAK_INT8, one, 1, &g, err, sizeof err), -1);
    cr_expect(strstr(err, "no column") != NULL, "%s", err);
    unlink(path);
    cr_expect_eq(pb_roof_from_csv(dir, KERN_ISA_AVX2, KERN_PEAK_INT8, one, 1, &g, err, sizeof err), 1, "no file");
    rmdir(dir);
}

Test(floor, measured_over_a_buffer)
{
    size_t bytes = (4u << 20) + 77; /* an odd tail: the last thread reads it */
    unsigned char *buf = malloc(bytes);
    for (size_t i = 0; i < bytes; i++)
        buf[i] = (unsigned char)(i * 31);
    pb_memspan sp = { .p = buf, .bytes = bytes };
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 2, NULL, 0, 0), 0);
    pb_decode_floor fl;
    char err[256];
    cr_assert_eq(pb_decode_floor_measure(e.p, &sp, 1, 3, NULL, &fl, err, sizeof err), 0, "%s", err);
    pb_decode_floor one;
    cr_assert_eq(pb_decode_floor_measure(e.p, &sp, 1, 3, "scalar", &one, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(one.kernel, "scalar");
    cr_expect_eq(pb_decode_floor_measure(e.p, &sp, 1, 3, "nope", &one, err, sizeof err), -1);
    cr_expect(fl.gbps_median > 0 && fl.gbps_min <= fl.gbps_median && fl.gbps_median <= fl.gbps_best);
    cr_expect_str_eq(fl.source, "measured");
    cr_expect(fl.kernel[0] != '\0');
    pb_exec_close(&e);
    free(buf);
}

/* Every slice of a row, at any offset and length (vector body, scalar tail), gives the whole row's bits: the
 * fused decode computes SiLU over each thread's rows. And the exponential over its whole range: every float
 * step of 1/64 in [-100, 100] against exp() in double. */
Test(glue, silu_slices_and_range)
{
    enum { N = 301 };
    static float g[N], u[N], whole[N], part[N];
    unsigned seed = 11;
    for (int i = 0; i < N; i++) {
        g[i] = 20.0f * glue_rand(&seed);
        u[i] = glue_rand(&seed);
    }
    pb_silu_mul(whole, g, u, N);
    for (size_t a = 0; a < 20; a++)
        for (size_t b = a; b <= N; b += 7) {
            memset(part, 0, sizeof part);
            pb_silu_mul(part + a, g + a, u + a, b - a);
            cr_assert(memcmp(part + a, whole + a, (b - a) * sizeof(float)) == 0, "slice %zu..%zu differs", a, b);
        }
    enum { R = 12801 };
    static float gr[R], one[R], yr[R];
    for (int i = 0; i < R; i++) {
        gr[i] = -100.0f + (float)i / 64.0f;
        one[i] = 1.0f;
    }
    pb_silu_mul(yr, gr, one, R);
    for (int i = 0; i < R; i++) {
        double ref = (double)gr[i] / (1.0 + exp(-(double)gr[i]));
        cr_assert(fabs(yr[i] - ref) <= 3e-7 * fabs(ref) + 1e-30 || (gr[i] < -87 && fabs(yr[i]) < 1e-35),
                  "g=%g: %.9g vs %.9g", gr[i], yr[i], ref);
    }
}

/* The interleaved floor: one figure per pass, "interleaved", and a buffer that changes between passes (a pass
 * that read something else than the first) is refused, not averaged in. */
Test(floor, live_passes_and_a_changed_buffer)
{
    size_t bytes = 1u << 20;
    unsigned char *buf = malloc(bytes);
    for (size_t i = 0; i < bytes; i++)
        buf[i] = (unsigned char)(i * 31 + 7);
    pb_memspan sp = { .p = buf, .bytes = bytes };
    pb_exec e;
    cr_assert_eq(pb_exec_open(&e, PB_EXEC_SPIN, 2, NULL, 0, 0), 0);
    char err[256];
    pb_decode_floor_live l;
    cr_expect_eq(pb_decode_floor_live_open(&l, e.p, &sp, 1, "nope", 4, err, sizeof err), -1);
    cr_expect_eq(pb_decode_floor_live_open(&l, e.p, &sp, 1, "copy-scalar", 4, err, sizeof err), -1, "not a read");
    cr_assert_eq(pb_decode_floor_live_open(&l, e.p, &sp, 1, "scalar", 4, err, sizeof err), 0, "%s", err);
    pool_config one = pool_config_default();
    one.threads = 1;
    pool *p1 = pool_create(&one);
    pb_decode_floor_live_pass(&l, p1); /* another thread count: ignored */
    cr_expect_eq(l.n, 0);
    pool_destroy(p1);
    for (int i = 0; i < 6; i++) /* two beyond cap: ignored */
        pb_decode_floor_live_pass(&l, e.p);
    cr_expect_eq(l.n, 4);
    pb_decode_floor fl;
    cr_assert_eq(pb_decode_floor_live_close(&l, &fl, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(fl.source, "interleaved");
    cr_expect_str_eq(fl.kernel, "scalar");
    cr_expect(fl.gbps_min > 0 && fl.gbps_min <= fl.gbps_median && fl.gbps_median <= fl.gbps_best);
    cr_assert_eq(pb_decode_floor_live_open(&l, e.p, &sp, 1, "scalar", 4, err, sizeof err), 0, "%s", err);
    pb_decode_floor_live_pass(&l, e.p);
    buf[12345]++;
    pb_decode_floor_live_pass(&l, e.p);
    cr_expect_eq(pb_decode_floor_live_close(&l, &fl, err, sizeof err), -1);
    cr_expect(strstr(err, "1 of 2") != NULL, "%s", err);
    cr_assert_eq(pb_decode_floor_live_open(&l, e.p, &sp, 1, "scalar", 4, err, sizeof err), 0, "%s", err);
    cr_expect_eq(pb_decode_floor_live_close(&l, &fl, err, sizeof err), -1, "no pass: no floor");
    pb_exec_close(&e);
    free(buf);
}
