/* pb_cpu_util.c — see pb_cpu_util.h. */
#include "pb_cpu_util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pb_cli.h"
#include "pb_plot.h"
#include "pb_schema.h"

int pb_cpu_util_open(pb_cpu_util_out *k, const char *prog, const char *out, const char *run_dir, char *err, size_t errlen)
{
    char why[512];
    k->prog = prog;
    if (pb_run_prepare(&k->run, run_dir ? run_dir : out, run_dir != NULL, why, sizeof why) != 0)
        return pb_cli_errf(err, errlen, prog, "%s", why);
    k->csv = pb_csv_open(k->run.dir, "cpu_util.csv", pb_schema_header(PB_K_CPUUTIL));
    if (k->csv)
        return 0;
    int e = errno;
    pb_run_discard(&k->run);
    if (e == EEXIST)
        return pb_cli_errf(err, errlen, prog, "--run-dir: '%s' already holds cpu_util.csv: accepted a run directory "
                           "without one", k->run.dir);
    if (e == EBUSY)
        return pb_cli_errf(err, errlen, prog, "%s/cpu_util.csv: another process is writing it now", k->run.dir);
    return pb_cli_errf(err, errlen, prog, "cannot create %s/cpu_util.csv: %s", k->run.dir, strerror(e));
}

void pb_cpu_util_sample(void *ctx, const pb_sampler_sample *x)
{
    const pb_cpu_util_out *k = ctx;
    const pb_value v[PB_CPUUTIL_NCOLS] = {
        [PB_CPUUTIL_run_id].s = k->run.run_id, [PB_CPUUTIL_host].s = k->run.host, [PB_CPUUTIL_t_ms].d = x->t_ms,
        [PB_CPUUTIL_cpu].i = x->cpu, [PB_CPUUTIL_busy_pct].d = x->busy, [PB_CPUUTIL_user_pct].d = x->user,
        [PB_CPUUTIL_sys_pct].d = x->sys, [PB_CPUUTIL_steal_pct].d = x->steal,
    };
    pb_csv_values(k->csv, pb_schema_get(PB_K_CPUUTIL), v);
}

void pb_cpu_util_discard(pb_cpu_util_out *k)
{
    pb_csv_abort(k->csv);
    k->csv = NULL;
    pb_run_discard(&k->run);
}

static void print_cell(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, " %8s", "-");
    else
        fprintf(f, " %8.1f", v);
}

static void print_row(FILE *f, const pb_sampler_cpu *c)
{
    if (c->cpu < 0)
        fprintf(f, "%-5s", "all");
    else
        fprintf(f, "%-5d", c->cpu);
    print_cell(f, c->mean.busy);
    print_cell(f, c->max_busy);
    print_cell(f, c->mean.user);
    print_cell(f, c->mean.sys);
    print_cell(f, c->mean.steal);
    fprintf(f, " %8zu\n", c->nsamples);
}

void pb_cpu_util_print(FILE *f, const pb_cpu_util_out *k, const pb_sampler_result *u, bool sampled_ok, char **cmd)
{
    fprintf(f, "# %s  host %s  run %s  interval %d ms  wall %.2f s\n# command:", k->prog, k->run.host,
            k->run.run_id, u->interval_ms, u->wall_ms / 1000.0);
    for (char **a = cmd; *a; a++)
        fprintf(f, " %s", *a);
    fprintf(f, "\n# %% of each cpu's time (USER_HZ ticks); busy = user + sys + steal; max over %d ms samples\n",
            u->interval_ms);
    fprintf(f, "%-5s %8s %8s %8s %8s %8s %8s\n", "cpu", "busy%", "max%", "user%", "sys%", "steal%", "samples");
    print_row(f, &u->all);
    for (int i = 0; i < u->ncpu; i++)
        print_row(f, &u->cpu[i]);
    if (!sampled_ok)
        fprintf(f, "# WARNING: some /proc/stat readings failed: the series has gaps\n");
    /* /proc/stat counts 1/100 s ticks: a run of a few ticks per cpu gives figures in steps of tens of points */
    uint64_t per_cpu = u->ncpu ? u->all.mean.ticks / (uint64_t)u->ncpu : 0;
    if (per_cpu < PB_CU_MIN_TRUSTED_TICKS)
        fprintf(f, "# WARNING: the command ran for %llu tick(s) per cpu (1/100 s each): these figures are too coarse "
                   "to trust\n", (unsigned long long)per_cpu);
}

int pb_cpu_util_finish(pb_cpu_util_out *k, const pb_machine *m, const pb_sampler_result *u)
{
    char err[512];
    const char *dir = k->run.dir;
    pb_csv_end end;
    int closed = pb_csv_finish(k->csv, true, &end);
    k->csv = NULL;
    if (closed != 0) {
        char path[sizeof k->run.dir + 16], line[sizeof end.partial + 2 * sizeof path];
        snprintf(path, sizeof path, "%s/cpu_util.csv", dir);
        pb_csv_end_text(&end, path, line, sizeof line);
        fprintf(stderr, "%s: %s\n", k->prog, line);
    }
    if (pb_machine_write_csv(m, dir, k->run.run_id, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", k->prog, err);
        return 1;
    }
    if (closed != 0) {
        /* The samples that reached the disk are published: machine.csv says how many were lost, and why. */
        char note[1024];
        snprintf(note, sizeof note, "%s: failed after %ld rows (%s): cpu_util.csv: %ld rows lost: %s", k->prog,
                 end.published || end.kept ? end.rows : 0, end.published ? "cpu_util.csv" : "",
                 end.lost + (end.published || end.kept ? 0 : end.rows), strerror(end.write_err ? end.write_err
                                                                                         : end.publish_err));
        if (pb_machine_mark_incomplete(dir, note, err, sizeof err) != 0)
            fprintf(stderr, "%s: %s\n", k->prog, err);
        return 1;
    }
    fprintf(stderr, "%s: wrote %s/cpu_util.csv\n", k->prog, dir);
    if (u->nsamples == 0) {
        fprintf(stderr, "%s: no full interval was sampled: no plot\n", k->prog);
        return 0;
    }
    int rc = pb_plot_run("cpu_util.gp", dir);
    if (rc == 0)
        fprintf(stderr, "%s: plots %s/cpu_util_heatmap.png %s/cpu_util_mean.png\n", k->prog, dir, dir);
    return rc < 0 ? 1 : 0;
}
