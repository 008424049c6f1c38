/* kern_repack_avx2.c — the group kernels of q1_0_r32lut, q4_0_r16, q8_0_r16, tq2_0_r16 and q4_K_r16 and the GEMM
 * tiles of q4_0_r16 and q8_0_r16 on AVX2 (kern_repack256.h's, the products vpmaddubsw's). Compiled with the AVX2
 * flags; only called after kern_job_check saw the CPU has them. */
#define KERN256_ISA avx2
#include "kern_repack256.h"
