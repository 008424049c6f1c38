/* pb_machine.c — probing the machine into a pb_machine (see pb_machine.h); pb_machine_report.c formats it. */
#include "pb_machine.h"

#include "pb_err.h"
#include "pb_run.h"

#include <libcpuid.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define PB_X86 1
#endif

#ifndef PB_CFLAGS
#define PB_CFLAGS "unknown" /* the Makefile passes the flags it compiled with */
#endif

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
#ifdef PB_X86
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
#else
    (void)buf;
    (void)len;
    return false;
#endif
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
    }
    fill_kinds(m, &sys);
    cpuid_free_system_id(&sys);
    cpuid_free_raw_data_array(&raw);
    return 0;
}

void pb_machine_merge_topo(pb_machine *m, const pb_topo *t)
{
    static const char *const rank_purpose[3] = { "performance", "general", "efficiency" };
    bool same = m->nkinds == t->nkinds;
    for (int k = 0; k < t->nkinds; k++) {
        pb_machine_kind *mk = &m->kind[k];
        if (!same) { /* libcpuid saw other kinds than hwloc: trust hwloc's, name the purpose by rank */
            int r = t->nkinds == 1 ? 1 : k == 0 ? 0 : 2;
            *mk = (pb_machine_kind){ .l1d_kb = -1, .l2_kb = -1, .l3_kb = -1 };
            snprintf(mk->purpose, sizeof mk->purpose, "%s", rank_purpose[r]);
        }
        snprintf(mk->core_type, sizeof mk->core_type, "%s", t->kind[k].name);
        mk->cores = t->kind[k].cores;
        mk->pus = t->kind[k].pus;
        mk->max_mhz = t->kind[k].max_mhz;
    }
    m->nkinds = t->nkinds;
    m->cores = t->ncores;
    m->pus = t->npus;
    m->nnuma = t->nnuma;
    m->memory = 0;
    for (int n = 0; n < t->nnuma; n++)
        m->memory += t->numa[n].memory;
    m->ncaches = t->ncaches;
    memcpy(m->cache, t->cache, sizeof m->cache);
}

/* The first line of a small file, without its newline; false when unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

static void isa_list(char *buf, size_t len)
{
    buf[0] = '\0';
#ifdef PB_X86
    __builtin_cpu_init();
    static const char *const names[] = { "avx2", "avx512f", "avx512vnni", "avxvnni" };
    const bool have[] = { __builtin_cpu_supports("avx2"), __builtin_cpu_supports("avx512f"),
                          __builtin_cpu_supports("avx512vnni"), __builtin_cpu_supports("avxvnni") };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (have[i])
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "", names[i]);
#endif
    if (!buf[0])
        snprintf(buf, len, "baseline");
}

/* `git rev-parse --short HEAD`, silently "unknown" where git or the repository is missing. */
static void git_revision(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *p = popen("git rev-parse --short HEAD 2>/dev/null", "r");
    if (!p)
        return;
    char line[41] = ""; /* a full SHA-1 at most; --short gives 7 to 12 */
    bool got = fgets(line, sizeof line, p) != NULL;
    int status = pclose(p);
    line[strcspn(line, "\n")] = '\0';
    if (got && line[0] && status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        snprintf(buf, len, "%s", line);
}

void pb_machine_os(pb_machine *m, int first_cpu)
{
    pb_hostname(m->host, sizeof m->host);
    isa_list(m->isa, sizeof m->isa);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(m->kernel, sizeof m->kernel, "%s %s %s", u.sysname, u.release, u.machine);
    else
        snprintf(m->kernel, sizeof m->kernel, "unknown");
#ifdef __clang__
    snprintf(m->compiler, sizeof m->compiler, "clang %s", __clang_version__);
#elif defined(__GNUC__)
    snprintf(m->compiler, sizeof m->compiler, "gcc %s", __VERSION__);
#else
    snprintf(m->compiler, sizeof m->compiler, "unknown");
#endif
    snprintf(m->cflags, sizeof m->cflags, "%s", PB_CFLAGS);
    /* "always [madvise] never": the bracketed word is the mode (hwloc does not report it). */
    char line[128], *open, *close;
    if (read_line("/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof line) && (open = strchr(line, '[')) &&
        (close = strchr(open, ']'))) {
        *close = '\0';
        snprintf(m->thp, sizeof m->thp, "%s", open + 1);
    } else
        snprintf(m->thp, sizeof m->thp, "unavailable");
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", first_cpu);
    if (!read_line(path, m->governor, sizeof m->governor))
        m->governor[0] = '\0';
    if (getloadavg(m->load, 3) != 3)
        m->load[0] = m->load[1] = m->load[2] = -1;
    git_revision(m->git, sizeof m->git);
}

int pb_machine_probe(pb_machine *m, const pb_topo *t, char *err, size_t errlen)
{
    int rc = pb_machine_cpuid(m, NULL, err, errlen);
    pb_machine_merge_topo(m, t);
    int first = 0;
    for (int i = 0; i < t->npus; i++)
        if (t->pu[i].allowed) {
            first = t->pu[i].os;
            break;
        }
    pb_machine_os(m, first);
    return rc;
}
