/* pb_topo_sets.c — named cpu sets, thread placement and the default thread count (see pb_topo.h). Pure
 * functions of a loaded pb_topo, so the tests drive them from XML fixtures of machines we do not have. */
#include "pb_topo.h"

#include "pb_err.h"
#include "pool.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pb_topo_find(const pb_topo *t, int cpu)
{
    for (int i = 0; i < t->npus; i++)
        if (t->pu[i].os == cpu)
            return i;
    return -1;
}

int pb_topo_npus(const pb_topo *t)
{
    int n = 0;
    for (int i = 0; i < t->npus; i++)
        n += t->pu[i].allowed;
    return n;
}

/* The allowed PUs as a list, for error messages ("PUs here: 0-11"). */
static void allowed_list(const pb_topo *t, pb_cpulist *out)
{
    out->n = 0;
    for (int i = 0; i < t->npus; i++)
        if (t->pu[i].allowed)
            out->cpu[out->n++] = t->pu[i].os;
}

int pb_topo_check_cpu(const pb_topo *t, int cpu, char *err, size_t errlen)
{
    int i = pb_topo_find(t, cpu);
    if (i >= 0 && t->pu[i].allowed)
        return 0;
    pb_cpulist here;
    char buf[256];
    allowed_list(t, &here);
    pb_cpulist_format(&here, buf, sizeof buf);
    return pb_errf(err, errlen, "cpu %d %s (cpus here: %s)", cpu,
                     i < 0 ? "does not exist" : "is outside this process's affinity", buf);
}

/* Explicit lists "0-3,8" select PUs by OS id. Parsed here rather than with pb_parse_list: the result is a
 * set of up to PB_MAX_CPUS ids (pb_list holds PB_LIST_MAX values), and missing cpus are named together. */
static int explicit_set(const pb_topo *t, const char *name, pb_cpulist *out, char *err, size_t errlen)
{
    static const char accepted[] = "accepted: all, smt, physical, p, e, p+e, numa:N, or OS cpu ids like 0-3,8";
    bool want[PB_MAX_CPUS] = { false };
    const char *s = name;
    for (;;) {
        char *end = NULL;
        errno = 0;
        long lo = isdigit((unsigned char)*s) ? strtol(s, &end, 10) : -1, hi = lo;
        if (lo >= 0 && *end == '-' && isdigit((unsigned char)end[1]))
            hi = strtol(end + 1, &end, 10);
        if (lo < 0 || errno || hi < lo || hi >= PB_MAX_CPUS || (*end != ',' && *end != '\0'))
            return pb_errf(err, errlen, "unknown cpu set '%s': %s (ids 0..%d, ranges ascending)", name, accepted,
                             PB_MAX_CPUS - 1);
        for (long c = lo; c <= hi; c++)
            want[c] = true;
        if (*end == '\0')
            break;
        s = end + 1;
    }
    pb_cpulist missing = { .n = 0 };
    for (int c = 0; c < PB_MAX_CPUS; c++)
        if (want[c] && pb_topo_check_cpu(t, c, NULL, 0) != 0)
            missing.cpu[missing.n++] = c;
    if (missing.n > 0) {
        pb_cpulist here;
        char miss[256], buf[256];
        allowed_list(t, &here);
        pb_cpulist_format(&missing, miss, sizeof miss);
        pb_cpulist_format(&here, buf, sizeof buf);
        return pb_errf(err, errlen, "cpu set '%s': cpu%s %s not available here (cpus here: %s)", name,
                         missing.n > 1 ? "s" : "", miss, buf);
    }
    out->n = 0;
    for (int i = 0; i < t->npus; i++)
        if (want[t->pu[i].os])
            out->cpu[out->n++] = t->pu[i].os;
    return 0;
}

typedef enum set_kind { SET_ALL, SET_PHYSICAL, SET_P, SET_E, SET_PE, SET_NUMA } set_kind;

static bool in_set(const pb_topo *t, const pb_topo_pu *p, set_kind k, int numa)
{
    int slowest = t->nkinds - 1;
    switch (k) {
    case SET_ALL: return true;
    case SET_PHYSICAL: return p->smt == 0;
    case SET_P: return p->kind == 0;
    /* With one kind there is no E-core: 'e' is empty, and 'p+e' is every PU. */
    case SET_E: return slowest > 0 && p->kind == slowest;
    case SET_PE: return p->kind == 0 || p->kind == slowest;
    case SET_NUMA: return p->numa >= 0 && t->numa[p->numa].os == numa;
    }
    return false;
}

static const struct {
    const char *name;
    set_kind kind;
} set_names[] = {
    { "all", SET_ALL }, { "smt", SET_ALL }, { "physical", SET_PHYSICAL },
    { "p", SET_P },     { "e", SET_E },     { "p+e", SET_PE },
};

