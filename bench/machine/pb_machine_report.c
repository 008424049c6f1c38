/* pb_machine_report.c — a probed pb_machine as the context header and as machine.csv (see pb_machine.h). */
#include "pb_machine.h"

#include "pb_csv.h"
#include "pb_schema.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_err.h"

/* 1310720 -> "1.25 MiB", 49152 -> "48 KiB", 1065353216 -> "1016 MiB". */
static void fmt_bytes(uint64_t b, char *buf, size_t len)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, v >= 100 ? "%.0f %s" : "%.3g %s", v, unit[u]);
}

int pb_machine_warnings(const pb_machine *m, char (*lines)[192], int max)
{
    int n = 0;
    int cpus = m->pus > 0 ? m->pus : 1;
    if (n < max && m->load[0] > PB_LOADED_PER_CPU * cpus)
        snprintf(lines[n++], sizeof lines[0],
                 "load average %.2f is above %g per cpu (%d cpus): other work is running, timings will be noisy",
                 m->load[0], PB_LOADED_PER_CPU, cpus);
    if (n < max && m->hypervisor)
        snprintf(lines[n++], sizeof lines[0],
                 "running under a hypervisor (%s): vCPUs can move between physical cores under you, so placement "
                 "is a request, not a fact",
                 m->hypervisor_name);
    if (n < max && m->governor[0] && strcmp(m->governor, "performance") != 0)
        snprintf(lines[n++], sizeof lines[0],
                 "cpu frequency governor is '%s', not 'performance': clocks change under the benchmark",
                 m->governor);
    return n;
}

static void print_kinds(const pb_machine *m, FILE *f)
{
    for (int k = 0; k < m->nkinds; k++) {
        const pb_machine_kind *mk = &m->kind[k];
        fprintf(f, "%-12s%s: %d cores, %d PUs", k == 0 ? "kinds" : "", mk->purpose, mk->cores, mk->pus);
        if (mk->core_type[0])
            fprintf(f, ", %s", mk->core_type);
        if (mk->max_mhz > 0)
            fprintf(f, ", max %d MHz", mk->max_mhz);
        fputc('\n', f);
    }
}

/* "L2  1.25 MiB per 2 PUs (performance), 2 MiB per 4 PUs (efficiency); 5 in all, 7 MiB" */
static void print_caches(const pb_machine *m, FILE *f)
{
    for (int i = 0; i < m->ncaches; i++) {
        const pb_topo_cache *c = &m->cache[i];
        char size[32], total[32];
        fprintf(f, "%-12sL%d%s ", i == 0 ? "caches" : "", c->level, c->level == 1 ? "d" : " ");
        for (int k = 0; k < m->nkinds; k++) {
            if (c->bytes[k] == 0)
                continue;
            fmt_bytes(c->bytes[k], size, sizeof size);
            if (c->shared_by[k] == 1)
                fprintf(f, "%s%s per PU", k ? ", " : "", size);
            else
                fprintf(f, "%s%s per %d PUs", k ? ", " : "", size, c->shared_by[k]);
            if (m->nkinds > 1)
                fprintf(f, " (%s)", m->kind[k].purpose);
        }
        fmt_bytes(c->total_bytes, total, sizeof total);
        fprintf(f, "; %d in all, %s\n", c->instances, total);
    }
}

/* hwloc's and the OS kernel's memory further apart than PB_MEMORY_MISMATCH_PCT of the larger. */
static bool memory_differs(const pb_machine *m)
{
    uint64_t lo = m->memory < m->os_memory ? m->memory : m->os_memory;
    uint64_t hi = m->memory < m->os_memory ? m->os_memory : m->memory;
    return lo > 0 && (double)(hi - lo) > (double)hi * PB_MEMORY_MISMATCH_PCT / 100.0;
}

