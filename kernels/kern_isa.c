/* kern_isa.c — the ISAs as data: name, chain, CPU check, what the CPU needs; the POOLBENCH_ISA choice.
 * Built for baseline x86-64 (or any CPU): it only asks the CPU, it runs no ISA-specific code. */
#include "kern_isa.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kern_isa_desc {
    kern_isa below;     /* the next ISA down the chain; KERN_ISA_COUNT for scalar */
    bool (*cpu_ok)(void);
    const char *needs;  /* what the CPU must have, for the error line */
} kern_isa_desc;

const char *const kern_isa_names[KERN_ISA_COUNT + 1] = {
#define KERN_ISA_NAME(id, name) [KERN_ISA_##id] = #name,
    KERN_ISAS(KERN_ISA_NAME)
#undef KERN_ISA_NAME
    [KERN_ISA_COUNT] = NULL,
};

static bool cpu_any(void)
{
    return true;
}

/* An ISA of another architecture than this build's, or one whose detection is not written yet. */
static bool cpu_not_here(void)
{
    return false;
}

#if defined(__x86_64__)
static bool cpu_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
}

/* AVX-VNNI: the VEX-encoded vpdpbusd the avxvnni file uses, and GFNI's vgf2p8affineqb on ymm for its bit fields
 * (compiled with the AVX2 flags, -mavxvnni and -mgfni). Every core with the first has the second (docs/kernels.md,
 * the ISA seam); the check asks for both all the same. */
static bool cpu_avxvnni(void)
{
    return cpu_avx2() && __builtin_cpu_supports("avxvnni") && __builtin_cpu_supports("gfni");
}

/* The AVX-512 files are also compiled with -mavx2 -mfma -mf16c: those must be there too (and that makes
 * avx2 a valid fallback wherever avx512 runs). */
static bool cpu_avx512(void)
{
    return cpu_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vnni");
}

/* GFNI with AVX-512: the 512-bit vgf2p8affineqb the avx512gfni files use (EVEX; compiled with -mgfni). */
static bool cpu_avx512gfni(void)
{
    return cpu_avx512() && __builtin_cpu_supports("gfni");
}
/* An x86-64 check where this build is x86-64; elsewhere the function is not even compiled. */
#define CPU_X86(fn) fn
#else
#define CPU_X86(fn) cpu_not_here
#endif

#if defined(__aarch64__)
#include <sys/auxv.h>

/* The kernel's HWCAP bits (getauxval; <sys/auxv.h> brings glibc's <bits/hwcap.h>). Each check includes the
 * ones below it, as cpu_avx512 does: a CPU reporting dotprod or i8mm without Advanced SIMD cannot run their
 * files, whose code is NEON too. dotprod is optional from ARMv8.2 (i8mm from ARMv8.2, mandatory at 8.6), so a
 * CPU with either implements ARMv8.2, what the dotprod and i8mm files are compiled for (the Makefile). */
static bool cpu_neon(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
}

