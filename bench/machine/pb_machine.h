/* pb_machine.h — the machine a run measured: identity (libcpuid on x86-64; /proc/cpuinfo's MIDR and the HWCAPs
 * on arm64, pb_cpuinfo.h), topology (hwloc, via pb_topo), the OS and the build. Probing fills a pb_machine; writing machine.csv and printing the context header (Google
 * Benchmark style, with loud warnings) only format it.
 *
 *   pb_machine m;
 *   if (pb_machine_probe(&m, topo, err, sizeof err) != 0) ...   // identity + hwloc + uname + /sys + load
 *   pb_machine_print_header(&m, stdout);                         // above the harness's table
 *   pb_machine_write_csv(&m, run.dir, run.run_id, err, sizeof err);
 *
 * Identity can also come from a raw CPUID dump (pb_machine_cpuid, x86-64 builds) or from cpuinfo text
 * (pb_machine_arm_identity, every build), for tests of machines we do not have. */
#ifndef PB_MACHINE_H
#define PB_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pb_schema.h" /* PB_SCHEMA_VERSION, machine.csv's schema_version */
#include "pb_topo.h"
#include "pb_tuning.h"

typedef struct pb_machine_kind {
    char purpose[16];   /* libcpuid: "performance", "efficiency" or "general" */
    char core_type[32]; /* hwloc's CoreType ("IntelCore"), "" when unknown */
    int cores, pus;     /* hwloc's counts when a topology was merged, libcpuid's otherwise */
    int max_mhz;        /* hwloc's FrequencyMaxMHz, 0 when unknown */
    int l1d_kb, l2_kb, l3_kb; /* libcpuid, per core type; -1 when undetermined */
} pb_machine_kind;

typedef struct pb_machine {
    int schema;
    char host[64];
    /* libcpuid; on arm64 the MIDR (pb_machine_arm_identity): vendor = implementer's name, brand = the parts' names,
     * ext_family = implementer, ext_model = part number, stepping = variant << 4 | revision */
    char vendor[16], brand[64], codename[64];
    int ext_family, ext_model, stepping;
    int nkinds;
    pb_machine_kind kind[PB_MAX_KINDS]; /* fastest first: performance, general, efficiency */
    bool hypervisor;                    /* CPUID's hypervisor bit */
    char hypervisor_name[32];           /* its CPUID signature ("KVMKVMKVM", "bhyve bhyve"), or libcpuid's guess */
    /* hwloc */
    int cores, pus, nnuma;
    uint64_t memory; /* bytes, over all NUMA nodes */
    /* bytes the OS kernel counts (sysconf: physical pages x page size; 0 unknown): what can be allocated. Under a
     * balloon driver it can differ from hwloc's NUMA nodes, which report each node's own count, by tens of %;
     * pb_machine_alloc_bytes is the one to size buffers by. */
    uint64_t os_memory;
    int ncaches;
    pb_topo_cache cache[PB_MAX_CACHE_LEVELS];
    /* the instruction sets the kernels choose from (__builtin_cpu_supports, as libcpuid misses AVX-512 on AMD;
     * arm64: getauxval's HWCAPs) */
    char isa[96];
    /* OS, build, and the state of the machine at start */
    char kernel[200];   /* uname: sysname release machine */
    char compiler[64];  /* "gcc 12.2.0" */
    char cflags[256];   /* the Makefile's PB_CFLAGS, "unknown" without */
    char thp[16];       /* transparent hugepages mode ("madvise"), "unavailable" */
    char governor[32];  /* cpufreq scaling_governor of the first cpu, "" when unreadable */
    double load[3];     /* load average over 1, 5, 15 minutes; -1 when unavailable */
    char git[48];       /* short revision, "unknown" without git */
    double clock_ghz;   /* the first cpu's clock at the probe (pb_clock), NaN where not measured */
    double tsc_mhz;     /* the TSC's rate, x86's nominal clock where it is invariant; 0 where not measured */
    char energy[200];   /* the powercap zones joules come from ("package-0 core dram"), or why there are none */
    /* the thresholds and tunables the run is judged and run by (pb_tunings, set by the harness: the table sees
     * layers above this one), echoed into machine.csv as key,value rows; NULL: none written */
    const pb_tuning *tunings;
} pb_machine;

/* The memory a buffer may be sized against: the OS kernel's count where known (os_memory), else hwloc's. */
static inline uint64_t pb_machine_alloc_bytes(const pb_machine *m)
{
    return m->os_memory ? m->os_memory : m->memory;
}

/* Everything about the live machine: this architecture's identity (pb_machine_arch.h: pb_machine_cpuid(NULL) on
 * x86-64, /proc/cpuinfo on arm64) merged with t (pb_machine_merge_topo), then pb_machine_os.
 * 0, or -1 with the reason in err (the identity failed: the rest is still filled). */
int pb_machine_probe(pb_machine *m, const pb_topo *t, char *err, size_t errlen);

/* Zeroes m, then fills the identity from libcpuid: from a raw CPUID dump file (cpuid_serialize_all_raw_data
 * format), or from the live machine when dump is NULL (the calling thread's affinity is restored after
 * libcpuid has pinned it to every cpu in turn). 0, or -1 with the reason in err. x86-64 builds only (libcpuid). */
int pb_machine_cpuid(pb_machine *m, const char *dump, char *err, size_t errlen);

/* Cores, PUs, caches and NUMA from hwloc. When hwloc sees as many kinds as libcpuid, its counts replace
 * libcpuid's (which are unreliable under a hypervisor); otherwise hwloc's kinds replace libcpuid's. */
void pb_machine_merge_topo(pb_machine *m, const pb_topo *t);

/* Host, ISA, kernel, compiler and flags, THP, governor of OS cpu first_cpu, load average, git revision. */
void pb_machine_os(pb_machine *m, int first_cpu);

/* Why the numbers may be off, one line each without newline (the header prints them as WARNINGs): load
 * above 0.5 per cpu, a hypervisor, a governor other than performance. Returns how many (at most max). */
int pb_machine_warnings(const pb_machine *m, char (*lines)[192], int max);

/* The context header: identity, kinds, caches, memory, OS, build, load, then the warnings. */
void pb_machine_print_header(const pb_machine *m, FILE *f);

/* DIR/machine.csv as key,value rows (run_id first when given). 0 written; 1 when the run directory already
 * holds one (harnesses joining a run share it); -1 with the reason in err. */
int pb_machine_write_csv(const pb_machine *m, const char *dir, const char *run_id, char *err, size_t errlen);
/* Appends `incomplete,NOTE` to DIR/machine.csv (a harness stopped by a signal; one line per stopped harness of
 * a joined run). 0, or -1 with the reason in err. */
int pb_machine_mark_incomplete(const char *dir, const char *note, char *err, size_t errlen);

#endif
