/* pb_exports.c — see pb_exports.h. Every name reaches the JSON through pb_json_str. */
#include "pb_exports.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_json.h"
#include "pb_report.h"

/* A figure exported: which family's figure, its unit, and which way it improves. */
typedef struct pb_export_fig {
    pb_family_id family;
    int fig;
    const char *unit;
    pb_better better;
} pb_export_fig;

#define BIG PB_BETTER_HIGHER
#define SMALL PB_BETTER_LOWER
static const pb_export_fig export_figs[] = {
    { PB_FAM_DECODE, PB_FIG_DECODE_tok_per_s, "tok/s", BIG },
    { PB_FAM_DECODE, PB_FIG_DECODE_pct_of_floor, "%", BIG },
    { PB_FAM_DECODE, PB_FIG_DECODE_gbps, "GB/s", BIG },
    { PB_FAM_DECODE, PB_FIG_DECODE_x_1thread, "x", BIG },
    { PB_FAM_DECODE, PB_FIG_DECODE_floor_tok_per_s, "tok/s", BIG },
    { PB_FAM_DISPATCH, PB_FIG_DISPATCH_ns, "ns", SMALL },
    { PB_FAM_DISPATCH, PB_FIG_DISPATCH_ns_p99, "ns", SMALL },
    { PB_FAM_DISPATCH, PB_FIG_DISPATCH_ratio_to_rt, "x", SMALL },
    { PB_FAM_DISPATCH, PB_FIG_DISPATCH_ratio_to_omp, "x", SMALL },
    { PB_FAM_KERNEL, PB_FIG_KERNEL_gbps, "GB/s", BIG },
    { PB_FAM_KERNEL, PB_FIG_KERNEL_x_floor, "x", BIG },
    { PB_FAM_KERNEL, PB_FIG_KERNEL_gops, "Gop/s", BIG },
    { PB_FAM_OVERLAP, PB_FIG_OVERLAP_pct_of_ceiling, "%", BIG },
    { PB_FAM_OVERLAP, PB_FIG_OVERLAP_speedup, "x", BIG },
    { PB_FAM_FLOOR, PB_FIG_FLOOR_gbps, "GB/s", BIG },
    { PB_FAM_FLOOR, PB_FIG_FLOOR_gbps_best, "GB/s", BIG },
};
#undef BIG
#undef SMALL

/* The export entry of figure f of point p, NULL when the figure is not exported. */
static const pb_export_fig *exported(const pb_point *p, const pb_figure *f)
{
    for (size_t i = 0; i < sizeof export_figs / sizeof export_figs[0]; i++) {
        const pb_family *fam = pb_family_get(export_figs[i].family);
        if (strcmp(p->family, fam->name) == 0 && strcmp(f->key, fam->figs[export_figs[i].fig]) == 0)
            return &export_figs[i];
    }
    return NULL;
}

/* The point's own range around the figure: lo <= v <= hi, both known and not both v. */
static bool has_range(const pb_figure *f)
{
    return isfinite(f->lo) && isfinite(f->hi) && f->lo <= f->v && f->v <= f->hi && f->hi > f->lo;
}

static double to_ns(const pb_point *p)
{
    const char *u = p->unit ? p->unit : "ns";
    return p->real_time * (strcmp(u, "ms") == 0 ? 1e6 : strcmp(u, "us") == 0 ? 1e3 : strcmp(u, "s") == 0 ? 1e9 : 1);
}

/* The next member of an object or array on its own line at indent: a comma before all but the first. */
static void json_next(FILE *f, const char *indent, bool *first)
{
    fputs(*first ? "\n" : ",\n", f);
    fputs(indent, f);
    *first = false;
}

/* lead (the punctuation and key before a value), then the value. */
static void json_num_after(FILE *f, const char *lead, double v)
{
    fputs(lead, f);
    pb_json_num(f, v);
}

static void json_str_after(FILE *f, const char *lead, const char *s)
{
    fputs(lead, f);
    pb_json_str(f, s);
}

/* ---------------------------------------------------------------- Bencher */

