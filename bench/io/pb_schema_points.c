/* pb_schema_points.c — the point families of pb_schema.h as tables, generated from their lists. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pb_schema.h"

/* An attribute that is a column takes the column's identifier as its name, and PB_<KIND>_<name> must exist: a
 * name that is no column of the kind does not compile. */
#define PB_FAM_ATTR_COL(K, n) { .name = #n, .col = PB_##K##_##n },
#define PB_FAM_ATTR_DERIVED(n) { .name = #n, .col = -1 },
#define PB_FAM_FIG(n) #n,

#define PB_FAMILY_TABLES(F, n, K)                                                                                   \
    static const pb_family_attr attrs_##F[] = { PB_##F##_ATTRS(PB_FAM_ATTR_COL, PB_FAM_ATTR_DERIVED) };             \
    static const char *const figs_##F[] = { PB_##F##_FIGS(PB_FAM_FIG) };
PB_POINT_FAMILIES(PB_FAMILY_TABLES)

#define PB_FAMILY_ENTRY(F, n, K)                                                                                    \
    [PB_FAM_##F] = { .name = #n, .kind = PB_K_##K, .attrs = attrs_##F, .nattrs = PB_ATTR_##F##_COUNT,              \
                     .figs = figs_##F, .nfigs = PB_FIG_##F##_COUNT },
static const pb_family families[PB_FAM_COUNT] = { PB_POINT_FAMILIES(PB_FAMILY_ENTRY) };

const pb_family *pb_family_get(pb_family_id f) { return &families[f]; }

const pb_family *pb_family_find(const char *name)
{
    for (int f = 0; f < PB_FAM_COUNT; f++)
        if (strcmp(families[f].name, name) == 0)
            return &families[f];
    return NULL;
}

int pb_family_fig(const pb_family *f, const char *name)
{
    for (int i = 0; i < f->nfigs; i++)
        if (strcmp(f->figs[i], name) == 0)
            return i;
    return -1;
}

const pb_family_attr *pb_family_attr_find(const pb_family *f, const char *name)
{
    for (int i = 0; i < f->nattrs; i++)
        if (strcmp(f->attrs[i].name, name) == 0)
            return &f->attrs[i];
    return NULL;
}

bool pb_family_attr_numeric(const pb_family *f, const pb_family_attr *a)
{
    return a->col >= 0 && pb_schema_get(f->kind)->cols[a->col].type != PB_T_TEXT;
}

/* Appends ", name" (no comma first) to buf, which holds *used bytes; a name that does not fit is left out. */
static void add_name(char *buf, size_t len, size_t *used, const char *name)
{
    int n = snprintf(buf + *used, len - *used, "%s%s", *used ? ", " : "", name);
    if (n > 0 && (size_t)n < len - *used)
        *used += (size_t)n;
    else
        buf[*used] = '\0';
}

void pb_family_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int f = 0; f < PB_FAM_COUNT; f++)
        add_name(buf, len, &used, families[f].name);
}

void pb_family_fig_names(const pb_family *f, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < f->nfigs; i++)
        add_name(buf, len, &used, f->figs[i]);
}

void pb_family_attr_names(const pb_family *f, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < f->nattrs; i++)
        add_name(buf, len, &used, f->attrs[i].name);
}
