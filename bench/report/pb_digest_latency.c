/* latency.csv (bench_memory_floor --latency): the ladder in file order, the loaded curve from the idle point (the
 * ladder's largest working set: the buffer the loaded points chase) up by bandwidth, and where latency doubles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_digest.h"

static pb_latency_point dlat_point(const pb_table *t, const int *c, size_t r)
{
    pb_latency_point p = { .duty = pb_digest_int(t, r, c[PB_LATENCY_duty_pct]),
                      .kib = pb_table_num(t, r, c[PB_LATENCY_size_kib]),
                      .ns = pb_table_num(t, r, c[PB_LATENCY_ns_median]),
                      .ns_min = c[PB_LATENCY_ns_min] >= 0 ? pb_table_num(t, r, c[PB_LATENCY_ns_min]) : NAN,
                      .ns_max = c[PB_LATENCY_ns_max] >= 0 ? pb_table_num(t, r, c[PB_LATENCY_ns_max]) : NAN,
                      .gbps = c[PB_LATENCY_total_gbps] >= 0 ? pb_table_num(t, r, c[PB_LATENCY_total_gbps]) : NAN,
                      .cycles = c[PB_LATENCY_cycles_median] >= 0 ? pb_table_num(t, r, c[PB_LATENCY_cycles_median])
                                                                 : NAN,
                      .run_pct = c[PB_LATENCY_run_pct] >= 0 ? pb_table_num(t, r, c[PB_LATENCY_run_pct]) : NAN };
    pb_digest_copy(p.level, c[PB_LATENCY_level] >= 0 ? pb_table_str(t, r, c[PB_LATENCY_level]) : "");
    return p;
}

static int dlat_by_gbps(const void *a, const void *b)
{
    double x = ((const pb_latency_point *)a)->gbps, y = ((const pb_latency_point *)b)->gbps;
    return (x > y) - (x < y);
}

/* Where the curve first reaches twice the idle latency, between the point below and that one. */
static double dlat_doubling(const pb_latency_digest *l)
{
    double want = 2 * l->curve[0].ns;
    for (int i = 1; i < l->ncurve; i++) {
        const pb_latency_point *a = &l->curve[i - 1], *b = &l->curve[i];
        if (b->ns < want)
            continue;
        if (b->ns == a->ns)
            return a->gbps;
        return a->gbps + (b->gbps - a->gbps) * (want - a->ns) / (b->ns - a->ns);
    }
    return NAN;
}

double pb_digest_latency_at(const pb_latency_digest *l, double gbps)
{
    for (int i = 1; i < l->ncurve; i++) {
        const pb_latency_point *a = &l->curve[i - 1], *b = &l->curve[i];
        if (gbps >= a->gbps && gbps <= b->gbps)
            return b->gbps == a->gbps ? b->ns : a->ns + (b->ns - a->ns) * (gbps - a->gbps) / (b->gbps - a->gbps);
    }
    return NAN;
}

void pb_digest_latency(pb_latency_digest *l, const pb_rundata *rd)
{
    memset(l, 0, sizeof *l);
    l->double_gbps = l->top_gbps = l->top_x = l->thp_mib = NAN;
    const pb_table *t = pb_rundata_table(rd, PB_K_LATENCY);
    if (!t)
        return;
    int c[PB_LATENCY_NCOLS];
    pb_digest_cols(t, PB_K_LATENCY, c);
    int idle = -1;
    for (size_t r = 0; r < t->nrows; r++) {
        pb_latency_point p = dlat_point(t, c, r);
        if (isnan(p.ns))
            continue;
        if (strcmp(pb_table_str(t, r, c[PB_LATENCY_phase]), "ladder") == 0 && l->nladder < PB_DIGEST_MAX) {
            if (idle < 0 || p.kib > l->ladder[idle].kib)
                idle = l->nladder;
            l->ladder[l->nladder++] = p;
        } else if (strcmp(pb_table_str(t, r, c[PB_LATENCY_phase]), "loaded") == 0 && l->ncurve + 1 < PB_DIGEST_MAX) {
            l->curve[1 + l->ncurve++] = p; /* [0] is the idle point, set below */
            l->load_threads = c[PB_LATENCY_load_threads] >= 0 ? pb_digest_int(t, r, c[PB_LATENCY_load_threads]) : -1;
        }
        if (c[PB_LATENCY_thp_mib] >= 0)
            l->thp_mib = pb_table_num(t, r, c[PB_LATENCY_thp_mib]);
    }
    l->have = idle >= 0;
    if (!l->have)
        return;
    l->curve[0] = l->ladder[idle];
    l->ncurve += 1;
    qsort(l->curve + 1, (size_t)l->ncurve - 1, sizeof *l->curve, dlat_by_gbps);
    if (l->ncurve < 2)
        return;
    l->double_gbps = dlat_doubling(l);
    const pb_latency_point *top = &l->curve[l->ncurve - 1];
    l->top_gbps = top->gbps;
    l->top_x = top->ns / l->curve[0].ns;
}
