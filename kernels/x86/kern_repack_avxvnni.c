/* kern_repack_avxvnni.c — the group kernels of q4_0_r16, q8_0_r16, tq2_0_r16 and q4_K_r16 and the GEMM tiles of
 * q4_0_r16 and q8_0_r16 on AVX-VNNI (kern_repack256.h's, the products the VEX vpdpbusd's). Compiled with the
 * AVX-VNNI flags; only called after kern_job_check saw the CPU has them. */
#include "kern_repack256.h"

void kern_group_q4_0_r16_avxvnni(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(r16_groups_pass256_q4_0, KERN_R16, true, w, stride, n, a, m, y);
}

void kern_group_q8_0_r16_avxvnni(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(r16_groups_pass256_q8_0, KERN_R16, true, w, stride, n, a, m, y);
}

void kern_group_tq2_0_r16_avxvnni(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(tq2_groups_pass256, KERN_R16, true, w, stride, n, a, m, y);
}

void kern_group_q4_K_r16_avxvnni(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    groups_in_step(q4k_groups_pass256, KERN_R16, true, w, stride, n, a, m, y);
}

void kern_gemm_q4_0_r16_avxvnni(const char *g, const kern_act *a, size_t m0, size_t nm, float *y)
{
    gemm_in_tiles(r16_gemm_tile256_q4_0, KERN256_GEMM_ROWS, g, a, m0, nm, y);
}

void kern_gemm_q8_0_r16_avxvnni(const char *g, const kern_act *a, size_t m0, size_t nm, float *y)
{
    gemm_in_tiles(r16_gemm_tile256_q8_0, KERN256_GEMM_ROWS, g, a, m0, nm, y);
}
