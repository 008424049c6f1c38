/* pb_machine_arm.c — an arm64 machine's identity from its parsed cpuinfo and hwloc's kinds (see pb_cpuinfo.h).
 * Pure: built on every architecture, so the tests run it on fixtures of machines we do not have. */
#include "pb_cpuinfo.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The MIDR of the first cpu of kind k in t's logical order, NULL when cpuinfo has none of its cpus. */
static const pb_midr *kind_midr(const pb_cpuinfo *ci, const pb_topo *t, int k)
{
    for (int i = 0; i < t->npus; i++)
        if (t->pu[i].kind == k) {
            const pb_midr *m = pb_cpuinfo_find(ci, t->pu[i].os);
            if (m)
                return m;
        }
    return NULL;
}

/* The cpus whose names make the brand, one per kind, fastest first; then any cpu of a part no kind named
 * (cpuinfo and hwloc disagreeing, or no topology). At most max. */
static int representatives(const pb_cpuinfo *ci, const pb_topo *t, const pb_midr **out, int max)
{
    int n = 0;
    for (int k = 0; t && k < t->nkinds && n < max; k++) {
        const pb_midr *m = kind_midr(ci, t, k);
        if (m)
            out[n++] = m;
    }
    for (int i = 0; i < ci->n && n < max; i++) {
        bool seen = false;
        for (int j = 0; j < n && !seen; j++)
            seen = out[j]->implementer == ci->cpu[i].implementer && out[j]->part == ci->cpu[i].part;
        if (!seen)
            out[n++] = &ci->cpu[i];
    }
    return n;
}

/* Appends word to buf joined by " + ", unless it is empty or already one of buf's items ("M2" is not "M2 Pro"). */
static void join_distinct(char *buf, size_t len, const char *word)
{
    size_t wl = strlen(word);
    if (wl == 0)
        return;
    for (const char *p = buf; *p;) {
        const char *sep = strstr(p, " + ");
        size_t il = sep ? (size_t)(sep - p) : strlen(p);
        if (il == wl && strncmp(p, word, wl) == 0)
            return;
        p += sep ? il + 3 : il;
    }
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", used ? " + " : "", word);
}

/* Each kind hwloc did not name (CoreType is Intel's and Apple's under macOS; Linux on arm64 gives none) takes
 * its first cpu's part name, so the header and machine.csv say "Cortex-A76" beside "performance". */
static void name_kinds(pb_machine *m, const pb_cpuinfo *ci, const pb_topo *t)
{
    for (int k = 0; t && k < m->nkinds && k < t->nkinds; k++) {
        const pb_midr *mid = kind_midr(ci, t, k);
        if (mid && !m->kind[k].core_type[0])
            pb_arm_part_name(mid->implementer, mid->part, m->kind[k].core_type, sizeof m->kind[k].core_type);
    }
}

void pb_machine_arm_identity(pb_machine *m, const pb_cpuinfo *ci, const pb_topo *t)
{
    const pb_midr *rep[PB_MAX_KINDS + 4];
    int n = representatives(ci, t, rep, (int)(sizeof rep / sizeof rep[0]));
    snprintf(m->vendor, sizeof m->vendor, "unknown");
    snprintf(m->brand, sizeof m->brand, "unknown");
    m->codename[0] = '\0';
    if (n > 0) {
        pb_arm_vendor(rep[0]->implementer, m->vendor, sizeof m->vendor);
        m->brand[0] = '\0';
        m->ext_family = (int)rep[0]->implementer;
        m->ext_model = (int)rep[0]->part;
        m->stepping = (int)(rep[0]->variant << 4 | rep[0]->revision);
    }
    for (int i = 0; i < n; i++) {
        char name[64];
        pb_arm_part_name(rep[i]->implementer, rep[i]->part, name, sizeof name);
        join_distinct(m->brand, sizeof m->brand, name);
        join_distinct(m->codename, sizeof m->codename, pb_arm_codename(rep[i]->implementer, rep[i]->part));
    }
    name_kinds(m, ci, t);
    pb_arm_isa(ci->hwcap, ci->hwcap2, m->isa, sizeof m->isa);
}
