/* Kernel throughput from kernels.csv: per format, the best variant's median GB/s at 1 thread in L2, L3 and at
 * DRAM size, and at DRAM size on the most threads measured; in L2 also quantizing the activation before every
 * call (gbps_act_median). Batch 1 (a matvec) only. */
#include <math.h>
#include <string.h>

#include "pb_digest.h"

static pb_kernel_digest *kern_entry(pb_kernels_digest *k, const char *format)
{
    for (int i = 0; i < k->n; i++)
        if (strcmp(k->k[i].format, format) == 0)
            return &k->k[i];
    if (k->n == (int)(sizeof k->k / sizeof k->k[0]))
        return NULL;
    pb_kernel_digest *e = &k->k[k->n++];
    *e = (pb_kernel_digest){ .l2 = NAN, .l3 = NAN, .dram = NAN, .dram_nthr = NAN, .scalar_l2 = NAN, .l2_act = NAN,
                             .dram_read = NAN };
    pb_digest_copy(e->format, format);
    return e;
}

/* Whether v was kept: the first figure, or a higher one. */
static bool keep_max(double *slot, double v, char *name, const char *isa)
{
    if (isnan(v) || (!isnan(*slot) && v <= *slot))
        return false;
    *slot = v;
    if (name)
        pb_digest_copy(name, isa);
    return true;
}

void pb_digest_kernels(pb_kernels_digest *k, const pb_rundata *rd)
{
    memset(k, 0, sizeof *k);
    const pb_table *t = pb_rundata_table(rd, PB_K_KERNELS);
    if (!t)
        return;
    int ca = pb_table_col(t, PB_COL(KERNELS, gbps_act_median)); /* NaN in a CSV from before the column */
    int cf = pb_table_col(t, PB_COL(KERNELS, format)), cv = pb_table_col(t, PB_COL(KERNELS, variant)),
        cth = pb_table_col(t, PB_COL(KERNELS, threads)), cl = pb_table_col(t, PB_COL(KERNELS, level)),
        cg = pb_table_col(t, PB_COL(KERNELS, gbps_median)), cb = pb_table_col(t, PB_COL(KERNELS, batch)),
        ce = pb_table_col(t, PB_COL(KERNELS, emulate_slow)), crd = pb_table_col(t, PB_COL(KERNELS, read_gbps));
    int maxthr = 0;
    for (size_t r = 0; r < t->nrows; r++)
        if (pb_digest_int(t, r, cth) > maxthr)
            maxthr = pb_digest_int(t, r, cth);
    for (size_t r = 0; r < t->nrows; r++) {
        const char *emulated = pb_table_str(t, r, ce); /* "" in a CSV from before the column */
        if (*emulated && k->nemulated++ == 0)
            pb_digest_copy(k->emulated, emulated);
        double batch = pb_table_num(t, r, cb);
        if (!isnan(batch) && batch != 1)
            continue;
        pb_kernel_digest *e = kern_entry(k, pb_table_str(t, r, cf));
        if (!e)
            continue;
        const char *lvl = pb_table_str(t, r, cl), *isa = pb_table_str(t, r, cv);
        int thr = pb_digest_int(t, r, cth);
        double g = pb_table_num(t, r, cg);
        if (thr == maxthr && strcmp(lvl, "dram") == 0) {
            keep_max(&e->dram_nthr, g, NULL, isa);
            e->nthr = thr;
        }
        if (thr != 1)
            continue;
        if (strcmp(lvl, "l2") == 0) {
            keep_max(&e->l2, g, e->isa_l2, isa);
            keep_max(&e->l2_act, pb_table_num(t, r, ca), NULL, isa);
            if (strcmp(isa, "scalar") == 0)
                keep_max(&e->scalar_l2, g, NULL, isa);
        } else if (strcmp(lvl, "l3") == 0) {
            keep_max(&e->l3, g, NULL, isa);
        } else if (strcmp(lvl, "dram") == 0) {
            if (keep_max(&e->dram, g, e->isa_dram, isa))
                e->dram_read = pb_table_num(t, r, crd); /* NaN in a CSV from before the column */
        }
    }
    k->have = k->n > 0;
}
