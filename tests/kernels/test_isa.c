/* test_isa.c — the one ISA seam (kernels/kern_isa.h): names and chains, detection against the CPU's own
 * answer, the resolution every table uses (on made-up tables with holes, since no built table has one
 * today), POOLBENCH_KERNEL reaching the activation quantizers, the glue and the read kernels, and every
 * glue form giving the scalar form's bits.
 *
 * The tests that set POOLBENCH_KERNEL rely on Criterion running each test in a process of its own:
 * kern_isa_chosen reads the variable once per process, at its first call. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "kern_impl.h"
#include "kern_test_util.h"
#include "pb_glue.h"
#include "pb_glue_forms.h"
#include "pb_memread.h"

static unsigned bits2(kern_isa a, kern_isa b)
{
    return kern_isa_bit(a) | kern_isa_bit(b);
}

/* got is want or an ISA down want's chain. */
static bool on_chain(kern_isa want, kern_isa got)
{
    for (kern_isa c = want; (unsigned)c < KERN_ISA_COUNT; c = kern_isa_below(c))
        if (c == got)
            return true;
    return false;
}

Test(isa, names_and_chains)
{
    for (int i = 0; i < KERN_ISA_COUNT; i++) {
        kern_isa back;
        cr_assert_eq(kern_isa_parse(kern_isa_name((kern_isa)i), &back), 0);
        cr_assert_eq(back, i);
        cr_assert_str_eq(kern_isa_names[i], kern_isa_name((kern_isa)i));
        cr_assert(kern_isa_needs((kern_isa)i)[0]);
        /* Every chain ends at scalar, within KERN_ISA_COUNT steps, and a supported ISA's chain is supported. */
        kern_isa c = (kern_isa)i;
        for (int step = 0; c != KERN_ISA_SCALAR; step++, c = kern_isa_below(c)) {
            cr_assert_lt(step, KERN_ISA_COUNT, "%s: chain does not reach scalar", kern_isa_names[i]);
            if (kern_isa_supported(c))
                cr_assert(kern_isa_supported(kern_isa_below(c)), "%s supported, the one below not", kern_isa_name(c));
        }
    }
    cr_assert_null(kern_isa_names[KERN_ISA_COUNT]);
    cr_assert_null(kern_isa_name(KERN_ISA_COUNT));
    kern_isa v;
    cr_assert_eq(kern_isa_parse("sse9", &v), -1);
    cr_assert_eq(kern_isa_parse(NULL, &v), -1);
    cr_assert_eq(kern_isa_below(KERN_ISA_AVX512GFNI), KERN_ISA_AVX512);
    cr_assert_eq(kern_isa_below(KERN_ISA_AVX512), KERN_ISA_AVX2);
    cr_assert_eq(kern_isa_below(KERN_ISA_AVX2), KERN_ISA_SCALAR);
    cr_assert_eq(kern_isa_below(KERN_ISA_AVXVNNI), KERN_ISA_AVX2, "a branch off avx2, not under avx512");
    cr_assert_eq(kern_isa_below(KERN_ISA_I8MM), KERN_ISA_DOTPROD);
    cr_assert_eq(kern_isa_below(KERN_ISA_DOTPROD), KERN_ISA_NEON);
    cr_assert_eq(kern_isa_below(KERN_ISA_NEON), KERN_ISA_SCALAR);
    cr_assert_eq(kern_isa_below(KERN_ISA_SCALAR), KERN_ISA_COUNT);
    /* The older names are the same values. */
    cr_assert_eq(KERN_ISA_AVX512, KERN_ISA_AVX512);
    cr_assert_eq(KERN_ISA_COUNT, KERN_ISA_COUNT);
}

