/* pb_counters.c — perf_event counters of the calling thread; see pb_counters.h. */
#include "pb_counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pb_err.h"

/* One name of the list [s, s + len) into pc's next counter, opened on this thread; -1 for bad input. */
static int counters_add(pb_counters *pc, const char *s, size_t len, char *err, size_t errlen)
{
    if (len == 0)
        return pb_errf(err, errlen, "--counters: an empty event name (accepted: a comma-separated list of events)");
    if (pc->n == PB_COUNTERS_MAX)
        return pb_errf(err, errlen, "--counters: more than %d events", PB_COUNTERS_MAX);
    if (len >= PB_COUNTERS_NAME_LEN)
        return pb_errf(err, errlen, "--counters: an event name longer than %d characters", PB_COUNTERS_NAME_LEN - 1);
    if (memchr(s, '=', len) || memchr(s, ' ', len))
        return pb_errf(err, errlen, "--counters: '%.*s': a name with '=' or a space cannot stand in the counters "
                       "cell (NAME=COUNT ...); accepted: event names without ATTR=VALUE modifiers", (int)len, s);
    for (int i = 0; i < pc->n; i++)
        if (strlen(pc->c[i].name) == len && strncmp(pc->c[i].name, s, len) == 0)
            return pb_errf(err, errlen, "--counters: '%.*s' is given twice (accepted: each event once)", (int)len, s);
    pb_counter *c = &pc->c[pc->n];
    memcpy(c->name, s, len);
    c->name[len] = '\0';
    c->fd = -1;
    c->why[0] = '\0';
    c->count = NAN;
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    char why[160];
    if (pb_counters_encode(c->name, &attr, why, sizeof why) != 0)
        return pb_errf(err, errlen, "--counters: %s (accepted: event names libpfm4 knows, e.g. cycles, "
                       "instructions, cache-misses, task-clock, context-switches, page-faults)", why);
    attr.size = sizeof attr;
    attr.disabled = 1;
    attr.exclude_kernel = 1; /* user space: what perf_event_paranoid 2 allows without privileges */
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd < 0)
        snprintf(c->why, sizeof c->why, "%s", errno == ENOENT || errno == EOPNOTSUPP ? "no such counter here"
                                                                                      : strerror(errno));
    c->fd = (int)fd;
    pc->n++;
    return 0;
}

int pb_counters_open(pb_counters *pc, const char *list, char *err, size_t errlen)
{
    memset(pc, 0, sizeof *pc);
    for (const char *s = list;; s++) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (counters_add(pc, s, len, err, errlen) != 0) {
            pb_counters_close(pc);
            return -1;
        }
        if (!e)
            return 0;
        s = e;
    }
}

void pb_counters_start(pb_counters *pc)
{
    for (int i = 0; i < pc->n; i++)
        if (pc->c[i].fd >= 0) {
            ioctl(pc->c[i].fd, PERF_EVENT_IOC_RESET, 0);
            ioctl(pc->c[i].fd, PERF_EVENT_IOC_ENABLE, 0);
        }
}

void pb_counters_stop(pb_counters *pc)
{
    for (int i = 0; i < pc->n; i++) {
        pb_counter *c = &pc->c[i];
        c->count = NAN;
        if (c->fd < 0)
            continue;
        ioctl(c->fd, PERF_EVENT_IOC_DISABLE, 0);
        uint64_t v[3]; /* value, time enabled, time running (read_format) */
        if (read(c->fd, v, sizeof v) != (ssize_t)sizeof v || v[2] == 0)
            continue;
        c->count = (double)v[0] * ((double)v[1] / (double)v[2]);
    }
}

double pb_counters_get(const pb_counters *pc, const char *name)
{
    for (int i = 0; i < pc->n; i++)
        if (strcmp(pc->c[i].name, name) == 0)
            return pc->c[i].count;
    return NAN;
}

void pb_counters_text(const pb_counters *pc, char *out, size_t len)
{
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < pc->n && o < len; i++) {
        const pb_counter *c = &pc->c[i];
        if (c->fd < 0)
            o += (size_t)snprintf(out + o, len - o, "%s%s=unsupported(%s)", i ? " " : "", c->name, c->why);
        else if (isnan(c->count))
            o += (size_t)snprintf(out + o, len - o, "%s%s=unread", i ? " " : "", c->name);
        else
            o += (size_t)snprintf(out + o, len - o, "%s%s=%.0f", i ? " " : "", c->name, c->count);
    }
}

double pb_counters_finish(pb_counters *pc, char *out, size_t len)
{
    out[0] = '\0';
    if (!pc)
        return NAN;
    pb_counters_stop(pc);
    pb_counters_text(pc, out, len);
    double cyc = pb_counters_get(pc, "cycles"), ins = pb_counters_get(pc, "instructions");
    return cyc > 0 && !isnan(ins) ? ins / cyc : NAN;
}

void pb_counters_close(pb_counters *pc)
{
    for (int i = 0; i < pc->n; i++)
        if (pc->c[i].fd >= 0)
            close(pc->c[i].fd);
    pc->n = 0;
}
