/* pb_corunner (--co-runner CPUS:DUTY): the spec's forms and its refusals (one line saying what is accepted), and a
 * started co-runner's children: one per cpu, pinned there, burning cpu, gone after pb_corunner_stop. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pb_corunner.h"
#include "test_files.h"

Test(corunner, specs_parse)
{
    pb_corunner c;
    char err[512];
    cr_assert_eq(pb_corunner_parse("1:50", &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.n, 1);
    cr_expect_eq(c.cpu[0], 1);
    cr_expect_eq(c.duty_pct, 50);
    cr_expect_str_eq(c.text, "1:50");
    cr_assert_eq(pb_corunner_parse("0-2,5:100", &c, err, sizeof err), 0, "%s", err);
    cr_expect_eq(c.n, 4);
    cr_expect_eq(c.cpu[3], 5);
    cr_expect_eq(c.duty_pct, 100);
    cr_assert_eq(pb_corunner_parse(NULL, &c, err, sizeof err), 0);
    cr_expect_eq(c.n, 0, "none");
    cr_assert_eq(pb_corunner_parse("", &c, err, sizeof err), 0);
    cr_expect_eq(c.n, 0, "none");
}

Test(corunner, bad_specs_say_what_is_accepted)
{
    static const char *const bad[] = { "1", "1:", ":50", "1:0", "1:101", "1:5x", "1:-5", "1:50:2", "a:50",
                                       "1,1:50", "3-1:50", "1: 50", "1:0x10" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pb_corunner c = { .n = 7 };
        char err[512] = "";
        cr_expect_eq(pb_corunner_parse(bad[i], &c, err, sizeof err), -1, "'%s' accepted", bad[i]);
        cr_expect(strstr(err, "accepted: CPUS:DUTY") != NULL, "'%s': %s", bad[i], err);
        cr_expect_eq(c.n, 7, "'%s': a refused spec leaves c alone", bad[i]);
    }
}

/* The cpu time (user + system, clock ticks) of process pid from /proc, -1 when it is gone. */
static long cpu_ticks(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* comm may hold spaces */
    unsigned long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (long)(ut + st);
}

Test(corunner, children_pinned_busy_and_reaped, .timeout = 30)
{
    int cpu[1];
    tf_need_cpus(cpu, 1, "a cpu to keep busy");
    char spec[32], err[512];
    snprintf(spec, sizeof spec, "%d:100", cpu[0]);
    pb_corunner c;
    cr_assert_eq(pb_corunner_parse(spec, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(pb_corunner_start(&c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.started, 1);
    pid_t pid = c.pid[0];
    usleep(300 * 1000);
    cpu_set_t set;
    cr_expect_eq(sched_getaffinity(pid, sizeof set, &set), 0);
    cr_expect(CPU_COUNT(&set) == 1 && CPU_ISSET(cpu[0], &set), "the child is pinned to cpu %d alone", cpu[0]);
    long ticks = cpu_ticks(pid);
    cr_expect_gt(ticks, 0, "busy all of every period, the child used cpu time (%ld ticks in 0.3 s)", ticks);
    pb_corunner_stop(&c);
    cr_expect_eq(c.started, 0);
    errno = 0;
    cr_expect(kill(pid, 0) == -1 && errno == ESRCH, "the child is gone and reaped");
}
