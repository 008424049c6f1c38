/* pb_topo.c — loading: hwloc's view of the machine copied into a plain pb_topo (see pb_topo.h). The named
 * sets and placement live in pb_topo_sets.c. */
#include "pb_topo.h"

#include "pb_err.h"

#include <hwloc.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pb_topo *topo_fail(pb_topo *t, hwloc_topology_t h, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static pb_topo *topo_fail(pb_topo *t, hwloc_topology_t h, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pb_verrf(err, errlen, fmt, ap);
    va_end(ap);
    if (h)
        hwloc_topology_destroy(h);
    free(t);
    return NULL;
}

/* Every PU with its OS id and core; the SMT rank is its position among its core's PUs in logical order. */
static int load_pus(pb_topo *t, hwloc_topology_t h)
{
    int n = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
    if (n <= 0 || n > PB_MAX_CPUS)
        return -1;
    int core_objs = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, (unsigned)i);
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, pu);
        pb_topo_pu *p = &t->pu[i];
        p->os = (int)pu->os_index;
        /* A topology without Core objects: every PU is its own core (numbered after any real ones). */
        p->core = core ? (int)core->logical_index : core_objs + i;
        p->smt = 0;
        for (int j = 0; j < i; j++)
            p->smt += t->pu[j].core == p->core;
        p->numa = -1;
        p->allowed = true;
        t->ncores += p->smt == 0;
    }
    t->npus = n;
    return 0;
}

static int kind_info_int(const struct hwloc_info_s *infos, unsigned n, const char *name)
{
    for (unsigned i = 0; i < n; i++)
        if (strcmp(infos[i].name, name) == 0)
            return atoi(infos[i].value);
    return 0;
}

/* cpukinds ranked by performance: hwloc lists kinds by increasing efficiency (its word for intrinsic
 * performance), so the highest efficiency is the P-core kind; unknown efficiencies (-1: hwloc ranks by
 * forced efficiency, Intel's core type or frequency, and an arm64 board without a cpufreq driver has none of
 * them) fall back to Linux's cpu capacity (what the scheduler itself ranks big and LITTLE cores by), then to the
 * maximum frequency, then to hwloc's order. */
static int load_kinds(pb_topo *t, hwloc_topology_t h)
{
    int nk = hwloc_cpukinds_get_nr(h, 0);
    if (nk <= 0) { /* no cpukind information: one kind holding every PU */
        t->nkinds = 1;
        t->kind[0] = (pb_topo_kind){ .efficiency = -1, .cores = t->ncores, .pus = t->npus };
        for (int i = 0; i < t->npus; i++)
            t->pu[i].kind = 0;
        return 0;
    }
    if (nk > PB_MAX_KINDS)
        return -1;
    hwloc_bitmap_t sets[PB_MAX_KINDS];
    pb_topo_kind kinds[PB_MAX_KINDS];
    int order[PB_MAX_KINDS];
    for (int k = 0; k < nk; k++) {
        struct hwloc_info_s *infos = NULL;
        unsigned ninfos = 0;
        int eff = -1;
        sets[k] = hwloc_bitmap_alloc();
        hwloc_cpukinds_get_info(h, (unsigned)k, sets[k], &eff, &ninfos, &infos, 0);
        kinds[k] = (pb_topo_kind){ .efficiency = eff, .max_mhz = kind_info_int(infos, ninfos, "FrequencyMaxMHz"),
                                   .capacity = kind_info_int(infos, ninfos, "LinuxCapacity") };
        for (unsigned i = 0; i < ninfos; i++)
            if (strcmp(infos[i].name, "CoreType") == 0)
                snprintf(kinds[k].name, sizeof kinds[k].name, "%s", infos[i].value);
        order[k] = k;
    }
    /* Insertion sort, fastest first: at most PB_MAX_KINDS entries. */
    for (int i = 1; i < nk; i++)
        for (int j = i; j > 0; j--) {
            const pb_topo_kind *a = &kinds[order[j - 1]], *b = &kinds[order[j]];
            bool swap = b->efficiency != a->efficiency ? b->efficiency > a->efficiency
                      : b->capacity != a->capacity  ? b->capacity > a->capacity
                      : b->max_mhz != a->max_mhz    ? b->max_mhz > a->max_mhz
                                                    : order[j] > order[j - 1];
            if (!swap)
                break;
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    t->nkinds = nk;
    for (int r = 0; r < nk; r++)
        t->kind[r] = kinds[order[r]];
    for (int i = 0; i < t->npus; i++) {
        pb_topo_pu *p = &t->pu[i];
        p->kind = nk - 1; /* a PU no kind claims counts as the slowest */
        for (int r = 0; r < nk; r++)
            if (hwloc_bitmap_isset(sets[order[r]], (unsigned)p->os)) {
                p->kind = r;
                break;
            }
        t->kind[p->kind].pus++;
        t->kind[p->kind].cores += p->smt == 0;
    }
    for (int k = 0; k < nk; k++)
        hwloc_bitmap_free(sets[k]);
    return 0;
}

static int load_numa(pb_topo *t, hwloc_topology_t h)
{
    int nn = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
    if (nn > PB_MAX_NUMA)
        return -1;
    for (int n = 0; n < nn; n++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)n);
        t->numa[n] = (pb_topo_numa){ .os = (int)node->os_index, .memory = node->attr->numanode.local_memory };
        for (int i = 0; i < t->npus; i++)
            if (t->pu[i].numa < 0 && hwloc_bitmap_isset(node->cpuset, (unsigned)t->pu[i].os)) {
                t->pu[i].numa = n;
                t->numa[n].pus++;
            }
    }
    t->nnuma = nn;
    return 0;
}

