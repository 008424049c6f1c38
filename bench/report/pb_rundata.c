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

static const char *const need_machine[] = { "key", "value", NULL };
static const char *const need_pool[] = { "policy", "threads", "gap_us", "job_ns", "ns_batch_mean", NULL };
static const char *const need_memory[] = { "op", "kernel", "threads", "gbps_best", NULL };
static const char *const need_token[] = { "model", "format", "threads", "tok_per_s_ceiling", NULL };
static const char *const need_kernels[] = { "format", "variant", "threads", "level", "gbps_median", NULL };
static const char *const need_sweep[] = { "format", "policy", "threads", "tok_per_s", NULL };
static const char *const need_cpuutil[] = { "cpu", "busy_pct", NULL };
static const char *const need_overlap[] = { "mode", "ratio", "speedup", NULL };
static const char *const need_likwid[] = { "round", "threads", "tool", "kernel", "gbps", "gbps_median", "placement",
                                           NULL };

/* The numeric columns the digests read, per kind. A column a file lacks is not checked (older CSVs). */
#define COUNT(c) { c, PB_CELL_COUNT }
#define FIGURE(c) { c, PB_CELL_FIGURE }
#define OPTIONAL(c) { c, PB_CELL_OPTIONAL }
#define END_CELLS { NULL, PB_CELL_COUNT }
static const pb_cell_check cells_none[] = { END_CELLS };
static const pb_cell_check cells_pool[] = {
    COUNT("threads"), FIGURE("gap_us"), FIGURE("job_ns"), FIGURE("ns_batch_mean"), OPTIONAL("ns_median"),
    OPTIONAL("ns_p99"), OPTIONAL("rt_ns_before"), OPTIONAL("rt_ns_after"), OPTIONAL("ratio_to_rt"),
    OPTIONAL("ratio_to_omp"), OPTIONAL("spin_us"), END_CELLS,
};
static const pb_cell_check cells_memory[] = {
    COUNT("threads"), FIGURE("gbps_best"), OPTIONAL("gbps_median"), OPTIONAL("gbps_min"), OPTIONAL("rt_ns"),
    OPTIONAL("thp_mib"), OPTIONAL("size_mib"), END_CELLS,
};
static const pb_cell_check cells_token[] = {
    COUNT("threads"), FIGURE("tok_per_s_ceiling"), OPTIONAL("ms_per_token"), OPTIONAL("weight_bytes"),
    END_CELLS,
};
static const pb_cell_check cells_kernels[] = {
    COUNT("threads"), COUNT("batch"), FIGURE("gbps_median"), END_CELLS,
};
static const pb_cell_check cells_sweep[] = {
    COUNT("threads"), COUNT("batch"), FIGURE("tok_per_s"), OPTIONAL("ms_per_token_min"),
    OPTIONAL("ms_per_token_median"), OPTIONAL("ms_per_token_max"), OPTIONAL("weight_bytes"),
    OPTIONAL("gbps_effective"), OPTIONAL("floor_gbps"), OPTIONAL("pct_of_floor"), OPTIONAL("dispatches_per_token"),
    OPTIONAL("busy_pct_min"), OPTIONAL("busy_pct_max"), OPTIONAL("glue_pct"), OPTIONAL("rt_ns"),
    END_CELLS,
};
static const pb_cell_check cells_cpuutil[] = { OPTIONAL("busy_pct"), OPTIONAL("steal_pct"), END_CELLS };
static const pb_cell_check cells_overlap[] = {
    FIGURE("ratio"), FIGURE("speedup"), OPTIONAL("pct_of_ceiling"), OPTIONAL("us_per_step"), END_CELLS,
};
static const pb_cell_check cells_likwid[] = {
    COUNT("round"), COUNT("threads"), OPTIONAL("gbps"), OPTIONAL("gbps_median"), END_CELLS,
};

const pb_kind_info pb_kinds[PB_K_COUNT] = {
    [PB_K_MACHINE] = { .file = "machine.csv", .harness = "every harness", .what = "machine facts",
                       .need = need_machine, .cells = cells_none },
    [PB_K_POOL] = { .file = "pool_overhead.csv", .harness = "bench_pool_overhead", .plot = "pool_overhead.gp",
                    .what = "dispatch cost per policy", .need = need_pool, .cells = cells_pool },
    [PB_K_MEMORY] = { .file = "memory_floor.csv", .harness = "bench_memory_floor", .plot = "memory_floor.gp",
                      .what = "streaming read floor", .need = need_memory, .cells = cells_memory },
    [PB_K_TOKEN] = { .file = "token_floor.csv", .harness = "bench_memory_floor",
                     .what = "per-token floors", .need = need_token, .cells = cells_token },
    [PB_K_KERNELS] = { .file = "kernels.csv", .harness = "bench_kernels", .plot = "kernels.gp",
                       .what = "kernel roofline", .need = need_kernels, .cells = cells_kernels },
    [PB_K_SWEEP] = { .file = "sweep.csv", .harness = "bench_sweep", .plot = "sweep.gp",
                     .what = "decode-token sweep", .need = need_sweep, .cells = cells_sweep },
    [PB_K_CPUUTIL] = { .file = "cpu_util.csv", .harness = "bench_sweep or bench_cpu_util", .plot = "cpu_util.gp",
                       .what = "per-core utilisation", .need = need_cpuutil, .cells = cells_cpuutil },
    [PB_K_OVERLAP] = { .file = "overlap.csv", .harness = "bench_overlap", .plot = "overlap.gp",
                       .what = "overlap of serial work with a pool job", .need = need_overlap,
                       .cells = cells_overlap },
    [PB_K_LIKWID] = { .file = "likwid_compare.csv", .harness = "scripts/likwid_compare.sh",
                      .what = "likwid-bench comparison", .need = need_likwid, .cells = cells_likwid },
};

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

/* One kind: its CSV, else its newest partial file; then the columns and cells the readers need. */
static void load_source(pb_source *s, const char *dir, const pb_kind_info *ki)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, ki->file);
    pb_csverr e;
    int rc = pb_table_load(&s->t, path, &e);
    bool partial = rc != 0 && e.missing && newest_partial(dir, ki->file, s->partial, sizeof s->partial);
    if (partial) {
        snprintf(path, sizeof path, "%s/%s", dir, s->partial);
        s->live = held_by_writer(path);
        rc = pb_table_load_partial(&s->t, path, &s->cut, &e);
    }
    if (rc == 0 && pb_table_require(&s->t, ki->need, &e) != 0) {
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
    pb_source_check_cells(s, ki->cells);
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
    int ck = pb_table_col(t, "key"), cv = pb_table_col(t, "value"), n = 0;
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
