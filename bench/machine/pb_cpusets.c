/* pb_cpusets.c — see pb_cpusets.h. */
#include "pb_cpusets.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pb_err.h"

static int add_set(pb_cpusets *s, const char *name, const pb_cpulist *cpus, char *err, size_t errlen)
{
    if (s->n == PB_CPUSETS_MAX)
        return pb_errf(err, errlen, "at most %d sets", PB_CPUSETS_MAX);
    pb_cpuset *c = &s->set[s->n++];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->cpus = *cpus;
    return 0;
}

static bool same_set(const pb_cpulist *a, const pb_cpulist *b)
{
    return a->n == b->n && memcmp(a->cpu, b->cpu, (size_t)a->n * sizeof *a->cpu) == 0;
}

/* The machine's own sets: a kind that is not there (e on a one-kind machine) is no error, only not a set. */
static int default_sets(const pb_topo *t, pb_cpusets *out, char *err, size_t errlen)
{
    static const char *const cand[] = { "p", "e", "p+e", "physical", "smt" };
    pb_cpulist l;
    char why[512];
    for (size_t i = 0; i < sizeof cand / sizeof *cand; i++) {
        if (pb_topo_set(t, cand[i], &l, why, sizeof why) != 0)
            continue;
        bool dup = false;
        for (int k = 0; k < out->n && !dup; k++)
            dup = same_set(&out->set[k].cpus, &l);
        if (!dup && add_set(out, cand[i], &l, err, errlen) != 0)
            return -1;
    }
    return out->n ? 0 : pb_errf(err, errlen, "this machine has none of the sets p, physical, smt");
}

/* One set by name or cpu list into out. */
static int named_set(const pb_topo *t, const char *name, pb_cpusets *out, char *err, size_t errlen)
{
    pb_cpulist l;
    if (pb_topo_set(t, name, &l, err, errlen) != 0)
        return -1;
    return add_set(out, name, &l, err, errlen);
}

int pb_cpusets_parse(const pb_topo *t, const char *spec, pb_cpusets *out, char *err, size_t errlen)
{
    out->n = 0;
    if (!spec)
        return default_sets(t, out, err, errlen);
    char buf[1024], item[1024] = "";
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *p = buf;; p++) {
        /* A numeric item joins the list being gathered; anything else (or ';', or the end) closes it. */
        char *e = p + strcspn(p, ",;");
        char sep = *e;
        *e = '\0';
        bool numeric = *p >= '0' && *p <= '9';
        if (numeric && strlen(item) + strlen(p) + 2 <= sizeof item) {
            if (item[0])
                strcat(item, ",");
            strcat(item, p);
        }
        if (item[0] && (!numeric || sep != ',')) {
            if (named_set(t, item, out, err, errlen) != 0)
                return -1;
            item[0] = '\0';
        }
        if (!numeric && *p == '\0')
            return pb_errf(err, errlen, "an empty set name in '%s'", spec);
        if (!numeric && named_set(t, p, out, err, errlen) != 0)
            return -1;
        if (sep == '\0')
            return 0;
        p = e;
    }
}

int pb_cpusets_largest(const pb_cpusets *s)
{
    int big = 0;
    for (int i = 1; i < s->n; i++)
        big = s->set[i].cpus.n > s->set[big].cpus.n ? i : big;
    return big;
}
