/* kern_repack_avx2.c — the group kernels of q1_0_r32lut, q4_0_r16, q8_0_r16, tq2_0_r16 and q4_K_r16 and the GEMM
 * tiles of q4_0_r16 and q8_0_r16 on AVX2 (kern_repack256.h's, the products vpmaddubsw's). Compiled with the AVX2
 * flags; only called after kern_job_check saw the CPU has them. */
/* GCC's temporary-expression replacement (TER) moves each product step's add in a fully unrolled block down to
 * where the block's sum is used, so every step's products are live at once and spill to the stack (tq2_0_r16's
 * group kernel: 4238 stack accesses, 798 without). Off for this file's functions; GCC only. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-ter")
#endif
#define KERN256_ISA avx2
#include "kern_repack256.h"
