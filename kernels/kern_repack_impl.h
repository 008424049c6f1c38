/* kern_repack_impl.h — the repacked layouts' internals shared by the kernel files (kern_repack.h is the public
 * side): the per-ISA kernels of a group and the hooks kern_act.c and kern_matvec.c call. Not public. */
#ifndef KERN_REPACK_IMPL_H
#define KERN_REPACK_IMPL_H

#include "kern_repack.h"

#define KERN_R32 32                          /* rows in a q1_0_r32lut (or q1_0_r32lut256) group */
#define KERN_R32_BLOCK_BYTES (KERN_R32 * 18) /* one block of every row of a group: 32 d, then 8 x 64 bytes */
#define KERN_R16 16                          /* rows in a q4_0_r16 or q8_0_r16 group */
#define KERN_R16_BLOCK_BYTES (KERN_R16 * 18) /* q4_0_r16: one block of every row of a group: 16 d, 4 x 64 bytes */
#define KERN_R16_Q8_BLOCK_BYTES (KERN_R16 * 34) /* q8_0_r16's: 16 d, then 8 x 64 bytes */
#define KERN_R16_TQ2_BLOCK_BYTES (KERN_R16 * 66) /* tq2_0_r16's: 16 d, then 16 x 64 bytes */
#define KERN_R16_Q4K_BLOCK_BYTES (KERN_R16 * 144) /* q4_K_r16's: 16 d, 16 dmin, 3 x 64 of scales, 32 x 64 of codes */
#define KERN_R16_Q6K_BLOCK_BYTES (KERN_R16 * 210) /* q6_K_r16's: 16 d, then 52 x 64 bytes (kern_repack.h) */
#define KERN_GROUP_ROWS_MAX KERN_R32         /* the most rows a group of any layout has */

/* n groups of R rows (the layout's; n <= KERN_GROUPS_STEP), stride bytes apart from w, against activation row m:
 * y[R i + r] = the dot of group i's row r (padding rows included). A group's rows get the same arithmetic whatever
 * n is. */
typedef void kern_group_kernel_fn(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y);
typedef kern_group_kernel_fn *kern_group_fn;
#define KERN_GROUPS_STEP 4

/* A GEMM tile: one group (its first byte at g) against activation rows m0 .. m0 + nm - 1 (nm <= KERN_GEMM_TILE):
 * y[R m + r] = the dot of the group's row r and activation row m0 + m, bit for bit the group kernel's. */
typedef void kern_gemm_kernel_fn(const char *g, const kern_act *a, size_t m0, size_t nm, float *y);
typedef kern_gemm_kernel_fn *kern_gemm_fn;
#define KERN_GEMM_TILE 64 /* all of a block's rows: a kernel may unpack a group's block once for every one of them */
#define KERN_GEMM_MBLOCK 64 /* activation rows a GEMM passes over all its groups at once (a multiple of the tile) */

#if defined(__x86_64__)
/* The per-ISA kernels (kernels/x86/kern_repack*_<isa>.c), declared by their types. */
kern_group_kernel_fn kern_group_q1_0_r32lut_avx2, kern_group_q4_0_r16_avx2, kern_group_q8_0_r16_avx2,
    kern_group_tq2_0_r16_avx2, kern_group_q4_K_r16_avx2, kern_group_q6_K_r1_avx2, kern_group_q1_0_r32lut256_avx2;
kern_group_kernel_fn kern_group_q1_0_r32lut_avxvnni, kern_group_q4_0_r16_avxvnni, kern_group_q8_0_r16_avxvnni,
    kern_group_tq2_0_r16_avxvnni, kern_group_q4_K_r16_avxvnni, kern_group_q6_K_r1_avxvnni,
    kern_group_q1_0_r32lut256_avxvnni;
kern_group_kernel_fn kern_group_q1_0_r32lut_avx512, kern_group_q4_0_r16_avx512, kern_group_q8_0_r16_avx512,
    kern_group_tq2_0_r16_avx512, kern_group_q4_K_r16_avx512, kern_group_q6_K_r16_avx512;
/* A layout of one-row groups may also have a kern_rows_fn: a matvec's whole range of rows in the file kernels'
 * quarter passes, with no per-group call or copy (q6_K_r1). */
void kern_rows_q6_K_r1_avx2(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y);
void kern_rows_q6_K_r1_avxvnni(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y);
kern_gemm_kernel_fn kern_gemm_q4_0_r16_avx2, kern_gemm_q8_0_r16_avx2, kern_gemm_q4_0_r16_avxvnni,
    kern_gemm_q8_0_r16_avxvnni;
kern_gemm_kernel_fn kern_gemm_q4_0_r16_avx512, kern_gemm_q8_0_r16_avx512, kern_gemm_q4_K_r16_avx512,
    kern_gemm_q6_K_r16_avx512;
#endif

/* kern_job_check's and kern_job_rows's work for a job whose layout is not the file's. */
int kern_repack_job_check(const kern_job *job);
void kern_repack_job_rows(const kern_job *job, size_t r0, size_t r1);

#endif
