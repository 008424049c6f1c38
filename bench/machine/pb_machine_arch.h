/* pb_machine_arch.h — what each architecture's identity file gives pb_machine.c: one file per architecture,
 * built only there (the Makefile keeps x86/ folders to x86-64 and arm/ folders to arm64).
 *
 *   x86/pb_machine_cpuid_x86.c    libcpuid (identity, per-type kinds and caches, hypervisor), __builtin_cpu_supports
 *   arm/pb_machine_cpuinfo_arm.c  MIDR from /proc/cpuinfo (else sysfs midr_el1, else MRS), getauxval's HWCAPs
 *
 * A port to another architecture or OS adds its own file with these two functions. */
#ifndef PB_MACHINE_ARCH_H
#define PB_MACHINE_ARCH_H

#include <stddef.h>

#include "pb_machine.h"

/* Zeroes m, fills the live CPU's identity and merges t's counts, kinds and caches (pb_machine_merge_topo), so
 * an identity that names kinds sees hwloc's. 0, or -1 with the reason in err: the rest is still filled. */
int pb_machine_identify(pb_machine *m, const pb_topo *t, char *err, size_t errlen);

/* The instruction-set extensions this CPU runs, space-separated ("avx2 avx512f", "asimd asimddp i8mm"), or
 * "baseline". */
void pb_machine_isa(char *buf, size_t len);

#endif
