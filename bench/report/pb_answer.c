/* pb_answer.c — see pb_answer.h: the points and their noise; the per-format answers, the recommendation and its
 * deviations are in pb_answer_run.c. */
#include "pb_answer.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_fmt.h"
#include "pb_tuning.h"

const char *const pb_owner_names[2] = { [PB_OWNER_MACHINE] = "machine", [PB_OWNER_POOLBENCH] = "poolbench" };

/* Whether cpu is in a space-separated list of cpu ids. */
static bool cpu_listed(const char *list, int cpu)
{
    for (char *end = NULL;; list = end) {
        long v = strtol(list, &end, 10);
        if (end == list)
            return false;
        if (v == cpu)
            return true;
    }
}

/* The mean steal of a point's pinned cpus over its samples in bench_sweep's cpu_util.csv; NaN when none. */
static double point_steal(const pb_rundata *rd, int point, const char *cpus)
{
    const pb_table *u = pb_rundata_table(rd, PB_K_CPUUTIL);
    int cp = u ? pb_table_col(u, PB_COL(SWEEPUTIL, point)) : -1;
    if (cp < 0 || point < 0)
        return NAN;
    int cc = pb_table_col(u, PB_COL(SWEEPUTIL, cpu)), cs = pb_table_col(u, PB_COL(SWEEPUTIL, steal_pct));
    double sum = 0;
    int n = 0;
    for (size_t r = 0; r < u->nrows; r++) {
        double s = pb_table_num(u, r, cs);
        if (pb_digest_int(u, r, cp) != point || !cpu_listed(cpus, pb_digest_int(u, r, cc)) || isnan(s))
            continue;
        sum += s;
        n++;
    }
    return n ? sum / n : NAN;
}

/* Appends a reason to p's noisy_why. */
static void noisy_because(pb_answer_point *p, const char *why)
{
    size_t at = strlen(p->noisy_why);
    snprintf(p->noisy_why + at, sizeof p->noisy_why - at, "%s%s", at ? ", " : "", why);
    p->noisy = true;
}

/* The marks of pb_answer.h's top on p. */
static void mark_noise(pb_answer_point *p)
{
    char why[64];
    if (p->spread > PB_NOISY_SPREAD) {
        snprintf(why, sizeof why, "spread %s", PB_PCT(100.0 * p->spread));
        noisy_because(p, why);
    }
    if (p->d.threads > 1 && strcmp(p->d.placement, "mixed") == 0) /* one thread crosses no cores */
        noisy_because(p, "placement changed");
    double un = 100.0 * p->part[PB_BUDGET_unexplained] / p->d.ms_median;
    if (p->have_budget && fabs(un) > PB_BUDGET_UNEXPLAINED_PCT) {
        snprintf(why, sizeof why, "%s of its token unexplained", PB_PCT(un));
        noisy_because(p, why);
    }
    if (p->steal_pct > PB_STEAL_NOISY_PCT) {
        snprintf(why, sizeof why, "steal %s", PB_PCT(p->steal_pct));
        noisy_because(p, why);
    }
}

/* Row r of sweep.csv (c: its columns) as a point. */
static pb_answer_point point_of(const pb_rundata *rd, const pb_table *t, const int *c, size_t r)
{
    pb_answer_point p = { .point = pb_digest_int(t, r, c[PB_SWEEP_point]),
                          .context = pb_digest_int(t, r, c[PB_SWEEP_context]),
                          .ms_max = pb_table_num(t, r, c[PB_SWEEP_ms_per_token_max]), .have_budget = true,
                          .dispatch_ns = pb_table_num(t, r, c[PB_SWEEP_dispatch_cost_ns]) };
    pb_digest_sweep_row(&p.d, t, c, r);
    pb_digest_copy(p.kv, pb_table_str(t, r, c[PB_SWEEP_kv_type]));
    p.prompt = c[PB_SWEEP_prompt] < 0 ? 0 : pb_digest_int(t, r, c[PB_SWEEP_prompt]);
    p.roof_share = pb_table_num(t, r, c[PB_SWEEP_roof_share]);
    p.spread = (p.ms_max - pb_table_num(t, r, c[PB_SWEEP_ms_per_token_min])) / p.d.ms_median;
    for (int k = 0; k < PB_BUDGET_NPARTS; k++) {
        p.part[k] = pb_table_num(t, r, c[pb_budget_col((pb_budget_part)k)]);
        if (k == PB_BUDGET_roof && c[pb_budget_col((pb_budget_part)k)] < 0)
            p.part[k] = 0; /* a run from before the roof: the floor bound every point */
        p.have_budget &= !isnan(p.part[k]);
    }
    p.steal_pct = point_steal(rd, p.point, pb_table_str(t, r, c[PB_SWEEP_cpus]));
    mark_noise(&p);
    return p;
}

