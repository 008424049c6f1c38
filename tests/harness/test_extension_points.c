/* Each extension point in one place: every format of KERN_FORMATS and every policy of POOL_POLICY_NAMES reaches
 * each list a user sees (every --help that takes them, the memory floor's per-token formats, the plots' policy
 * order) and a policy no list names is still drawn. A format or policy added to its X-macro and missed by one of
 * these fails here, naming the place. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kern.h"
#include "pb_exec.h"
#include "pb_memfloor_run.h"
#include "pb_plot.h"
#include "pb_plot_spec.h"
#include "pool.h"
#include "test_files.h"

/* prog --help's text. */
static char *help_of(const char *prog)
{
    static char out[65536];
    const char *bin = getenv("POOLBENCH_BIN");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s/%s' --help 2>&1", bin ? bin : "build/bin", prog);
    cr_assert_eq(tf_run(out, sizeof out, cmd), 0, "%s: %s", cmd, out);
    return out;
}

/* Whether the --help line of option opt lists name among its accepted values ("[one of a, b, c; ...]"). */
static bool help_lists(const char *help, const char *opt, const char *name)
{
    char key[64], w1[64], w2[64], w3[64];
    snprintf(key, sizeof key, "\n  --%s ", opt);
    const char *line = strstr(help, key);
    if (!line)
        return false;
    const char *end = strchr(line + 1, '\n'), *one = strstr(line, "[one of ");
    if (!one || (end && one > end))
        return false;
    snprintf(w1, sizeof w1, " %s,", name);
    snprintf(w2, sizeof w2, " %s;", name);
    snprintf(w3, sizeof w3, " %s]", name);
    char buf[4096];
    snprintf(buf, sizeof buf, "%.*s", (int)((end ? end : line + strlen(line)) - one), one);
    return strstr(buf, w1) || strstr(buf, w2) || strstr(buf, w3);
}

/* One list a user sees: the values prog's --opt accepts, as its --help line gives them. */
typedef struct help_list {
    const char *prog, *opt;
} help_list;

/* Every name of names (NULL-ended) among the values each of the n lists accepts. */
static void expect_listed(const help_list *lists, size_t n, const char *const *names)
{
    for (size_t l = 0; l < n; l++) {
        char *help = help_of(lists[l].prog);
        for (int i = 0; names[i]; i++)
            cr_expect(help_lists(help, lists[l].opt, names[i]), "%s --help: --%s lists %s", lists[l].prog,
                      lists[l].opt, names[i]);
    }
}

/* The job pb_plot_job_for gives script over the results in dir. */
static pb_plot_job plot_job(const char *dir, const char *script)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(fd, 0);
    pb_plot_job job;
    cr_assert_eq(pb_plot_job_for(script, fd, &job), 0);
    close(fd);
    return job;
}

#define FORMAT_NAME(id, name, block, bytes, act) #name,
static const char *const formats[] = { KERN_FORMATS(FORMAT_NAME) NULL };
#define POLICY_NAME(id, name) name,
static const char *const policies[] = { POOL_POLICY_NAMES(POLICY_NAME) NULL };

Test(extension_points, every_format_reaches_every_help_and_the_floor)
{
    static const help_list lists[] = {
        { "bench_kernels", "format" }, { "bench_sweep", "format" }, { "bench_tune", "format" },
    };
    expect_listed(lists, sizeof lists / sizeof lists[0], formats);
    /* the plots' x axes: kernels.gp every format, memory_floor.gp's token floor every one but f32 */
    char dir[128];
    tf_tmpdir(dir, sizeof dir, "pbext");
    tf_write(dir, "kernels.csv", "format\nq8_0\n");
    for (int s = 0; s < 2; s++) {
        const char *script = s ? "memory_floor.gp" : "kernels.gp";
        pb_plot_job job = plot_job(dir, script);
        const char *at = strstr(job.vars, "format_order='"), *end = at ? strchr(at + 14, '\'') : NULL;
        cr_assert(at && end, "%s gets format_order: %s", script, job.vars);
        char list[512];
        snprintf(list, sizeof list, " %.*s ", (int)(end - at - 14), at + 14);
        for (int f = 0; formats[f]; f++) {
            char w[64];
            snprintf(w, sizeof w, " %s ", formats[f]);
            cr_expect((strstr(list, w) != NULL) == (s == 0 || f != KERN_F32), "%s's format_order and %s: %s", script,
                      formats[f], list);
        }
    }
    tf_rmrf(dir);
    pb_wformat fl[PB_WF_COUNT];
    int n = pb_memfloor_token_formats(fl);
    for (int f = 0; formats[f]; f++) {
        bool in = false;
        for (int i = 0; i < n; i++)
            in |= strcmp(pb_wformat_name(fl[i]), formats[f]) == 0;
        cr_expect(in == (f != KERN_F32), "the floor's per-token formats %s %s (f32 alone is left out)",
                  in ? "hold" : "lack", formats[f]);
    }
}

Test(extension_points, every_policy_reaches_every_help_and_the_plots)
{
    static const help_list lists[] = {
        { "bench_pool_overhead", "policy" }, { "bench_sweep", "policy" }, { "bench_sweep", "prompt-policy" },
    };
    expect_listed(lists, sizeof lists / sizeof lists[0], policies);
    char dir[128];
    tf_tmpdir(dir, sizeof dir, "pbext");
    tf_write(dir, "pool_overhead.csv", "policy\nspin\n");
    tf_write(dir, "sweep.csv", "policy\nspin\n");
    for (int s = 0; s < 2; s++) {
        const char *script = s ? "sweep.gp" : "pool_overhead.gp";
        pb_plot_job job = plot_job(dir, script);
        for (int p = 0; policies[p]; p++) {
            char w[64];
            snprintf(w, sizeof w, "%s", policies[p]);
            const char *at = strstr(job.vars, "policy_order='");
            cr_expect(at && strstr(at, w), "%s's policy_order holds %s: %s", script, w, job.vars);
        }
    }
    tf_rmrf(dir);
}

Test(extension_points, a_policy_no_list_names_is_still_drawn)
{
    if (!pb_plot_available())
        cr_skip_test("no gnuplot on PATH: nothing is drawn (make deps installs gnuplot-nox)");
    char dir[128], cmd[512], out[4096];
    tf_tmpdir(dir, sizeof dir, "pbext");
    snprintf(cmd, sizeof cmd, "cp refs/zen5-2vcpu/pool_overhead.csv refs/zen5-2vcpu/machine.csv '%s/' && "
             "sed -i 's/,condvar,/,zzpolicy,/' '%s/pool_overhead.csv'", dir, dir);
    cr_assert_eq(tf_run(out, sizeof out, cmd), 0, "%s", out);
    cr_assert_eq(pb_plot_run("pool_overhead.gp", dir), 0, "drawn");
    char *svg = tf_read("%s/pool_overhead_threads.svg", dir);
    cr_assert_not_null(svg);
    cr_expect(strstr(svg, "zzpolicy"), "the unknown policy has its line and key entry");
    tf_rmrf(dir);
}
