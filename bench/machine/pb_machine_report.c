/* pb_machine_report.c — a probed pb_machine as the context header and as machine.csv (see pb_machine.h). */
#include "pb_machine.h"

#include "pb_csv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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
    if (n < max && m->load[0] > 0.5 * cpus)
        snprintf(lines[n++], sizeof lines[0],
                 "load average %.2f is above 0.5 per cpu (%d cpus): other work is running, timings will be noisy",
                 m->load[0], cpus);
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

void pb_machine_print_header(const pb_machine *m, FILE *f)
{
    char mem[32];
    fmt_bytes(m->memory, mem, sizeof mem);
    fprintf(f, "poolbench on %s (git %s, CSV schema %d)\n", m->host[0] ? m->host : "unknown", m->git[0] ? m->git : "unknown",
            m->schema);
    fprintf(f, "%-12s%s, %s (family %d, model %d, stepping %d%s%s)\n", "cpu", m->brand, m->vendor, m->ext_family,
            m->ext_model, m->stepping, m->codename[0] ? ", " : "", m->codename);
    fprintf(f, "%-12s%d cores, %d PUs, %d NUMA node%s, %s memory\n", "topology", m->cores, m->pus, m->nnuma,
            m->nnuma == 1 ? "" : "s", mem);
    print_kinds(m, f);
    print_caches(m, f);
    fprintf(f, "%-12s%s\n", "isa", m->isa);
    fprintf(f, "%-12s%s\n", "hypervisor", m->hypervisor ? m->hypervisor_name : "none");
    fprintf(f, "%-12s%s, transparent hugepages %s\n", "kernel", m->kernel, m->thp);
    fprintf(f, "%-12s%s\n", "governor", m->governor[0] ? m->governor : "unreadable (no cpufreq here)");
    fprintf(f, "%-12s%s %s\n", "compiler", m->compiler, m->cflags);
    if (m->load[0] >= 0)
        fprintf(f, "%-12s%.2f, %.2f, %.2f (1, 5, 15 min)\n", "load", m->load[0], m->load[1], m->load[2]);
    else
        fprintf(f, "%-12s%s\n", "load", "unavailable");
    char lines[8][192];
    int n = pb_machine_warnings(m, lines, 8);
    for (int i = 0; i < n; i++)
        fprintf(f, "***WARNING*** %s\n", lines[i]);
}

/* One key,value row; pb_csv_row quotes the value when it holds a comma or quote (compiler flags). */
static void kv(pb_csv *c, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void kv(pb_csv *c, const char *key, const char *fmt, ...)
{
    char value[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    pb_csv_row(c, "%s,%s", key, value);
}

static void kv_rows(const pb_machine *m, pb_csv *c, const char *run_id)
{
    if (run_id)
        kv(c, "run_id", "%s", run_id);
    kv(c, "host", "%s", m->host);
    kv(c, "schema_version", "%d", m->schema);
    kv(c, "git", "%s", m->git);
    kv(c, "vendor", "%s", m->vendor);
    kv(c, "brand", "%s", m->brand);
    kv(c, "codename", "%s", m->codename);
    kv(c, "ext_family", "%d", m->ext_family);
    kv(c, "ext_model", "%d", m->ext_model);
    kv(c, "stepping", "%d", m->stepping);
    kv(c, "cores", "%d", m->cores);
    kv(c, "pus", "%d", m->pus);
    kv(c, "kinds", "%d", m->nkinds);
    for (int k = 0; k < m->nkinds; k++) {
        const pb_machine_kind *mk = &m->kind[k];
        char key[64];
#define KIND_KV(field, fmt, val) (snprintf(key, sizeof key, "kind%d_%s", k, field), kv(c, key, fmt, val))
        KIND_KV("purpose", "%s", mk->purpose);
        KIND_KV("core_type", "%s", mk->core_type);
        KIND_KV("cores", "%d", mk->cores);
        KIND_KV("pus", "%d", mk->pus);
        KIND_KV("max_mhz", "%d", mk->max_mhz);
#undef KIND_KV
    }
    for (int i = 0; i < m->ncaches; i++) {
        const pb_topo_cache *cc = &m->cache[i];
        char key[64];
        for (int k = 0; k < m->nkinds; k++) {
            snprintf(key, sizeof key, "l%d_bytes_kind%d", cc->level, k);
            kv(c, key, "%llu", (unsigned long long)cc->bytes[k]);
            snprintf(key, sizeof key, "l%d_shared_by_kind%d", cc->level, k);
            kv(c, key, "%d", cc->shared_by[k]);
        }
        snprintf(key, sizeof key, "l%d_instances", cc->level);
        kv(c, key, "%d", cc->instances);
        snprintf(key, sizeof key, "l%d_total_bytes", cc->level);
        kv(c, key, "%llu", (unsigned long long)cc->total_bytes);
    }
    kv(c, "numa_nodes", "%d", m->nnuma);
    kv(c, "memory_bytes", "%llu", (unsigned long long)m->memory);
    kv(c, "isa", "%s", m->isa);
    kv(c, "hypervisor", "%s", m->hypervisor ? m->hypervisor_name : "none");
    kv(c, "kernel", "%s", m->kernel);
    kv(c, "compiler", "%s", m->compiler);
    kv(c, "cflags", "%s", m->cflags);
    kv(c, "thp", "%s", m->thp);
    kv(c, "governor", "%s", m->governor[0] ? m->governor : "unreadable");
    kv(c, "loadavg_1m", "%.2f", m->load[0]);
    kv(c, "loadavg_5m", "%.2f", m->load[1]);
    kv(c, "loadavg_15m", "%.2f", m->load[2]);
}

int pb_machine_write_csv(const pb_machine *m, const char *dir, const char *run_id, char *err, size_t errlen)
{
    pb_csv *c = pb_csv_open(dir, "machine.csv", "key,value");
    if (!c && errno == EEXIST)
        return 1;
    if (!c) {
        snprintf(err, errlen, "cannot write %s/machine.csv: %s", dir, strerror(errno));
        return -1;
    }
    kv_rows(m, c, run_id);
    if (pb_csv_close(c) != 0) {
        snprintf(err, errlen, "cannot write %s/machine.csv: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
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
    fprintf(f, "incomplete,%s\n", pb_csv_field_str(field, sizeof field, note));
    int bad = fflush(f) != 0 || fsync(fd) != 0;
    int e = errno;
    bad |= fclose(f) != 0;
    if (bad)
        return pb_errf(err, errlen, "cannot mark %s incomplete: %s", path, strerror(e));
    return 0;
}