void pb_machine_print_header(const pb_machine *m, FILE *f)
{
    char mem[32];
    fmt_bytes(m->memory, mem, sizeof mem);
    fprintf(f, "poolbench on %s (git %s, CSV schema %d)\n", m->host[0] ? m->host : "unknown", m->git[0] ? m->git : "unknown",
            m->schema);
    fprintf(f, "%-12s%s, %s (family %d, model %d, stepping %d%s%s)\n", "cpu", m->brand, m->vendor, m->ext_family,
            m->ext_model, m->stepping, m->codename[0] ? ", " : "", m->codename);
    fprintf(f, "%-12s%d cores, %d PUs, %d NUMA node%s, %s memory", "topology", m->cores, m->pus, m->nnuma,
            m->nnuma == 1 ? "" : "s", mem);
    if (memory_differs(m)) {
        char os[32];
        fmt_bytes(m->os_memory, os, sizeof os);
        fprintf(f, " (hwloc's NUMA nodes; the OS kernel counts %s)", os);
    }
    fputc('\n', f);
    print_kinds(m, f);
    print_caches(m, f);
    fprintf(f, "%-12s%s\n", "isa", m->isa);
    fprintf(f, "%-12s%s\n", "hypervisor", m->hypervisor ? m->hypervisor_name : "none");
    fprintf(f, "%-12s%s, transparent hugepages %s\n", "kernel", m->kernel, m->thp);
    fprintf(f, "%-12s%s\n", "governor", m->governor[0] ? m->governor : "unreadable (no cpufreq here)");
    fprintf(f, "%-12s%s %s\n", "compiler", m->compiler, m->cflags);
    if (m->clock_ghz > 0 && m->tsc_mhz > 0)
        fprintf(f, "%-12s%.2f GHz, a dependent add chain at the start: %.2fx the nominal %.0f MHz (the TSC)\n",
                "clock", m->clock_ghz, m->clock_ghz * 1000 / m->tsc_mhz, m->tsc_mhz);
    else if (m->clock_ghz > 0)
        fprintf(f, "%-12s%.2f GHz, a dependent add chain at the start\n", "clock", m->clock_ghz);
    fprintf(f, "%-12s%s\n", "energy", m->energy[0] ? m->energy : "not probed");
    if (m->load[0] >= 0)
        fprintf(f, "%-12s%.2f, %.2f, %.2f (1, 5, 15 min)\n", "load", m->load[0], m->load[1], m->load[2]);
    else
        fprintf(f, "%-12s%s\n", "load", "unavailable");
    char lines[8][192];
    int n = pb_machine_warnings(m, lines, 8);
    for (int i = 0; i < n; i++)
        fprintf(f, "***WARNING*** %s\n", lines[i]);
}

/* One key,value row whose value is printed by its key's type and format in the schema (pb_schema.h). */
static void mkey_value(pb_csv *c, const char *key, const pb_column *col, pb_value v)
{
    char value[512];
    pb_value_format(value, sizeof value, col, v);
    pb_csv_row(c, "%s,%s", key, value);
}

/* The rows of keys first..last of one of the schema's key lists (key: pb_machine_key, pb_machine_kind_key or
 * pb_machine_cache_key), in the list's order, v indexed like the list; each key named prefix, name, suffix
 * (kind1_pus, l2_bytes_kind0). The names, formats and order are the schema's: machine.csv follows it. */
static void mkey_keys(pb_csv *c, const pb_column *(*key)(int), int first, int last, const pb_value *v,
                    const char *prefix, const char *suffix)
{
    for (int k = first; k <= last; k++) {
        char name[64];
        snprintf(name, sizeof name, "%s%s%s", prefix, key(k)->name, suffix);
        mkey_value(c, name, key(k), v[k]);
    }
}

