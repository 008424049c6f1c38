/* test_kernels_pool.c — threaded matvec/matmul bit-identical to one thread (1, 2, 3, 5 threads x every
 * policy x static and dynamic chunks, rows that are no multiple of the chunk or of the 4-row pass), and the
 * POOLBENCH_KERNEL variant selection. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>

#include "kern_test_util.h"

typedef struct pool_case {
    kern_format f;
    size_t rows, cols, batch;
    void *w;
    kern_act a;
    float *ref[KERN_ISA_COUNT]; /* one-thread results per variant */
} pool_case;

static void case_init(pool_case *c, kern_format f, size_t rows, size_t cols, size_t batch, uint64_t seed)
{
    kt_rng r = { .s = seed };
    *c = (pool_case){ .f = f, .rows = rows, .cols = cols, .batch = batch };
    c->w = kt_weights(&r, f, rows, cols);
    float *x = kt_floats(&r, batch * cols, -1.0f, 1.0f);
    cr_assert_eq(kern_act_init(&c->a, f, cols, batch), 0);
    cr_assert_eq(kern_act_set(&c->a, x, batch), 0);
    free(x);
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        if (!kern_isa_supported((kern_isa)v))
            continue;
        c->ref[v] = malloc(batch * rows * sizeof(float));
        kern_job job = { .fmt = f, .isa = (kern_isa)v, .w = c->w, .rows = rows, .act = &c->a,
                         .y = c->ref[v], .ldy = rows };
        cr_assert_eq(kern_run(&job), 0);
    }
}

static void case_free(pool_case *c)
{
    for (int v = 0; v < KERN_ISA_COUNT; v++)
        free(c->ref[v]);
    kern_act_free(&c->a);
    free(c->w);
}

static void case_check(pool_case *c, pool *p, size_t chunk)
{
    float *y = malloc(c->batch * c->rows * sizeof(float));
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        if (!c->ref[v])
            continue;
        memset(y, 0xff, c->batch * c->rows * sizeof(float));
        kern_job job = { .fmt = c->f, .isa = (kern_isa)v, .w = c->w, .rows = c->rows, .act = &c->a,
                         .y = y, .ldy = c->rows };
        cr_assert_eq(kern_run_pool(p, chunk, &job), 0);
        cr_assert(memcmp(y, c->ref[v], c->batch * c->rows * sizeof(float)) == 0,
                  "%s/%s rows %zu batch %zu: %d threads, %s, chunk %zu differs from one thread",
                  kern_format_names[c->f], kern_isa_name((kern_isa)v), c->rows, c->batch, pool_threads(p),
                  pool_policy_name(pool_get_policy(p)), chunk);
    }
    free(y);
}

Test(kern_pool, bit_exact_every_threads_policy_chunk, .timeout = 120)
{
    enum { NCASES = KERN_FORMAT_COUNT + 2 };
    pool_case cases[NCASES];
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) /* 13 rows: no multiple of 2, 3, 4 or 5 */
        case_init(&cases[f], (kern_format)f, 13, (size_t)kern_format_get((kern_format)f)->block * 3 + 
                  (f <= KERN_F16 ? 5 : 0), 1, 300 + (uint64_t)f);
    case_init(&cases[KERN_FORMAT_COUNT], KERN_Q4_0, 11, 256, 3, 400); /* a matmul */
    case_init(&cases[KERN_FORMAT_COUNT + 1], KERN_Q6_K, 11, 512, 3, 401); /* a K-quant's (arm64 i8mm: its own tiles) */
    const int threads[] = { 1, 2, 3, 5 };
    const size_t chunks[] = { 0, 1, 3, 4 }; /* static, then dynamic claims */
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        for (int pol = 0; pol < POOL_POLICY_COUNT; pol++) {
            pool_config cfg = pool_config_default();
            cfg.threads = threads[t];
            cfg.policy = (pool_policy)pol;
            pool *p = pool_create(&cfg);
            cr_assert_not_null(p, "pool of %d threads, %s", threads[t], pool_policy_name((pool_policy)pol));
            for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++)
                for (int c = 0; c < NCASES; c++)
                    case_check(&cases[c], p, chunks[k]);
            pool_destroy(p);
        }
    }
    for (int c = 0; c < NCASES; c++)
        case_free(&cases[c]);
}

Test(kern_pool, null_pool_and_bad_job)
{
    kt_rng r = { .s = 1 };
    void *w = kt_weights(&r, KERN_Q8_0, 2, 32);
    float *x = kt_floats(&r, 32, -1.0f, 1.0f), y[2];
    kern_act a;
    cr_assert_eq(kern_act_init(&a, KERN_Q8_0, 32, 1), 0);
    cr_assert_eq(kern_act_set(&a, x, 1), 0);
    kern_job job = { .fmt = KERN_Q8_0, .isa = KERN_ISA_SCALAR, .w = w, .rows = 2, .act = &a, .y = y };
    cr_assert_eq(kern_run_pool(NULL, 0, &job), -1);
    pool_config cfg = pool_config_default();
    cfg.threads = 2;
    pool *p = pool_create(&cfg);
    job.fmt = KERN_Q4_0;
    cr_assert_eq(kern_run_pool(p, 0, &job), -1, "activation for q8_0, job for q4_0");
    pool_destroy(p);
    kern_act_free(&a);
    free(x);
    free(w);
}

/* ---- variant selection ---- */

Test(kern_isa, names_and_best)
{
    for (int v = 0; v < KERN_ISA_COUNT; v++) {
        kern_isa back;
        cr_assert_eq(kern_isa_parse(kern_isa_name((kern_isa)v), &back), 0);
        cr_assert_eq(back, v);
    }
    kern_isa v;
    cr_assert_eq(kern_isa_parse("sse9", &v), -1);
    cr_assert(kern_isa_supported(KERN_ISA_SCALAR));
    cr_assert(kern_isa_supported(kern_isa_best()));
    cr_assert(!kern_isa_supported(KERN_ISA_COUNT));
#if defined(__x86_64__) /* test_isa.c checks every architecture's detection */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw"))
        cr_assert_eq(kern_isa_best(), __builtin_cpu_supports("gfni") ? KERN_ISA_AVX512GFNI : KERN_ISA_AVX512);
#endif
}

Test(kern_isa, env_override)
{
    char err[256];
    kern_isa v;
    unsetenv("POOLBENCH_KERNEL");
    cr_assert_eq(kern_isa_select(&v, err, sizeof err), 0);
    cr_assert_eq(v, kern_isa_best());
    setenv("POOLBENCH_KERNEL", "scalar", 1);
    cr_assert_eq(kern_isa_select(&v, err, sizeof err), 0);
    cr_assert_eq(v, KERN_ISA_SCALAR);
    setenv("POOLBENCH_KERNEL", "avx7", 1);
    cr_assert_eq(kern_isa_select(&v, err, sizeof err), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert(strstr(err, "POOLBENCH_KERNEL=avx7") && strstr(err, "scalar"), "%s", err);
    /* a variant this build or CPU lacks is an error, not a fallback */
    setenv("POOLBENCH_KERNEL", kern_isa_name(kt_isa_lacking()), 1);
    cr_assert_eq(kern_isa_select(&v, err, sizeof err), -1);
    cr_assert_eq(errno, ENOTSUP);
    /* empty means unset, as for every POOLBENCH_* variable of the harnesses' option tables */
    setenv("POOLBENCH_KERNEL", "", 1);
    cr_assert_eq(kern_isa_select(&v, err, sizeof err), 0, "%s", err);
    cr_assert_eq(v, kern_isa_best());
    unsetenv("POOLBENCH_KERNEL");
}