/* kern_isa_supported says what the CPU says, with the whole feature set of each ISA. */
Test(isa, detection_matches_the_cpu)
{
    /* What the CPU reports, asked directly: every ISA of this architecture as its features say, every other
     * architecture's not at all ("not this architecture"); the best is the last one in enum order this CPU runs
     * (each architecture's ISAs are in speed order, and another architecture's are never supported). */
    bool want[KERN_ISA_COUNT] = { [KERN_ISA_SCALAR] = true };
#if defined(__x86_64__)
    __builtin_cpu_init();
    want[KERN_ISA_AVX2] = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                          __builtin_cpu_supports("f16c");
    want[KERN_ISA_AVXVNNI] = want[KERN_ISA_AVX2] && __builtin_cpu_supports("avxvnni") && __builtin_cpu_supports("gfni");
    want[KERN_ISA_AVX512] = want[KERN_ISA_AVX2] && __builtin_cpu_supports("avx512f") &&
                            __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                            __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vnni");
    want[KERN_ISA_AVX512GFNI] = want[KERN_ISA_AVX512] && __builtin_cpu_supports("gfni");
#elif defined(__aarch64__)
    unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
    want[KERN_ISA_NEON] = (hw & HWCAP_ASIMD) != 0;
    want[KERN_ISA_DOTPROD] = want[KERN_ISA_NEON] && (hw & HWCAP_ASIMDDP) != 0;
    want[KERN_ISA_I8MM] = want[KERN_ISA_DOTPROD] && (hw2 & HWCAP2_I8MM) != 0;
#endif
    kern_isa best = KERN_ISA_SCALAR;
    for (int i = 0; i < KERN_ISA_COUNT; i++) {
        cr_assert_eq(kern_isa_supported((kern_isa)i), want[i], "%s", kern_isa_names[i]);
        best = want[i] ? (kern_isa)i : best;
    }
    cr_assert_eq(kern_isa_best(), best);
    cr_assert(!kern_isa_supported(KERN_ISA_COUNT));
}

/* The resolution on made-up tables: down the asked ISA's chain only, never up, never across. */
Test(isa, pick_walks_down_the_chain)
{
    unsigned x86_no512 = bits2(KERN_ISA_SCALAR, KERN_ISA_AVX2);
    cr_assert_eq(kern_isa_pick(KERN_ISA_AVX512, x86_no512), KERN_ISA_AVX2);
    cr_assert_eq(kern_isa_pick(KERN_ISA_AVX2, x86_no512), KERN_ISA_AVX2);
    cr_assert_eq(kern_isa_pick(KERN_ISA_SCALAR, x86_no512), KERN_ISA_SCALAR);
    cr_assert_eq(kern_isa_pick(KERN_ISA_AVX512, kern_isa_bit(KERN_ISA_SCALAR)), KERN_ISA_SCALAR);
    cr_assert_eq(kern_isa_pick(KERN_ISA_AVX2, kern_isa_bit(KERN_ISA_AVX512)), KERN_ISA_COUNT, "never up");
    cr_assert_eq(kern_isa_pick(KERN_ISA_AVX512, bits2(KERN_ISA_SCALAR, KERN_ISA_NEON)), KERN_ISA_SCALAR,
                 "never across architectures");
    cr_assert_eq(kern_isa_pick(KERN_ISA_I8MM, bits2(KERN_ISA_SCALAR, KERN_ISA_NEON)), KERN_ISA_NEON);
    cr_assert_eq(kern_isa_pick(KERN_ISA_AVX512, 0), KERN_ISA_COUNT);
    /* avxvnni is a branch: avx512 never falls back to it (Ice Lake and Zen 4 lack it), it falls back to avx2 */
    cr_assert_eq(kern_isa_pick(KERN_ISA_AVX512, bits2(KERN_ISA_SCALAR, KERN_ISA_AVXVNNI)), KERN_ISA_SCALAR);
    cr_assert_eq(kern_isa_pick(KERN_ISA_AVXVNNI, x86_no512), KERN_ISA_AVX2);
}

/* A matvec table with holes: each format runs with the best table at or below the asked ISA that has it. */
Test(isa, matvec_falls_back_per_format)
{
    kern_table scalar = { .isa = KERN_ISA_SCALAR }, avx2 = { .isa = KERN_ISA_AVX2 };
    kern_table avx512 = { .isa = KERN_ISA_AVX512 };
    kern_rows_fn some = kern_table_scalar.rows[KERN_F32]; /* any kernel: only its presence counts here */
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        scalar.rows[f] = some;
    avx2.rows[KERN_Q8_0] = avx2.rows[KERN_Q4_0] = some;
    avx512.rows[KERN_Q8_0] = some;
    const kern_table *const tables[KERN_ISA_COUNT] = { [KERN_ISA_SCALAR] = &scalar, [KERN_ISA_AVX2] = &avx2,
                                                       [KERN_ISA_AVX512] = &avx512 };
    cr_assert_eq(kern_table_pick(tables, KERN_Q8_0, KERN_ISA_AVX512), &avx512);
    cr_assert_eq(kern_table_pick(tables, KERN_Q4_0, KERN_ISA_AVX512), &avx2, "q4_0: avx512 lacks it, avx2 has it");
    cr_assert_eq(kern_table_pick(tables, KERN_TQ2_0, KERN_ISA_AVX512), &scalar);
    cr_assert_eq(kern_table_pick(tables, KERN_Q4_0, KERN_ISA_AVX2), &avx2);
    cr_assert_eq(kern_table_pick(tables, KERN_Q4_0, KERN_ISA_SCALAR), &scalar);
    scalar.rows[KERN_F16] = NULL;
    cr_assert_null(kern_table_pick(tables, KERN_F16, KERN_ISA_AVX512), "no table has it");
}

