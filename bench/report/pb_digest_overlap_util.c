/* Overlap (overlap.csv: each mode at the work ratio nearest 1) and per-core utilisation (cpu_util.csv). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_digest.h"

static void digest_overlap(pb_overlap_digest *o, const pb_table *t)
{
    if (!t)
        return;
    int cm = pb_table_col(t, PB_COL(OVERLAP, mode)), cr = pb_table_col(t, PB_COL(OVERLAP, ratio)),
        cs = pb_table_col(t, PB_COL(OVERLAP, speedup)), cp = pb_table_col(t, PB_COL(OVERLAP, pct_of_ceiling)),
        cu = pb_table_col(t, PB_COL(OVERLAP, us_per_step));
    for (size_t r = 0; r < t->nrows; r++) {
        const char *mode = pb_table_str(t, r, cm);
        double ratio = pb_table_num(t, r, cr);
        if (isnan(ratio))
            continue;
        int i = 0;
        while (i < o->n && strcmp(o->m[i].mode, mode) != 0)
            i++;
        if (i == o->n) {
            if (o->n == (int)(sizeof o->m / sizeof o->m[0]))
                continue;
            o->n++;
            pb_digest_copy(o->m[i].mode, mode);
        } else if (fabs(log(ratio)) >= fabs(log(o->m[i].ratio))) {
            continue; /* keep the ratio nearest 1 (on a log scale: 0.5 and 2 are as far) */
        }
        o->m[i].ratio = ratio;
        o->m[i].speedup = pb_table_num(t, r, cs);
        o->m[i].pct_ceiling = pb_table_num(t, r, cp);
        o->m[i].us_per_step = pb_table_num(t, r, cu);
    }
    o->have = o->n > 0;
}

/* "3", "cpu3": the number in a cpu column; -1 for "all" or anything else. */
static int cpu_number(const char *s)
{
    while (*s && !isdigit((unsigned char)*s))
        s++;
    return *s ? atoi(s) : -1;
}

static void digest_util(pb_util_digest *u, const pb_table *t)
{
    if (!t)
        return;
    int cc = pb_table_col(t, PB_COL(CPUUTIL, cpu)), cb = pb_table_col(t, PB_COL(CPUUTIL, busy_pct)),
        cs = pb_table_col(t, PB_COL(CPUUTIL, steal_pct)), cstat = pb_table_col(t, "stat");
    for (size_t r = 0; r < t->nrows; r++) {
        /* A sweep's cpu_util.csv adds per-point "mean" rows beside the "interval" samples: count samples only. */
        if (cstat >= 0 && strcmp(pb_table_str(t, r, cstat), "interval") != 0)
            continue;
        int cpu = cpu_number(pb_table_str(t, r, cc));
        double busy = pb_table_num(t, r, cb), steal = pb_table_num(t, r, cs);
        if (cpu < 0 || isnan(busy))
            continue;
        int i = 0;
        while (i < u->n && u->c[i].cpu != cpu)
            i++;
        if (i == u->n) {
            if (u->n == PB_DIGEST_MAX)
                continue;
            u->n++;
            u->c[i].cpu = cpu;
            u->c[i].max = u->c[i].steal_max = NAN;
        }
        u->c[i].mean += busy; /* a sum until the end */
        u->c[i].samples++;
        if (isnan(u->c[i].max) || busy > u->c[i].max)
            u->c[i].max = busy;
        if (!isnan(steal) && (isnan(u->c[i].steal_max) || steal > u->c[i].steal_max))
            u->c[i].steal_max = steal;
    }
    for (int i = 0; i < u->n; i++)
        u->c[i].mean /= u->c[i].samples;
    u->have = u->n > 0;
}

void pb_digest_overlap_util(pb_overlap_digest *o, pb_util_digest *u, const pb_rundata *rd)
{
    memset(o, 0, sizeof *o);
    memset(u, 0, sizeof *u);
    digest_overlap(o, pb_rundata_table(rd, PB_K_OVERLAP));
    digest_util(u, pb_rundata_table(rd, PB_K_CPUUTIL));
}
