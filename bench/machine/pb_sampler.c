/* pb_sampler.c — the /proc/stat sampler thread; see pb_sampler.h. */
#include "pb_sampler.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pb_time.h"

struct pb_sampler {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;        /* signalled by stop; the thread waits on it between readings */
    bool stop;                /* guarded by mu */
    bool paused;              /* guarded by mu: between pause and resume, nothing is counted */

    /* Everything below is touched by the sampler thread while it holds mu, by pause and resume (which take
     * mu), and by the caller otherwise only before pthread_create and after pthread_join. */
    int interval_ms;
    uint64_t t0_ns;
    double last_ms;           /* end of the last interval taken */
    bool all;                 /* keep every cpu, including ones that appear later */
    bool keep[PB_PROCSTAT_MAX_CPUS];
    int *want;                /* the requested ids in the caller's order (nwant 0 with all) */
    int nwant;
    pb_procstat snap[2];      /* the previous and the current reading, alternating */
    int prev;                 /* index of the previous reading in snap */
    char *buf;                /* pb_procstat_read's buffer */
    size_t bufcap;
    pb_sampler_sample *samples;
    size_t nsamples, samplecap;
    pb_sampler_sink sink;        /* called with each sample as it is made (NULL: none); set before the thread starts */
    void *sink_ctx;
    /* The counted time not yet in a sample: readings add to it, and a sample is emitted once it spans at least
     * half an interval, so short windows between pauses still make whole samples. */
    pb_cpu_load pend[PB_PROCSTAT_MAX_CPUS];
    pb_cpu_load pend_all;
    double pend_ms;
    bool seen[PB_PROCSTAT_MAX_CPUS];  /* present in some reading */
    pb_sampler_cpu acc[PB_PROCSTAT_MAX_CPUS];
    pb_sampler_cpu acc_all;      /* the kept cpus together, interval by interval */
    bool failed;              /* a reading or an allocation failed: the series has a gap */
};

void pb_sampler_cpu_add(pb_sampler_cpu *c, const pb_cpu_load *l)
{
    if (c->mean.ticks == 0 || l->busy > c->max_busy)
        c->max_busy = l->busy;
    pb_cpu_load_sum(&c->mean, l);
}

static bool push_sample(pb_sampler *s, const pb_sampler_sample *x)
{
    if (s->nsamples == s->samplecap) {
        size_t ncap = s->samplecap ? s->samplecap * 2 : 1024;
        pb_sampler_sample *n = realloc(s->samples, ncap * sizeof *n);
        if (!n)
            return false;
        s->samples = n;
        s->samplecap = ncap;
    }
    s->samples[s->nsamples++] = *x;
    return true;
}

static void clear_pending(pb_sampler *s)
{
    memset(s->pend, 0, sizeof s->pend);
    memset(&s->pend_all, 0, sizeof s->pend_all);
    s->pend_ms = 0;
}

/* Emits the pending time as one sample per kept cpu (and one "all" interval), then clears it. */
static void emit_pending(pb_sampler *s, double t_ms)
{
    for (int c = 0; c < PB_PROCSTAT_MAX_CPUS; c++) {
        if (s->pend[c].ticks == 0)
            continue;
        pb_cpu_load l = s->pend[c];
        pb_cpu_load_finish(&l);
        pb_sampler_cpu *a = &s->acc[c];
        if (a->nsamples == 0 || l.busy > a->max_busy)
            a->max_busy = l.busy;
        a->nsamples++;
        pb_sampler_sample x = { .t_ms = t_ms, .cpu = c, .busy = (float)l.busy, .user = (float)l.user,
                             .sys = (float)l.sys, .steal = (float)l.steal };
        if (!push_sample(s, &x))
            s->failed = true;
        if (s->sink)
            s->sink(s->sink_ctx, &x);
    }
    if (s->pend_all.ticks > 0) {
        pb_cpu_load l = s->pend_all;
        pb_cpu_load_finish(&l);
        if (s->acc_all.nsamples == 0 || l.busy > s->acc_all.max_busy)
            s->acc_all.max_busy = l.busy;
        s->acc_all.nsamples++;
    }
    clear_pending(s);
}

