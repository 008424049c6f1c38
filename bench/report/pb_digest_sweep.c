/* Decode figures from sweep.csv: the best point per model × format, and for one focus format the best point
 * per thread count, per policy (at the most threads) and per core set. Batch 1 only: a batch is throughput,
 * not decode latency. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_digest.h"

/* The least and most of a space-separated list of numbers (a thread_* column); NaN when it holds none. */
static void list_range(const char *s, double *lo, double *hi)
{
    *lo = *hi = NAN;
    for (char *end = NULL;; s = end) {
        double v = strtod(s, &end);
        if (end == s)
            return;
        *lo = isnan(*lo) || v < *lo ? v : *lo;
        *hi = isnan(*hi) || v > *hi ? v : *hi;
    }
}

static pb_decode_point decode_of(const pb_table *t, const int *c, size_t r);

/* The unequal-core columns of row r into d (an absent column reads as "", NaN or -1: its empty value). */
static void cliff_of(pb_decode_point *d, const pb_table *t, const int *c, size_t r)
{
    pb_digest_copy(d->emulate, pb_table_str(t, r, c[PB_SWEEP_emulate_slow]));
    pb_digest_copy(d->share_source, pb_table_str(t, r, c[PB_SWEEP_share_source]));
    d->slowest_cpu = pb_digest_int(t, r, c[PB_SWEEP_slowest_cpu]);
    d->wait_slowest_ms = pb_table_num(t, r, c[PB_SWEEP_wait_for_slowest_ms]);
    list_range(pb_table_str(t, r, c[PB_SWEEP_thread_busy_ms]), &d->busy_lo_ms, &d->busy_hi_ms);
}

void pb_digest_sweep_row(pb_decode_point *out, const pb_table *t, const int *c, size_t r)
{
    *out = decode_of(t, c, r);
}

static pb_decode_point decode_of(const pb_table *t, const int *c, size_t r)
{
    pb_decode_point d = {
        .threads = pb_digest_int(t, r, c[PB_SWEEP_threads]),
        .tok_s = pb_table_num(t, r, c[PB_SWEEP_tok_per_s]),
        .ms_median = pb_table_num(t, r, c[PB_SWEEP_ms_per_token_median]),
        .pct_floor = pb_table_num(t, r, c[PB_SWEEP_pct_of_floor]),
        .gbps = pb_table_num(t, r, c[PB_SWEEP_gbps_effective]),
        .floor_gbps = pb_table_num(t, r, c[PB_SWEEP_floor_gbps]),
        .weight_bytes = pb_table_num(t, r, c[PB_SWEEP_weight_bytes]),
        .dispatches = pb_table_num(t, r, c[PB_SWEEP_dispatches_per_token]),
        .glue_pct = pb_table_num(t, r, c[PB_SWEEP_glue_pct]),
    };
    pb_digest_copy(d.model, pb_table_str(t, r, c[PB_SWEEP_model]));
    pb_digest_copy(d.format, pb_table_str(t, r, c[PB_SWEEP_format]));
    pb_digest_copy(d.policy, pb_table_str(t, r, c[PB_SWEEP_policy]));
    pb_digest_copy(d.schedule, pb_table_str(t, r, c[PB_SWEEP_schedule]));
    pb_digest_copy(d.cpuset, pb_table_str(t, r, c[PB_SWEEP_cpuset]));
    pb_digest_copy(d.glue, pb_table_str(t, r, c[PB_SWEEP_glue]));
    pb_digest_copy(d.placement, pb_table_str(t, r, c[PB_SWEEP_placement]));
    cliff_of(&d, t, c, r);
    return d;
}

/* Keeps d in list (n of cap) under a key: replaces the entry with the same key when d is faster. */
static void keep_fastest(pb_decode_point *list, int *n, int cap, const pb_decode_point *d,
                         bool (*same)(const pb_decode_point *, const pb_decode_point *))
{
    for (int i = 0; i < *n; i++) {
        if (same(&list[i], d)) {
            if (d->tok_s > list[i].tok_s)
                list[i] = *d;
            return;
        }
    }
    if (*n < cap)
        list[(*n)++] = *d;
}

static bool same_model_format(const pb_decode_point *a, const pb_decode_point *b)
{
    return strcmp(a->model, b->model) == 0 && strcmp(a->format, b->format) == 0;
}
static bool same_threads(const pb_decode_point *a, const pb_decode_point *b) { return a->threads == b->threads; }
static bool same_policy(const pb_decode_point *a, const pb_decode_point *b) { return strcmp(a->policy, b->policy) == 0; }
static bool same_set(const pb_decode_point *a, const pb_decode_point *b) { return strcmp(a->cpuset, b->cpuset) == 0; }

static int by_threads(const void *a, const void *b)
{
    return ((const pb_decode_point *)a)->threads - ((const pb_decode_point *)b)->threads;
}

bool pb_digest_is_decode(const pb_table *t, const int *c, size_t r)
{
    double b = pb_table_num(t, r, c[PB_SWEEP_batch]), pp = pb_table_num(t, r, c[PB_SWEEP_prompt]);
    return (isnan(b) || b == 1) && !(pp > 0) && !isnan(pb_table_num(t, r, c[PB_SWEEP_tok_per_s]));
}

static bool flag_set(const char *s)
{
    return strcmp(s, "1") == 0 || strcmp(s, "yes") == 0 || strcmp(s, "true") == 0 || strcmp(s, "imbalanced") == 0;
}

