/* pb_budget.c — see pb_budget.h. */
#include "pb_budget.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

static int pb_token_cmp(const void *a, const void *b)
{
    double x = ((const pb_budget_token *)a)->ms, y = ((const pb_budget_token *)b)->ms;
    return (x > y) - (x < y);
}

/* lo + frac x (hi - lo), field by field: pb_percentile_sorted's interpolation, so ms is the summary's median. */
static double pb_between(double lo, double hi, double frac) { return lo + frac * (hi - lo); }

pb_budget_token pb_budget_median(const pb_budget_token *t, size_t n)
{
    if (n == 0 || !t)
        return (pb_budget_token){ NAN, NAN, NAN, NAN, NAN, NAN, NAN };
    pb_budget_token *c = malloc(n * sizeof *c);
    if (!c)
        return (pb_budget_token){ NAN, NAN, NAN, NAN, NAN, NAN, NAN };
    for (size_t i = 0; i < n; i++)
        c[i] = t[i];
    qsort(c, n, sizeof *c, pb_token_cmp);
    double rank = 0.5 * (double)(n - 1), frac = rank - floor(rank);
    size_t lo = (size_t)rank, hi = lo + 1 < n ? lo + 1 : lo;
    const pb_budget_token *a = &c[lo], *b = &c[hi];
    pb_budget_token m = {
        .ms = pb_between(a->ms, b->ms, frac),
        .glue_ms = pb_between(a->glue_ms, b->glue_ms, frac),
        .quant_ms = pb_between(a->quant_ms, b->quant_ms, frac),
        .attn_ms = pb_between(a->attn_ms, b->attn_ms, frac),
        .busy_mean_ms = pb_between(a->busy_mean_ms, b->busy_mean_ms, frac),
        .busy_max_ms = pb_between(a->busy_max_ms, b->busy_max_ms, frac),
        .wait_ms = pb_between(a->wait_ms, b->wait_ms, frac),
    };
    free(c);
    return m;
}

void pb_budget_split(const pb_budget_token *t, const pb_budget_in *in, pb_budget *out)
{
    out->token_ms = t->ms;
    for (int p = 0; p < PB_BUDGET_NPARTS; p++)
        out->ms[p] = NAN;
    /* bytes / (GB/s x 1e6) is ms; a floor that is not a positive number forms no part */
    double per_ms = in->floor_gbps > 0 ? in->floor_gbps * 1e6 : NAN;
    double weights_ms = in->weight_bytes / per_ms, kv_ms = in->kv_bytes / per_ms;
    double roof_ms = in->roof_gmacs > 0 && in->macs > 0 ? in->macs / (in->roof_gmacs * 1e6) : 0;
    bool roof = roof_ms > weights_ms; /* the binding one: the two overlap, so only the longer is a part */
    double *ms = out->ms;
    ms[PB_BUDGET_floor] = (roof ? 0 : weights_ms) + kv_ms;
    ms[PB_BUDGET_roof] = roof ? roof_ms : 0;
    ms[PB_BUDGET_kernel] = t->busy_mean_ms - (roof ? roof_ms : weights_ms);
    ms[PB_BUDGET_quant] = t->quant_ms;
    ms[PB_BUDGET_glue] = t->glue_ms;
    ms[PB_BUDGET_attn] = t->attn_ms - kv_ms;
    ms[PB_BUDGET_dispatch] = in->calls * in->dispatch_ns / 1e6;
    ms[PB_BUDGET_wait] = isnan(t->wait_ms) ? t->busy_max_ms - t->busy_mean_ms : t->wait_ms;
    double parts = 0;
    for (int p = 0; p < PB_BUDGET_NPARTS; p++)
        parts += p == PB_BUDGET_unexplained ? 0 : ms[p];
    ms[PB_BUDGET_unexplained] = t->ms - parts; /* NaN when any part is */
    if (isnan(parts))
        for (int p = 0; p < PB_BUDGET_NPARTS; p++)
            ms[p] = NAN;
}

double pb_budget_unexplained_pct(const pb_budget *b)
{
    return b->token_ms > 0 ? 100.0 * b->ms[PB_BUDGET_unexplained] / b->token_ms : NAN;
}
