/* Each extension point in one place: every format of KERN_FORMATS, every policy of POOL_POLICY_NAMES and every ISA
 * of KERN_ISAS reaches each list a user sees (every --help that takes them, the memory floor's per-token formats,
 * predict's columns, the plots' orders and colours, report.md's words) and a policy no list names is still drawn.
 * A format, policy or ISA added to its X-macro and missed by one of these fails here, naming the place. */
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
#include "pb_predict.h"
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

/* The n-th word (from 0) of the quoted list name='...' in vars, into w; false when there is none. */
static bool var_word(const char *vars, const char *name, int n, char *w, size_t len)
{
    char key[64];
    snprintf(key, sizeof key, "%s='", name);
    const char *at = strstr(vars, key);
    if (!at)
        return false;
    at += strlen(key);
    for (; n > 0 && *at != '\''; at++)
        n -= *at == ' ';
    size_t k = strcspn(at, " '");
    if (n > 0 || k == 0)
        return false;
    snprintf(w, len, "%.*s", (int)k, at);
    return true;
}

/* The jobs of both scripts over the results in dir: var (var='a b c', as pb_plot_spec.c's var_words writes it) holds
 * every name of names (NULL-ended), but names[except_second] in the second script's (-1: none left out). */
static void expect_ordered(const char *dir, const char *const scripts[2], const char *var, const char *const *names,
                           int except_second)
{
    for (int s = 0; s < 2; s++) {
        pb_plot_job job = plot_job(dir, scripts[s]);
        char key[64], list[512];
        snprintf(key, sizeof key, "%s='", var);
        const char *at = strstr(job.vars, key), *end = at ? strchr(at + strlen(key), '\'') : NULL;
        cr_assert(at && end, "%s gets %s: %s", scripts[s], var, job.vars);
        at += strlen(key);
        snprintf(list, sizeof list, " %.*s ", (int)(end - at), at);
        for (int i = 0; names[i]; i++) {
            char w[64];
            snprintf(w, sizeof w, " %s ", names[i]);
            cr_expect((strstr(list, w) != NULL) == (s == 0 || i != except_second), "%s's %s and %s: %s", scripts[s],
                      var, names[i], list);
        }
    }
}

/* An extension point: every one of names (NULL-ended) in each --help list, and in var of both plot scripts' jobs
 * (expect_ordered) over results holding the csvs, each csv_text. */
typedef struct ext_point {
    const char *const *names;
    help_list lists[3];
    const char *csvs[2], *csv_text;
    const char *scripts[2], *var;
    int except_second;
} ext_point;

static void expect_reached(const ext_point *e)
{
    expect_listed(e->lists, sizeof e->lists / sizeof e->lists[0], e->names);
    char dir[128];
    tf_tmpdir(dir, sizeof dir, "pbext");
    for (int i = 0; i < 2 && e->csvs[i]; i++)
        tf_write(dir, e->csvs[i], e->csv_text);
    expect_ordered(dir, e->scripts, e->var, e->names, e->except_second);
    tf_rmrf(dir);
}

#define FORMAT_NAME(id, name, block, bytes, act) #name,
static const char *const formats[] = { KERN_FORMATS(FORMAT_NAME) NULL };
#define POLICY_NAME(id, name, words) name,
static const char *const policies[] = { POOL_POLICY_NAMES(POLICY_NAME) NULL };

Test(extension_points, every_format_reaches_every_help_and_the_floor)
{
    /* the plots' x axes: kernels.gp every format, memory_floor.gp's token floor every one but f32 */
    expect_reached(&(const ext_point){
        .names = formats,
        .lists = { { "bench_kernels", "format" }, { "bench_sweep", "format" }, { "bench_tune", "format" } },
        .csvs = { "kernels.csv" }, .csv_text = "format\nq8_0\n",
        .scripts = { "kernels.gp", "memory_floor.gp" }, .var = "format_order", .except_second = KERN_F32 });
    pb_weight_format fl[PB_WEIGHT_FORMAT_COUNT];
    int n = pb_memfloor_token_formats(fl);
    for (int f = 0; formats[f]; f++) {
        bool in = false;
        for (int i = 0; i < n; i++)
            in |= strcmp(pb_weight_format_name(fl[i]), formats[f]) == 0;
        cr_expect(in == (f != KERN_F32), "the floor's per-token formats %s %s (f32 alone is left out)",
                  in ? "hold" : "lack", formats[f]);
    }
}

/* The sweep plots order their formats by the build's weight formats (every kern_format, then the mixes). */
Test(extension_points, every_weight_format_orders_the_sweep_plots)
{
    char dir[128];
    tf_tmpdir(dir, sizeof dir, "pbext");
    tf_write(dir, "sweep.csv", "format\nq8_0\n");
    const char *scripts[] = { "sweep.gp", "sweep_budget.gp" };
    for (int s = 0; s < 2; s++) {
        pb_plot_job job = plot_job(dir, scripts[s]);
        const char *const *names = pb_weight_format_names();
        for (int f = 0; names[f]; f++) {
            char w[32];
            cr_assert(var_word(job.vars, "format_order", f, w, sizeof w), "%s: format_order's word %d: %s",
                      scripts[s], f, job.vars);
            cr_expect_str_eq(w, names[f], "%s's format_order", scripts[s]);
        }
    }
    tf_rmrf(dir);
}

