/* kern_dispatch.c — which matvec table runs a (format, ISA): the tables by ISA, and the per-format fallback
 * down the ISA's chain (kern_isa.h). Built for baseline x86-64; the tables live in their own files
 * (kern_avx2.c, kern_avx512.c) compiled with their -m flags, and run only after kern_job_check saw that the
 * CPU has the asked ISA (kern_isa_supported), which includes every ISA below it. */
#include "kern_impl.h"

/* A table per ISA; NULL where this build has none (its formats fall back). avx512gfni has only the formats whose
 * codes are bit fields (q4_0, q1_0, tq2_0); the others run avx512's. avxvnni has the integer formats with a
 * byte dot (q8_0, q1_0, q4_0, tq2_0); the others run avx2's. On arm64 (kernels/arm/): NEON has
 * every format, dotprod and i8mm the quantized ones (their f32 and f16 run NEON's). */
static const kern_table *const kern_tables[KERN_ISA_COUNT] = {
    [KERN_ISA_SCALAR] = &kern_table_scalar,
#if defined(__x86_64__)
    [KERN_ISA_AVX2] = &kern_table_avx2,
    [KERN_ISA_AVXVNNI] = &kern_table_avxvnni,
    [KERN_ISA_AVX512] = &kern_table_avx512,
    [KERN_ISA_AVX512GFNI] = &kern_table_avx512gfni,
#endif
#if defined(__aarch64__)
    [KERN_ISA_NEON] = &kern_table_neon,
    [KERN_ISA_DOTPROD] = &kern_table_dotprod,
    [KERN_ISA_I8MM] = &kern_table_i8mm,
#endif
};

const kern_table *kern_table_get(kern_isa isa)
{
    return kern_isa_supported(isa) ? kern_tables[isa] : NULL;
}

const kern_table *kern_table_pick(const kern_table *const tables[KERN_ISA_COUNT], kern_format f, kern_isa isa)
{
    /* The usual case is the first test, isa's own table: this runs for every chunk of rows. */
    while ((unsigned)isa < KERN_ISA_COUNT && !(tables[isa] && tables[isa]->rows[f]))
        isa = kern_isa_below(isa);
    return (unsigned)isa < KERN_ISA_COUNT ? tables[isa] : NULL;
}

const kern_table *kern_table_for(kern_format f, kern_isa isa)
{
    return kern_table_pick(kern_tables, f, isa);
}

kern_isa kern_matvec_isa(kern_format f, kern_isa want)
{
    if (!kern_format_get(f) || !kern_isa_supported(want))
        return KERN_ISA_COUNT;
    const kern_table *t = kern_table_for(f, want);
    return t ? t->isa : KERN_ISA_COUNT;
}

bool kern_matvec_prefetches(kern_format f, kern_isa want)
{
    if (!kern_format_get(f) || !kern_isa_supported(want))
        return false;
    const kern_table *t = kern_table_for(f, want);
    return t && t->rows_cached[f];
}