/* Data (or unified) caches per level; each kind's size is the instance above that kind's first PU. */
static void load_caches(pb_topo *t, hwloc_topology_t h)
{
    for (int level = 1; level <= PB_MAX_CACHE_LEVELS; level++) {
        int depth = hwloc_get_cache_type_depth(h, (unsigned)level, HWLOC_OBJ_CACHE_DATA);
        if (depth < 0)
            continue;
        pb_topo_cache *c = &t->cache[t->ncaches++];
        *c = (pb_topo_cache){ .level = level, .instances = hwloc_get_nbobjs_by_depth(h, depth) };
        for (int i = 0; i < c->instances; i++)
            c->total_bytes += hwloc_get_obj_by_depth(h, depth, (unsigned)i)->attr->cache.size;
        for (int k = 0; k < t->nkinds; k++)
            for (int i = 0; i < t->npus; i++) {
                if (t->pu[i].kind != k)
                    continue;
                hwloc_obj_t pu = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, (unsigned)i);
                hwloc_obj_t cache = hwloc_get_ancestor_obj_by_depth(h, depth, pu);
                if (cache) {
                    c->bytes[k] = cache->attr->cache.size;
                    c->shared_by[k] = hwloc_bitmap_weight(cache->cpuset);
                }
                break;
            }
    }
}

/* The innermost hwloc Group of subtype "Cluster" above pu (by its global index: clusters may sit at different
 * depths), -1 when there is none. */
static int pu_cluster(hwloc_obj_t pu)
{
    for (hwloc_obj_t o = pu->parent; o; o = o->parent)
        if (o->type == HWLOC_OBJ_GROUP && o->subtype && strcmp(o->subtype, "Cluster") == 0)
            return o->gp_index <= INT_MAX ? (int)o->gp_index : -1;
    return -1;
}

/* The last-level cache, the package and the cluster above each PU: where a cache line between two PUs has to
 * travel (pb_topo_pair_place), and a tree-shaped pool's groups (pb_topo_groups). The LLC is the deepest-numbered
 * data or unified level that has objects above PUs. */
static void load_groups(pb_topo *t, hwloc_topology_t h)
{
    int llc_depth = -1;
    for (int level = PB_MAX_CACHE_LEVELS; level >= 2 && llc_depth < 0; level--)
        llc_depth = hwloc_get_cache_type_depth(h, (unsigned)level, HWLOC_OBJ_CACHE_DATA);
    for (int i = 0; i < t->npus; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, (unsigned)i);
        hwloc_obj_t llc = llc_depth >= 0 ? hwloc_get_ancestor_obj_by_depth(h, (unsigned)llc_depth, pu) : NULL;
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_PACKAGE, pu);
        t->pu[i].llc = llc ? (int)llc->logical_index : -1;
        t->pu[i].package = pkg ? (int)pkg->logical_index : -1;
        t->pu[i].cluster = pu_cluster(pu);
    }
}

/* On the live machine, a PU outside the process's binding (taskset, cgroup) is not allowed. */
static void load_allowed(pb_topo *t, hwloc_topology_t h)
{
    if (!t->this_system)
        return;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set && hwloc_get_cpubind(h, set, HWLOC_CPUBIND_PROCESS) == 0)
        for (int i = 0; i < t->npus; i++)
            t->pu[i].allowed = hwloc_bitmap_isset(set, (unsigned)t->pu[i].os);
    hwloc_bitmap_free(set);
}

pb_topo *pb_topo_load(const char *xml_path, char *err, size_t errlen)
{
    pb_topo *t = calloc(1, sizeof *t);
    hwloc_topology_t h = NULL;
    if (!t)
        return topo_fail(t, h, err, errlen, "topology: out of memory");
    if (xml_path && access(xml_path, R_OK) != 0)
        return topo_fail(t, h, err, errlen, "topology: cannot read '%s'", xml_path);
    if (hwloc_topology_init(&h) != 0) {
        h = NULL;
        return topo_fail(t, h, err, errlen, "topology: hwloc_topology_init failed");
    }
    if (xml_path && hwloc_topology_set_xml(h, xml_path) != 0)
        return topo_fail(t, h, err, errlen, "topology: '%s' is not an hwloc XML topology", xml_path);
    if (hwloc_topology_load(h) != 0)
        return topo_fail(t, h, err, errlen, "topology: hwloc could not load %s", xml_path ? xml_path : "this machine");
    t->this_system = hwloc_topology_is_thissystem(h);
    if (load_pus(t, h) != 0)
        return topo_fail(t, h, err, errlen, "topology: no PUs, or more than %d", PB_MAX_CPUS);
    if (load_kinds(t, h) != 0)
        return topo_fail(t, h, err, errlen, "topology: more than %d cpukinds", PB_MAX_KINDS);
    if (load_numa(t, h) != 0)
        return topo_fail(t, h, err, errlen, "topology: more than %d NUMA nodes", PB_MAX_NUMA);
    load_caches(t, h);
    load_groups(t, h);
    load_allowed(t, h);
    hwloc_topology_destroy(h);
    return t;
}

void pb_topo_free(pb_topo *t)
{
    free(t);
}
