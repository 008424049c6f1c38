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

/* The set spelled s[0..n) (a name or a cpu list, read whole by pb_topo_set) into out. Its text becomes the
 * cpuset column: one longer than a name holds is refused, never cut. */
static int span_set(const pb_topo *t, const char *s, size_t n, pb_cpusets *out, char *err, size_t errlen)
{
    char name[sizeof out->set[0].name];
    if (n >= sizeof name)
        return pb_errf(err, errlen, "a set of %zu characters ('%.24s...'): accepted at most %zu characters a set "
                       "(ranges like 0-15 keep a list short)", n, s, sizeof name - 1);
    memcpy(name, s, n);
    name[n] = '\0';
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
    /* Read in place: consecutive numeric items are one list, the span of spec from its first item (list) to
     * where it ends, closed by a name, a ';' or the end. */
    const char *list = NULL;
    for (const char *p = spec;;) {
        size_t n = strcspn(p, ",;");
        char sep = p[n];
        bool numeric = *p >= '0' && *p <= '9';
        if (numeric && !list)
            list = p;
        if (list && (!numeric || sep != ',')) {
            const char *end = numeric ? p + n : p - 1; /* p - 1: the ',' before the name that closes it */
            if (span_set(t, list, (size_t)(end - list), out, err, errlen) != 0)
                return -1;
            list = NULL;
        }
        if (!numeric && n == 0)
            return pb_errf(err, errlen, "an empty set name in '%.200s'", spec);
        if (!numeric && span_set(t, p, n, out, err, errlen) != 0)
            return -1;
        if (sep == '\0')
            return 0;
        p += n + 1;
    }
}

int pb_cpusets_largest(const pb_cpusets *s)
{
    int big = 0;
    for (int i = 1; i < s->n; i++)
        big = s->set[i].cpus.n > s->set[big].cpus.n ? i : big;
    return big;
}
