/* pb_digest_roof.c — roof.csv into the digest (see pb_digest.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kern_format.h"
#include "kern_isa.h"
#include "pb_digest.h"

void pb_digest_roof(pb_roof_digest *r, const pb_rundata *rd)
{
    memset(r, 0, sizeof *r);
    const pb_table *t = pb_rundata_table(rd, PB_K_ROOF);
    if (!t)
        return;
    int c[PB_ROOF_NCOLS];
    pb_digest_cols(t, PB_K_ROOF, c);
    for (size_t i = 0; i < t->nrows && r->n < PB_ROOF_DIGEST_MAX; i++) {
        double g = pb_table_num(t, i, c[PB_ROOF_gmacs_max]); /* the roof: the best run (pb_roof_bound) */
        if (!(g > 0))
            continue;
        snprintf(r->r[r->n].isa, sizeof r->r[r->n].isa, "%s", pb_table_str(t, i, c[PB_ROOF_isa]));
        snprintf(r->r[r->n].ran, sizeof r->r[r->n].ran, "%s", pb_table_str(t, i, c[PB_ROOF_ran]));
        snprintf(r->r[r->n].op, sizeof r->r[r->n].op, "%s", pb_table_str(t, i, c[PB_ROOF_op]));
        snprintf(r->r[r->n].instr, sizeof r->r[r->n].instr, "%s", pb_table_str(t, i, c[PB_ROOF_instr]));
        r->r[r->n].threads = (int)pb_table_num(t, i, c[PB_ROOF_threads]);
        r->r[r->n].gmacs = g;
        r->r[r->n].ghz = pb_table_num(t, i, c[PB_ROOF_ghz]);
        r->r[r->n].macs_per_cycle = pb_table_num(t, i, c[PB_ROOF_macs_per_cycle]);
        r->n++;
    }
    r->have = r->n > 0;
}

double pb_roof_macs_per_byte(const char *format)
{
    kern_format f;
    const kern_format_info *fi = kern_format_parse(format, &f) == 0 ? kern_format_get(f) : NULL;
    return fi ? (double)fi->block / fi->block_bytes : NAN;
}

double pb_roof_share(const pb_roof_digest *r, const char *format, const char *isa, double gbps, int threads)
{
    bool flt = strcmp(format, "f32") == 0 || strcmp(format, "f16") == 0;
    int at = pb_roof_find(r, isa, flt ? "f32" : "int8", threads);
    return at >= 0 ? 100 * gbps * pb_roof_macs_per_byte(format) / r->r[at].gmacs : NAN;
}

int pb_roof_find(const pb_roof_digest *r, const char *isa, const char *op, int threads)
{
    kern_isa want;
    if (kern_isa_parse(isa, &want) != 0)
        return -1;
    for (; (unsigned)want < KERN_ISA_COUNT; want = kern_isa_below(want))
        for (int i = 0; i < r->n; i++)
            if (r->r[i].threads == threads && strcmp(r->r[i].op, op) == 0 &&
                (strcmp(r->r[i].isa, kern_isa_name(want)) == 0 || strcmp(r->r[i].ran, kern_isa_name(want)) == 0))
                return i;
    return -1;
}