/* Imbalance (PB_IMBALANCE_POINTS' 40-point rule when the CSV has no flag column) and noise per point. */
static void sweep_noise(pb_sweep_digest *s, const pb_table *t, const int *c, size_t r, const pb_decode_point *d)
{
    double lo = pb_table_num(t, r, c[PB_SWEEP_busy_pct_min]), hi = pb_table_num(t, r, c[PB_SWEEP_busy_pct_max]);
    if (c[PB_SWEEP_imbalance_flag] >= 0 || (!isnan(lo) && !isnan(hi)))
        s->nbusy++;
    bool imb = c[PB_SWEEP_imbalance_flag] >= 0 ? flag_set(pb_table_str(t, r, c[PB_SWEEP_imbalance_flag]))
                                               : (hi - lo > 40);
    if (imb) {
        s->nimbalanced++;
        if (s->nimbalanced == 1 || hi - lo > s->worst_busy_max - s->worst_busy_min) {
            s->worst_imb = *d;
            s->worst_busy_min = lo;
            s->worst_busy_max = hi;
        }
    }
    double mn = pb_table_num(t, r, c[PB_SWEEP_ms_per_token_min]);
    double mx = pb_table_num(t, r, c[PB_SWEEP_ms_per_token_max]);
    double spread = (mx - mn) / d->ms_median;
    if (isfinite(spread) && (isnan(s->ms_spread_max) || spread > s->ms_spread_max)) {
        s->ms_spread_max = spread;
        s->noisiest = *d;
    }
}

/* The focus format: q8_0 of the first model when it was swept, else the first model × format. */
static const pb_decode_point *focus_of(const pb_sweep_digest *s)
{
    for (int i = 0; i < s->nbest; i++)
        if (strcmp(s->best[i].model, s->best[0].model) == 0 && strcmp(s->best[i].format, "q8_0") == 0)
            return &s->best[i];
    return &s->best[0];
}

/* The same point but for its glue mode. */
static bool same_but_glue(const pb_decode_point *a, const pb_decode_point *b)
{
    return same_model_format(a, b) && same_policy(a, b) && same_set(a, b) && same_threads(a, b) &&
           strcmp(a->schedule, b->schedule) == 0;
}

/* A focus-format point run with fused and with serial glue: the pair at the most threads (first seen on a tie). */
static void glue_pair(pb_sweep_digest *s, const pb_table *t, const int *c, const pb_decode_point *focus)
{
    for (size_t r = 0; r < t->nrows; r++) {
        pb_decode_point fu = decode_of(t, c, r);
        if (!pb_digest_is_decode(t, c, r) || !same_model_format(&fu, focus) || strcmp(fu.glue, "fused") != 0 ||
            (s->have_glue && fu.threads <= s->glue_fused.threads))
            continue;
        for (size_t k = 0; k < t->nrows; k++) {
            pb_decode_point se = decode_of(t, c, k);
            if (pb_digest_is_decode(t, c, k) && strcmp(se.glue, "serial") == 0 && same_but_glue(&fu, &se)) {
                s->have_glue = true;
                s->glue_fused = fu;
                s->glue_serial = se;
                break;
            }
        }
    }
}

void pb_digest_sweep(pb_sweep_digest *s, const pb_rundata *rd)
{
    memset(s, 0, sizeof *s);
    s->ms_spread_max = NAN;
    s->pairs = pb_rundata_table(rd, PB_K_PAIRS);
    const pb_table *t = pb_rundata_table(rd, PB_K_SWEEP);
    if (!t)
        return;
    int c[PB_SWEEP_NCOLS];
    pb_digest_cols(t, PB_K_SWEEP, c);
    for (size_t r = 0; r < t->nrows; r++) {
        if (!pb_digest_is_decode(t, c, r))
            continue;
        pb_decode_point d = decode_of(t, c, r);
        s->npoints++;
        keep_fastest(s->best, &s->nbest, 16, &d, same_model_format);
        sweep_noise(s, t, c, r, &d);
        if (d.emulate[0] && s->nemulated++ == 0)
            pb_digest_copy(s->emulated, d.emulate);
    }
    if (!s->nbest)
        return;
    s->have = true;
    const pb_decode_point *f = focus_of(s);
    pb_digest_copy(s->focus, f->format);
    int maxthr = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        pb_decode_point d = decode_of(t, c, r);
        if (!pb_digest_is_decode(t, c, r) || !same_model_format(&d, f))
            continue;
        keep_fastest(s->by_thr, &s->nthr, PB_DIGEST_MAX, &d, same_threads);
        keep_fastest(s->by_set, &s->nset, 16, &d, same_set);
        if (d.threads >= 2 && s->ncliff < PB_DIGEST_MAX)
            s->cliff[s->ncliff++] = d;
        if (d.threads > maxthr)
            maxthr = d.threads;
    }
    qsort(s->by_thr, (size_t)s->nthr, sizeof s->by_thr[0], by_threads);
    glue_pair(s, t, c, f);
    for (size_t r = 0; r < t->nrows; r++) {
        pb_decode_point d = decode_of(t, c, r);
        if (pb_digest_is_decode(t, c, r) && same_model_format(&d, f) && d.threads == maxthr)
            keep_fastest(s->by_pol, &s->npol, 16, &d, same_policy);
    }
}