static void bmf_measure(FILE *f, const char *name, double v, double lo, double hi, bool range, bool *first)
{
    json_next(f, "    ", first);
    pb_json_key(f, name);
    json_num_after(f, "{ \"value\": ", v);
    if (range) {
        json_num_after(f, ", \"lower_value\": ", lo);
        json_num_after(f, ", \"upper_value\": ", hi);
    }
    fputs(" }", f);
}

/* One benchmark: the point's latency, then each exported figure it has. */
static void bmf_point(FILE *f, const pb_point *p, bool *first_point)
{
    json_next(f, "  ", first_point);
    pb_json_key(f, p->name);
    fputs("{", f);
    bool first = true;
    bmf_measure(f, "latency", to_ns(p), NAN, NAN, false, &first);
    for (int k = 0; k < p->nfig; k++)
        if (exported(p, &p->fig[k]) && isfinite(p->fig[k].v))
            bmf_measure(f, p->fig[k].key, p->fig[k].v, p->fig[k].lo, p->fig[k].hi, has_range(&p->fig[k]), &first);
    fputs("\n  }", f);
}

static void write_bencher(FILE *f, const void *arg)
{
    const pb_points *ps = arg;
    fputs("{", f);
    bool none = true;
    for (size_t i = 0; i < ps->n; i++)
        if (isfinite(ps->p[i].real_time))
            bmf_point(f, &ps->p[i], &none);
    fputs(none ? "}\n" : "\n}\n", f);
}

/* ---------------------------------------------------------------- github-action-benchmark */

typedef struct gab_job {
    const pb_points *ps;
    pb_better better;
} gab_job;

/* One entry: "POINT FIGURE", its unit and value, the range as "± d" (the larger side of the point's own
 * range) and what that range comes from. */
static void gab_entry(FILE *f, const char *point, const char *figure, const char *unit, double v, const pb_figure *fig,
                      bool *first)
{
    char name[PB_POINT_NAME + 64];
    snprintf(name, sizeof name, "%s %s", point, figure);
    json_next(f, "  ", first);
    json_str_after(f, "{ \"name\": ", name);
    json_str_after(f, ", \"unit\": ", unit);
    json_num_after(f, ", \"value\": ", v);
    if (fig && has_range(fig)) {
        char range[64], extra[200];
        double d = fmax(fig->v - fig->lo, fig->hi - fig->v);
        snprintf(range, sizeof range, "± %.4g", d);
        snprintf(extra, sizeof extra, "%.6g to %.6g (%s)", fig->lo, fig->hi, fig->spread ? fig->spread : "its range");
        json_str_after(f, ", \"range\": ", range);
        json_str_after(f, ", \"extra\": ", extra);
    }
    fputs(" }", f);
}

static void write_gab(FILE *f, const void *arg)
{
    const gab_job *j = arg;
    fputs("[", f);
    bool first = true;
    for (size_t i = 0; i < j->ps->n; i++) {
        const pb_point *p = &j->ps->p[i];
        if (j->better == PB_BETTER_LOWER && isfinite(p->real_time))
            gab_entry(f, p->name, "real_time", p->unit ? p->unit : "ns", p->real_time, NULL, &first);
        for (int k = 0; k < p->nfig; k++) {
            const pb_export_fig *e = exported(p, &p->fig[k]);
            if (e && e->better == j->better && isfinite(p->fig[k].v))
                gab_entry(f, p->name, p->fig[k].key, e->unit, p->fig[k].v, &p->fig[k], &first);
        }
    }
    fputs(first ? "]\n" : "\n]\n", f);
}

int pb_exports_write(const char *dir, const pb_points *ps)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, PB_EXPORT_BENCHER);
    if (pb_write_file(path, write_bencher, ps) != 0)
        return -1;
    gab_job big = { ps, PB_BETTER_HIGHER }, small = { ps, PB_BETTER_LOWER };
    snprintf(path, sizeof path, "%s/%s", dir, PB_EXPORT_BIGGER);
    if (pb_write_file(path, write_gab, &big) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/%s", dir, PB_EXPORT_SMALLER);
    return pb_write_file(path, write_gab, &small);
}