static void mkey_kinds(const pb_machine *m, pb_csv *c)
{
    for (int k = 0; k < m->nkinds; k++) {
        const pb_machine_kind *mk = &m->kind[k];
        char prefix[24];
        snprintf(prefix, sizeof prefix, "kind%d_", k);
        const pb_value v[PB_MKIND_COUNT] = {
            [PB_MKIND_purpose].s = mk->purpose, [PB_MKIND_core_type].s = mk->core_type, [PB_MKIND_cores].i = mk->cores,
            [PB_MKIND_pus].i = mk->pus, [PB_MKIND_max_mhz].i = mk->max_mhz,
        };
        mkey_keys(c, pb_machine_kind_key, 0, PB_MKIND_COUNT - 1, v, prefix, "");
    }
}

/* Per level: each kind's size and sharing (lL_bytes_kindK, lL_shared_by_kindK), then the level's count and total. */
static void mkey_caches(const pb_machine *m, pb_csv *c)
{
    for (int i = 0; i < m->ncaches; i++) {
        const pb_topo_cache *cc = &m->cache[i];
        char prefix[24], suffix[24]; /* "_kind" and any int: 17 bytes at most */
        snprintf(prefix, sizeof prefix, "l%d_", cc->level);
        pb_value v[PB_MCACHE_COUNT] = { [PB_MCACHE_instances].i = cc->instances,
                                        [PB_MCACHE_total_bytes].u = cc->total_bytes };
        for (int k = 0; k < m->nkinds; k++) {
            snprintf(suffix, sizeof suffix, "_kind%d", k);
            v[PB_MCACHE_bytes].u = cc->bytes[k];
            v[PB_MCACHE_shared_by].i = cc->shared_by[k];
            mkey_keys(c, pb_machine_cache_key, PB_MCACHE_bytes, PB_MCACHE_shared_by, v, prefix, suffix);
        }
        mkey_keys(c, pb_machine_cache_key, PB_MCACHE_instances, PB_MCACHE_total_bytes, v, prefix, "");
    }
}

/* The fixed keys up to kinds, the kinds' and the caches' keys, the rest of the fixed keys (incomplete is a
 * harness's, added later), then the tunables. */
static void mkey_rows(const pb_machine *m, pb_csv *c, const char *run_id)
{
    const pb_value v[PB_MKEY_COUNT] = {
        [PB_MKEY_run_id].s = run_id, [PB_MKEY_host].s = m->host, [PB_MKEY_schema_version].i = m->schema,
        [PB_MKEY_git].s = m->git, [PB_MKEY_vendor].s = m->vendor, [PB_MKEY_brand].s = m->brand,
        [PB_MKEY_codename].s = m->codename, [PB_MKEY_ext_family].i = m->ext_family,
        [PB_MKEY_ext_model].i = m->ext_model, [PB_MKEY_stepping].i = m->stepping, [PB_MKEY_cores].i = m->cores,
        [PB_MKEY_pus].i = m->pus, [PB_MKEY_kinds].i = m->nkinds, [PB_MKEY_numa_nodes].i = m->nnuma,
        [PB_MKEY_memory_bytes].u = m->memory, [PB_MKEY_isa].s = m->isa,
        [PB_MKEY_hypervisor].s = m->hypervisor ? m->hypervisor_name : "none", [PB_MKEY_kernel].s = m->kernel,
        [PB_MKEY_compiler].s = m->compiler, [PB_MKEY_cflags].s = m->cflags, [PB_MKEY_thp].s = m->thp,
        [PB_MKEY_governor].s = m->governor[0] ? m->governor : "unreadable", [PB_MKEY_loadavg_1m].d = m->load[0],
        [PB_MKEY_loadavg_5m].d = m->load[1], [PB_MKEY_loadavg_15m].d = m->load[2],
        [PB_MKEY_clock_ghz].d = m->clock_ghz, [PB_MKEY_tsc_mhz].d = m->tsc_mhz > 0 ? m->tsc_mhz : NAN,
        [PB_MKEY_energy].s = m->energy,
    };
    mkey_keys(c, pb_machine_key, run_id ? PB_MKEY_run_id : PB_MKEY_host, PB_MKEY_kinds, v, "", "");
    mkey_kinds(m, c);
    mkey_caches(m, c);
    mkey_keys(c, pb_machine_key, PB_MKEY_numa_nodes, PB_MKEY_energy, v, "", "");
    /* The thresholds and tunables (pb_tunings): keys from that table, not from the schema's fixed keys. %.17g:
     * the value read back is the one the run used (200, 0.25, 1.2 print as such). */
    for (const pb_tuning *t = m->tunings; t && t->key; t++)
        pb_csv_row(c, "%s,%.17g", t->key, t->value);
}

