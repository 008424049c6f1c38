/* A run directory read back: the kinds, where each one's rows come from, and the machine facts. */
#include "pb_rundata.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_csv.h"

/* The columns the readers use, per kind; a file that lacks one is not read (every other column is optional to
 * them, so older CSVs still load). */
#define END PB_NEED_END
static const int need_machine[] = { PB_MACHINE_key, PB_MACHINE_value, END };
static const int need_pool[] = { PB_POOL_policy, PB_POOL_threads, PB_POOL_gap_us, PB_POOL_job_ns,
                                 PB_POOL_ns_batch_mean, END };
static const int need_memory[] = { PB_MEMORY_op, PB_MEMORY_kernel, PB_MEMORY_threads, PB_MEMORY_gbps_best, END };
static const int need_token[] = { PB_TOKEN_model, PB_TOKEN_format, PB_TOKEN_threads, PB_TOKEN_tok_per_s_ceiling,
                                  END };
static const int need_kernels[] = { PB_KERNELS_format, PB_KERNELS_variant, PB_KERNELS_threads, PB_KERNELS_level,
                                    PB_KERNELS_gbps_median, END };
static const int need_sweep[] = { PB_SWEEP_format, PB_SWEEP_policy, PB_SWEEP_threads, PB_SWEEP_tok_per_s, END };
static const int need_cpuutil[] = { PB_CPUUTIL_cpu, PB_CPUUTIL_busy_pct, END };
static const int need_overlap[] = { PB_OVERLAP_mode, PB_OVERLAP_ratio, PB_OVERLAP_speedup, END };
static const int need_likwid[] = { PB_LIKWID_round, PB_LIKWID_threads, PB_LIKWID_tool, PB_LIKWID_kernel,
                                   PB_LIKWID_gbps, PB_LIKWID_gbps_median, PB_LIKWID_placement, END };
static const int need_latency[] = { PB_LATENCY_phase, PB_LATENCY_size_kib, PB_LATENCY_duty_pct,
                                    PB_LATENCY_ns_median, END };
static const int need_roof[] = { PB_ROOF_isa, PB_ROOF_op, PB_ROOF_threads, PB_ROOF_gmacs_max, END };
static const int need_pairs[] = { PB_PAIRS_format, PB_PAIRS_policy, PB_PAIRS_threads, PB_PAIRS_round,
                                  PB_PAIRS_ms_per_token, END };
#undef END

#define KIND(K) .schema = &pb_schema_tables[PB_K_##K]
const pb_kind_info pb_kinds[PB_K_COUNT] = {
    [PB_K_MACHINE] = { KIND(MACHINE), .harness = "every harness", .what = "machine facts", .need = need_machine },
    [PB_K_POOL] = { KIND(POOL), .harness = "bench_pool_overhead", .plot = "pool_overhead.gp",
                    .what = "dispatch cost per policy", .need = need_pool },
    [PB_K_MEMORY] = { KIND(MEMORY), .harness = "bench_memory_floor", .plot = "memory_floor.gp",
                      .what = "streaming read floor", .need = need_memory },
    [PB_K_TOKEN] = { KIND(TOKEN), .harness = "bench_memory_floor", .what = "per-token floors", .need = need_token },
    [PB_K_KERNELS] = { KIND(KERNELS), .harness = "bench_kernels", .plot = "kernels.gp", .what = "kernel roofline",
                       .need = need_kernels },
    [PB_K_SWEEP] = { KIND(SWEEP), .harness = "bench_sweep", .plot = "sweep.gp", .what = "decode-token sweep",
                     .need = need_sweep },
    [PB_K_CPUUTIL] = { KIND(CPUUTIL), .harness = "bench_sweep or bench_cpu_util", .plot = "cpu_util.gp",
                       .what = "per-core utilisation", .need = need_cpuutil },
    [PB_K_OVERLAP] = { KIND(OVERLAP), .harness = "bench_overlap", .plot = "overlap.gp",
                       .what = "overlap of serial work with a pool job", .need = need_overlap },
    [PB_K_LIKWID] = { KIND(LIKWID), .harness = "scripts/likwid_compare.sh", .what = "likwid-bench comparison",
                      .need = need_likwid },
    [PB_K_LATENCY] = { KIND(LATENCY), .harness = "bench_memory_floor --latency", .plot = "latency.gp",
                       .what = "memory latency, idle and under load", .need = need_latency },
    [PB_K_ROOF] = { KIND(ROOF), .harness = "bench_kernels", .what = "compute roof", .need = need_roof },
    [PB_K_PAIRS] = { KIND(PAIRS), .harness = "bench_sweep", .what = "alternatives measured interleaved",
                     .need = need_pairs },
};
#undef KIND

/* -1, 0 or 1 as a is earlier than, as late as, or later than b. */
static int time_cmp(struct timespec a, struct timespec b)
{
    if (a.tv_sec != b.tv_sec)
        return a.tv_sec < b.tv_sec ? -1 : 1;
    return (a.tv_nsec > b.tv_nsec) - (a.tv_nsec < b.tv_nsec);
}

/* The newest DIR/FILE.partial-* (by modification time, then by name) into name. false when there is none. */
static bool newest_partial(const char *dir, const char *file, char *name, size_t len)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    char prefix[300];
    size_t plen = (size_t)snprintf(prefix, sizeof prefix, "%s%s", file, PB_CSV_PARTIAL);
    struct timespec best = { 0, 0 };
    bool found = false;
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        if (strncmp(e->d_name, prefix, plen) != 0 || fstatat(dirfd(d), e->d_name, &st, 0) != 0)
            continue;
        int newer = time_cmp(st.st_mtim, best);
        if (!found || newer > 0 || (newer == 0 && strcmp(e->d_name, name) > 0)) {
            snprintf(name, len, "%s", e->d_name);
            best = st.st_mtim;
            found = true;
        }
    }
    closedir(d);
    return found;
}

