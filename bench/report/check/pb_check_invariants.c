/* pb_check_invariants.c — holding a run's points to the invariants of an expect file (see pb_check.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_check.h"
#include "pb_csvread.h"

static bool filter_matches(const pb_point *p, const pb_expect_filter *f)
{
    const pb_attr *a = pb_point_attr(p, f->key);
    if (!a)
        return false;
    if (f->op == '=')
        return strcmp(a->val, f->val) == 0;
    double x, bound = strtod(f->val, NULL); /* checked to be a number when the file was read */
    if (pb_parse_num(a->val, &x) != 0)
        return false;
    return f->op == '>' ? x >= bound : x <= bound;
}

static bool selects(const pb_invariant *inv, const pb_point *p)
{
    if (strcmp(p->family, inv->family) != 0)
        return false;
    for (int i = 0; i < inv->nfilter; i++)
        if (!filter_matches(p, &inv->filter[i]))
            return false;
    return true;
}

/* One invariant over every point it selects: a FAIL line for each that breaks it, then its summary line. */
static void check_one(FILE *out, const pb_points *run, const pb_invariant *inv, const char *path, pb_check_tally *t)
{
    int held = 0, broke = 0;
    char band[64], where[4200];
    snprintf(band, sizeof band, "%s %.4g", inv->op == '>' ? ">=" : "<=", inv->bound);
    snprintf(where, sizeof where, "none (invariant, %s:%d)", path, inv->line);
    for (size_t i = 0; i < run->n; i++) {
        const pb_point *p = &run->p[i];
        const pb_figure *f = selects(inv, p) ? pb_point_figure(p, inv->figure) : NULL;
        if (!f)
            continue;
        held++;
        if (inv->op == '>' ? f->v >= inv->bound : f->v <= inv->bound)
            continue;
        broke++;
        pb_check_fail(out, p->name, f, NULL, where, band, inv->why);
    }
    if (held == 0) {
        fprintf(out, "not checked: %s (%s:%d): no point of this run has it\n", inv->text, path, inv->line);
        t->unmatched++;
        return;
    }
    fprintf(out, "%s %s: %d of %d point%s\n", broke ? "BROKEN" : "ok", inv->text, broke ? broke : held, held,
            held == 1 ? "" : "s");
    t->compared += held;
    t->failures += broke;
}

void pb_check_expect(FILE *out, const pb_points *run, const pb_expect *e, pb_check_tally *t)
{
    for (int i = 0; i < e->n; i++)
        check_one(out, run, &e->inv[i], e->path, t);
}