/* Reads /proc/stat and counts the interval since the previous reading: in the means at once, and in the
 * pending sample, which is emitted when it spans at least half an interval. A final reading's leftover too
 * short for a sample counts in the means only: its few ticks would make a noisy point. */
static void take_reading(pb_sampler *s, bool final)
{
    pb_procstat *prev = &s->snap[s->prev], *cur = &s->snap[1 - s->prev];
    if (pb_procstat_read(NULL, cur, &s->buf, &s->bufcap) < 0) {
        s->failed = true;
        return;
    }
    double t_ms = (double)(pb_now_ns() - s->t0_ns) / 1e6;
    int ncpu = cur->ncpu > prev->ncpu ? cur->ncpu : prev->ncpu;
    for (int c = 0; c < ncpu; c++) {
        pb_cpu_load l;
        s->seen[c] |= cur->present[c] && (s->all || s->keep[c]);
        if (!(s->all || s->keep[c]) || !pb_procstat_load(prev, cur, c, &l))
            continue;
        pb_cpu_load_sum(&s->acc[c].mean, &l);
        pb_cpu_load_sum(&s->acc_all.mean, &l);
        pb_cpu_load_sum(&s->pend[c], &l);
        pb_cpu_load_sum(&s->pend_all, &l);
    }
    s->pend_ms += t_ms - s->last_ms;
    if (s->pend_ms >= s->interval_ms / 2.0)
        emit_pending(s, t_ms);
    else if (final)
        clear_pending(s);
    s->prev = 1 - s->prev;
    s->last_ms = t_ms;
}

/* Reads /proc/stat and counts nothing: the next reading's interval starts now (the end of a pause). */
static void discard_reading(pb_sampler *s)
{
    if (pb_procstat_read(NULL, &s->snap[1 - s->prev], &s->buf, &s->bufcap) < 0) {
        s->failed = true;
        return;
    }
    s->prev = 1 - s->prev;
    s->last_ms = (double)(pb_now_ns() - s->t0_ns) / 1e6;
}

static struct timespec ns_to_timespec(uint64_t ns)
{
    return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
}

static void *sampler_main(void *arg)
{
    pb_sampler *s = arg;
    uint64_t period = (uint64_t)s->interval_ms * 1000000u, deadline = s->t0_ns;
    for (;;) {
        deadline += period;
        uint64_t now = pb_now_ns();
        if (now > deadline + period) /* the thread was held up for a whole interval: skip, don't burst */
            deadline = now;
        struct timespec ts = ns_to_timespec(deadline);
        pthread_mutex_lock(&s->mu);
        while (!s->stop && pthread_cond_timedwait(&s->cv, &s->mu, &ts) != ETIMEDOUT)
            ;
        bool stop = s->stop;
        if (!stop && !s->paused)
            take_reading(s, false);
        pthread_mutex_unlock(&s->mu);
        if (stop)
            return NULL;
    }
}

void pb_sampler_pause(pb_sampler *s)
{
    pthread_mutex_lock(&s->mu);
    if (!s->paused) {
        take_reading(s, false); /* the time up to now counts; a short window waits in pend for the next */
        s->paused = true;
    }
    pthread_mutex_unlock(&s->mu);
}

void pb_sampler_resume(pb_sampler *s)
{
    pthread_mutex_lock(&s->mu);
    if (s->paused) {
        discard_reading(s);
        s->paused = false;
    }
    pthread_mutex_unlock(&s->mu);
}

static void sampler_free(pb_sampler *s)
{
    free(s->buf);
    free(s->samples);
    free(s->want);
    free(s);
}

pb_sampler *pb_sampler_start(int interval_ms, const int *cpus, int ncpu, char *err, size_t errlen)
{
    return pb_sampler_start_sink(interval_ms, cpus, ncpu, NULL, NULL, err, errlen);
}

