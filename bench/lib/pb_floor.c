/* pb_floor.c — see pb_floor.h. */
#include "pb_floor.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_memfloor.h"
#include "pb_memread.h"

#define PB_FLOOR_MAX_CPUS 1024 /* a cpus cell longer than this cannot match a pool (POOL_MAX_THREADS) */

int pb_floor_measure(pool *p, const void *buf, size_t bytes, int passes, const char *only, pb_floor *out, char *err,
                     size_t errlen)
{
    memset(out, 0, sizeof *out);
    snprintf(out->source, sizeof out->source, "measured");
    /* pb_memfloor splits in whole pages, in two halves (for its copies): read all but a sub-8 KiB tail. */
    size_t span = bytes / (2 * PB_MF_UNIT) * (2 * PB_MF_UNIT);
    pb_mf_ctx *c = malloc(sizeof *c); /* 64 KiB of per-thread slots: not on the stack */
    if (!c || span == 0) {
        free(c);
        snprintf(err, errlen, span ? "out of memory" : "a buffer of %zu bytes is too small to measure", bytes);
        return -1;
    }
    /* pb_mf_* only read the buffer in read passes (the cast drops const for its context's field type). */
    pb_mf_init(c, p, (uint8_t *)(uintptr_t)buf, span);
    int rc = -1;
    snprintf(err, errlen, only ? "read kernel %s does not run on this cpu" : "no read kernel runs on this cpu",
             only);
    for (const pb_memkern *k = pb_memkerns; k->name; k++) {
        if (k->op != PB_MEMOP_READ || !pb_memkern_supported(k) || (only && strcmp(k->name, only) != 0))
            continue;
        if (rc != 0) {
            /* The buffer holds weights, not pb_mf_touch's pattern: the first kernel's sum is the reference
             * every pass of every kernel must reproduce. */
            uint64_t ns;
            c->expect_sum = pb_mf_pass(c, k, &ns);
        }
        pb_mf_point pt;
        pb_mf_measure(c, k, passes, &pt);
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
