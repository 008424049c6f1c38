/* pb_topo.h — the machine's topology (hwloc) as plain data, and the named cpu sets the harnesses sweep.
 *
 * pb_topo_load reads the live machine or an hwloc XML file once and copies what the harnesses need into a
 * pb_topo: PUs in hwloc's logical order with their OS ids, core, SMT rank, cpukind rank and NUMA node; the
 * cpukinds ranked by performance; caches per level; NUMA nodes with their memory. Nothing keeps an hwloc
 * handle, so a pb_topo is read-only data that tests build from fixtures.
 *
 * Cpu sets (the --cpus values):
 *   all, smt     every PU
 *   physical     the first PU of each core
 *   p            the PUs of the highest-performance cpukind (with one kind: every PU)
 *   e            the PUs of the lowest-performance kind (with one kind: empty, which is an error)
 *   p+e          both (a middle kind, where there are three, is in neither)
 *   numa:N       the PUs of NUMA node N (OS index)
 *   0-3,8        an explicit list of OS cpu ids; a cpu that does not exist is an error naming it
 * Every set holds only the PUs this process may run on (its affinity at load time).
 * Placement of n threads in a set: one thread per physical core first (P-cores before E-cores, each kind in
 * logical order), SMT siblings after every core has one; the caller of a pool takes placement[0].
 * Errors are one line in the caller's buffer; harnesses turn them into exit status 2. */
#ifndef PB_TOPO_H
#define PB_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb_cli.h"

#define PB_MAX_CPUS 1024 /* = POOL_MAX_THREADS: a placement is a pool's pin array */
#define PB_MAX_KINDS 8
#define PB_MAX_NUMA 64
#define PB_MAX_CACHE_LEVELS 5

/* OS cpu ids; the order is meaningful (logical order for sets, thread order for placements). */
typedef struct pb_cpulist {
    int n;
    int cpu[PB_MAX_CPUS];
} pb_cpulist;

typedef struct pb_topo_pu {
    int os;      /* OS cpu id (what sched_setaffinity and pool_config.cpus take) */
    int core;    /* logical index of its core */
    int smt;     /* 0 = the first PU of its core, 1.. its SMT siblings */
    int kind;    /* cpukind rank: 0 = highest performance, nkinds-1 = lowest */
    int numa;    /* index into pb_topo.numa, -1 if no node holds it */
    int llc;     /* logical index of the last-level cache above it (L3 where there is one), -1 if none */
    int package; /* logical index of its package, -1 if the topology has none */
    int cluster; /* the innermost hwloc Group of subtype Cluster above it (cores sharing an L2 or an
                    interconnect hop: Arm clusters, Intel E-core modules), by global index; -1 if none */
    bool allowed; /* this process may run on it (always true for an XML topology) */
} pb_topo_pu;

typedef struct pb_topo_kind {
    int efficiency;    /* hwloc's efficiency value (higher = faster), -1 when unknown */
    char name[32];     /* hwloc's CoreType info ("IntelCore", "IntelAtom"), "" when absent */
    int max_mhz;       /* hwloc's FrequencyMaxMHz info, 0 when absent */
    int capacity;      /* hwloc's LinuxCapacity info (Linux's cpu_capacity: 1024 = the fastest), 0 when absent */
    int cores, pus;
} pb_topo_kind;

typedef struct pb_topo_cache {
    int level;                       /* 1 = L1 data (or unified), 2, 3, ... */
    int instances;                   /* caches at this level in the machine */
    uint64_t total_bytes;            /* sum over the instances */
    uint64_t bytes[PB_MAX_KINDS];    /* the one above each kind's first PU (0: that kind has none) */
    int shared_by[PB_MAX_KINDS];     /* PUs sharing that instance */
} pb_topo_cache;

typedef struct pb_topo_numa {
    int os;              /* OS node id (numa:N) */
    uint64_t memory;     /* local memory, bytes */
    int pus;
} pb_topo_numa;