pb_sampler *pb_sampler_start_sink(int interval_ms, const int *cpus, int ncpu, pb_sampler_sink sink,
                                            void *sink_ctx, char *err, size_t errlen)
{
    if (interval_ms < PB_SAMPLER_INTERVAL_MIN_MS || interval_ms > PB_SAMPLER_INTERVAL_MAX_MS) {
        snprintf(err, errlen, "interval %d ms is outside %d..%d", interval_ms, PB_SAMPLER_INTERVAL_MIN_MS,
                 PB_SAMPLER_INTERVAL_MAX_MS);
        return NULL;
    }
    pb_sampler *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->interval_ms = interval_ms;
    s->sink = sink;
    s->sink_ctx = sink_ctx;
    s->all = !cpus || ncpu <= 0;
    if (!s->all) {
        s->want = malloc((size_t)ncpu * sizeof *s->want);
        if (!s->want) {
            snprintf(err, errlen, "out of memory");
            sampler_free(s);
            return NULL;
        }
        for (int i = 0; i < ncpu; i++) {
            if (cpus[i] < 0 || cpus[i] >= PB_PROCSTAT_MAX_CPUS) {
                snprintf(err, errlen, "cpu %d is outside 0..%d", cpus[i], PB_PROCSTAT_MAX_CPUS - 1);
                sampler_free(s);
                return NULL;
            }
            if (!s->keep[cpus[i]]) /* a cpu named twice is reported once */
                s->want[s->nwant++] = cpus[i];
            s->keep[cpus[i]] = true;
        }
    }
    if (pb_procstat_read(NULL, &s->snap[0], &s->buf, &s->bufcap) < 0) {
        snprintf(err, errlen, "cannot read /proc/stat: %s", strerror(errno ? errno : EINVAL));
        sampler_free(s);
        return NULL;
    }
    for (int c = 0; c < s->snap[0].ncpu; c++)
        s->seen[c] = s->snap[0].present[c] && (s->all || s->keep[c]);
    s->t0_ns = pb_now_ns();

    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the deadlines come from pb_now_ns */
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&s->mu, NULL);

    /* The thread never takes a signal: a harness that waits for signals with sigwaitinfo (bench_cpu_util)
     * or handles them on its main thread must not have them land here. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&s->thread, NULL, sampler_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the sampler thread: %s", strerror(rc));
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
        sampler_free(s);
        return NULL;
    }
    return s;
}

int pb_sampler_stop(pb_sampler *s, pb_sampler_result *out)
{
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    if (!s->paused) /* stopped while paused: the pause already took the last reading that counts */
        take_reading(s, true);

    memset(out, 0, sizeof *out);
    out->interval_ms = s->interval_ms;
    out->wall_ms = s->last_ms;
    int n = s->nwant;
    for (int c = 0; s->all && c < PB_PROCSTAT_MAX_CPUS; c++)
        n += s->seen[c];
    out->cpu = calloc(n > 0 ? (size_t)n : 1, sizeof *out->cpu);
    bool ok = !s->failed && out->cpu;
    for (int i = 0, c = 0; out->cpu && i < n; i++, c++) {
        if (s->all)  /* every cpu ever present, ascending */
            while (!s->seen[c])
                c++;
        int id = s->all ? c : s->want[i];
        out->cpu[i] = s->acc[id];
        out->cpu[i].cpu = id;
        pb_cpu_load_finish(&out->cpu[i].mean);
        if (out->cpu[i].nsamples == 0)
            out->cpu[i].max_busy = NAN;
    }
    out->ncpu = out->cpu ? n : 0;
    out->all = s->acc_all;
    out->all.cpu = -1;
    pb_cpu_load_finish(&out->all.mean);
    if (out->all.nsamples == 0)
        out->all.max_busy = NAN;
    out->samples = s->samples;
    out->nsamples = s->nsamples;
    s->samples = NULL;
    sampler_free(s);
    return ok ? 0 : -1;
}

void pb_sampler_result_free(pb_sampler_result *r)
{
    free(r->samples);
    free(r->cpu);
    memset(r, 0, sizeof *r);
}

double pb_sampler_spread(const pb_sampler_result *r)
{
    double lo = INFINITY, hi = -INFINITY;
    int n = 0;
    for (int i = 0; i < r->ncpu; i++) {
        double b = r->cpu[i].mean.busy;
        if (isnan(b))
            continue;
        lo = b < lo ? b : lo;
        hi = b > hi ? b : hi;
        n++;
    }
    return n < 2 ? 0.0 : hi - lo;
}
