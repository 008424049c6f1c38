/* kern_dispatch.c — which ISA variants exist and which this CPU can run. Built for baseline x86-64; the
 * variants live in their own files (kern_avx2.c, kern_avx512.c) compiled with their -m flags and are only
 * called after __builtin_cpu_supports said yes (libcpuid 0.6.2 cannot see AVX-512 on AMD). */
#include "kern_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kern_variant_desc {
    const char *name;
    const kern_isa *isa; /* NULL: not built for this architecture */
    bool (*cpu_ok)(void);
    const char *needs;   /* what the CPU must have, for the error message */
} kern_variant_desc;

static bool cpu_any(void)
{
    return true;
}

#if defined(__x86_64__)
static bool cpu_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
}

/* The avx512 file is also compiled with -mavx2 -mfma -mf16c: those must be there too. */
static bool cpu_avx512(void)
{
    return cpu_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vnni");
}
#endif

/* In order of preference, fastest last. */
static const kern_variant_desc kern_variants[KERN_VARIANT_COUNT] = {
    [KERN_SCALAR] = { .name = "scalar", .isa = &kern_isa_scalar, .cpu_ok = cpu_any, .needs = "nothing" },
#if defined(__x86_64__)
    [KERN_AVX2] = { .name = "avx2", .isa = &kern_isa_avx2, .cpu_ok = cpu_avx2, .needs = "avx2, fma, f16c" },
    [KERN_AVX512] = { .name = "avx512", .isa = &kern_isa_avx512, .cpu_ok = cpu_avx512,
                      .needs = "avx512f/bw/vl/dq, avx512vnni" },
#else
    [KERN_AVX2] = { .name = "avx2", .needs = "an x86-64 build" },
    [KERN_AVX512] = { .name = "avx512", .needs = "an x86-64 build" },
#endif
    /* The slot for arm64: a kern_neon.c table goes here. */
    [KERN_NEON] = { .name = "neon", .needs = "an arm64 build with NEON kernels (not written yet)" },
};

const char *kern_variant_name(kern_variant v)
{
    return (unsigned)v < KERN_VARIANT_COUNT ? kern_variants[v].name : NULL;
}

int kern_variant_parse(const char *name, kern_variant *out)
{
    for (int i = 0; i < KERN_VARIANT_COUNT; i++) {
        if (name && strcmp(name, kern_variants[i].name) == 0) {
            *out = (kern_variant)i;
            return 0;
        }
    }
    return -1;
}

bool kern_variant_supported(kern_variant v)
{
    if ((unsigned)v >= KERN_VARIANT_COUNT)
        return false;
    const kern_variant_desc *d = &kern_variants[v];
    return d->isa && d->cpu_ok && d->cpu_ok();
}

const kern_isa *kern_isa_get(kern_variant v)
{
    return kern_variant_supported(v) ? kern_variants[v].isa : NULL;
}

const kern_isa *kern_isa_unchecked(kern_variant v)
{
    return kern_variants[v].isa;
}

kern_variant kern_variant_best(void)
{
    for (int i = KERN_VARIANT_COUNT - 1; i > 0; i--)
        if (kern_variant_supported((kern_variant)i))
            return (kern_variant)i;
    return KERN_SCALAR;
}

int kern_variant_rows_per_pass(kern_variant v)
{
    const kern_isa *isa = kern_isa_get(v);
    return isa ? isa->rows_per_pass : 0;
}

int kern_variant_select(kern_variant *out, char *err, size_t errlen)
{
    const char *s = getenv("POOLBENCH_KERNEL");
    if (!s || !*s) { /* empty means unset, as for every POOLBENCH_* variable */
        *out = kern_variant_best();
        return 0;
    }
    char ok[128] = "";
    for (int i = 0; i < KERN_VARIANT_COUNT; i++) {
        if (kern_variant_supported((kern_variant)i)) {
            strncat(ok, *ok ? "|" : "", sizeof ok - strlen(ok) - 1);
            strncat(ok, kern_variants[i].name, sizeof ok - strlen(ok) - 1);
        }
    }
    kern_variant v;
    if (kern_variant_parse(s, &v) != 0) {
        if (errlen > 0)
            snprintf(err, errlen, "POOLBENCH_KERNEL=%s: unknown kernel variant; this CPU accepts %s", s, ok);
        errno = EINVAL;
        return -1;
    }
    if (!kern_variant_supported(v)) {
        if (errlen > 0)
            snprintf(err, errlen, "POOLBENCH_KERNEL=%s: this CPU or build cannot run it (needs %s); accepted: %s",
                     s, kern_variants[v].needs, ok);
        errno = ENOTSUP;
        return -1;
    }
    *out = v;
    return 0;
}