/* The best read floor: memory_floor.csv's best median over thread counts, else the sweep's interleaved one. */
static void best_floor(pb_answers *a, const pb_digest *d)
{
    a->floor_gbps = NAN;
    for (int i = 0; i < d->floor.n; i++)
        if (isnan(a->floor_gbps) || d->floor.pt[i].median > a->floor_gbps) {
            a->floor_gbps = d->floor.pt[i].median;
            a->floor_threads = d->floor.pt[i].threads;
        }
    if (!isnan(a->floor_gbps))
        return;
    for (int k = 0; k < a->npoints; k++)
        if (a->pt[k].d.floor_gbps > 0 && !(a->pt[k].d.floor_gbps <= a->floor_gbps)) {
            a->floor_gbps = a->pt[k].d.floor_gbps;
            a->floor_threads = a->pt[k].d.threads;
            a->floor_from_sweep = true;
        }
}

/* The best int8 roof roof.csv measured at its largest thread count: what a prompt's matrix products could reach. */
static void best_roof(pb_answers *a, const pb_digest *d)
{
    a->roof_gmacs = NAN;
    for (int i = 0; i < d->roof.n; i++) {
        if (strcmp(d->roof.r[i].op, "int8") != 0 || d->roof.r[i].threads < a->roof_threads)
            continue;
        if (d->roof.r[i].threads > a->roof_threads || !(d->roof.r[i].gmacs <= a->roof_gmacs)) {
            a->roof_gmacs = d->roof.r[i].gmacs;
            a->roof_threads = d->roof.r[i].threads;
            snprintf(a->roof_isa, sizeof a->roof_isa, "%s", d->roof.r[i].ran);
        }
    }
}

static int read_points(pb_answers *a, const pb_rundata *rd)
{
    const pb_table *t = pb_rundata_table(rd, PB_K_SWEEP);
    if (!t)
        return 0;
    int c[PB_SWEEP_NCOLS];
    pb_digest_cols(t, PB_K_SWEEP, c);
    a->pt = calloc(PB_ANS_POINTS, sizeof *a->pt);
    if (!a->pt) {
        errno = ENOMEM;
        return -1;
    }
    a->pp = calloc(PB_ANS_POINTS, sizeof *a->pp);
    if (!a->pp) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t r = 0; r < t->nrows; r++) {
        bool prompt = c[PB_SWEEP_prompt] >= 0 && pb_digest_int(t, r, c[PB_SWEEP_prompt]) > 0;
        if (prompt && a->npp < PB_ANS_POINTS && !isnan(pb_table_num(t, r, c[PB_SWEEP_tok_per_s])))
            a->pp[a->npp++] = point_of(rd, t, c, r);
        if (prompt || a->npoints == PB_ANS_POINTS || !pb_digest_is_decode(t, c, r))
            continue;
        pb_answer_point *p = &a->pt[a->npoints++];
        *p = point_of(rd, t, c, r);
        a->nnoisy += p->noisy;
        a->nbudget += p->have_budget;
        a->nunexplained += p->have_budget &&
                           fabs(100.0 * p->part[PB_BUDGET_unexplained] / p->d.ms_median) > PB_BUDGET_UNEXPLAINED_PCT;
        if (!isnan(p->steal_pct) && !(p->steal_pct <= a->steal_max))
            a->steal_max = p->steal_pct;
    }
    return 0;
}

int pb_answers_make(pb_answers *a, const pb_rundata *rd, const pb_digest *d)
{
    memset(a, 0, sizeof *a);
    a->steal_max = NAN;
    if (read_points(a, rd) != 0)
        return -1;
    a->have = a->npoints > 0;
    a->pairs = pb_rundata_table(rd, PB_K_PAIRS);
    best_floor(a, d);
    best_roof(a, d);
    if (a->have)
        pb_answers_formats(a, d);
    pb_answers_prompts(a, d);
    return 0;
}

void pb_answers_free(pb_answers *a)
{
    free(a->pt);
    free(a->pp);
    a->pt = a->pp = NULL;
    a->npoints = a->npp = 0;
}