int pb_topo_set(const pb_topo *t, const char *name, pb_cpulist *out, char *err, size_t errlen)
{
    out->n = 0;
    if (!name || !*name)
        return pb_errf(err, errlen, "empty cpu set name: accepted all, smt, physical, p, e, p+e, numa:N, 0-3,8");
    set_kind kind = SET_NUMA;
    int numa = -1;
    bool named = false;
    for (size_t i = 0; i < sizeof set_names / sizeof set_names[0]; i++)
        if (strcmp(name, set_names[i].name) == 0) {
            kind = set_names[i].kind;
            named = true;
        }
    if (!named && strncmp(name, "numa:", 5) == 0) {
        char *end = NULL;
        long v = isdigit((unsigned char)name[5]) ? strtol(name + 5, &end, 10) : -1;
        bool exists = false;
        for (int n = 0; v >= 0 && *end == '\0' && n < t->nnuma; n++)
            exists |= t->numa[n].os == v;
        if (!exists)
            return pb_errf(err, errlen, "cpu set '%s': no such NUMA node (this machine has %d, numa:%d..numa:%d)",
                             name, t->nnuma, t->nnuma ? t->numa[0].os : 0,
                             t->nnuma ? t->numa[t->nnuma - 1].os : 0);
        numa = (int)v;
        named = true;
    }
    if (!named)
        return explicit_set(t, name, out, err, errlen);
    bool any = false;
    for (int i = 0; i < t->npus; i++) {
        const pb_topo_pu *p = &t->pu[i];
        if (!in_set(t, p, kind, numa))
            continue;
        any = true;
        if (p->allowed)
            out->cpu[out->n++] = p->os;
    }
    if (kind == SET_E && t->nkinds < 2)
        return pb_errf(err, errlen, "cpu set 'e' is empty: this machine has one kind of core, so no E-cores "
                                      "(use p, physical or all)");
    if (out->n == 0)
        return pb_errf(err, errlen, "cpu set '%s' is empty here%s", name,
                         any ? ": none of its cpus is in this process's affinity" : "");
    return 0;
}

typedef struct place_key {
    int smt, kind, core, index;
} place_key;

/* Physical cores before SMT siblings, then P-kinds before E-kinds, then logical order. */
static int place_cmp(const void *a, const void *b)
{
    const place_key *x = a, *y = b;
    if (x->smt != y->smt)
        return x->smt - y->smt;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    if (x->core != y->core)
        return x->core - y->core;
    return x->index - y->index;
}

int pb_topo_place(const pb_topo *t, const pb_cpulist *set, int n, pb_cpulist *out, char *err, size_t errlen)
{
    out->n = 0;
    if (n < 1 || n > set->n)
        return pb_errf(err, errlen, "%d threads do not fit a set of %d cpus: accepted 1..%d", n, set->n, set->n);
    place_key *keys = malloc(sizeof *keys * (size_t)set->n);
    if (!keys)
        return pb_errf(err, errlen, "placement: out of memory");
    for (int i = 0; i < set->n; i++) {
        int k = pb_topo_find(t, set->cpu[i]);
        if (k < 0) {
            free(keys);
            return pb_topo_check_cpu(t, set->cpu[i], err, errlen);
        }
        keys[i] = (place_key){ .smt = t->pu[k].smt, .kind = t->pu[k].kind, .core = t->pu[k].core, .index = k };
    }
    qsort(keys, (size_t)set->n, sizeof *keys, place_cmp);
    for (int i = 0; i < n; i++)
        out->cpu[out->n++] = t->pu[keys[i].index].os;
    free(keys);
    return 0;
}

int pb_topo_place_named(const pb_topo *t, const char *name, int n, pb_cpulist *out, char *err, size_t errlen)
{
    pb_cpulist *set = malloc(sizeof *set);
    if (!set)
        return pb_errf(err, errlen, "placement: out of memory");
    int rc = pb_topo_set(t, name, set, err, errlen);
    if (rc == 0 && (n < 1 || n > set->n))
        rc = pb_errf(err, errlen, "%d threads do not fit cpu set '%s' (%d cpus): accepted 1..%d", n, name,
                       set->n, set->n);
    if (rc == 0)
        rc = pb_topo_place(t, set, n, out, err, errlen);
    free(set);
    return rc;
}

int pb_topo_default_threads(const pb_topo *t, char *err, size_t errlen)
{
    pool_config cfg = pool_config_default();
    cfg.threads = 0;
    for (int i = 0; i < t->npus; i++)
        cfg.threads += t->pu[i].allowed && t->pu[i].kind == 0 && t->pu[i].smt == 0;
    if (cfg.threads == 0) /* every P-core outside our affinity: fall back to what we may use */
        cfg.threads = pb_topo_npus(t) > 0 ? pb_topo_npus(t) : 1;
    if (pool_config_from_env(&cfg, err, errlen) != 0)
        return -1;
    return cfg.threads;
}

void pb_topo_thread_counts(const pb_topo *t, pb_list *out)
{
    int n = pb_topo_npus(t);
    out->n = 0;
    for (int i = 1; i <= n && i <= PB_LIST_MAX; i++)
        out->v[out->n++] = i;
}

void pb_cpulist_format(const pb_cpulist *l, char *buf, size_t len)
{
    if (len == 0)
        return;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < l->n;) {
        int j = i;
        while (j + 1 < l->n && l->cpu[j + 1] == l->cpu[j] + 1)
            j++;
        char item[32];
        if (j - i >= 2)
            snprintf(item, sizeof item, "%s%d-%d", i ? "," : "", l->cpu[i], l->cpu[j]);
        else {
            j = i;
            snprintf(item, sizeof item, "%s%d", i ? "," : "", l->cpu[i]);
        }
        size_t n = strlen(item);
        bool last = j + 1 == l->n;
        if (used + n + (last ? 1 : 4) > len) { /* a cut list keeps room for "..." and the terminator */
            snprintf(buf + used, len - used, "...");
            return;
        }
        memcpy(buf + used, item, n + 1);
        used += n;
        i = j + 1;
    }
}