/* report.md's "Cycles on paper" has a column per format (a format predict.sh has no kernel of says none there). */
Test(extension_points, every_format_has_a_predict_column)
{
    int n = 0;
    for (int f = 0; formats[f]; f++, n++)
        cr_expect_str_eq(pb_predict_format_name(f), formats[f], "predict's column %d", f);
    cr_expect_eq(n, PB_PREDICT_FORMATS);
    cr_expect_str_eq(pb_predict_format_name(n), "", "no column past the formats");
}

Test(extension_points, every_policy_reaches_every_help_and_the_plots)
{
    expect_reached(&(const ext_point){
        .names = policies,
        .lists = { { "bench_pool_overhead", "policy" }, { "bench_sweep", "policy" },
                   { "bench_sweep", "prompt-policy" } },
        .csvs = { "pool_overhead.csv", "sweep.csv" }, .csv_text = "policy\nspin\n",
        .scripts = { "pool_overhead.gp", "sweep.gp" }, .var = "policy_order", .except_second = -1 });
}

/* A policy whose waiters spin (its budgets, pool_policy_spins) is an executor kind that spins: a sweep runs the live
 * floor on its pool. */
Test(extension_points, every_spinning_policy_spins_in_the_executor)
{
    for (int p = 0; policies[p]; p++)
        cr_expect_eq(pb_exec_kind_spins((pb_exec_kind)p), pool_policy_spins((pool_policy)p), "%s", policies[p]);
}

/* report.md's answers say what a policy's workers do (POOL_POLICY_NAMES' words, through the executor's kinds). */
Test(extension_points, every_policy_has_words)
{
    for (int p = 0; policies[p]; p++)
        cr_expect(pb_exec_kind_words[p] && pb_exec_kind_words[p][0], "%s has words", policies[p]);
}

/* Each policy is drawn in a colour of its own (pb_plot_spec.c's table, a spare one for a policy it lacks), the
 * same in both plots that draw policies: never pcolor's grey, never another policy's. */
Test(extension_points, every_policy_has_a_colour_of_its_own)
{
    char dir[128];
    tf_tmpdir(dir, sizeof dir, "pbext");
    tf_write(dir, "pool_overhead.csv", "policy\nspin\n");
    tf_write(dir, "sweep.csv", "policy\nspin\n");
    pb_plot_job po = plot_job(dir, "pool_overhead.gp"), sw = plot_job(dir, "sweep.gp");
    tf_rmrf(dir);
    char seen[PB_EXEC_KINDS][16];
    for (int k = 0; k < PB_EXEC_KINDS; k++) {
        char name[32], c1[16], c2[16];
        cr_assert(var_word(po.vars, "policy_order", k, name, sizeof name), "policy_order's word %d: %s", k, po.vars);
        cr_assert_str_eq(name, pb_exec_kind_names[k]);
        cr_assert(var_word(po.vars, "policy_colours", k, c1, sizeof c1), "%s has a colour: %s", name, po.vars);
        cr_assert(var_word(sw.vars, "policy_colours", k, c2, sizeof c2), "%s has a colour: %s", name, sw.vars);
        cr_expect_str_eq(c1, c2, "%s: one colour in both plots", name);
        cr_expect_str_neq(c1, "0x666666", "%s is not grey", name);
        for (int j = 0; j < k; j++)
            cr_expect_str_neq(c1, seen[j], "%s and %s share a colour", name, pb_exec_kind_names[j]);
        snprintf(seen[k], sizeof seen[k], "%s", c1);
    }
    char extra[16];
    cr_expect(!var_word(po.vars, "policy_colours", PB_EXEC_KINDS, extra, sizeof extra), "a colour per policy only");
}

/* Each ISA of KERN_ISAS is a series of kernels.gp, in its order, in a colour of its own (pb_plot_spec.c's table, a
 * spare one for an ISA it lacks): a new ISA is drawn without a line in the script. */
Test(extension_points, every_isa_has_a_colour_of_its_own)
{
    char dir[128];
    tf_tmpdir(dir, sizeof dir, "pbext");
    tf_write(dir, "kernels.csv", "format\nq8_0\n");
    pb_plot_job job = plot_job(dir, "kernels.gp");
    tf_rmrf(dir);
    char seen[KERN_ISA_COUNT][16];
    for (int k = 0; k < KERN_ISA_COUNT; k++) {
        char name[32], c[16];
        cr_assert(var_word(job.vars, "isa_order", k, name, sizeof name), "isa_order's word %d: %s", k, job.vars);
        cr_assert_str_eq(name, kern_isa_names[k]);
        cr_assert(var_word(job.vars, "isa_colours", k, c, sizeof c), "%s has a colour: %s", name, job.vars);
        cr_expect_str_neq(c, "0x666666", "%s is not grey", name);
        for (int j = 0; j < k; j++)
            cr_expect_str_neq(c, seen[j], "%s and %s share a colour", name, kern_isa_names[j]);
        snprintf(seen[k], sizeof seen[k], "%s", c);
    }
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