/* Bytes reserved past machine.csv's end for the `incomplete` lines harnesses append to it: a few lines' worth,
 * within the page the file ends in as often as not (a tmpfs counts whole pages). */
#define PB_MACHINE_APPEND_RESERVE 2048

/* Reserves room past path's end (FALLOC_FL_KEEP_SIZE: its size stays): a disk that fills up during the run still
 * takes the line that says the run is incomplete, and why. Best effort: a file system without fallocate, or one
 * already full, goes without. */
static void reserve_appends(const char *path)
{
    int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && fallocate(fd, FALLOC_FL_KEEP_SIZE, st.st_size, PB_MACHINE_APPEND_RESERVE)) {
        /* nothing reserved: the line is appended all the same, where there is room */
    }
    if (fd >= 0)
        close(fd);
}

/* An exclusive flock on dir, waited for: harnesses of one joined run, started together, take turns at
 * machine.csv, and the later ones find it written (pb_csv_open alone saw each other's partial file and refused).
 * The descriptor, or -1 (then no lock: a directory that cannot be opened fails at pb_csv_open with its reason). */
static int lock_run_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    return fd;
}

static int write_csv_locked(const pb_machine *m, const char *dir, const char *run_id, char *err, size_t errlen)
{
    pb_csv *c = pb_csv_open(dir, pb_schema_get(PB_K_MACHINE)->file, pb_schema_header(PB_K_MACHINE));
    if (!c && errno == EEXIST)
        return 1;
    if (!c) {
        snprintf(err, errlen, "cannot write %s/machine.csv: %s", dir, strerror(errno));
        return -1;
    }
    mkey_rows(m, c, run_id);
    char path[4096 + 16];
    snprintf(path, sizeof path, "%s", pb_csv_path(c));
    if (pb_csv_close(c) != 0) {
        snprintf(err, errlen, "cannot write %s/machine.csv: %s", dir, strerror(errno));
        return -1;
    }
    reserve_appends(path);
    return 0;
}

int pb_machine_write_csv(const pb_machine *m, const char *dir, const char *run_id, char *err, size_t errlen)
{
    int lock = lock_run_dir(dir);
    int rc = write_csv_locked(m, dir, run_id, err, errlen);
    if (lock >= 0)
        close(lock); /* closing the descriptor releases the flock */
    return rc;
}

int pb_machine_mark_incomplete(const char *dir, const char *note, char *err, size_t errlen)
{
    char path[4096 + 16], field[1200];
    snprintf(path, sizeof path, "%s/machine.csv", dir);
    /* O_APPEND: several harnesses of one joined run may each add their line; O_NOFOLLOW: machine.csv is ours,
     * a link planted under its name is not followed. */
    int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return pb_errf(err, errlen, "cannot mark %s incomplete: %s", path, strerror(errno));
    FILE *f = fdopen(fd, "a");
    if (!f) {
        close(fd);
        return pb_errf(err, errlen, "cannot mark %s incomplete: %s", path, strerror(errno));
    }
    fprintf(f, "%s,%s\n", PB_MKEY(incomplete), pb_csv_field_str(field, sizeof field, note));
    int bad = fflush(f) != 0 || fsync(fd) != 0;
    int e = errno;
    bad |= fclose(f) != 0;
    if (bad)
        return pb_errf(err, errlen, "cannot mark %s incomplete: %s", path, strerror(e));
    return 0;
}
