/* pb_machine_cpuinfo_arm.c — the live arm64 machine's identity (pb_machine_arch.h), without libcpuid (which reads
 * x86's CPUID): every cpu's MIDR from /proc/cpuinfo, else from sysfs's midr_el1, else the calling cpu's own
 * MIDR_EL1 read with MRS; the instruction sets from getauxval's HWCAPs. The parsing and naming are pure
 * (pb_cpuinfo.c, pb_machine_arm.c); this file only reads. Built on arm64 only. */
#include "pb_cpuinfo.h"
#include "pb_machine_arch.h"

#include "pb_err.h"

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

/* pb_cpuinfo.h's bit numbers are Linux's (its header exists on arm64 only, hence the copy): the build checks. */
_Static_assert(HWCAP_ASIMD == 1ul << PB_HWCAP_ASIMD && HWCAP_ASIMDHP == 1ul << PB_HWCAP_ASIMDHP &&
                   HWCAP_CPUID == 1ul << PB_HWCAP_CPUID && HWCAP_ASIMDDP == 1ul << PB_HWCAP_ASIMDDP &&
                   HWCAP_SVE == 1ul << PB_HWCAP_SVE && HWCAP_ASIMDFHM == 1ul << PB_HWCAP_ASIMDFHM,
               "AT_HWCAP bit numbers");
_Static_assert(HWCAP2_SVE2 == 1ul << PB_HWCAP2_SVE2 && HWCAP2_SVEI8MM == 1ul << PB_HWCAP2_SVEI8MM &&
                   HWCAP2_SVEBF16 == 1ul << PB_HWCAP2_SVEBF16 && HWCAP2_I8MM == 1ul << PB_HWCAP2_I8MM &&
                   HWCAP2_BF16 == 1ul << PB_HWCAP2_BF16,
               "AT_HWCAP2 bit numbers");
#ifdef HWCAP2_SME /* glibc 2.36's <bits/hwcap.h> stops at MTE3 */
_Static_assert(HWCAP2_SME == 1ul << PB_HWCAP2_SME, "AT_HWCAP2 bit numbers");
#endif

/* The whole of a text file; /proc and /sys files report size 0, so getdelim reads to the end (the text holds
 * no NUL). NULL when unreadable; the caller frees. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&buf, &cap, '\0', f);
    fclose(f);
    if (n < 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Each PU's midr_el1 from sysfs (Linux 4.11 and later), for when /proc/cpuinfo lacks the MIDR lines. */
static void midr_from_sysfs(pb_cpuinfo *ci, const pb_topo *t)
{
    for (int i = 0; i < t->npus && ci->n < PB_MAX_CPUS; i++) {
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/regs/identification/midr_el1", t->pu[i].os);
        char *text = read_text(path);
        if (text)
            ci->cpu[ci->n++] = pb_midr_decode(t->pu[i].os, strtoull(text, NULL, 0));
        free(text);
    }
}

/* The calling cpu's MIDR_EL1: EL0 may read it only because Linux (and qemu-user, whose /proc/cpuinfo is the
 * host's) trap the MRS and emulate it, which AT_HWCAP's CPUID bit says; without that bit the read is SIGILL,
 * so it is not tried. One cpu only: on a big.LITTLE machine the others stay unnamed. */
static void midr_from_mrs(pb_cpuinfo *ci)
{
    if (!(getauxval(AT_HWCAP) & HWCAP_CPUID))
        return;
    uint64_t midr;
    __asm__ volatile("mrs %0, midr_el1" : "=r"(midr));
    int cpu = sched_getcpu();
    ci->cpu[ci->n++] = pb_midr_decode(cpu < 0 ? 0 : cpu, midr);
}

void pb_machine_isa(char *buf, size_t len)
{
    pb_arm_isa(getauxval(AT_HWCAP), getauxval(AT_HWCAP2), buf, len);
}

int pb_machine_identify(pb_machine *m, const pb_topo *t, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->schema = PB_SCHEMA_VERSION;
    snprintf(m->hypervisor_name, sizeof m->hypervisor_name, "none");
    pb_machine_merge_topo(m, t);
    pb_cpuinfo *ci = calloc(1, sizeof *ci);
    if (!ci) {
        pb_machine_arm_identity(m, &(pb_cpuinfo){ .n = 0 }, t);
        return pb_errf(err, errlen, "cpu identity: out of memory");
    }
    char *text = read_text("/proc/cpuinfo");
    if (text)
        pb_cpuinfo_parse(text, ci);
    free(text);
    if (ci->n == 0)
        midr_from_sysfs(ci, t);
    if (ci->n == 0)
        midr_from_mrs(ci);
    ci->hwcap = getauxval(AT_HWCAP); /* the kernel's word (qemu's, emulated), over a Features line */
    ci->hwcap2 = getauxval(AT_HWCAP2);
    pb_machine_arm_identity(m, ci, t);
    int found = ci->n;
    free(ci);
    if (found == 0)
        return pb_errf(err, errlen, "cpu identity: no MIDR in /proc/cpuinfo, in sysfs (midr_el1) or from MRS");
    return 0;
}
