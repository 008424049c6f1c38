#include "pb_rundata.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

const pb_kind_info pb_kinds[PB_K_COUNT] = {
    [PB_K_MACHINE] = { .file = "machine.csv", .harness = "every harness", .what = "machine facts",
                       .need = need_machine },
    [PB_K_POOL] = { .file = "pool_overhead.csv", .harness = "bench_pool_overhead", .plot = "pool_overhead.gp",
                    .what = "dispatch cost per policy", .need = need_pool },
    [PB_K_MEMORY] = { .file = "memory_floor.csv", .harness = "bench_memory_floor", .plot = "memory_floor.gp",
                      .what = "streaming read floor", .need = need_memory },
    [PB_K_TOKEN] = { .file = "token_floor.csv", .harness = "bench_memory_floor",
                     .what = "per-token floors", .need = need_token },
    [PB_K_KERNELS] = { .file = "kernels.csv", .harness = "bench_kernels", .plot = "kernels.gp",
                       .what = "kernel roofline", .need = need_kernels },
    [PB_K_SWEEP] = { .file = "sweep.csv", .harness = "bench_sweep", .plot = "sweep.gp",
                     .what = "decode-token sweep", .need = need_sweep },
    [PB_K_CPUUTIL] = { .file = "cpu_util.csv", .harness = "bench_sweep or bench_cpu_util", .plot = "cpu_util.gp",
                       .what = "per-core utilisation", .need = need_cpuutil },
    [PB_K_OVERLAP] = { .file = "overlap.csv", .harness = "bench_overlap", .plot = "overlap.gp",
                       .what = "overlap of serial work with a pool job", .need = need_overlap },
    [PB_K_LIKWID] = { .file = "likwid_compare.csv", .harness = "scripts/likwid_compare.sh",
                      .what = "likwid-bench comparison", .need = need_likwid },
};

int pb_rundata_load(pb_rundata *rd, const char *dir, char *err, size_t errlen)
{
    memset(rd, 0, sizeof *rd);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a run directory", dir);
        return -1;
    }
    snprintf(rd->dir, sizeof rd->dir, "%s", dir);
    for (int k = 0; k < PB_K_COUNT; k++) {
        pb_source *s = &rd->src[k];
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, pb_kinds[k].file);
        pb_csverr e;
        if (pb_table_load(&s->t, path, &e) != 0) {
            s->state = e.missing ? PB_SRC_MISSING : PB_SRC_BAD;
            snprintf(s->err, sizeof s->err, "%s", e.msg);
            continue;
        }
        if (pb_table_require(&s->t, pb_kinds[k].need, &e) != 0) {
            s->state = PB_SRC_BAD;
            snprintf(s->err, sizeof s->err, "%s", e.msg);
            pb_table_free(&s->t);
            continue;
        }
        s->state = PB_SRC_OK;
    }
    return 0;
}

void pb_rundata_free(pb_rundata *rd)
{
    for (int k = 0; k < PB_K_COUNT; k++)
        if (rd->src[k].state == PB_SRC_OK)
            pb_table_free(&rd->src[k].t);
    memset(rd, 0, sizeof *rd);
}

const pb_table *pb_rundata_table(const pb_rundata *rd, pb_kind k)
{
    return rd->src[k].state == PB_SRC_OK ? &rd->src[k].t : NULL;
}

const char *pb_machine_value(const pb_rundata *rd, const char *key)
{
    const pb_table *t = pb_rundata_table(rd, PB_K_MACHINE);
    if (!t)
        return NULL;
    int ck = pb_table_col(t, "key"), cv = pb_table_col(t, "value");
    for (size_t r = 0; r < t->nrows; r++)
        if (strcmp(pb_table_str(t, r, ck), key) == 0)
            return pb_table_str(t, r, cv);
    return NULL;
}

int pb_rundata_bad(const pb_rundata *rd)
{
    int n = 0;
    for (int k = 0; k < PB_K_COUNT; k++)
        n += rd->src[k].state == PB_SRC_BAD;
    return n;
}
