/* The sampler thread on the live /proc/stat: it starts, samples at its interval, stops promptly, and keeps
 * the cpus it was asked for. No figure is asserted beyond its range: the machine is shared. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pb_time.h"
#include "emulation.h"
#include "pb_sampler.h"
#include "pb_tuning.h"

static void sleep_ms(long ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void expect_in_range(double v, const char *what)
{
    cr_expect(v >= 0.0 && v <= 100.0, "%s = %f", what, v);
}

Test(util_sampler, every_cpu)
{
    char err[256];
    pb_sampler *s = pb_sampler_start(20, NULL, 0, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    sleep_ms(150);
    uint64_t t = pb_now_ns();
    pb_sampler_result r;
    cr_assert_eq(pb_sampler_stop(s, &r), 0);
    cr_expect_lt(pb_now_ns() - t, 50 * 1000000ull, "stop waits for no interval");
    cr_expect_eq(r.ncpu, (int)sysconf(_SC_NPROCESSORS_ONLN));
    cr_expect_geq(r.wall_ms, 150.0);
    /* 150 ms at 20 ms: about 7 readings per cpu (fewer if the machine held the thread up) */
    cr_expect_geq(r.nsamples, (size_t)(2 * r.ncpu));
    cr_expect_leq(r.nsamples, (size_t)(9 * r.ncpu));
    for (size_t i = 0; i < r.nsamples; i++) {
        const pb_sampler_sample *x = &r.samples[i];
        expect_in_range(x->busy, "busy");
        cr_expect_float_eq(x->busy, x->user + x->sys + x->steal, 1e-3);
        if (i > 0)
            cr_expect(x->t_ms > r.samples[i - 1].t_ms ||
                      (x->t_ms == r.samples[i - 1].t_ms && x->cpu > r.samples[i - 1].cpu));
    }
    for (int i = 0; i < r.ncpu; i++) {
        cr_expect_gt(r.cpu[i].nsamples, 0);
        expect_in_range(r.cpu[i].mean.busy, "mean busy");
        cr_expect_leq(r.cpu[i].mean.busy, r.cpu[i].max_busy + 1e-9);
        if (i > 0)
            cr_expect_gt(r.cpu[i].cpu, r.cpu[i - 1].cpu);
    }
    cr_expect_eq(r.all.cpu, -1);
    expect_in_range(r.all.mean.busy, "all busy");
    pb_sampler_result_free(&r);
}

