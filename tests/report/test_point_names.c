/* The point families' names are declared once (pb_schema.h) and the expect grammar accepts only those: the row
 * readers must add no attribute or figure the declaration lacks (an invariant on it would be refused), and every
 * declared one must reach some point of the fixtures (a declared name no point carries would be "not checked"). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "pb_points.h"
#include "pb_rundata.h"

#define RUNS "tests/data/runs"

typedef struct seen {
    bool attr[PB_FAM_COUNT][32], fig[PB_FAM_COUNT][32];
} seen;

/* Every point of the fixture run's, checked against its family's declaration; what it carries noted in s. */
static void check_run(const char *name, seen *s)
{
    char dir[256], err[4400];
    snprintf(dir, sizeof dir, RUNS "/%s", name);
    pb_rundata rd;
    cr_assert_eq(pb_rundata_load(&rd, dir, err, sizeof err), 0, "%s", err);
    pb_points ps;
    cr_assert_eq(pb_points_of_run(&ps, &rd), 0);
    for (size_t i = 0; i < ps.n; i++) {
        const pb_point *p = &ps.p[i];
        const pb_family *f = pb_family_find(p->family);
        cr_assert_not_null(f, "%s: family '%s' is declared", p->name, p->family);
        int fi = (int)(f - pb_family_get(0));
        for (int a = 0; a < p->nattr; a++) {
            const pb_family_attr *d = pb_family_attr_find(f, p->attr[a].key);
            cr_expect_not_null(d, "%s: attribute '%s' is declared for %s", p->name, p->attr[a].key, f->name);
            if (d)
                s->attr[fi][d - f->attrs] = true;
        }
        for (int g = 0; g < p->nfig; g++) {
            int k = pb_family_fig(f, p->fig[g].key);
            cr_expect_geq(k, 0, "%s: figure '%s' is declared for %s", p->name, p->fig[g].key, f->name);
            if (k >= 0)
                s->fig[fi][k] = true;
        }
    }
    pb_points_free(&ps);
    pb_rundata_free(&rd);
}

Test(point_names, the_readers_and_the_declaration_agree)
{
    seen s = { 0 };
    static const char *const runs[] = { "quick", "xeon16", "laptop", "complete" };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        check_run(runs[i], &s);
    for (int f = 0; f < PB_FAM_COUNT; f++) {
        const pb_family *fam = pb_family_get((pb_family_id)f);
        cr_assert_leq(fam->nattrs, 32);
        cr_assert_leq(fam->nfigs, 32);
        for (int a = 0; a < fam->nattrs; a++)
            cr_expect(s.attr[f][a], "%s's attribute %s is on some point", fam->name, fam->attrs[a].name);
        for (int g = 0; g < fam->nfigs; g++)
            cr_expect(s.fig[f][g], "%s's figure %s is on some point", fam->name, fam->figs[g]);
    }
}

/* Each attribute that is a column is named as the column, in the family's own CSV kind; numeric ones are the
 * ones the grammar lets >= and <= test. */
Test(point_names, attributes_are_columns_of_their_kind)
{
    for (int f = 0; f < PB_FAM_COUNT; f++) {
        const pb_family *fam = pb_family_get((pb_family_id)f);
        for (int a = 0; a < fam->nattrs; a++) {
            const pb_family_attr *d = &fam->attrs[a];
            if (d->col >= 0)
                cr_expect_str_eq(pb_schema_name(fam->kind, d->col), d->name);
        }
    }
    const pb_family *dec = pb_family_find("decode");
    cr_assert_not_null(dec);
    cr_expect(pb_family_attr_numeric(dec, pb_family_attr_find(dec, "threads")));
    cr_expect(!pb_family_attr_numeric(dec, pb_family_attr_find(dec, "format")));
    const pb_family *dis = pb_family_find("dispatch");
    cr_expect(!pb_family_attr_numeric(dis, pb_family_attr_find(dis, "oversubscribed")));
    cr_expect_null(pb_family_find("decoder"));
    cr_expect_eq(pb_family_fig(dec, "pct_of_flor"), -1);
}