static bool cpu_dotprod(void)
{
    return cpu_neon() && (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
}

static bool cpu_i8mm(void)
{
    return cpu_dotprod() && (getauxval(AT_HWCAP2) & HWCAP2_I8MM) != 0;
}
/* An arm64 check where this build is arm64; elsewhere the function is not even compiled. */
#define CPU_ARM(fn) fn
#else
#define CPU_ARM(fn) cpu_not_here
#endif

static const kern_isa_desc kern_isas[KERN_ISA_COUNT] = {
    [KERN_ISA_SCALAR] = { .below = KERN_ISA_COUNT, .cpu_ok = cpu_any, .needs = "nothing" },
    [KERN_ISA_AVX2] = { .below = KERN_ISA_SCALAR, .cpu_ok = CPU_X86(cpu_avx2), .needs = "avx2, fma, f16c (x86-64)" },
    [KERN_ISA_AVXVNNI] = { .below = KERN_ISA_AVX2, .cpu_ok = CPU_X86(cpu_avxvnni),
                           .needs = "avxvnni, gfni, avx2, fma, f16c (x86-64)" },
    [KERN_ISA_AVX512] = { .below = KERN_ISA_AVX2, .cpu_ok = CPU_X86(cpu_avx512),
                          .needs = "avx512f/bw/vl/dq, avx512vnni, avx2, fma, f16c (x86-64)" },
    [KERN_ISA_AVX512GFNI] = { .below = KERN_ISA_AVX512, .cpu_ok = CPU_X86(cpu_avx512gfni),
                              .needs = "gfni, avx512f/bw/vl/dq, avx512vnni, avx2, fma, f16c (x86-64)" },
    [KERN_ISA_NEON] = { .below = KERN_ISA_SCALAR, .cpu_ok = CPU_ARM(cpu_neon), .needs = "asimd (arm64)" },
    [KERN_ISA_DOTPROD] = { .below = KERN_ISA_NEON, .cpu_ok = CPU_ARM(cpu_dotprod), .needs = "asimd, asimddp (arm64)" },
    [KERN_ISA_I8MM] = { .below = KERN_ISA_DOTPROD, .cpu_ok = CPU_ARM(cpu_i8mm),
                        .needs = "asimd, asimddp, i8mm (arm64)" },
};

const char *kern_isa_name(kern_isa isa)
{
    return (unsigned)isa < KERN_ISA_COUNT ? kern_isa_names[isa] : NULL;
}

int kern_name_index(const char *const *names, const char *name)
{
    for (int i = 0; name && names[i]; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

int kern_isa_parse(const char *name, kern_isa *out)
{
    int i = kern_name_index(kern_isa_names, name);
    return i < 0 ? -1 : (*out = (kern_isa)i, 0);
}

const char *kern_isa_needs(kern_isa isa)
{
    return (unsigned)isa < KERN_ISA_COUNT ? kern_isas[isa].needs : "a known ISA";
}

bool kern_isa_supported(kern_isa isa)
{
    return (unsigned)isa < KERN_ISA_COUNT && kern_isas[isa].cpu_ok();
}

kern_isa kern_isa_best(void)
{
    for (int i = KERN_ISA_COUNT - 1; i > KERN_ISA_SCALAR; i--)
        if (kern_isa_supported((kern_isa)i))
            return (kern_isa)i;
    return KERN_ISA_SCALAR;
}

kern_isa kern_isa_below(kern_isa isa)
{
    return (unsigned)isa < KERN_ISA_COUNT ? kern_isas[isa].below : KERN_ISA_COUNT;
}

bool kern_isa_under(kern_isa isa, kern_isa cap)
{
    for (kern_isa i = cap; (unsigned)i < KERN_ISA_COUNT; i = kern_isa_below(i))
        if (i == isa)
            return true;
    return false;
}

kern_isa kern_isa_pick(kern_isa want, unsigned have)
{
    for (kern_isa i = want; (unsigned)i < KERN_ISA_COUNT; i = kern_isa_below(i))
        if (have & kern_isa_bit(i))
            return i;
    return KERN_ISA_COUNT;
}

/* "scalar|avx2|avxvnni|avx512|avx512gfni": the ISAs this CPU runs, for the error line. */
static void accepted(char *ok, size_t len)
{
    ok[0] = '\0';
    for (int i = 0; i < KERN_ISA_COUNT; i++)
        if (kern_isa_supported((kern_isa)i))
            snprintf(ok + strlen(ok), len - strlen(ok), "%s%s", ok[0] ? "|" : "", kern_isa_names[i]);
}

const char *kern_isa_env(const char **var)
{
    const char *s = getenv(KERN_ISA_ENV), *name = KERN_ISA_ENV;
    if (!s || !*s) { /* empty means unset, as for every POOLBENCH_* variable; then the old name */
        s = getenv(KERN_ISA_ENV_OLD);
        name = KERN_ISA_ENV_OLD;
    }
    if (var)
        *var = name;
    return s && *s ? s : NULL;
}

int kern_isa_select(kern_isa *out, char *err, size_t errlen)
{
    const char *var, *s = kern_isa_env(&var);
    if (!s) {
        *out = kern_isa_best();
        return 0;
    }
    char ok[128];
    accepted(ok, sizeof ok);
    kern_isa isa;
    if (kern_isa_parse(s, &isa) != 0) {
        if (errlen > 0)
            snprintf(err, errlen, "%s=%s: unknown ISA; this CPU accepts %s", var, s, ok);
        errno = EINVAL;
        return -1;
    }
    if (!kern_isa_supported(isa)) {
        if (errlen > 0)
            snprintf(err, errlen, "%s=%s: this CPU or build cannot run it (needs %s); accepted: %s", var, s,
                     kern_isa_needs(isa), ok);
        errno = ENOTSUP;
        return -1;
    }
    *out = isa;
    return 0;
}

bool kern_isa_forced(void) { return kern_isa_env(NULL) != NULL; }

/* kern_isa_chosen's cache: written once under chosen_once, read-only after (pthread_once orders the write
 * before every caller's read). */
static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;
static kern_isa chosen_isa = KERN_ISA_SCALAR;

static void choose(void)
{
    if (kern_isa_select(&chosen_isa, NULL, 0) != 0)
        chosen_isa = kern_isa_best();
}

kern_isa kern_isa_chosen(void)
{
    pthread_once(&chosen_once, choose);
    return chosen_isa;
}
