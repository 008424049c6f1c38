/* pb_points.c — see pb_points.h: the list, its names and look-ups; the CSV readers are in pb_points_rows.c. */
#include "pb_points.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pb_point *pb_points_add(pb_points *ps, const char *family)
{
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 64;
        pb_point *p = realloc(ps->p, cap * sizeof *p);
        if (!p) {
            errno = ENOMEM;
            return NULL;
        }
        ps->p = p;
        ps->cap = cap;
    }
    pb_point *p = &ps->p[ps->n++];
    *p = (pb_point){ .family = family, .iterations = 1, .real_time = NAN, .row = -1 };
    return p;
}

void pb_point_attr_add(pb_point *p, const char *key, const char *val, bool named, bool keyed)
{
    if (p->nattr == PB_POINT_ATTRS)
        return;
    pb_attr *a = &p->attr[p->nattr++];
    *a = (pb_attr){ .key = key, .named = named, .keyed = keyed };
    snprintf(a->val, sizeof a->val, "%s", val && *val ? val : "-");
    /* A '/' of a CSV value would split the name into levels that are not there. */
    for (char *c = a->val; (c = strchr(c, '/')); c++)
        *c = '_';
}

void pb_point_fig_add(pb_point *p, const char *key, double v, double lo, double hi, pb_better better,
                      const char *spread)
{
    if (isnan(v) || p->nfig == PB_POINT_FIGS)
        return;
    /* A spread that does not contain the figure (a column rounded differently, or missing) is no spread. */
    lo = isnan(lo) || lo > v ? v : lo;
    hi = isnan(hi) || hi < v ? v : hi;
    p->fig[p->nfig++] = (pb_figure){ .key = key, .v = v, .lo = lo, .hi = hi, .better = better, .spread = spread };
}

static void build_name(pb_point *p)
{
    size_t at = (size_t)snprintf(p->name, sizeof p->name, "%s", p->family);
    for (int i = 0; i < p->nattr && at < sizeof p->name; i++) {
        const pb_attr *a = &p->attr[i];
        if (!a->named)
            continue;
        const char *first = a->keyed ? a->key : a->val;
        at += (size_t)snprintf(p->name + at, sizeof p->name - at, a->keyed ? "/%s:%s" : "/%s", first, a->val);
    }
}

void pb_points_commit(pb_points *ps)
{
    pb_point *p = &ps->p[ps->n - 1];
    build_name(p);
    for (size_t i = 0; i + 1 < ps->n; i++)
        if (strcmp(ps->p[i].name, p->name) == 0) {
            ps->n--;
            ps->dropped++;
            return;
        }
}

const pb_point *pb_points_find(const pb_points *ps, const char *name)
{
    for (size_t i = 0; i < ps->n; i++)
        if (strcmp(ps->p[i].name, name) == 0)
            return &ps->p[i];
    return NULL;
}

const pb_figure *pb_point_figure(const pb_point *p, const char *key)
{
    for (int i = 0; i < p->nfig; i++)
        if (strcmp(p->fig[i].key, key) == 0)
            return &p->fig[i];
    return NULL;
}

const pb_attr *pb_point_attr(const pb_point *p, const char *key)
{
    for (int i = 0; i < p->nattr; i++)
        if (strcmp(p->attr[i].key, key) == 0)
            return &p->attr[i];
    return NULL;
}

int pb_points_of_run(pb_points *ps, const pb_rundata *rd)
{
    static int (*const readers[])(pb_points *, const pb_rundata *) = {
        pb_points_decode, pb_points_dispatch, pb_points_kernel, pb_points_overlap, pb_points_floor,
    };
    *ps = (pb_points){ 0 };
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++)
        if (readers[i](ps, rd) != 0)
            return -1;
    return 0;
}

void pb_points_free(pb_points *ps)
{
    free(ps->p);
    *ps = (pb_points){ 0 };
}