Test(util_sampler, chosen_cpus_in_order)
{
    char err[256];
    const int cpus[] = { 0, 1000, 0 }; /* 1000: not on this machine, so never sampled; 0 twice: once */
    pb_sampler *s = pb_sampler_start(10, cpus, 3, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    sleep_ms(60);
    pb_sampler_result r;
    cr_assert_eq(pb_sampler_stop(s, &r), 0);
    cr_assert_eq(r.ncpu, 2);
    cr_expect_eq(r.cpu[0].cpu, 0);
    cr_expect_eq(r.cpu[1].cpu, 1000);
    cr_expect_gt(r.cpu[0].nsamples, 0);
    cr_expect_eq(r.cpu[1].nsamples, 0);
    cr_expect(isnan(r.cpu[1].mean.busy) && isnan(r.cpu[1].max_busy));
    for (size_t i = 0; i < r.nsamples; i++)
        cr_expect_eq(r.samples[i].cpu, 0);
    pb_sampler_result_free(&r);
}

Test(util_sampler, bad_arguments)
{
    char err[256];
    const int neg[] = { -1 };
    cr_expect_null(pb_sampler_start(9, NULL, 0, err, sizeof err));
    cr_expect(strstr(err, "10..10000") != NULL, "%s", err);
    cr_expect_null(pb_sampler_start(10001, NULL, 0, err, sizeof err));
    cr_expect_null(pb_sampler_start(100, neg, 1, err, sizeof err));
}

/* A stop right after the start: no full interval, the short tail counts in the means but is no sample. */
Test(util_sampler, immediate_stop)
{
    char err[256];
    pb_sampler *s = pb_sampler_start(10000, NULL, 0, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    pb_sampler_result r;
    uint64_t t = pb_now_ns();
    cr_assert_eq(pb_sampler_stop(s, &r), 0);
    cr_expect_lt(pb_now_ns() - t, 100 * 1000000ull, "stop does not wait out a 10 s interval");
    cr_expect_eq(r.nsamples, 0);
    pb_sampler_result_free(&r);
}

Test(util_sampler, spread)
{
    pb_sampler_cpu c[3] = { { .cpu = 0 }, { .cpu = 1 }, { .cpu = 2 } };
    c[0].mean.busy = 55.0;
    c[1].mean.busy = 2.0;
    c[2].mean.busy = NAN; /* offline: ignored */
    pb_sampler_result r = { .cpu = c, .ncpu = 3 };
    cr_expect_float_eq(pb_sampler_spread(&r), 53.0, 1e-9);
    cr_expect_gt(pb_sampler_spread(&r), PB_IMBALANCE_POINTS, "one core busy, one idle: flagged");
    r.ncpu = 1;
    cr_expect_float_eq(pb_sampler_spread(&r), 0.0, 1e-9);
}

/* A pause keeps its window out of the means and the series: 300 ms counted, 300 ms paused, 300 ms counted.
 * Asserted on the ticks that elapsed (all states together), which load on the machine does not change. */
Test(util_sampler, pause_counts_nothing)
{
    skip_if_emulated("a sample must fall within 5 ms of the pause's edges, and qemu's translation holds the sampler "
                     "thread up longer than that");
    char err[256];
    const int cpu0[] = { 0 };
    pb_sampler *s = pb_sampler_start(20, cpu0, 1, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    uint64_t t0 = pb_now_ns();
    sleep_ms(300);
    double pause_ms = (double)(pb_now_ns() - t0) / 1e6;
    pb_sampler_pause(s);
    pb_sampler_pause(s); /* a second pause does nothing */
    sleep_ms(300);
    pb_sampler_resume(s);
    double resume_ms = (double)(pb_now_ns() - t0) / 1e6;
    pb_sampler_resume(s);
    sleep_ms(300);
    pb_sampler_result r;
    cr_assert_eq(pb_sampler_stop(s, &r), 0);
    cr_assert_eq(r.ncpu, 1);
    /* 600 ms counted = 60 ticks (USER_HZ 100), give or take the boundaries; 90 if the pause counted */
    cr_expect(r.cpu[0].mean.ticks >= 50 && r.cpu[0].mean.ticks <= 72, "%llu ticks counted",
              (unsigned long long)r.cpu[0].mean.ticks);
    for (size_t i = 0; i < r.nsamples; i++)
        cr_expect(r.samples[i].t_ms <= pause_ms + 5 || r.samples[i].t_ms >= resume_ms - 5,
                  "a sample at %.1f ms, inside the pause (%.1f-%.1f ms)", r.samples[i].t_ms, pause_ms, resume_ms);
    pb_sampler_result_free(&r);
}

/* Windows shorter than half an interval between pauses (a sweep's tokens between its floor passes) still add
 * up to whole samples: 12 windows of 20 ms at a 100 ms interval make a few samples, not none. */
Test(util_sampler, short_windows_between_pauses_make_samples)
{
    char err[256];
    const int cpu0[] = { 0 };
    pb_sampler *s = pb_sampler_start(100, cpu0, 1, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    for (int i = 0; i < 12; i++) {
        sleep_ms(20);
        pb_sampler_pause(s);
        sleep_ms(20);
        pb_sampler_resume(s);
    }
    pb_sampler_result r;
    cr_assert_eq(pb_sampler_stop(s, &r), 0);
    cr_assert_eq(r.ncpu, 1);
    cr_expect(r.nsamples >= 2 && r.nsamples <= 6, "%zu samples from 240 ms counted in 20 ms windows", r.nsamples);
    cr_expect_eq(r.cpu[0].nsamples, r.nsamples);
    cr_expect(r.cpu[0].mean.ticks >= 18 && r.cpu[0].mean.ticks <= 34, "%llu ticks counted of 24",
              (unsigned long long)r.cpu[0].mean.ticks);
    pb_sampler_result_free(&r);
}
