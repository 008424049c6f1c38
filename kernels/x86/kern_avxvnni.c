/* kern_avxvnni.c — q8_0, q1_0, q4_0 and tq2_0 for KERN_ISA_AVXVNNI: kern_int256.h's 256-bit kernels with each
 * byte product summed by the VEX vpdpbusd (-mavxvnni) where AVX2 spends vpmaddubsw, an int16 add and, per sum,
 * vpmaddwd, and each bit field taken out of its byte by one vgf2p8affineqb (-mgfni) where AVX2 spends a shift and
 * a mask. The CPUs it is for have it without AVX-512 (Alder Lake to Arrow Lake, their P- and E-cores alike;
 * Sierra Forest; Zen 5 has both): there it is the best this build runs. Only these four formats; the others
 * fall back to avx2's (kern_table_pick), which the CSVs then name. */
#include "kern_int256.h"

const kern_table kern_table_avxvnni = {
    .isa = KERN_ISA_AVXVNNI,
    .rows = { [KERN_Q8_0] = rows_q8_0, [KERN_Q4_0] = rows_q4_0, [KERN_Q1_0] = rows_q1_0, [KERN_TQ2_0] = rows_tq2_0 },
    .rows_per_pass = KERN256_ROWS,
};
