/* pb_machine_cpuid_x86.c — the live x86-64 machine's identity (pb_machine_arch.h): libcpuid for vendor, brand,
 * codename, family/model/stepping, per-type kinds and caches, and the hypervisor; __builtin_cpu_supports for the
 * instruction sets (libcpuid 0.6.2 cannot see AVX-512 on AMD). Built on x86-64 only (the Makefile drops x86/
 * folders elsewhere, and links libcpuid only here). */
#include "pb_machine.h"
#include "pb_machine_arch.h"

#include "pb_err.h"

#include <cpuid.h>
#include <libcpuid.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* How long libcpuid times the TSC against the OS clock: the rate is steady, so a short read gives it to the MHz
 * at little cost to every harness's start. */
#define PB_MACHINE_TSC_MS 50

/* libcpuid prints warnings ("APIC ID are not supported") to stderr; the header reports what matters. */
static void cpuid_quiet(const char *msg)
{
    (void)msg;
}

/* Fastest first, as pb_topo ranks hwloc's kinds: performance, general, efficiency. */
static int purpose_rank(cpu_purpose_t p)
{
    return p == PURPOSE_PERFORMANCE ? 0 : p == PURPOSE_EFFICIENCY ? 2 : 1;
}

static const char *const hypervisor_names[NUM_HYPERVISOR_VENDORS] = {
    [HYPERVISOR_NONE] = "none",           [HYPERVISOR_BHYVE] = "bhyve",   [HYPERVISOR_HYPERV] = "Hyper-V",
    [HYPERVISOR_KVM] = "KVM",             [HYPERVISOR_PARALLELS] = "Parallels", [HYPERVISOR_QEMU] = "QEMU",
    [HYPERVISOR_VIRTUALBOX] = "VirtualBox", [HYPERVISOR_VMWARE] = "VMware", [HYPERVISOR_XEN] = "Xen",
};

static void fill_kinds(pb_machine *m, const struct system_id_t *sys)
{
    int n = sys->num_cpu_types < PB_MAX_KINDS ? sys->num_cpu_types : PB_MAX_KINDS;
    const struct cpu_id_t *order[PB_MAX_KINDS];
    for (int i = 0; i < n; i++) { /* insertion sort by purpose: at most PB_MAX_KINDS types */
        int j = i;
        for (; j > 0 && purpose_rank(order[j - 1]->purpose) > purpose_rank(sys->cpu_types[i].purpose); j--)
            order[j] = order[j - 1];
        order[j] = &sys->cpu_types[i];
    }
    m->nkinds = n;
    for (int i = 0; i < n; i++) {
        const struct cpu_id_t *c = order[i];
        pb_machine_kind *k = &m->kind[i];
        snprintf(k->purpose, sizeof k->purpose, "%s", cpu_purpose_str(c->purpose));
        k->cores = c->num_cores;
        k->pus = c->num_logical_cpus;
        k->l1d_kb = c->l1_data_cache;
        k->l2_kb = c->l2_cache;
        k->l3_kb = c->l3_cache;
    }
}

/* The hypervisor's CPUID signature (leaf 0x40000000), e.g. "KVMKVMKVM" or "bhyve bhyve": names more
 * hypervisors than libcpuid 0.6.2 knows. Only meaningful on the live machine. */