/* The built tables: each names its ISA, and kern_matvec_isa reports what runs. */
Test(isa, built_tables_name_their_isa)
{
    for (int i = 0; i < KERN_ISA_COUNT; i++) {
        const kern_table *t = kern_table_get((kern_isa)i);
        cr_assert(!t || t->isa == (kern_isa)i, "%s's table says %s", kern_isa_names[i], kern_isa_name(t->isa));
        cr_assert(!t || kern_isa_supported((kern_isa)i), "a table for an ISA this CPU lacks");
        for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
            kern_isa ran = kern_matvec_isa((kern_format)f, (kern_isa)i);
            if (!kern_isa_supported((kern_isa)i)) {
                cr_assert_eq(ran, KERN_ISA_COUNT);
                continue;
            }
            const char *what = kern_format_names[f], *asked = kern_isa_names[i];
            cr_assert(on_chain((kern_isa)i, ran), "%s/%s ran %s", what, asked, kern_isa_name(ran));
            cr_assert(kern_table_get(ran)->rows[f], "%s/%s ran %s, which lacks it", what, asked, kern_isa_name(ran));
            if (t && t->rows[f])
                cr_assert_eq(ran, (kern_isa)i, "%s/%s has its own kernel", what, asked);
            cr_assert_eq(kern_table_for((kern_format)f, (kern_isa)i)->isa, ran);
        }
    }
    cr_assert_eq(kern_matvec_isa(KERN_FORMAT_COUNT, KERN_ISA_SCALAR), KERN_ISA_COUNT);
    cr_assert_eq(kern_act_isa(KERN_FORMAT_COUNT, KERN_ISA_SCALAR), KERN_ISA_COUNT);
    cr_assert_eq(kern_act_isa(KERN_F16, kern_isa_best()), KERN_ISA_SCALAR, "floats are copied, not quantized");
}

#if defined(__aarch64__)
/* The ISA whose kernel runs format f when arm64's isa is asked for: NEON has every format, dotprod and i8mm
 * the quantized ones, the K-quants included (their f32 and f16 run NEON's). */
static kern_isa arm_runs(kern_format f, kern_isa isa)
{
    return f == KERN_F32 || f == KERN_F16 ? KERN_ISA_NEON : isa;
}
#endif

/* arm64's tables (arm_runs), dotprod's and i8mm's matmul kernels, and NEON's quantizers for all three; each ISA is
 * checked where the CPU runs it, so qemu's cortex-a72 (NEON only) and max (all three) between them see every line. */
Test(isa, arm64_tables_and_fallbacks)
{
#if defined(__aarch64__)
    const kern_isa arm[] = { KERN_ISA_NEON, KERN_ISA_DOTPROD, KERN_ISA_I8MM };
    for (size_t i = 0; i < sizeof arm / sizeof arm[0]; i++) {
        kern_isa isa = arm[i];
        if (!kern_isa_supported(isa))
            continue;
        const kern_table *t = kern_table_get(isa);
        cr_assert_not_null(t, "%s", kern_isa_name(isa));
        for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
            kern_isa want = arm_runs((kern_format)f, isa);
            cr_assert_eq(kern_matvec_isa((kern_format)f, isa), want, "%s/%s", kern_format_names[f], kern_isa_name(isa));
            cr_assert_eq(t->batch[f] != NULL, want == KERN_ISA_DOTPROD || want == KERN_ISA_I8MM, "%s/%s matmul kernel",
                         kern_format_names[f], kern_isa_name(isa));
        }
        cr_assert_eq(kern_act_isa(KERN_Q8_0, isa), KERN_ISA_NEON);
        cr_assert_eq(kern_act_isa(KERN_TQ2_0, isa), KERN_ISA_NEON);
    }
#else
    cr_skip_test("not an arm64 build");
#endif
}

