/* kern_peak.h — the compute roof: how many multiply-accumulates one thread issues per second through an ISA's best
 * instruction for each operation, with its operands in registers and enough independent accumulators to hide the
 * instruction's latency (a chain per accumulator, none waiting on another). A quantized dot product can go no
 * faster than its ISA's int8 figure on the same core; a float one than its f32 figure.
 *
 * The kernels, one file per ISA:
 *   int8: scalar (the baseline the compiler vectorizes the scalar kernels with: x86-64 SSE2's pmaddwd, arm64
 *         NEON's smlal; elsewhere C, the accumulators in general registers), avx2 (vpmaddubsw then vpmaddwd into 32 bits, as every AVX2 quantized
 *         dot does: 32 MACs a pair), avxvnni (VEX vpdpbusd ymm: 32 MACs), avx512 (EVEX vpdpbusd zmm: 64 MACs),
 *         dotprod (sdot: 16 MACs), i8mm (smmla: 32 MACs);
 *   f32:  scalar (SSE2 mulps+addps, NEON fmla .4s: 4 MACs, or C), avx2 (vfmadd231ps ymm: 8 MACs), avx512
 *         (vfmadd231ps zmm: 16 MACs).
 * An ISA without its own kernel for an operation runs the next one down its chain (kern_isa.h): avxvnni's f32 is
 * avx2's, avx512gfni's both are avx512's; on arm64 neon's both are scalar's (NEON's), dotprod's and i8mm's f32 too.
 *
 * What keeps the compiler honest: every accumulator feeds the returned checksum, and the operands pass through an
 * empty asm that says they may have changed, so no product is hoisted out of the loop or shared between two
 * accumulators. */
#ifndef KERN_PEAK_H
#define KERN_PEAK_H

#include <stdint.h>

#include "kern_isa.h"

#define KERN_PEAK_OPS(X)                                                                                        \
    X(INT8, int8) /* int8 x int8 products summed into int32 (a quantized dot's inner loop) */                      \
    X(F32, f32)   /* f32 fused multiply-adds */

typedef enum kern_peak_op {
#define KERN_PEAK_ENUM(id, name) KERN_PEAK_##id,
    KERN_PEAK_OPS(KERN_PEAK_ENUM)
#undef KERN_PEAK_ENUM
    KERN_PEAK_NOPS
} kern_peak_op;

extern const char *const kern_peak_op_names[KERN_PEAK_NOPS + 1]; /* "int8", "f32", NULL */

typedef struct kern_peak_kernel {
    uint64_t (*run)(uint64_t iters); /* iters rounds of every accumulator; a checksum of them all */
    double macs_per_iter;            /* multiply-accumulates one round issues */
    const char *instr;               /* the instruction that does them, for the CSV ("vpdpbusd zmm") */
} kern_peak_kernel;

/* The kernel an ISA runs for op (its own, or the next one down its chain's), and into *ran the ISA it belongs to.
 * NULL when the CPU cannot run isa. */
const kern_peak_kernel *kern_peak_get(kern_isa isa, kern_peak_op op, kern_isa *ran);

/* The per-ISA kernels (NULL entries where an ISA has none of its own). */
#if !defined(__aarch64__)
extern const kern_peak_kernel kern_peak_scalar[KERN_PEAK_NOPS];
#endif
#if defined(__x86_64__)
extern const kern_peak_kernel kern_peak_avx2[KERN_PEAK_NOPS];
extern const kern_peak_kernel kern_peak_avxvnni[KERN_PEAK_NOPS];
extern const kern_peak_kernel kern_peak_avx512[KERN_PEAK_NOPS];
#elif defined(__aarch64__)
extern const kern_peak_kernel kern_peak_neon[KERN_PEAK_NOPS];
extern const kern_peak_kernel kern_peak_dotprod[KERN_PEAK_NOPS];
extern const kern_peak_kernel kern_peak_i8mm[KERN_PEAK_NOPS];
#endif

#endif
