/* pb_check_baseline.c — a run against a baseline run, point by point (see pb_check.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pb_check.h"
#include "pb_err.h"

void pb_check_fail(FILE *out, const char *point, const pb_figure *now, const pb_figure *base, const char *base_words,
                   const char *band, const char *why)
{
    char b[128];
    if (base)
        snprintf(b, sizeof b, "%.4g (%.4g..%.4g)", base->v, base->lo, base->hi);
    else
        snprintf(b, sizeof b, "%s", base_words);
    fprintf(out, "FAIL %s %s: baseline %s, now %.4g (%.4g..%.4g), allowed %s: %s\n", point, now->key, b, now->v,
            now->lo, now->hi, band, why);
}

/* Whether now's range lies wholly on the worse side of base's: its best repetition is worse than the baseline's
 * worst. *band: the least (or most) now's figure could have been, its own spread kept, and still have met the
 * baseline's range. */
static bool regressed(const pb_figure *now, const pb_figure *base, double *band)
{
    if (now->better == PB_BETTER_HIGHER) {
        *band = now->hi > 0 ? base->lo * now->v / now->hi : base->lo;
        return now->hi < base->lo;
    }
    *band = now->lo > 0 ? base->hi * now->v / now->lo : base->hi;
    return now->lo > base->hi;
}

static bool improved(const pb_figure *now, const pb_figure *base)
{
    return now->better == PB_BETTER_HIGHER ? now->lo > base->hi : now->hi < base->lo;
}

/* Compares the figures with a direction that both points hold. */
static void compare_point(FILE *out, const pb_point *now, const pb_point *base, pb_check_tally *t)
{
    for (int i = 0; i < now->nfig; i++) {
        const pb_figure *n = &now->fig[i], *b = pb_point_figure(base, n->key);
        if (n->better == PB_BETTER_NONE || !b || b->better == PB_BETTER_NONE)
            continue;
        t->compared++;
        double band;
        if (!regressed(n, b, &band)) {
            t->better += improved(n, b);
            continue;
        }
        char bandtxt[64], why[400];
        snprintf(bandtxt, sizeof bandtxt, "%s %.4g", n->better == PB_BETTER_HIGHER ? ">=" : "<=", band);
        double change = b->v != 0 ? 100.0 * (n->v - b->v) / fabs(b->v) : NAN;
        snprintf(why, sizeof why, "%.0f%% %s, more than %s allow in the two runs", fabs(change),
                 n->better == PB_BETTER_HIGHER ? "lower" : "higher", n->spread ? n->spread : "their spreads");
        pb_check_fail(out, now->name, n, b, NULL, bandtxt, why);
        t->failures++;
    }
}

/* The points of a that b lacks, one line each; how many. */
static int only_in(FILE *out, const pb_points *a, const pb_points *b, const char *which)
{
    int n = 0;
    for (size_t i = 0; i < a->n; i++)
        if (!pb_points_find(b, a->p[i].name)) {
            fprintf(out, "only in the %s: %s\n", which, a->p[i].name);
            n++;
        }
    return n;
}

void pb_check_baseline(FILE *out, const pb_points *run, const pb_points *base, pb_check_tally *t)
{
    size_t shared = 0;
    for (size_t i = 0; i < run->n; i++) {
        const pb_point *b = pb_points_find(base, run->p[i].name);
        if (b) {
            shared++;
            compare_point(out, &run->p[i], b, t);
        }
    }
    if (shared == 0) {
        fprintf(out, "FAIL the run and the baseline share no point: nothing was compared\n");
        t->failures++;
    }
    t->only_base += only_in(out, base, run, "baseline");
    t->only_run += only_in(out, run, base, "run");
}

/* A machine.csv value for a message, cut and with control characters as '?': the refusal stays one line. */
static const char *shown(char *buf, size_t len, const char *s)
{
    snprintf(buf, len, "%s", s);
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return buf;
}

int pb_check_same_machine(const pb_rundata *run, const pb_rundata *base, char *err, size_t errlen)
{
    static const int keys[] = { PB_MKEY_host, PB_MKEY_vendor, PB_MKEY_brand, PB_MKEY_ext_family, PB_MKEY_ext_model,
                                PB_MKEY_schema_version };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *key = pb_machine_key(keys[i])->name;
        const char *r = pb_machine_value(run, key), *b = pb_machine_value(base, key);
        if (!r)
            continue;
        char rs[81], bs[81];
        if (!b)
            return pb_errf(err, errlen, "the baseline's machine.csv has no %s (the run's is '%s')", key,
                           shown(rs, sizeof rs, r));
        if (strcmp(r, b) != 0)
            return pb_errf(err, errlen, "%s is '%s' in the baseline, '%s' in the run", key, shown(bs, sizeof bs, b),
                           shown(rs, sizeof rs, r));
    }
    return 0;
}
