/* pb_cpuinfo.h — arm64 CPU identity without libcpuid: each cpu's MIDR fields from /proc/cpuinfo text (or a
 * midr_el1 value), the names of the parts we know, and the instruction-set extensions from the HWCAP bits.
 *
 * Pure functions on text and numbers, built on every architecture, so the tests feed them the cpuinfo text of
 * machines we do not have (the .cpuinfo files in tests/data). Reading the live machine (the files, getauxval, MRS) is
 * bench/machine/arm/pb_machine_cpuinfo_arm.c's, which builds on arm64 only.
 *
 *   pb_cpuinfo *ci = calloc(1, sizeof *ci);
 *   pb_cpuinfo_parse(text, ci);                 // "CPU implementer : 0x41", "CPU part : 0xd0b", Features
 *   pb_machine_merge_topo(&m, topo);            // hwloc's kinds first: the identity names them
 *   pb_machine_arm_identity(&m, ci, topo);      // vendor, brand, codename, numbers, kinds' core types, isa */
#ifndef PB_CPUINFO_H
#define PB_CPUINFO_H

#include <stddef.h>
#include <stdint.h>

#include "pb_machine.h"

/* The HWCAP bits poolbench names (Linux's arch/arm64/include/uapi/asm/hwcap.h, which exists on arm64 only: the
 * arm64 build checks these against it at compile time). Bit numbers within AT_HWCAP and AT_HWCAP2. */
enum { PB_HWCAP_ASIMD = 1, PB_HWCAP_ASIMDHP = 10, PB_HWCAP_CPUID = 11, PB_HWCAP_ASIMDDP = 20, PB_HWCAP_SVE = 22,
       PB_HWCAP_ASIMDFHM = 23 };
enum { PB_HWCAP2_SVE2 = 1, PB_HWCAP2_SVEI8MM = 9, PB_HWCAP2_SVEBF16 = 12, PB_HWCAP2_I8MM = 13, PB_HWCAP2_BF16 = 14,
       PB_HWCAP2_SME = 23 };

/* One cpu's Main ID Register, by field. */
typedef struct pb_midr {
    int cpu;              /* OS cpu id ("processor : N") */
    unsigned implementer; /* bits 31:24: 0x41 ARM, 0x61 Apple, ... */
    unsigned variant;     /* bits 23:20: the major revision, rN */
    unsigned part;        /* bits 15:4: the part number, 0xd0b = Cortex-A76 */
    unsigned revision;    /* bits 3:0: the minor revision, pN */
} pb_midr;

typedef struct pb_cpuinfo {
    int n;                  /* cpus with a MIDR, in the text's order */
    pb_midr cpu[PB_MAX_CPUS];
    uint64_t hwcap, hwcap2; /* AT_HWCAP and AT_HWCAP2 bits: from the first Features line, or from getauxval */
} pb_cpuinfo;

/* Parses arm64 /proc/cpuinfo text into out (zeroed first): each "processor : N" block with a "CPU implementer"
 * and a "CPU part" becomes one pb_midr (variant and revision 0 when missing), and the first "Features" line
 * sets the HWCAP bits of the names poolbench knows (others are ignored). Returns out->n: 0 for text without
 * MIDR lines (an x86 machine's cpuinfo, which is what qemu-user shows an emulated program). */
int pb_cpuinfo_parse(const char *text, pb_cpuinfo *out);

/* A midr_el1 value (sysfs's regs/identification/midr_el1, or an MRS read) of OS cpu `cpu`, by field. */
pb_midr pb_midr_decode(int cpu, uint64_t midr);

/* The entry of OS cpu `cpu` in ci, NULL when ci has none. */
const pb_midr *pb_cpuinfo_find(const pb_cpuinfo *ci, int cpu);

/* The implementer's name ("ARM", "Apple"), or "implementer 0xNN" when the table has none. */
void pb_arm_vendor(unsigned implementer, char *buf, size_t len);
/* The part's name ("Cortex-A76", "Avalanche"), or "part 0xNNN" when the table has none. */
void pb_arm_part_name(unsigned implementer, unsigned part, char *buf, size_t len);
/* The part's codename ("Enyo"; for Apple's cores the chip, "M2 Pro"), "" when the table has none. */
const char *pb_arm_codename(unsigned implementer, unsigned part);

/* The extensions the kernels and the read kernels care about, space-separated, in a fixed order ("asimd
 * asimdhp asimddp i8mm"); "baseline" when none of them. */
void pb_arm_isa(uint64_t hwcap, uint64_t hwcap2, char *buf, size_t len);

/* The identity of an arm64 machine, called after pb_machine_merge_topo(m, t) (t may be NULL: no kinds to
 * order or name). vendor: the implementer of the fastest kind's first cpu; brand and codename: the distinct
 * parts' names and codenames, fastest kind first, joined by " + " ("Cortex-A76 + Cortex-A55");
 * ext_family, ext_model, stepping: that cpu's implementer, part and variant << 4 | revision (machine.csv's
 * numbers, MIDR's fields); each kind hwloc gave no CoreType gets its first cpu's part name; isa from the
 * HWCAP bits. With no MIDR at all, vendor and brand read "unknown". */
void pb_machine_arm_identity(pb_machine *m, const pb_cpuinfo *ci, const pb_topo *t);

#endif
