/* pb_sweep_report.c — bench_sweep's reporters: the table, sweep.csv and cpu_util.csv. They only format rows
 * that pb_sweep_measure and the harness filled. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pb_csv.h"
#include "pb_floor.h"
#include "pb_sweep.h"

#define PB_SWEEP_MAX_LIST 1024 /* cpus in a row's list: a pool's most */

double pb_sweep_tok_per_s(const pb_sweep_row *r) { return r->batch * 1000.0 / r->m.ms.median; }
double pb_sweep_gbps(const pb_sweep_row *r) { return (double)r->weight_bytes / (r->m.ms.median * 1e6); }
double pb_sweep_pct_of_floor(const pb_sweep_row *r) { return 100.0 * pb_sweep_gbps(r) / r->floor.gbps_median; }
double pb_sweep_floor_tok_per_s(const pb_sweep_row *r)
{
    return r->batch * r->floor.gbps_median * 1e9 / (double)r->weight_bytes;
}

static double pb_rt_mean(const pb_sweep_row *r)
{
    return isnan(r->rt_before) ? r->rt_after : isnan(r->rt_after) ? r->rt_before : (r->rt_before + r->rt_after) / 2;
}

void pb_sweep_print_table(FILE *f, const pb_sweep_row *rows, int n)
{
    fprintf(f, "\n%-6s %-8s %-11s %-6s %-9s %3s %2s %8s %15s %6s %8s %7s %7s %6s %5s %18s %7s %6s\n", "format",
            "policy", "schedule", "glue", "cpuset", "thr", "M", "ms_med", "ms_min-max", "glue%", "tok/s", "GB/s", "floor", "%floor",
            "disp", "busy% mean[min-max]", "rt_ns", "place");
    int imbalanced = 0, unverified = 0, noisy = 0;
    for (int i = 0; i < n; i++) {
        const pb_sweep_row *r = &rows[i];
        char range[32], busy[40];
        snprintf(range, sizeof range, "%.2f-%.2f", r->m.ms.min, r->m.ms.max);
        snprintf(busy, sizeof busy, "%.0f [%.0f-%.0f]%s", r->m.busy_mean, r->m.busy_min, r->m.busy_max,
                 r->m.imbalance ? " !" : "");
        bool is_noisy = r->m.ms.spread > 0.25;
        fprintf(f, "%-6s %-8s %-11s %-6s %-9s %3d %2d %8.2f %15s %6.1f %8.1f %7.1f %7.1f %6.1f %5.0f %18s %7.0f %6s%s%s\n",
                r->format, r->policy, r->schedule, r->glue, r->cpuset, r->threads, r->batch, r->m.ms.median, range,
                100.0 * r->m.glue_ms.median / r->m.ms.median, pb_sweep_tok_per_s(r), pb_sweep_gbps(r), r->floor.gbps_median, pb_sweep_pct_of_floor(r),
                r->m.dispatches_per_token, busy, pb_rt_mean(r), r->placement, is_noisy ? "  noisy" : "",
                r->verified ? "" : "  LOGITS DIFFER");
        imbalanced += r->m.imbalance;
        unverified += !r->verified;
        noisy += is_noisy;
    }
    fprintf(f, "\nms: per token (median and range over the timed tokens); glue: serial (all glue on the calling thread) or "
               "fused (row-local glue inside the dispatches);\nglue%%: the token's serial time outside its dispatches "
               "(norms, adds; with serial glue also activation quantization and SiLU);\ntok/s = M x 1000 / ms_med; GB/s: one token's "
               "weight bytes per median token;\nfloor: median read GB/s through the same pinned cpus (floor_source "
               "interleaved: one pass after each timed token, on the point's pool or a spin pool made for it; "
               "measured: just before the point (omp));\n%%floor = GB/s / floor; disp: dispatches per token;\nbusy%%: mean busy of each pinned cpu "
               "over the timed tokens (floor passes left out), mean [least-most] over the pinned cpus; rt_ns: round trip between the set's "
               "first two cpus.\n");
    if (imbalanced)
        fprintf(f, "! %d point(s) imbalanced: their busiest and least busy pinned cpus differ by more than %.0f points.\n",
                imbalanced, PB_SWEEP_IMBALANCE);
    if (noisy)
        fprintf(f, "noisy: %d point(s) whose token times spread more than 25%% of the median (max - min).\n", noisy);
    if (unverified)
        fprintf(f, "LOGITS DIFFER: %d point(s) did not reproduce the first point's logits bit for bit.\n", unverified);
}