static bool hypervisor_signature(char *buf, size_t len)
{
    unsigned a, b, c, d;
    __cpuid(0x40000000, a, b, c, d);
    char sig[13];
    memcpy(sig, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    sig[12] = '\0';
    size_t n = strlen(sig);
    while (n > 0 && sig[n - 1] == ' ')
        sig[--n] = '\0';
    if (n == 0 || a < 0x40000000u)
        return false;
    snprintf(buf, len, "%s", sig);
    return true;
}

int pb_machine_cpuid(pb_machine *m, const char *dump, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->schema = PB_SCHEMA_VERSION;
    snprintf(m->vendor, sizeof m->vendor, "unknown");
    snprintf(m->brand, sizeof m->brand, "unknown");
    if (!cpuid_present())
        return pb_errf(err, errlen, "cpuid: this CPU has no CPUID instruction");
    struct cpu_raw_data_array_t raw = { 0 };
    struct system_id_t sys = { 0 };
    libcpuid_warn_fn_t old_warn = cpuid_set_warn_function(cpuid_quiet);
    int rc;
    if (dump) {
        rc = cpuid_deserialize_all_raw_data(&raw, dump);
    } else {
        /* cpuid_get_all_raw_data pins this thread to each cpu in turn and leaves it on the last one. */
        cpu_set_t saved;
        bool have = sched_getaffinity(0, sizeof saved, &saved) == 0;
        rc = cpuid_get_all_raw_data(&raw);
        if (have)
            sched_setaffinity(0, sizeof saved, &saved);
    }
    if (rc == 0)
        rc = cpu_identify_all(&raw, &sys);
    cpuid_set_warn_function(old_warn);
    if (rc != 0) {
        cpuid_free_raw_data_array(&raw);
        return pb_errf(err, errlen, "cpuid: %s%s%s", cpuid_error(), dump ? " reading " : "", dump ? dump : "");
    }
    if (sys.num_cpu_types > 0) {
        const struct cpu_id_t *c = &sys.cpu_types[0];
        snprintf(m->vendor, sizeof m->vendor, "%s", c->vendor_str);
        snprintf(m->brand, sizeof m->brand, "%s", c->brand_str);
        for (size_t n = strlen(m->brand); n > 0 && m->brand[n - 1] == ' '; n--) /* brands pad with spaces */
            m->brand[n - 1] = '\0';
        snprintf(m->codename, sizeof m->codename, "%s", c->cpu_codename);
        m->ext_family = c->ext_family;
        m->ext_model = c->ext_model;
        m->stepping = c->stepping;
        m->hypervisor = c->flags[CPU_FEATURE_HYPERVISOR] != 0;
        hypervisor_vendor_t hv = raw.num_raw > 0 ? cpuid_get_hypervisor(&raw.raw[0], &sys.cpu_types[0]) : HYPERVISOR_UNKNOWN;
        bool named = hv >= 0 && hv < NUM_HYPERVISOR_VENDORS;
        snprintf(m->hypervisor_name, sizeof m->hypervisor_name, "%s",
                 !m->hypervisor ? "none" : named ? hypervisor_names[hv] : "present");
        if (m->hypervisor && !dump)
            hypervisor_signature(m->hypervisor_name, sizeof m->hypervisor_name);
        /* An invariant TSC ticks at the nominal clock whatever the core runs at: the reference the add chain's
         * clock is read against. A dump is another machine's, so nothing here can be timed for it. */
        if (!dump && c->flags[CPU_FEATURE_CONSTANT_TSC]) {
            int mhz = cpu_clock_measure(PB_MACHINE_TSC_MS, 1);
            m->tsc_mhz = mhz > 0 ? mhz : 0;
        }
    }
    fill_kinds(m, &sys);
    cpuid_free_system_id(&sys);
    cpuid_free_raw_data_array(&raw);
    return 0;
}

void pb_machine_isa(char *buf, size_t len)
{
    buf[0] = '\0';
    __builtin_cpu_init();
    static const char *const names[] = { "avx2", "avx512f", "avx512vnni", "avxvnni" };
    const bool have[] = { __builtin_cpu_supports("avx2"), __builtin_cpu_supports("avx512f"),
                          __builtin_cpu_supports("avx512vnni"), __builtin_cpu_supports("avxvnni") };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (have[i])
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "", names[i]);
    if (!buf[0])
        snprintf(buf, len, "baseline");
}

int pb_machine_identify(pb_machine *m, const pb_topo *t, char *err, size_t errlen)
{
    int rc = pb_machine_cpuid(m, NULL, err, errlen);
    pb_machine_merge_topo(m, t);
    return rc;
}
