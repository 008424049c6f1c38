/* pb_decode_floor.c — see pb_decode_floor.h. */
#include "pb_decode_floor.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_csvread.h"
#include "pb_memfloor.h"
#include "pb_memread.h"
#include "pb_schema.h"

/* A pb_memfloor context over the n spans (all but a sub-8 KiB tail: pb_memfloor splits in whole pages, in two
 * halves for its copies), or NULL with the reason in err. */
static pb_memfloor_ctx *pb_decode_floor_ctx(pool *p, const pb_memspan *spans, int n, char *err, size_t errlen)
{
    size_t bytes = n > 0 ? spans[n - 1].at + spans[n - 1].bytes : 0;
    size_t span = bytes / (2 * PB_MF_UNIT) * (2 * PB_MF_UNIT);
    pb_memfloor_ctx *c = malloc(sizeof *c); /* 64 KiB of per-thread slots: not on the stack */
    if (!c || span == 0) {
        free(c);
        snprintf(err, errlen, span ? "out of memory" : "a buffer of %zu bytes is too small to measure", bytes);
        return NULL;
    }
    pb_memfloor_init_spans(c, p, spans, n, span);
    return c;
}

int pb_decode_floor_measure(pool *p, const pb_memspan *spans, int n, int passes, const char *only,
                            pb_decode_floor *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    snprintf(out->source, sizeof out->source, "measured");
    pb_memfloor_ctx *c = pb_decode_floor_ctx(p, spans, n, err, errlen);
    if (!c)
        return -1;
    int rc = -1;
    snprintf(err, errlen, only ? "read kernel %s does not run on this cpu" : "no read kernel runs on this cpu",
             only);
    for (const pb_memkern *k = pb_memkerns; k->name; k++) {
        if (!pb_memkern_reads_here(k) || (only && strcmp(k->name, only) != 0))
            continue;
        if (rc != 0) {
            /* The buffer holds weights, not pb_memfloor_touch's pattern: the first kernel's sum is the reference
             * every pass of every kernel must reproduce. */
            uint64_t ns;
            c->expect_sum = pb_memfloor_pass(c, k, &ns);
        }
        pb_memfloor_point pt;
        if (pb_memfloor_measure(c, k, passes, &pt) != 0) {
            snprintf(err, errlen, "read kernel %s: %s", k->name, strerror(errno));
            rc = -1;
            break;
        }
        if (!pt.valid) {
            snprintf(err, errlen, "read kernel %s summed the buffer wrong", k->name);
            rc = -1;
            break;
        }
        if (rc != 0 || pt.gbps.median > out->gbps_median) {
            out->gbps_best = pt.gbps.max;
            out->gbps_median = pt.gbps.median;
            out->gbps_min = pt.gbps.min;
            snprintf(out->kernel, sizeof out->kernel, "%s", k->name);
        }
        rc = 0;
    }
    free(c);
    return rc;
}

int pb_decode_floor_live_open(pb_decode_floor_live *l, pool *p, const pb_memspan *spans, int n,
                              const char *kernel, int cap, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    l->k = pb_memkern_find(kernel);
    if (!pb_memkern_reads_here(l->k)) {
        snprintf(err, errlen, "read kernel %s does not run on this cpu", kernel);
        return -1;
    }
    l->cap = cap > 0 ? cap : 1;
    l->gbps = malloc((size_t)l->cap * sizeof *l->gbps);
    l->c = l->gbps ? pb_decode_floor_ctx(p, spans, n, err, errlen) : NULL;
    if (!l->c) {
        if (!l->gbps)
            snprintf(err, errlen, "out of memory");
        free(l->gbps);
        return -1;
    }
    uint64_t ns;
    l->c->expect_sum = pb_memfloor_pass(l->c, l->k, &ns); /* untimed: the reference sum every pass must give */
    return 0;
}

void pb_decode_floor_live_pass(pb_decode_floor_live *l, pool *p)
{
    if (l->n >= l->cap || pool_threads(p) != l->c->threads)
        return;
    l->c->pool = p; /* pb_memfloor_pass runs on c->pool; the slice of each thread id is the same on any pool */
    uint64_t ns;
    l->wrong += pb_memfloor_pass(l->c, l->k, &ns) != l->c->expect_sum;
    l->gbps[l->n++] = (double)l->c->bytes / (double)(ns ? ns : 1);
}

int pb_decode_floor_live_close(pb_decode_floor_live *l, pb_decode_floor *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int rc = 0;
    if (l->n == 0 || l->wrong) {
        snprintf(err, errlen, l->n ? "read kernel %s summed the buffer wrong in %d of %d passes"
                                   : "no floor pass was run", l->k->name, l->wrong, l->n);
        rc = -1;
    } else {
        pb_summary g = pb_summarize(l->gbps, (size_t)l->n);
        out->gbps_best = g.max;
        out->gbps_median = g.median;
        out->gbps_min = g.min;
        snprintf(out->kernel, sizeof out->kernel, "%s", l->k->name);
        snprintf(out->source, sizeof out->source, "interleaved");
    }
    free(l->c);
    free(l->gbps);
    memset(l, 0, sizeof *l);
    return rc;
}

int pb_decode_floor_from_csv(const char *dir, const int *cpus, int threads, pb_decode_floor *out, char *err,
                             size_t errlen)
{
    static const char *const need[] = { "op", "kernel", "threads", "cpus", "gbps_best", "gbps_median", "gbps_min",
                                        NULL };
    pb_table t;
    int loaded = pb_table_load_in(&t, dir, "memory_floor.csv", need, err, errlen);
    if (loaded != 0)
        return loaded;
    int c_op = pb_table_col(&t, "op"), c_k = pb_table_col(&t, "kernel"), c_t = pb_table_col(&t, "threads"),
        c_cpus = pb_table_col(&t, "cpus"), c_best = pb_table_col(&t, "gbps_best"),
        c_med = pb_table_col(&t, "gbps_median"), c_min = pb_table_col(&t, "gbps_min");
    int rc = 1;
    memset(out, 0, sizeof *out);
    for (size_t r = 0; r < t.nrows; r++) {
        if (strcmp(pb_table_str(&t, r, c_op), "read") != 0 || pb_table_num(&t, r, c_t) != threads ||
            !pb_cell_cpus_are(pb_table_str(&t, r, c_cpus), cpus, threads))
            continue;
        double med = pb_table_num(&t, r, c_med);
        if (!(med > 0) || (rc == 0 && med <= out->gbps_median))
            continue;
        out->gbps_median = med;
        out->gbps_best = pb_table_num(&t, r, c_best);
        out->gbps_min = pb_table_num(&t, r, c_min);
        snprintf(out->kernel, sizeof out->kernel, "%s", pb_table_str(&t, r, c_k));
        snprintf(out->source, sizeof out->source, "memory_floor.csv");
        rc = 0;
    }
    pb_table_free(&t);
    return rc;
}
