/* pb_paired.c — paired comparisons with an exact Wilcoxon interval (see pb_paired.h). */
#include "pb_paired.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pb_stats.h"

/* The log ratios of the usable pairs into d; how many. */
static size_t pb_paired_logs(const double *a, const double *b, size_t n, double *d)
{
    size_t m = 0;
    for (size_t i = 0; i < n && m < PB_PAIRED_MAX; i++)
        if (isfinite(a[i]) && isfinite(b[i]) && a[i] > 0 && b[i] > 0)
            d[m++] = log(b[i] / a[i]);
    return m;
}

/* The largest k with P(T+ <= k) <= 0.025 for the signed-rank statistic of n pairs under no difference, or -1 when
 * even T+ = 0 is likelier. The exact distribution: each rank 1..n joins T+ with probability 1/2, counted over the
 * sums 0..n(n+1)/2 (probabilities, not counts: 2^n overflows past 64 pairs). */
static long pb_paired_critical(size_t n)
{
    size_t top = n * (n + 1) / 2;
    double *p = calloc(top + 1, sizeof *p);
    if (!p)
        return -1;
    p[0] = 1;
    for (size_t r = 1; r <= n; r++)
        for (size_t t = top + 1; t-- > 0;) /* downwards: p[t - r] is still the distribution without rank r */
            p[t] = (p[t] + (t >= r ? p[t - r] : 0)) / 2;
    long k = -1;
    double cum = 0;
    for (size_t t = 0; t <= top; t++) {
        cum += p[t];
        if (cum > 0.025)
            break;
        k = (long)t;
    }
    free(p);
    return k;
}

pb_paired pb_paired_ratio(const double *a, const double *b, size_t n)
{
    pb_paired out = { .n = 0, .ratio = NAN, .lo = NAN, .hi = NAN };
    double d[PB_PAIRED_MAX];
    size_t m = pb_paired_logs(a, b, n, d);
    size_t nw = m * (m + 1) / 2;
    double *w = nw ? malloc(nw * sizeof *w) : NULL;
    if (!w)
        return out;
    size_t at = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = i; j < m; j++)
            w[at++] = (d[i] + d[j]) / 2;
    pb_sort_doubles(w, nw);
    out.n = (int)m;
    out.ratio = exp(pb_percentile_sorted(w, nw, 0.5));
    long k = m >= PB_PAIRED_MIN_CI ? pb_paired_critical(m) : -1;
    if (k >= 0) {
        out.lo = exp(w[k]);
        out.hi = exp(w[nw - 1 - (size_t)k]);
    }
    free(w);
    return out;
}

bool pb_paired_differs(const pb_paired *p)
{
    return isfinite(p->lo) && isfinite(p->hi) && (p->lo > 1 || p->hi < 1);
}

void pb_paired_text(const pb_paired *p, char *buf, size_t len)
{
    if (!isfinite(p->lo) || !isfinite(p->hi)) {
        snprintf(buf, len, "too few pairs to tell (%d; %d give an interval)", p->n, PB_PAIRED_MIN_CI);
        return;
    }
    double lo = (p->lo - 1) * 100, hi = (p->hi - 1) * 100, mid = (p->ratio - 1) * 100;
    if (pb_paired_differs(p))
        snprintf(buf, len, "%+.0f%% (%+.0f%% to %+.0f%%)", mid, lo, hi);
    else
        snprintf(buf, len, "no difference measured (%+.0f%% to %+.0f%%)", lo, hi);
}