/* The read kernels: the plain kernel of each op for each ISA, down the chain; none for an ISA this CPU lacks. */
Test(isa, read_kernels_resolve)
{
    for (int op = 0; op < PB_MEMOP_COUNT; op++) {
        for (int i = 0; i < KERN_ISA_COUNT; i++) {
            const pb_memkern *k = pb_memkern_for((pb_memop)op, (kern_isa)i);
            if (!kern_isa_supported((kern_isa)i)) {
                cr_assert_null(k);
                continue;
            }
            cr_assert_not_null(k, "%s %s", pb_memop_name((pb_memop)op), kern_isa_names[i]);
            cr_assert_eq(k->op, op);
            cr_assert(pb_memkern_supported(k));
            cr_assert(!strstr(k->name, "-nt") && !strstr(k->name, "-4s"), "%s is not a plain kernel", k->name);
            cr_assert(on_chain((kern_isa)i, k->isa), "%s for %s", k->name, kern_isa_names[i]);
        }
    }
    for (int i = 0; i < pb_memkern_count(); i++)
        cr_assert_eq(pb_memkern_supported(&pb_memkerns[i]), kern_isa_supported(pb_memkerns[i].isa));
#if defined(__x86_64__)
    if (kern_isa_supported(KERN_ISA_AVX512))
        cr_assert_str_eq(pb_memkern_for(PB_MEMOP_COPY, KERN_ISA_AVX512)->name, "copy-avx512");
    if (kern_isa_supported(KERN_ISA_AVX2))
        cr_assert_str_eq(pb_memkern_for(PB_MEMOP_READ, KERN_ISA_AVX2)->name, "avx2");
#elif defined(__aarch64__) /* NEON has reads only; dotprod and i8mm add nothing to a read */
    if (kern_isa_supported(KERN_ISA_NEON))
        cr_assert_str_eq(pb_memkern_for(PB_MEMOP_READ, kern_isa_best())->name, "neon");
    if (kern_isa_supported(KERN_ISA_NEON))
        cr_assert_str_eq(pb_memkern_for(PB_MEMOP_COPY, KERN_ISA_NEON)->name, "copy-scalar");
#endif
    cr_assert_str_eq(pb_memkern_for(PB_MEMOP_WRITE, KERN_ISA_SCALAR)->name, "write-scalar");
}

/* The glue: avx512 has no forms of its own and runs avx2's; scalar is scalar. */
Test(isa, glue_resolves)
{
    cr_assert_eq(pb_glue_isa(KERN_ISA_SCALAR), KERN_ISA_SCALAR);
    cr_assert_eq(pb_glue_ops_of(KERN_ISA_SCALAR)->silu_mul, pb_silu_mul_scalar);
    cr_assert_eq(pb_glue_ops_of(KERN_ISA_SCALAR)->sumsq, pb_sumsq_scalar);
    cr_assert_null(pb_glue_ops_of(KERN_ISA_COUNT));
#if defined(__x86_64__)
    if (kern_isa_supported(KERN_ISA_AVX512))
        cr_assert_eq(pb_glue_isa(KERN_ISA_AVX512), KERN_ISA_AVX2);
    if (kern_isa_supported(KERN_ISA_AVX2)) {
        cr_assert_eq(pb_glue_isa(KERN_ISA_AVX2), KERN_ISA_AVX2);
        cr_assert_eq(pb_glue_ops_of(KERN_ISA_AVX2)->silu_mul, pb_silu_mul_avx2);
    }
#elif defined(__aarch64__)
    if (kern_isa_supported(KERN_ISA_NEON)) {
        cr_assert_eq(pb_glue_isa(kern_isa_best()), KERN_ISA_NEON, "dotprod and i8mm run NEON's glue");
        cr_assert_eq(pb_glue_ops_of(KERN_ISA_NEON)->silu_mul, pb_silu_mul_neon);
        cr_assert_eq(pb_glue_ops_of(KERN_ISA_NEON)->sumsq, pb_sumsq_neon);
    }
#endif
}

/* Every ISA's glue forms give the scalar forms' bits, at every length around the vector widths. */
Test(isa, glue_forms_match_scalar_bits)
{
    enum { N = 300 };
    static float g[N], u[N], ys[N], yv[N];
    kt_rng r = { .s = 17 };
    kt_fill(&r, g, N, -30.0f, 30.0f);
    kt_fill(&r, u, N, -2.0f, 2.0f);
    g[0] = -100.0f;
    g[1] = 100.0f;
    for (int i = 0; i < KERN_ISA_COUNT; i++) {
        const pb_glue_ops *ops = pb_glue_ops_of((kern_isa)i);
        if (!ops)
            continue;
        for (size_t n = 0; n <= N; n += n < 40 ? 1 : 37) {
            pb_silu_mul_scalar(ys, g, u, n);
            ops->silu_mul(yv, g, u, n);
            cr_assert(memcmp(ys, yv, n * sizeof *ys) == 0, "%s: silu_mul, n=%zu", kern_isa_names[i], n);
            double ss = pb_sumsq_scalar(g, n), sv = ops->sumsq(g, n);
            cr_assert(memcmp(&ss, &sv, sizeof ss) == 0, "%s: sumsq, n=%zu: %.17g vs %.17g", kern_isa_names[i], n, sv,
                      ss);
        }
    }
}

