/* kern_isa.h — the one ISA seam: which instruction sets poolbench knows, which this CPU runs, which one the
 * user chose (POOLBENCH_ISA), and how a table that lacks the chosen one falls back.
 *
 * Every table of ISA-specific code names its ISA with this enum: the matvec kernel tables (kern_impl.h), the
 * activation quantizers (kern_act.c), the decode glue (bench/measure/pb_glue.c) and the memory-floor read
 * kernels (bench/measure/floor/pb_memread.c). Each resolves the same way: the requested ISA if its table has it,
 * else the next one down the requested ISA's chain (kern_isa_below) that it has, and it reports which one ran.
 *
 * Chains (each ISA's CPU check includes everything below it, so an ISA this CPU runs can fall back to any
 * ISA under it):   x86-64: scalar < avx2 < avx512 < avx512gfni, and avx2 < avxvnni (a branch: some cores have
 * AVX-512 VNNI without AVX-VNNI, others the reverse; docs/kernels.md)        arm64: scalar < neon < dotprod < i8mm
 *
 * The ISAs are ordered fastest last within an architecture (avxvnni, 256 bits wide, sits under avx512, so a CPU
 * with both runs avx512); kern_isa_best is the last one this CPU runs. */
#ifndef KERN_ISA_H
#define KERN_ISA_H

#include <stdbool.h>
#include <stddef.h>

/* Every ISA, written once: X(ID, name) gives KERN_ISA_ID and its name "name". Grouped by architecture, each
 * architecture's chain in order (the chains above). */
#define KERN_ISAS(X)                                                                                            \
    X(SCALAR, scalar)         /* plain C: any CPU */                                                             \
    X(AVX2, avx2)             /* x86-64: AVX2 + FMA + F16C */                                                   \
    X(AVXVNNI, avxvnni)       /* x86-64: avx2 + AVX-VNNI + GFNI (VEX vpdpbusd, vgf2p8affineqb on 256 bits) */   \
    X(AVX512, avx512)         /* x86-64: AVX-512 F/BW/VL/DQ + VNNI, EVEX encodings only (implies AVX2) */       \
    X(AVX512GFNI, avx512gfni) /* x86-64: avx512 + GFNI (vgf2p8affineqb: any bit field of every byte at once) */ \
    X(NEON, neon)             /* arm64: Advanced SIMD */                                                        \
    X(DOTPROD, dotprod)       /* arm64: + SDOT/UDOT (FEAT_DotProd) */                                           \
    X(I8MM, i8mm)             /* arm64: + SMMLA (FEAT_I8MM) */

typedef enum kern_isa {
#define KERN_ISA_ENUM(id, name) KERN_ISA_##id,
    KERN_ISAS(KERN_ISA_ENUM)
#undef KERN_ISA_ENUM
    KERN_ISA_COUNT /* also "none": what a resolution returns when nothing fits */
} kern_isa;

/* KERN_ISAS' names, NULL-terminated, in enum order (option tables). */
extern const char *const kern_isa_names[KERN_ISA_COUNT + 1];

/* The index of name in names (a NULL-terminated table of distinct names, as kern_isa_names), -1 when it is not
 * there or name is NULL: the lookup every name table's parse function shares (ISAs, formats, and the harnesses'
 * models and executors). */
int kern_name_index(const char *const *names, const char *name);

/* The name; NULL for an unknown value (KERN_ISA_COUNT included). */
const char *kern_isa_name(kern_isa isa);
/* 0 and *out on a known name, -1 otherwise. */
int kern_isa_parse(const char *name, kern_isa *out);
/* What the CPU must have, in words, for an error line ("avx2, fma, f16c"). */
const char *kern_isa_needs(kern_isa isa);
/* This build targets the ISA's architecture and the CPU has it (x86-64: __builtin_cpu_supports, since
 * libcpuid 0.6.2 cannot see AVX-512 on AMD). */
bool kern_isa_supported(kern_isa isa);
/* The fastest ISA this CPU runs. */
kern_isa kern_isa_best(void);
/* The next ISA down isa's chain: avx512gfni -> avx512 -> avx2 -> scalar, avxvnni -> avx2, i8mm -> dotprod ->
 * neon -> scalar;
 * KERN_ISA_COUNT below scalar (the end of every chain). */
kern_isa kern_isa_below(kern_isa isa);
/* Whether isa is cap or down cap's chain (what a run capped at cap may run). */
bool kern_isa_under(kern_isa isa, kern_isa cap);

/* A table's ISAs as a bit set: bit kern_isa_bit(i) set when the table has code for ISA i. */
static inline unsigned kern_isa_bit(kern_isa isa)
{
    return 1u << (unsigned)isa;
}

/* The resolution over a set of ISAs (a list's, as the floor's read kernels; a table indexed by ISA walks
 * kern_isa_below itself): want itself when have holds it, else the first ISA down want's chain that have
 * holds; KERN_ISA_COUNT when none does. Pure: it does not look at the CPU (callers check
 * kern_isa_supported(want) first; everything below a supported ISA is supported). */
kern_isa kern_isa_pick(kern_isa want, unsigned have);

/* The variable that names the ISA, and its old name, still read where the new one is unset (a harness says so once,
 * pb_harness_begin). */
#define KERN_ISA_ENV "POOLBENCH_ISA"
#define KERN_ISA_ENV_OLD "POOLBENCH_KERNEL"
/* The ISA the environment names (NULL: none; set and empty counts as unset), and in *var (may be NULL) which
 * variable named it. */
const char *kern_isa_env(const char **var);

/* POOLBENCH_ISA=scalar|avx2|avxvnni|avx512|avx512gfni|neon|dotprod|i8mm, or the best ISA when unset or empty. An unknown or
 * unsupported value returns -1 (errno = EINVAL or ENOTSUP) with one line in err naming what this CPU
 * accepts: asking for an ISA the CPU lacks is an error, never a silent fallback. Reads the environment on
 * every call (harnesses call it once, at start-up, to fail before any work). */
int kern_isa_select(kern_isa *out, char *err, size_t errlen);
/* Whether POOLBENCH_ISA names an ISA (set and not empty): the user forced the kernels, so nothing chooses them
 * (a CSV row then says `forced`). */
bool kern_isa_forced(void);

/* The ISA the code without an explicit one runs with (kern_act_set, the decode glue, the floor beside the
 * kernel roofline): kern_isa_select's answer, read from the environment once, at the first call, and kept
 * for the life of the process (a cached detection result, so the hot paths never call getenv). When
 * POOLBENCH_ISA is unknown or unsupported it is the best ISA: the harnesses call kern_isa_select first and
 * exit with its error line, so that value is only seen by a library user who ignored the error. */
kern_isa kern_isa_chosen(void);

#endif
