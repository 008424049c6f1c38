/* pb_machine.c — probing the machine into a pb_machine (see pb_machine.h): what every architecture shares (hwloc's
 * counts, the OS, the build); the CPU's identity and instruction sets come from this architecture's file behind
 * pb_machine_arch.h (x86/: libcpuid, arm/: /proc/cpuinfo and the auxiliary vector). pb_machine_report.c formats
 * it. */
#include "pb_machine.h"
#include "pb_machine_arch.h"

#include "pb_clock.h"
#include "pb_powercap.h"
#include "pb_run.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PB_CFLAGS
#define PB_CFLAGS "unknown" /* the Makefile passes the flags it compiled with */
#endif

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

/* The zones joules will be read from, named, or the one line saying why there are none. */
static void energy_zones(char *out, size_t len)
{
    pb_powercap pc;
    if (pb_powercap_open(&pc, NULL, out, len) < 0)
        return;
    size_t n = 0;
    out[0] = '\0';
    if (pc.nfound > pc.nzones) /* first: a long list of names may fill the line */
        n = (size_t)snprintf(out, len, "the first %d of %d zones by directory name: ", pc.nzones, pc.nfound);
    for (int z = 0; z < pc.nzones && n < len; z++)
        n += (size_t)snprintf(out + n, len - n, "%s%s", z ? " " : "", pc.zone[z].name);
}

void pb_machine_os(pb_machine *m, int first_cpu)
{
    pb_hostname(m->host, sizeof m->host);
    pb_machine_isa(m->isa, sizeof m->isa);
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
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    m->os_memory = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    if (getloadavg(m->load, 3) != 3)
        m->load[0] = m->load[1] = m->load[2] = -1;
    git_revision(m->git, sizeof m->git);
    m->clock_ghz = pb_clock_ghz();
    energy_zones(m->energy, sizeof m->energy);
}

int pb_machine_probe(pb_machine *m, const pb_topo *t, char *err, size_t errlen)
{
    int rc = pb_machine_identify(m, t, err, errlen);
    int first = 0;
    for (int i = 0; i < t->npus; i++)
        if (t->pu[i].allowed) {
            first = t->pu[i].os;
            break;
        }
    pb_machine_os(m, first);
    return rc;
}
