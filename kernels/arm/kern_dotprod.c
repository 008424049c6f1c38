/* kern_dotprod.c — the quantized formats with SDOT (FEAT_DotProd; built with -march=armv8.2-a+dotprod, chosen
 * where the CPU has HWCAP_ASIMDDP, kern_isa.c): kern_arm.h's passes, four signed byte products per lane and
 * instruction, and kern_kquant_arm.h's K-quant passes with the same SDOT over 16 codes. SDOT is signed x
 * signed, so no offset has to be taken back out: q8_0's -128 and tq2_0's unused code go in as they are (the
 * K-quants' codes are unsigned by their format, and their offsets come from the activation's bsums). f32 and
 * f16 have nothing to gain from it: they run NEON's kernels (the table lacks them, so the ISA chain falls
 * back).
 *
 * A matmul (batch > 1) runs the same tiles with up to four activations (kern_arm_batch): each weight chunk is
 * decoded once and goes into SDOT against every activation, and each (row, activation) pair keeps the pass's
 * sums and float steps, so row m of a matmul is the matvec of activation m bit for bit. */
#include "kern_arm.h"
#include "kern_kquant_arm.h"

KERN_ARM_QROWS_ALL(kern_arm_dot_sdot)
KERN_ARM_KQ_ROWS_ALL(kern_arm_dot16_sdot) /* q4_K, q6_K: one SDOT per 16 codes */

KERN_ARM_BATCH_OF(q8_0, KERN_ARM_PAIRS)
KERN_ARM_BATCH_OF(q4_0, KERN_ARM_PAIRS)
KERN_ARM_BATCH_OF(q1_0, KERN_ARM_PAIRS)
KERN_ARM_BATCH_OF(tq2_0, KERN_ARM_PAIRS)
KERN_ARM_BATCH_OF(q4_K, KERN_ARM_PAIRS)
/* q6_K: 2 activations a tile. 4 keep 16 dot vectors beside a half's 8 code vectors and spill: llvm-mca (Cortex-A76)
 * gives a block's step 63 cycles a pair at 4 activations, 50 at 2 and 65 at 1 (q4_K: 38 at 4, 40 at 2, 48 at 1). */
KERN_ARM_BATCH_OF(q6_K, 2)

const kern_table kern_table_dotprod = {
    .isa = KERN_ISA_DOTPROD,
    .rows = { KERN_ARM_QROWS_LIST, KERN_ARM_KQ_ROWS_LIST },
    .batch = { KERN_ARM_BATCH_LIST },
    .rows_per_pass = KERN_ARM_ROWS,
};
