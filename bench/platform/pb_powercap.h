/* pb_powercap.h — energy counters of Linux's powercap tree (RAPL: package, core, uncore, dram, psys zones).
 *
 * Intel's and AMD's RAPL drivers both publish under /sys/class/powercap as intel-rapl:N (a package or psys) and
 * intel-rapl:N:M (its core, uncore or dram sub-zone), each a directory with `name`, `energy_uj` (a counter in
 * microjoules) and `max_energy_range_uj` (where the counter wraps back to 0). Reading energy_uj needs root since
 * Linux 5.10 (the counters leaked secrets: PLATYPUS), and VMs usually have no zone at all; either way the zones
 * are reported as unavailable with the reason, never as zero joules.
 *
 * The tree's root is a parameter (tests point it at a fixture directory); NULL means $POOLBENCH_POWERCAP when
 * set, else /sys/class/powercap. Every file is read as a regular file of bounded size. */
#ifndef PB_POWERCAP_H
#define PB_POWERCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_POWERCAP_MAX_ZONES 32
#define PB_POWERCAP_NAME_LEN 48
/* No zone draws this much: the largest sockets are rated near 500 W. A counter that stepped back far from where
 * it wraps would read as tens of kW; such a reading is no wrap but a reset or a broken counter, and gives no
 * joules. */
#define PB_POWERCAP_MAX_WATTS 2000.0

typedef struct pb_powercap_zone {
    char dir[PB_POWERCAP_NAME_LEN];   /* the zone's directory name: intel-rapl:0, intel-rapl:0:1 */
    char name[PB_POWERCAP_NAME_LEN];  /* its `name` (package-0, core, uncore, dram, psys), control bytes as '?' */
    uint64_t max_range_uj;            /* the counter's largest value; it wraps to 0 after it */
} pb_powercap_zone;

typedef struct pb_powercap {
    char root[4096];
    int nzones;
    int nfound; /* zone directories under root: past PB_POWERCAP_MAX_ZONES, the first in name order are kept */
    pb_powercap_zone zone[PB_POWERCAP_MAX_ZONES];
} pb_powercap;

/* One reading of every zone's counter, in pb_powercap's zone order. */
typedef struct pb_powercap_sample {
    uint64_t uj[PB_POWERCAP_MAX_ZONES];
} pb_powercap_sample;

/* Finds the zones under root and checks each counter can be read. Returns the number of zones (> 0), or -1 with
 * why filled (no tree, no zone, a counter unreadable and the errno's meaning, a malformed file): the one line
 * machine.csv gives for empty energy columns. */
int pb_powercap_open(pb_powercap *pc, const char *root, char *why, size_t whylen);

/* Reads every zone's counter into s. -1 with why filled when one cannot be read. */
int pb_powercap_read(const pb_powercap *pc, pb_powercap_sample *s, char *why, size_t whylen);

/* The microjoules between two readings of a counter that wraps after max_range_uj: cur - prev, or, when cur is
 * below prev, the way to max_range_uj, the step to 0 and cur. */
uint64_t pb_powercap_delta_uj(uint64_t prev, uint64_t cur, uint64_t max_range_uj);

/* Joules of zone z between two samples seconds apart; NAN, with the reason in why, when they would mean more than
 * PB_POWERCAP_MAX_WATTS (a counter that went back without wrapping). */
double pb_powercap_joules(const pb_powercap *pc, int z, const pb_powercap_sample *before,
                          const pb_powercap_sample *after, double seconds, char *why, size_t whylen);

/* Joules of every zone whose name starts with prefix ("package" sums the sockets' package-N; "dram", "core",
 * "psys") between two samples seconds apart; NAN when no zone has that name, or (why filled) when one zone's
 * reading cannot be true. */
double pb_powercap_joules_of(const pb_powercap *pc, const char *prefix, const pb_powercap_sample *before,
                             const pb_powercap_sample *after, double seconds, char *why, size_t whylen);

#endif