typedef struct pb_topo {
    bool this_system;    /* loaded from the live machine, not from XML */
    int npus, ncores, nkinds, ncaches, nnuma;
    pb_topo_pu pu[PB_MAX_CPUS];              /* logical order */
    pb_topo_kind kind[PB_MAX_KINDS];         /* by rank: [0] = highest performance */
    pb_topo_cache cache[PB_MAX_CACHE_LEVELS]; /* ascending level */
    pb_topo_numa numa[PB_MAX_NUMA];          /* logical order */
} pb_topo;

/* The live machine (xml_path NULL) or an hwloc XML file. NULL with a one-line reason in err on failure. */
pb_topo *pb_topo_load(const char *xml_path, char *err, size_t errlen);
void pb_topo_free(pb_topo *t);

/* The PUs of a named set (see above) in logical order, allowed PUs only. 0, or -1 with the reason in err:
 * an unknown name, a cpu that does not exist, a set that is empty here. */
int pb_topo_set(const pb_topo *t, const char *name, pb_cpulist *out, char *err, size_t errlen);
/* The cpus for n threads in set (see above). 0, or -1 when n < 1 or n exceeds the set's PUs. */
int pb_topo_place(const pb_topo *t, const pb_cpulist *set, int n, pb_cpulist *out, char *err, size_t errlen);
/* pb_topo_set then pb_topo_place. */
int pb_topo_place_named(const pb_topo *t, const char *name, int n, pb_cpulist *out, char *err, size_t errlen);

/* 0 when OS cpu id cpu exists and this process may run on it, -1 with the reason otherwise. */
int pb_topo_check_cpu(const pb_topo *t, int cpu, char *err, size_t errlen);
/* Index into t->pu of OS cpu id cpu, -1 when there is none. */
int pb_topo_find(const pb_topo *t, int cpu);

/* The number of physical cores of the highest-performance kind (what llama.cpp defaults to), overridden by
 * POOLBENCH_THREADS. -1 with the reason in err when that variable (or POOLBENCH_POLICY) is bad. */
int pb_topo_default_threads(const pb_topo *t, char *err, size_t errlen);
/* The allowed PUs, and the thread counts 1..that many (a harness's default --threads list, capped at
 * PB_LIST_MAX). */
int pb_topo_npus(const pb_topo *t);
void pb_topo_thread_counts(const pb_topo *t, pb_list *out);

/* Where two cpus sit relative to each other, as far as the topology can tell: a cache line between them
 * crosses nothing (SMT siblings), stays in one last-level cache (near: one die or chiplet), or leaves it
 * (far: another chiplet's L3, another package). UNKNOWN when the topology cannot say: a cpu it does not
 * hold, or two cores of one package with no cache level above them that tells its chiplets apart. */
typedef enum pb_pair_place { PB_PAIR_UNKNOWN, PB_PAIR_SMT, PB_PAIR_NEAR, PB_PAIR_FAR } pb_pair_place;
/* a == b is PB_PAIR_SMT (one PU shares everything with itself). */
pb_pair_place pb_topo_pair_place(const pb_topo *t, int cpu_a, int cpu_b);
/* "smt", "near", "far"; NULL for PB_PAIR_UNKNOWN. */
const char *pb_pair_place_name(pb_pair_place p);

/* A tree-shaped pool's groups for threads pinned to cpus[0..n) (pool_config.group): threads whose cpus share a
 * last-level cache share a group; where all of them share one (or the topology names no cache above them), the
 * hwloc clusters they sit in; where those too are one (or none), a single group. Groups are numbered from 0 in
 * order of first appearance (the caller's, cpus[0]'s, is 0); a cpu the topology does not hold is a group of its
 * own. Returns the number of groups, and the level in *level ("llc", "cluster" or "one"; level may be NULL). */
int pb_topo_groups(const pb_topo *t, const int *cpus, int n, int *group, const char **level);

/* "0,2,4-7": runs of three or more become ranges. Truncated (ending in "...") if buf is too small. */
void pb_cpulist_format(const pb_cpulist *l, char *buf, size_t len);

#endif
