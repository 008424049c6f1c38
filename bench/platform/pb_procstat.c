/* pb_procstat.c — /proc/stat parsing and interval arithmetic; see pb_procstat.h. */
#include "pb_procstat.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fewest columns a cpu line must have to be read: user nice system idle (Linux 2.4); later columns
 * that an older kernel does not print read as 0. */
#define MIN_FIELDS 4

/* Reads an unsigned decimal at *p (bounded by end); false on no digit or overflow. */
static bool parse_u64(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    if (s == end || *s < '0' || *s > '9')
        return false;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *p = s;
    *out = v;
    return true;
}

static const char *skip_blanks(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    return s;
}

/* One "cpuN ..." line, [s, end) without its newline. Returns the cpu id, or -1 when the line is not a
 * well-formed per-cpu line (the aggregate "cpu" line included). */
static int parse_cpu_line(const char *s, const char *end, pb_cpu_ticks *ticks)
{
    uint64_t id;
    if (end - s < 4 || memcmp(s, "cpu", 3) != 0)
        return -1;
    s += 3;
    if (!parse_u64(&s, end, &id) || id >= PB_PROCSTAT_MAX_CPUS)
        return -1;
    if (s == end || (*s != ' ' && *s != '\t'))
        return -1;
    memset(ticks, 0, sizeof *ticks);
    int n = 0;
    for (s = skip_blanks(s, end); s < end && n < PB_TICK_NFIELDS; s = skip_blanks(s, end)) {
        if (!parse_u64(&s, end, &ticks->t[n]))
            return -1;
        n++;
    }
    return n >= MIN_FIELDS ? (int)id : -1;
}

int pb_procstat_parse(const char *text, size_t len, pb_procstat *out)
{
    const char *p = text, *end = text + len;
    memset(out->present, 0, sizeof out->present);
    out->ncpu = 0;
    out->npresent = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        pb_cpu_ticks ticks;
        int id = parse_cpu_line(p, eol, &ticks);
        if (id >= 0 && !out->present[id]) { /* a repeated id keeps its first line */
            out->present[id] = true;
            out->cpu[id] = ticks;
            out->npresent++;
            if (id + 1 > out->ncpu)
                out->ncpu = id + 1;
        }
        p = nl ? nl + 1 : end;
    }
    return out->npresent > 0 ? out->npresent : -1;
}

/* No real interval is longer than this many ticks (89,000 years at 100 Hz): a larger step is a corrupt or
 * reset counter, and capping it keeps a sum of all the columns from overflowing. */
#define MAX_DELTA ((uint64_t)1 << 48)

uint64_t pb_tick_delta(uint64_t prev, uint64_t cur)
{
    const uint64_t wrap = (uint64_t)1 << 32;
    if (cur >= prev)
        return cur - prev > MAX_DELTA ? 0 : cur - prev;
    /* A 32-bit counter that wrapped falls from near 2^32 to near 0; anything else going backwards is jitter
     * (iowait, NO_HZ idle) and counts as no time rather than a negative one. */
    if (prev < wrap && prev - cur > wrap / 2)
        return wrap - prev + cur;
    return 0;
}

bool pb_cpu_load_between(const pb_cpu_ticks *prev, const pb_cpu_ticks *cur, pb_cpu_load *out)
{
    uint64_t d[PB_TICK_NFIELDS], total = 0;
    for (int i = 0; i < PB_TICK_NFIELDS; i++) {
        d[i] = pb_tick_delta(prev->t[i], cur->t[i]);
        total += d[i];
    }
    if (total == 0)
        return false;
    /* Every part is a sum of some of the deltas whose sum is total, so each share lies in [0, 100]. */
    *out = (pb_cpu_load){
        .ticks = total,
        .user_ticks = d[PB_TICK_USER] + d[PB_TICK_NICE],
        .sys_ticks = d[PB_TICK_SYSTEM] + d[PB_TICK_IRQ] + d[PB_TICK_SOFTIRQ],
        .steal_ticks = d[PB_TICK_STEAL],
        .idle_ticks = d[PB_TICK_IDLE] + d[PB_TICK_IOWAIT],
    };
    out->busy_ticks = out->user_ticks + out->sys_ticks + out->steal_ticks;
    pb_cpu_load_finish(out);
    return true;
}

void pb_cpu_load_sum(pb_cpu_load *acc, const pb_cpu_load *l)
{
    acc->ticks += l->ticks;
    acc->busy_ticks += l->busy_ticks;
    acc->user_ticks += l->user_ticks;
    acc->sys_ticks += l->sys_ticks;
    acc->steal_ticks += l->steal_ticks;
    acc->idle_ticks += l->idle_ticks;
}

void pb_cpu_load_finish(pb_cpu_load *l)
{
    double pct = l->ticks ? 100.0 / (double)l->ticks : NAN;
    l->busy = (double)l->busy_ticks * pct;
    l->user = (double)l->user_ticks * pct;
    l->sys = (double)l->sys_ticks * pct;
    l->steal = (double)l->steal_ticks * pct;
    l->idle = (double)l->idle_ticks * pct;
}

bool pb_procstat_load(const pb_procstat *prev, const pb_procstat *cur, int cpu, pb_cpu_load *out)
{
    if (cpu < 0 || cpu >= PB_PROCSTAT_MAX_CPUS || !prev->present[cpu] || !cur->present[cpu])
        return false;
    return pb_cpu_load_between(&prev->cpu[cpu], &cur->cpu[cpu], out);
}

int pb_procstat_read(const char *path, pb_procstat *out, char **buf, size_t *cap)
{
    FILE *f = fopen(path ? path : "/proc/stat", "r");
    if (!f)
        return -1;
    size_t len = 0;
    for (;;) {
        if (len == *cap) {
            /* /proc files report size 0, so the buffer grows until a read comes back short. */
            size_t ncap = *cap ? *cap * 2 : 16384;
            char *nb = realloc(*buf, ncap);
            if (!nb) {
                fclose(f);
                errno = ENOMEM;
                return -1;
            }
            *buf = nb;
            *cap = ncap;
        }
        size_t got = fread(*buf + len, 1, *cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int err = ferror(f) ? EIO : 0;
    fclose(f);
    if (err) {
        errno = err;
        return -1;
    }
    return pb_procstat_parse(*buf, len, out);
}
