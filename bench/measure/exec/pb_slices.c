/* pb_slices.c — see pb_slices.h. */
#include "pb_slices.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_err.h"
#include "pb_time.h"

#define PB_EMULATE_MIN 0.01 /* a core 100x slower: below that a point would take hours */

/* One "CPU=FACTOR" word into e (appended). 0, or -1 with the reason in err. */
static int emulate_word(const char *w, const pb_topo *t, pb_emulate *e, char *err, size_t errlen)
{
    char *end = NULL;
    errno = 0;
    long cpu = strtol(w, &end, 10);
    if (end == w || *end != '=' || errno || cpu < 0 || cpu >= PB_MAX_CPUS)
        return pb_errf(err, errlen, "'%s' is not CPU=FACTOR (an OS cpu id, '=', a factor from %g to 1)", w,
                       PB_EMULATE_MIN);
    const char *f = end + 1;
    errno = 0;
    double factor = strtod(f, &end);
    if (end == f || *end || errno || !(factor >= PB_EMULATE_MIN && factor <= 1))
        return pb_errf(err, errlen, "'%s': the factor must be a number from %g to 1 (the share of its speed the cpu "
                       "keeps)", w, PB_EMULATE_MIN);
    char why[256];
    if (t && pb_topo_check_cpu(t, (int)cpu, why, sizeof why) != 0)
        return pb_errf(err, errlen, "'%s': %s", w, why);
    for (int i = 0; i < e->n; i++)
        if (e->cpu[i] == cpu)
            return pb_errf(err, errlen, "cpu %ld is given twice", cpu);
    if (e->n == PB_EMULATE_MAX)
        return pb_errf(err, errlen, "at most %d cpus", PB_EMULATE_MAX);
    e->cpu[e->n] = (int)cpu;
    e->factor[e->n++] = factor;
    return 0;
}

int pb_emulate_parse(const char *spec, const pb_topo *t, pb_emulate *e, char *err, size_t errlen)
{
    e->n = 0;
    if (!spec || !*spec)
        return 0;
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf)
        return pb_errf(err, errlen, "longer than %zu characters", sizeof buf - 1);
    /* Every element between commas, the empty ones too (strtok would skip a trailing comma without a word). */
    for (char *w = buf, *comma; w; w = comma ? comma + 1 : NULL) {
        comma = strchr(w, ',');
        if (comma)
            *comma = '\0';
        if (!*w)
            return pb_errf(err, errlen, "an empty element (accepted: CPU=FACTOR,... with no comma left over)");
        if (emulate_word(w, t, e, err, errlen) != 0)
            return -1;
    }
    return e->n ? 0 : pb_errf(err, errlen, "give CPU=FACTOR, e.g. 1=0.5");
}

double pb_emulate_factor(const pb_emulate *e, int cpu)
{
    for (int i = 0; e && i < e->n; i++)
        if (e->cpu[i] == cpu)
            return e->factor[i];
    return 1.0;
}

void pb_emulate_text(const pb_emulate *e, const int *cpus, int n, char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < n && at < len; i++) {
        double f = pb_emulate_factor(e, cpus[i]);
        if (f < 1)
            at += (size_t)snprintf(buf + at, len - at, "%s%d=%g", at ? " " : "", cpus[i], f);
    }
}

/* ---------------------------------------------------------------- accounts */

int pb_slices_init(pb_slices *s, int n, const int *cpus, const pb_emulate *e)
{
    s->n = n;
    s->tag = 0;
    s->t = aligned_alloc(PB_SLICES_LINE, (size_t)n * sizeof *s->t);
    if (!s->t) {
        errno = ENOMEM;
        return -1;
    }
    memset(s->t, 0, (size_t)n * sizeof *s->t);
    for (int i = 0; i < n; i++)
        s->t[i].factor = cpus ? pb_emulate_factor(e, cpus[i]) : 1.0;
    return 0;
}

void pb_slices_free(pb_slices *s)
{
    free(s->t);
    s->t = NULL;
    s->n = 0;
}

void pb_slices_reset(pb_slices *s)
{
    for (int i = 0; i < s->n; i++)
        s->t[i] = (pb_thread_stat){ .factor = s->t[i].factor };
}

void pb_slices_tag(pb_slices *s, bool on) { s->tag = on; }

bool pb_slices_emulated(const pb_slices *s)
{
    for (int i = 0; i < s->n; i++)
        if (s->t[i].factor < 1)
            return true;
    return false;
}

uint64_t pb_slice_begin(void *slices, int id)
{
    (void)slices;
    (void)id;
    return pb_now_ns();
}

void pb_slice_end(void *slices, int id, uint64_t t0, size_t rows)
{
    /* slices is the executor's pb_slices, alive as long as its pool; id's account is written by this thread only
     * (see pb_slices.h for how the caller's reads are ordered after it). */
    const pb_slices *s = slices;
    pb_thread_stat *a = &s->t[id];
    uint64_t t1 = pb_now_ns(), end = t1;
    if (a->factor < 1) {
        /* The slice took t1 - t0 at full speed; at factor f it would have taken (t1 - t0) / f. */
        uint64_t until = t0 + (uint64_t)((double)(t1 - t0) / a->factor);
        while ((end = pb_now_ns()) < until)
            ;
    }
    a->busy_ns += end - t0;
    if (s->tag)
        a->tagged_ns += end - t0;
    a->work_ns += t1 - t0;
    a->rows += rows;
    a->slices++;
}

pool_slice_hook pb_slices_hook(pb_slices *s)
{
    return (pool_slice_hook){ .begin = pb_slice_begin, .end = pb_slice_end, .ctx = s };
}
