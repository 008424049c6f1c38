/* pb_floor.c — see pb_floor.h. */
#include "pb_floor.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_memread.h"
#include "pb_stats.h"
#include "pb_time.h"

#define PB_LINE 64
#define PB_FLOOR_MAX_CPUS 1024 /* a cpus cell longer than this cannot match a pool (POOL_MAX_THREADS) */

/* One thread's sum on its own cache line: the threads write them at the end of every pass. */
typedef struct pb_floor_slot {
    _Alignas(PB_LINE) uint64_t sum;
} pb_floor_slot;

typedef struct pb_floor_pass {
    const unsigned char *buf;
    size_t lines;            /* bytes / 64: the unit of the split, so every share starts on a line */
    size_t bytes;
    pb_memkern_fn fn;
    pb_floor_slot *slot;
} pb_floor_pass;

static void pb_floor_read(void *ctx, int id, int n)
{
    /* ctx is the caller's pb_floor_pass, alive for the dispatch; each thread writes only its own slot. */
    const pb_floor_pass *p = ctx;
    size_t l0, l1;
    pool_split(p->lines, id, n, &l0, &l1);
    size_t b0 = l0 * PB_LINE, b1 = id == n - 1 ? p->bytes : l1 * PB_LINE;
    p->slot[id].sum = b1 > b0 ? p->fn(NULL, p->buf + b0, b1 - b0) : 0;
}

static uint64_t pb_floor_once(pb_exec *ex, pb_floor_pass *p, double *ns)
{
    uint64_t t0 = pb_now_ns();
    pb_exec_run(ex, pb_floor_read, p);
    *ns = (double)(pb_now_ns() - t0);
    uint64_t sum = 0;
    for (int i = 0; i < ex->threads; i++)
        sum += p->slot[i].sum;
    return sum;
}

int pb_floor_measure(pb_exec *ex, const void *buf, size_t bytes, int passes, pb_floor *out, char *err,
                     size_t errlen)
{
    memset(out, 0, sizeof *out);
    snprintf(out->source, sizeof out->source, "measured");
    pb_floor_slot *slot = aligned_alloc(PB_LINE, (size_t)ex->threads * sizeof *slot);
    double *gbps = malloc((size_t)(passes > 0 ? passes : 1) * sizeof *gbps);
    if (!slot || !gbps) {
        free(slot);
        free(gbps);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pb_floor_pass p = { .buf = buf, .lines = bytes / PB_LINE, .bytes = bytes, .slot = slot };
    uint64_t expect = 0;
    bool have_expect = false;
    int rc = -1;
    snprintf(err, errlen, "no read kernel runs on this cpu");
    for (const pb_memkern *k = pb_memkerns; k->name; k++) {
        if (k->op != PB_MEMOP_READ || !pb_memkern_supported(k))
            continue;
        p.fn = k->fn;
        double ns;
        uint64_t sum = pb_floor_once(ex, &p, &ns); /* untimed: wakes the threads, warms the TLB */
        if (!have_expect) {
            expect = sum;
            have_expect = true;
        }
        bool ok = sum == expect;
        for (int i = 0; i < passes && ok; i++) {
            ok = pb_floor_once(ex, &p, &ns) == expect;
            gbps[i] = (double)bytes / ns;
        }
        if (!ok) {
            snprintf(err, errlen, "read kernel %s summed the buffer wrong", k->name);
            rc = -1;
            break;
        }
        pb_summary s = pb_summarize(gbps, (size_t)passes);
        if (rc != 0 || s.median > out->gbps_median) {
            out->gbps_best = s.max;
            out->gbps_median = s.median;
            out->gbps_min = s.min;
            snprintf(out->kernel, sizeof out->kernel, "%s", k->name);
        }
        rc = 0;
    }
    free(slot);
    free(gbps);
    return rc;
}

int pb_floor_parse_cpus(const char *s, int *out, int max)
{
    int n = 0;
    while (*s) {
        if (!isdigit((unsigned char)*s)) {
            s++;
            continue;
        }
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (*end == '-') {
            if (!isdigit((unsigned char)end[1]))
                return -1;
            b = strtol(end + 1, &end, 10);
            if (b < a)
                return -1;
        }
        for (long c = a; c <= b && n < max; c++)
            out[n++] = (int)c;
        s = end;
    }
    return n;
}

/* Splits one CSV line into fields in place (quoted fields may hold commas; "" is a quote). */
static int pb_csv_split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        char *w = p;
        f[n++] = w;
        bool quoted = *p == '"';
        if (quoted)
            p++;
        while (*p && (quoted || (*p != ',' && *p != '\n' && *p != '\r'))) {
            if (quoted && *p == '"') {
                if (p[1] == '"') {
                    *w++ = '"';
                    p += 2;
                    continue;
                }
                quoted = false;
                p++;
                continue;
            }
            *w++ = *p++;
        }
        bool more = *p == ',';
        *w = '\0';
        if (!more)
            break;
        p++;
    }
    return n;
}

static int pb_col(char **f, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(f[i], name) == 0)
            return i;
    return -1;
}

int pb_floor_from_csv(const char *dir, const int *cpus, int threads, pb_floor *out, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/memory_floor.csv", dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 1;
    enum { NF = 64 };
    char line[8192], *f[NF];
    int rc = -1;
    if (!fgets(line, sizeof line, fp)) {
        snprintf(err, errlen, "%s: empty", path);
        fclose(fp);
        return -1;
    }
    int nf = pb_csv_split(line, f, NF);
    int c_op = pb_col(f, nf, "op"), c_k = pb_col(f, nf, "kernel"), c_t = pb_col(f, nf, "threads"),
        c_cpus = pb_col(f, nf, "cpus"), c_med = pb_col(f, nf, "gbps_median"), c_best = pb_col(f, nf, "gbps_best"),
        c_min = pb_col(f, nf, "gbps_min");
    if (c_op < 0 || c_k < 0 || c_t < 0 || c_cpus < 0 || c_med < 0 || c_best < 0 || c_min < 0) {
        snprintf(err, errlen, "%s: no op/kernel/threads/cpus/gbps_{best,median,min} columns", path);
        fclose(fp);
        return -1;
    }
    rc = 1;
    memset(out, 0, sizeof *out);
    while (fgets(line, sizeof line, fp)) {
        int n = pb_csv_split(line, f, NF);
        if (n <= c_op || n <= c_k || n <= c_t || n <= c_cpus || n <= c_med || n <= c_best || n <= c_min)
            continue;
        if (strcmp(f[c_op], "read") != 0 || atoi(f[c_t]) != threads)
            continue;
        int got[PB_FLOOR_MAX_CPUS];
        int ng = pb_floor_parse_cpus(f[c_cpus], got, (int)(sizeof got / sizeof *got));
        if (ng != threads || memcmp(got, cpus, (size_t)threads * sizeof *cpus) != 0)
            continue;
        double med = strtod(f[c_med], NULL);
        if (rc == 1 || med > out->gbps_median) {
            out->gbps_median = med;
            out->gbps_best = strtod(f[c_best], NULL);
            out->gbps_min = strtod(f[c_min], NULL);
            snprintf(out->kernel, sizeof out->kernel, "%s", f[c_k]);
            snprintf(out->source, sizeof out->source, "memory_floor.csv");
            rc = 0;
        }
    }
    fclose(fp);
    return rc;
}
