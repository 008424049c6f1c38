/* kern_avxvnni.c — q8_0, q1_0, q4_0, tq2_0, q4_K and q6_K for KERN_ISA_AVXVNNI: kern_int256.h's and
 * kern_kquant256.h's 256-bit kernels with each sum of byte products one VEX vpdpbusd (-mavxvnni) where AVX2 spends
 * vpmaddubsw, an int16 add and, per sum, vpmaddwd; each scaling of the K-quants' int16 pairs one vpdpwssd where it
 * spends vpmaddwd and an add; and each bit field taken out of its byte by one vgf2p8affineqb (-mgfni) where it
 * spends a shift and a mask. The CPUs it is for have it without AVX-512 (docs/kernels.md, the ISA seam): there it
 * is the best this build runs. f32 and f16 fall back to avx2's (kern_table_pick), which the CSVs then name. */
#include "kern_int256.h"
#include "kern_kquant256.h"
#include "kern_repack_impl.h"

const kern_table kern_table_avxvnni = {
    .isa = KERN_ISA_AVXVNNI,
    .rows = { [KERN_Q8_0] = rows_q8_0, [KERN_Q4_0] = rows_q4_0, [KERN_Q1_0] = rows_q1_0, [KERN_TQ2_0] = rows_tq2_0,
              [KERN_Q4_K] = rows_q4_K, [KERN_Q6_K] = rows_q6_K },
    .rows_cached = { [KERN_Q8_0] = rows_q8_0_cached },
    .rows_per_pass = KERN256_ROWS,
};

void kern_rows_q6_K_r1_avxvnni(const void *w, size_t rb, size_t n, const kern_act *a, size_t m, float *y)
{
    rows_q6_K_r1(w, rb, n, a, m, y);
}

void kern_group_q6_K_r1_avxvnni(const char *w, size_t stride, int n, const kern_act *a, size_t m, float *y)
{
    group_q6_K_r1(w, stride, n, a, m, y);
}