/* kern_act_set on weights of format f: the quantizer it ran is want's (or the one below want it falls back
 * to), and its bytes are the reference's. */
static void check_act_set(kern_format f, kern_isa want)
{
    enum { COLS = 512 };
    kt_rng r = { .s = 5 };
    float x[COLS];
    kt_fill(&r, x, COLS, -4.0f, 4.0f);
    kern_act a, ref;
    cr_assert_eq(kern_act_init(&a, f, COLS, 1), 0);
    cr_assert_eq(kern_act_init(&ref, f, COLS, 1), 0);
    cr_assert_eq(kern_act_set(&a, x, 1), 0);
    cr_assert_eq(a.isa, kern_act_isa(f, want), "%s: kern_act_set quantized with %s", kern_format_names[f],
                 kern_isa_name(a.isa));
    cr_assert_eq(kern_act_set_isa(&ref, x, 1, KERN_ISA_SCALAR), 0);
    cr_assert_eq(ref.isa, KERN_ISA_SCALAR);
    cr_assert(memcmp(a.qs, ref.qs, COLS) == 0 && memcmp(a.scale, ref.scale, COLS / kern_act_block(f) * sizeof(float)) == 0 &&
                  memcmp(a.nsum4, ref.nsum4, COLS / 4 * sizeof(int32_t)) == 0,
              "%s: not the reference's bytes", kern_format_names[f]);
    kern_act_free(&a);
    kern_act_free(&ref);
}

/* What runs without an explicit ISA: the chosen one's quantizers, glue and read kernel, or those below it. */
static void check_chosen(kern_isa want)
{
    kern_isa got = kern_isa_chosen();
    cr_assert_eq(got, want, "chosen %s, wanted %s", kern_isa_name(got), kern_isa_name(want));
    cr_assert(on_chain(want, kern_act_isa(KERN_Q8_0, want)));
    check_act_set(KERN_Q8_0, want);
    check_act_set(KERN_TQ2_0, want);
    cr_assert_eq(pb_glue_ops_running(), pb_glue_ops_of(want), "the glue pb_silu_mul calls");
    cr_assert(on_chain(want, pb_memkern_for(PB_MEMOP_READ, got)->isa));
}

/* POOLBENCH_KERNEL=scalar: scalar everywhere it applies (activation quantizers and glue included). */
Test(isa, env_scalar_is_scalar_everywhere)
{
    setenv("POOLBENCH_KERNEL", "scalar", 1);
    check_chosen(KERN_ISA_SCALAR);
    cr_assert_eq(kern_act_isa(KERN_Q8_0, kern_isa_chosen()), KERN_ISA_SCALAR);
    cr_assert_eq(pb_glue_ops_running()->silu_mul, pb_silu_mul_scalar, "glue");
    cr_assert_eq(pb_glue_ops_running()->sumsq, pb_sumsq_scalar, "glue");
    cr_assert_str_eq(pb_memkern_for(PB_MEMOP_READ, kern_isa_chosen())->name, "scalar");
    unsetenv("POOLBENCH_KERNEL");
}

Test(isa, env_unset_is_the_best)
{
    unsetenv("POOLBENCH_KERNEL");
    check_chosen(kern_isa_best());
}

/* An ISA this CPU lacks (another architecture's at least) is one clear line from kern_isa_select;
 * kern_isa_chosen then runs the best. */
Test(isa, env_unsupported_is_an_error)
{
    const char *lacking = kern_isa_name(kt_isa_lacking());
    setenv("POOLBENCH_KERNEL", lacking, 1);
    char err[256], named[64];
    snprintf(named, sizeof named, "POOLBENCH_KERNEL=%s", lacking);
    kern_isa v;
    cr_assert_eq(kern_isa_select(&v, err, sizeof err), -1);
    cr_assert_eq(errno, ENOTSUP);
    cr_assert(strstr(err, named) && strstr(err, "scalar") && !strchr(err, '\n'), "%s", err);
    check_chosen(kern_isa_best());
    unsetenv("POOLBENCH_KERNEL");
}