/* Whether a writer holds path's lock: pb_csv keeps its partial file flock()ed while the harness runs. */
static bool held_by_writer(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}

/* pb_table_require on the names of ki's need list. */
static int require(const pb_table *t, const pb_kind_info *ki, pb_csverr *e)
{
    const char *names[PB_SWEEP_NCOLS + 1]; /* a need list is at most a kind's columns */
    int n = 0;
    for (const int *c = ki->need; *c != PB_NEED_END && n < PB_SWEEP_NCOLS; c++)
        names[n++] = ki->schema->cols[*c].name;
    names[n] = NULL;
    return pb_table_require(t, names, e);
}

/* One kind: its CSV, else its newest partial file; then the columns and cells the readers need. */
static void load_source(pb_source *s, const char *dir, const pb_kind_info *ki)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, ki->schema->file);
    pb_csverr e;
    int rc = pb_table_load(&s->t, path, &e);
    bool partial = rc != 0 && e.missing && newest_partial(dir, ki->schema->file, s->partial, sizeof s->partial);
    if (partial) {
        snprintf(path, sizeof path, "%s/%s", dir, s->partial);
        s->live = held_by_writer(path);
        rc = pb_table_load_partial(&s->t, path, &s->cut, &e);
    }
    if (rc == 0 && require(&s->t, ki, &e) != 0) {
        pb_table_free(&s->t);
        rc = -1;
    }
    if (rc != 0) {
        s->state = e.missing ? PB_SRC_MISSING : PB_SRC_BAD;
        s->unreadable = e.unreadable;
        snprintf(s->err, sizeof s->err, "%s", e.msg);
        return;
    }
    s->state = partial ? PB_SRC_PARTIAL : PB_SRC_OK;
    pb_source_check_cells(s, ki->schema);
}

int pb_rundata_load(pb_rundata *rd, const char *dir, char *err, size_t errlen)
{
    memset(rd, 0, sizeof *rd);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a run directory", dir);
        return -1;
    }
    snprintf(rd->dir, sizeof rd->dir, "%s", dir);
    int found = 0;
    for (int k = 0; k < PB_K_COUNT; k++) {
        load_source(&rd->src[k], dir, &pb_kinds[k]);
        found += rd->src[k].state != PB_SRC_MISSING;
    }
    if (!found) {
        snprintf(err, errlen, "%s: not a run directory: no machine.csv and none of the CSVs a harness writes "
                 "(pool_overhead.csv, memory_floor.csv, kernels.csv, sweep.csv, ...)", dir);
        return -1;
    }
    return 0;
}

void pb_rundata_free(pb_rundata *rd)
{
    for (int k = 0; k < PB_K_COUNT; k++)
        if (pb_rundata_table(rd, (pb_kind)k))
            pb_table_free(&rd->src[k].t);
    for (int i = 0; i < rd->eng.n; i++)
        pb_llamabench_free(&rd->eng.lb[i]);
    memset(rd, 0, sizeof *rd);
}

const pb_table *pb_rundata_table(const pb_rundata *rd, pb_kind k)
{
    pb_src_state s = rd->src[k].state;
    return s == PB_SRC_OK || s == PB_SRC_PARTIAL ? &rd->src[k].t : NULL;
}

int pb_machine_values(const pb_rundata *rd, const char *key, const char **out, int max)
{
    const pb_table *t = pb_rundata_table(rd, PB_K_MACHINE);
    if (!t)
        return 0;
    int ck = pb_table_col(t, PB_COL(MACHINE, key)), cv = pb_table_col(t, PB_COL(MACHINE, value)), n = 0;
    for (size_t r = 0; r < t->nrows && n < max; r++)
        if (strcmp(pb_table_str(t, r, ck), key) == 0)
            out[n++] = pb_table_str(t, r, cv);
    return n;
}

const char *pb_machine_value(const pb_rundata *rd, const char *key)
{
    const char *v;
    return pb_machine_values(rd, key, &v, 1) ? v : NULL;
}

int pb_rundata_bad(const pb_rundata *rd)
{
    int n = 0;
    for (int k = 0; k < PB_K_COUNT; k++)
        n += rd->src[k].state == PB_SRC_BAD || rd->src[k].nbad > 0;
    return n;
}

int pb_rundata_incomplete(const pb_rundata *rd)
{
    const char *v[PB_INCOMPLETE_MAX];
    int n = pb_machine_values(rd, PB_INCOMPLETE_KEY, v, PB_INCOMPLETE_MAX);
    for (int k = 0; k < PB_K_COUNT; k++)
        n += rd->src[k].state == PB_SRC_PARTIAL;
    return n;
}

void pb_rundata_print_problems(FILE *f, const pb_rundata *rd, const char *prog, const char *tail)
{
    for (int k = 0; k < PB_K_COUNT; k++) {
        const pb_source *s = &rd->src[k];
        if (s->state == PB_SRC_BAD)
            fprintf(f, "%s: %s (%s)\n", prog, s->err, tail);
        for (int i = 0; i < s->nbad && i < PB_SRC_CELLS_KEPT; i++)
            fprintf(f, "%s: %s\n", prog, s->bad[i]);
        if (s->nbad > PB_SRC_CELLS_KEPT)
            fprintf(f, "%s: %s: %d more malformed cells, their rows left out too\n", prog, s->t.name,
                    s->nbad - PB_SRC_CELLS_KEPT);
    }
}