/* A CSV-safe copy of s: quoted (quotes doubled) when it holds a comma or a quote. */
static const char *pb_csv_safe(const char *s, char *buf, size_t len)
{
    if (!strpbrk(s, ",\"\n"))
        return s;
    size_t o = 0;
    buf[o++] = '"';
    for (; *s && o + 3 < len; s++) {
        if (*s == '"')
            buf[o++] = '"';
        buf[o++] = *s == '\n' ? ' ' : *s;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

/* The plot's line label of row i: its policy, plus each of format, schedule, glue, core set and batch that
 * takes more than one value in the run (commas become ';' so the label needs no quoting). */
static void pb_sweep_series(const pb_sweep_row *rows, int n, int i, char *buf, size_t len)
{
    bool vf = false, vs = false, vg = false, vc = false, vb = false;
    for (int k = 1; k < n; k++) {
        vf |= strcmp(rows[k].format, rows[0].format) != 0;
        vs |= strcmp(rows[k].schedule, rows[0].schedule) != 0;
        vg |= strcmp(rows[k].glue, rows[0].glue) != 0;
        vc |= strcmp(rows[k].cpuset, rows[0].cpuset) != 0;
        vb |= rows[k].batch != rows[0].batch;
    }
    const pb_sweep_row *r = &rows[i];
    size_t o = (size_t)snprintf(buf, len, "%s", r->policy);
    if (vf && o < len)
        o += (size_t)snprintf(buf + o, len - o, " %s", r->format);
    if (vs && o < len)
        o += (size_t)snprintf(buf + o, len - o, " %s", r->schedule);
    if (vg && o < len)
        o += (size_t)snprintf(buf + o, len - o, " %s glue", r->glue);
    if (vc && o < len)
        o += (size_t)snprintf(buf + o, len - o, " cpus=%s", r->cpuset);
    if (vb && o < len)
        snprintf(buf + o, len - o, " M=%d", r->batch);
    for (char *c = buf; *c; c++)
        *c = *c == ',' ? ';' : *c == '"' ? '\'' : *c;
}

#define PB_SWEEP_HEADER                                                                                             \
    "run_id,host,point,model,format,kernel,policy,schedule,glue,threads,cpuset,cpus,batch,tokens,ms_per_token_min,"  \
    "ms_per_token_median,ms_per_token_max,tok_per_s,weight_bytes,gbps_effective,floor_gbps,floor_gbps_best,"         \
    "floor_kernel,floor_source,pct_of_floor,floor_tok_per_s,dispatches_per_token,glue_ms_median,glue_pct,"           \
    "busy_pct_mean,busy_pct_min,busy_pct_max,imbalance_flag,rt_ns,rt_ns_before,rt_ns_after,placement,p_cores,"       \
    "e_cores,smt_threads,verified,series_id,series"

int pb_sweep_write_csv(const pb_run *run, const pb_sweep_row *rows, int n)
{
    pb_csv *c = pb_csv_open(run->dir, "sweep.csv", PB_SWEEP_HEADER);
    if (!c)
        return -1;
    char (*label)[160] = calloc((size_t)(n > 0 ? n : 1), sizeof *label);
    int *id = calloc((size_t)(n > 0 ? n : 1), sizeof *id);
    if (!label || !id) {
        free(label);
        free(id);
        pb_csv_abort(c);
        return -1;
    }
    /* Series ids in order of first appearance: a known label takes its first row's id. */
    for (int i = 0, next = 1; i < n; i++) {
        pb_sweep_series(rows, n, i, label[i], sizeof label[i]);
        for (int k = 0; k < i && !id[i]; k++)
            if (strcmp(label[k], label[i]) == 0)
                id[i] = id[k];
        if (!id[i])
            id[i] = next++;
    }
    for (int i = 0; i < n; i++) {
        const pb_sweep_row *r = &rows[i];
        char cpuset[1100];
        pb_csv_row(c,
                   "%s,%s,%d,%s,%s,%s,%s,%s,%s,%d,%s,%s,%d,%d,%.4f,%.4f,%.4f,%.3f,%llu,%.3f,%.3f,%.3f,%s,%s,%.2f,%.3f,"
                   "%.1f,%.4f,%.2f,%.1f,%.1f,%.1f,%d,%.1f,%.1f,%.1f,%s,%d,%d,%d,%d,%d,%s",
                   run->run_id, run->host, r->point, r->model, r->format, r->kernel, r->policy, r->schedule,
                   r->glue, r->threads, pb_csv_safe(r->cpuset, cpuset, sizeof cpuset), r->cpus, r->batch, r->tokens, r->m.ms.min, r->m.ms.median, r->m.ms.max,
                   pb_sweep_tok_per_s(r), (unsigned long long)r->weight_bytes, pb_sweep_gbps(r), r->floor.gbps_median,
                   r->floor.gbps_best, r->floor.kernel, r->floor.source, pb_sweep_pct_of_floor(r),
                   pb_sweep_floor_tok_per_s(r), r->m.dispatches_per_token, r->m.glue_ms.median,
                   100.0 * r->m.glue_ms.median / r->m.ms.median, r->m.busy_mean, r->m.busy_min,
                   r->m.busy_max, r->m.imbalance, pb_rt_mean(r), r->rt_before, r->rt_after, r->placement, r->p_cores,
                   r->e_cores, r->smt_threads, r->verified, id[i], label[i]);
    }
    free(label);
    free(id);
    return pb_csv_close(c);
}

/* Whether cpu is one of the row's pinned cpus (its cpus text, space-separated). */
static bool pb_sweep_pinned(const pb_sweep_row *r, int cpu)
{
    int got[PB_SWEEP_MAX_LIST];
    int n = pb_floor_parse_cpus(r->cpus, got, PB_SWEEP_MAX_LIST);
    for (int i = 0; i < n; i++)
        if (got[i] == cpu)
            return true;
    return false;
}

int pb_sweep_write_util_csv(const pb_run *run, const pb_sweep_row *rows, int n)
{
    /* bench_cpu_util's columns first, so plots/cpu_util.gp draws the sweep's heatmap too; t_ms is sampled
     * time, the points' timed stretches laid end to end. */
    pb_csv *c = pb_csv_open(run->dir, "cpu_util.csv", "run_id,host,t_ms,cpu,busy_pct,user_pct,sys_pct,steal_pct,point");
    if (!c)
        return -1;
    double t0 = 0;
    for (int i = 0; i < n; i++) {
        const pb_util_result *u = &rows[i].m.util;
        for (size_t k = 0; k < u->nsamples; k++) {
            const pb_util_sample *s = &u->samples[k];
            pb_csv_row(c, "%s,%s,%.1f,%d,%.1f,%.1f,%.1f,%.1f,%d", run->run_id, run->host, t0 + s->t_ms, s->cpu,
                       s->busy, s->user, s->sys, s->steal, rows[i].point);
        }
        t0 += rows[i].m.have_util ? u->wall_ms : 0;
    }
    if (pb_csv_close(c) != 0)
        return -1;
    c = pb_csv_open(run->dir, "sweep_cpu.csv", "run_id,host,point,cpu,pinned,busy_pct,user_pct,sys_pct,steal_pct");
    if (!c)
        return -1;
    for (int i = 0; i < n; i++) {
        const pb_util_result *u = &rows[i].m.util;
        for (int k = 0; k < u->ncpu; k++) {
            const pb_util_cpu *cu = &u->cpu[k];
            if (isnan(cu->mean.busy))
                continue;
            pb_csv_row(c, "%s,%s,%d,%d,%d,%.1f,%.1f,%.1f,%.1f", run->run_id, run->host, rows[i].point, cu->cpu,
                       pb_sweep_pinned(&rows[i], cu->cpu), cu->mean.busy, cu->mean.user, cu->mean.sys, cu->mean.steal);
        }
    }
    return pb_csv_close(c);
}
