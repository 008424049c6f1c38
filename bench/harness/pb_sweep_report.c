/* pb_sweep_report.c — bench_sweep's reporters: the table, sweep.csv and cpu_util.csv. They only format rows
 * that pb_sweep_measure and the harness filled, each as its point ends. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pb_csv.h"
#include "pb_schema.h"
#include "pb_placement.h"
#include "pb_sweep.h"
#include "pb_tuning.h"

#define PB_SWEEP_MAX_LIST 1024 /* cpus in a row's list: a pool's most */
#define PB_SWEEP_LIST_LEN 8192 /* a per-thread list's text: PB_SWEEP_MAX_LIST figures of a few characters */

double pb_sweep_tok_per_s(const pb_sweep_row *r) { return r->batch * 1000.0 / r->m.ms.median; }
/* A token must read its weights and the KV cache at its depth: both count, in the rate and in the ceiling. */
double pb_sweep_gbps(const pb_sweep_row *r)
{
    return (double)(r->weight_bytes + r->kv_bytes) / (r->m.ms.median * 1e6);
}
double pb_sweep_pct_of_floor(const pb_sweep_row *r) { return 100.0 * pb_sweep_gbps(r) / r->floor.gbps_median; }
double pb_sweep_floor_tok_per_s(const pb_sweep_row *r)
{
    return r->batch * r->floor.gbps_median * 1e9 / (double)(r->weight_bytes + r->kv_bytes);
}

/* The cliff of every multi-thread point: each thread's busy time per token and share of the rows, the slowest,
 * and what the others waited for it. */
static void pb_sweep_print_threads(FILE *f, const pb_sweep_row *rows, int n)
{
    bool any = false;
    for (int i = 0; i < n; i++) {
        const pb_sweep_cliff *c = &rows[i].m.cliff;
        if (c->nthr < 2)
            continue;
        if (!any)
            fprintf(f, "\nper thread: busy ms per token [%% of the rows], the slowest, and the others' wait for it:\n");
        any = true;
        fprintf(f, "  point %3d %-8s %-11s thr %2d:", rows[i].point, rows[i].policy, rows[i].schedule, c->nthr);
        for (int k = 0; k < c->nthr && k < 16; k++)
            fprintf(f, " cpu%d %.2f [%.1f]%s", c->thr[k].cpu, c->thr[k].busy_ms, c->thr[k].rows_pct,
                    c->thr[k].factor < 1 ? "*" : "");
        fprintf(f, "%s; slowest cpu %d, others waited %.2f ms/token%s\n", c->nthr > 16 ? " ..." : "",
                c->thr[c->slowest].cpu, c->wait_for_slowest_ms, rows[i].emulate[0] ? " (EMULATED: * slow cpu)" : "");
    }
}

/* Every point's budget: its median token's parts in ms, unexplained also as a share of the token. */
static void pb_sweep_print_budget(FILE *f, const pb_sweep_row *rows, int n)
{
    fprintf(f, "\nbudget: the median token's ms in parts (pb_budget.h); unexplained over %.0f%% of the token is "
               "marked !\n  point", PB_BUDGET_UNEXPLAINED_PCT);
    for (int p = 0; p < PB_BUDGET_NPARTS; p++)
        fprintf(f, " %9.9s", pb_budget_part_name((pb_budget_part)p));
    fprintf(f, " %8s %7s\n", "token", "unexpl%");
    int over = 0;
    for (int i = 0; i < n; i++) {
        const pb_budget *b = &rows[i].budget;
        double pct = pb_budget_unexplained_pct(b);
        fprintf(f, "  %5d", rows[i].point);
        for (int p = 0; p < PB_BUDGET_NPARTS; p++)
            fprintf(f, " %9.3f", b->ms[p]);
        fprintf(f, " %8.3f %6.1f%s\n", b->token_ms, pct, fabs(pct) > PB_BUDGET_UNEXPLAINED_PCT ? " !" : "");
        over += fabs(pct) > PB_BUDGET_UNEXPLAINED_PCT;
    }
    if (over)
        fprintf(f, "! %d point(s) whose unexplained part is over %.0f%% of the token: the machine moved under the "
                   "point (steal, a neighbour), or the instrument missed a part.\n", over, PB_BUDGET_UNEXPLAINED_PCT);
}

void pb_sweep_print_table(FILE *f, const pb_sweep_row *rows, int n)
{
    fprintf(f, "\n%-6s %-8s %-11s %-6s %-9s %3s %2s %6s %8s %15s %6s %6s %8s %7s %7s %6s %5s %18s %7s %6s\n", "format",
            "policy", "schedule", "glue", "cpuset", "thr", "M", "ctx", "ms_med", "ms_min-max", "glue%", "attn%", "tok/s", "GB/s",
            "floor", "%floor",
            "disp", "busy% mean[min-max]", "rt_ns", "place");
    int imbalanced = 0, unverified = 0, noisy = 0, over = 0;
    for (int i = 0; i < n; i++) {
        const pb_sweep_row *r = &rows[i];
        char range[32], busy[40];
        snprintf(range, sizeof range, "%.2f-%.2f", r->m.ms.min, r->m.ms.max);
        snprintf(busy, sizeof busy, "%.0f [%.0f-%.0f]%s", r->m.busy_mean, r->m.busy_min, r->m.busy_max,
                 r->m.imbalance ? " !" : "");
        bool is_noisy = r->m.ms.spread > PB_NOISY_SPREAD;
        fprintf(f, "%-6s %-8s %-11s %-6s %-9s %3d %2d %6d %8.2f %15s %6.1f %6.1f %8.1f %7.1f %7.1f %6.1f %5.0f %18s %7.0f %6s%s%s%s\n",
                r->format, r->policy, r->schedule, r->glue, r->cpuset, r->threads, r->batch, r->context, r->m.ms.median,
                range, 100.0 * r->m.glue_ms.median / r->m.ms.median, 100.0 * r->m.attn_ms.median / r->m.ms.median,
                pb_sweep_tok_per_s(r), pb_sweep_gbps(r), r->floor.gbps_median, pb_sweep_pct_of_floor(r),
                r->m.dispatches_per_token, busy, pb_rt_between(r->rt_before, r->rt_after), r->placement,
                is_noisy ? "  noisy" : "", r->oversubscribed ? "  oversubscribed" : "", r->verified ? "" : "  LOGITS DIFFER");
        over += r->oversubscribed;
        imbalanced += r->m.imbalance;
        unverified += !r->verified;
        noisy += is_noisy;
    }
    fprintf(f, "\nms: per token (median and range over the timed tokens); glue: serial (all glue on the calling thread) or "
               "fused (row-local glue inside the dispatches);\nglue%%: the token's serial time outside its dispatches "
               "(norms, adds; with serial glue also activation quantization and SiLU);\nctx: positions in the KV cache; attn%%: "
               "attention's share of the token (q/k norms, RoPE, the cache's append, its dispatches);\n"
               "tok/s = M x 1000 / ms_med; GB/s: one token's weight and KV bytes per median token;\nfloor: median read GB/s through the same pinned cpus (floor_source "
               "interleaved: one pass after each timed token, on the point's pool or a spin pool made for it; "
               "measured: just before the point (omp));\n%%floor = GB/s / floor; disp: dispatches per token;\nbusy%%: mean busy of each pinned cpu "
               "over the timed tokens (floor passes left out), mean [least-most] over the pinned cpus; rt_ns: round trip between the set's "
               "first two cpus.\n");
    if (imbalanced)
        fprintf(f, "! %d point(s) imbalanced: their busiest and least busy pinned cpus differ by more than %.0f points.\n",
                imbalanced, PB_SWEEP_IMBALANCE);
    if (over)
        fprintf(f, "oversubscribed: %d point(s) with more threads than their set's PUs: threads take its cpus in turn "
                   "(the floor is those cpus', one thread each).\n", over);
    if (noisy)
        fprintf(f, "noisy: %d point(s) whose token times spread more than %d%% of the median (max - min).\n", noisy,
                PB_NOISY_SPREAD_PCT);
    if (unverified)
        fprintf(f, "LOGITS DIFFER: %d point(s) did not reproduce the first point's logits bit for bit.\n", unverified);
    pb_sweep_print_threads(f, rows, n);
    pb_sweep_print_budget(f, rows, n);
}

/* The plot's line label of a row: its policy, plus each dimension the run varies (commas become ';' so the
 * label reads the same in gnuplot's key as in the CSV). */
static void pb_sweep_series(const pb_sweep_varies *v, const pb_sweep_row *r, char *buf, size_t len)
{
    char batch[16], context[16];
    snprintf(batch, sizeof batch, "%d", r->batch);
    snprintf(context, sizeof context, "%d", r->context);
    /* The dimensions in the label's order: whether the run varies it, and the text before, of and after its value. */
    const struct {
        bool varies;
        const char *pre, *value, *post;
    } dim[] = {
        { v->format, " ", r->format, "" }, { v->schedule, " ", r->schedule, "" }, { v->glue, " ", r->glue, " glue" },
        { v->cpuset, " cpus=", r->cpuset, "" }, { v->batch, r->prompt ? " pp=" : " M=", batch, "" }, { v->context, " ctx=", context, "" },
        { v->kv, " kv=", r->kv_type, "" },
    };
    size_t o = (size_t)snprintf(buf, len, "%s", r->policy);
    for (size_t i = 0; i < sizeof dim / sizeof dim[0]; i++)
        if (dim[i].varies && o < len)
            o += (size_t)snprintf(buf + o, len - o, "%s%s%s", dim[i].pre, dim[i].value, dim[i].post);
    for (char *c = buf; *c; c++)
        *c = *c == ',' ? ';' : *c == '"' ? '\'' : *c;
}

/* The series id of a label: a known label keeps its first row's id, a new one takes the next. 0 when out of
 * memory. */
static int pb_sweep_series_id(pb_sweep_out *o, const char *label)
{
    for (int k = 0; k < o->nlabels; k++)
        if (strcmp(o->label[k], label) == 0)
            return k + 1;
    if (o->nlabels == o->cap) {
        int cap = o->cap ? 2 * o->cap : 32;
        char(*l)[160] = realloc(o->label, (size_t)cap * sizeof *l);
        if (!l)
            return 0;
        o->label = l;
        o->cap = cap;
    }
    snprintf(o->label[o->nlabels++], sizeof o->label[0], "%s", label);
    return o->nlabels;
}

/* One per-thread figure of r (the double at offset `field` of pb_sweep_thread) as a list in thread order, "8.10
 * 16.20"; "" when the point has none. */
static void pb_sweep_thread_list(const pb_sweep_row *r, size_t field, int decimals, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->m.cliff.nthr && at < len; i++) {
        double v;
        memcpy(&v, (const char *)&r->m.cliff.thr[i] + field, sizeof v);
        at += (size_t)snprintf(buf + at, len - at, "%s%.*f", i ? " " : "", decimals, v);
    }
}

/* sweep.csv's unequal-core columns (PB_SWEEP_CLIFF_COLS) of r into v. lists: 4 buffers of len bytes. */
static void pb_sweep_cliff_values(const pb_sweep_row *r, pb_value *v, char (*lists)[PB_SWEEP_LIST_LEN])
{
    const pb_sweep_cliff *c = &r->m.cliff;
    pb_sweep_thread_list(r, offsetof(pb_sweep_thread, rows_pct), 1, lists[0], PB_SWEEP_LIST_LEN);
    pb_sweep_thread_list(r, offsetof(pb_sweep_thread, busy_ms), 3, lists[1], PB_SWEEP_LIST_LEN);
    pb_sweep_thread_list(r, offsetof(pb_sweep_thread, slice_us), 2, lists[2], PB_SWEEP_LIST_LEN);
    pb_sweep_thread_list(r, offsetof(pb_sweep_thread, wait_ms), 3, lists[3], PB_SWEEP_LIST_LEN);
    v[PB_SWEEP_emulate_slow].s = r->emulate;
    v[PB_SWEEP_share_source].s = c->share_source ? c->share_source : "";
    v[PB_SWEEP_thread_rows_pct].s = lists[0];
    v[PB_SWEEP_thread_busy_ms].s = lists[1];
    v[PB_SWEEP_thread_slice_us].s = lists[2];
    v[PB_SWEEP_thread_wait_ms].s = lists[3];
    v[PB_SWEEP_slowest_thread].i = c->nthr ? c->slowest : -1;
    v[PB_SWEEP_slowest_cpu].i = c->nthr ? c->thr[c->slowest].cpu : -1;
    v[PB_SWEEP_wait_for_slowest_ms].d = c->nthr ? c->wait_for_slowest_ms : NAN;
}

static void pb_sweep_write_main(pb_sweep_out *o, const pb_sweep_row *r, int id, const char *label)
{
#define S(col) [PB_SWEEP_##col]
    pb_value v[PB_SWEEP_NCOLS] = {
        S(run_id).s = o->run->run_id, S(host).s = o->run->host, S(point).i = r->point, S(model).s = r->model,
        S(format).s = r->format, S(kernel).s = r->kernel, S(policy).s = r->policy, S(schedule).s = r->schedule,
        S(glue).s = r->glue, S(threads).i = r->threads, S(cpuset).s = r->cpuset, S(cpus).s = r->cpus,
        S(batch).i = r->batch, S(tokens).i = r->tokens, S(ms_per_token_min).d = r->m.ms.min,
        S(ms_per_token_median).d = r->m.ms.median, S(ms_per_token_max).d = r->m.ms.max,
        S(tok_per_s).d = pb_sweep_tok_per_s(r), S(weight_bytes).u = r->weight_bytes,
        S(gbps_effective).d = pb_sweep_gbps(r), S(floor_gbps).d = r->floor.gbps_median,
        S(floor_gbps_best).d = r->floor.gbps_best, S(floor_kernel).s = r->floor.kernel,
        S(floor_source).s = r->floor.source, S(pct_of_floor).d = pb_sweep_pct_of_floor(r),
        S(floor_tok_per_s).d = pb_sweep_floor_tok_per_s(r), S(dispatches_per_token).d = r->m.dispatches_per_token,
        S(glue_ms_median).d = r->m.glue_ms.median, S(glue_pct).d = 100.0 * r->m.glue_ms.median / r->m.ms.median,
        S(busy_pct_mean).d = r->m.busy_mean, S(busy_pct_min).d = r->m.busy_min, S(busy_pct_max).d = r->m.busy_max,
        S(imbalance_flag).i = r->m.imbalance, S(rt_ns).d = pb_rt_between(r->rt_before, r->rt_after),
        S(rt_ns_before).d = r->rt_before, S(rt_ns_after).d = r->rt_after, S(placement).s = r->placement, S(p_cores).i = r->p_cores,
        S(e_cores).i = r->e_cores, S(smt_threads).i = r->smt_threads, S(oversubscribed).i = r->oversubscribed,
        S(co_runner).s = r->co_runner,
        S(verified).i = r->verified,
        S(series_id).i = id, S(series).s = label, S(context).i = r->context, S(kv_type).s = r->kv_type,
        S(kv_bytes).u = r->kv_bytes, S(attn_ms_median).d = r->m.attn_ms.median,
        S(attn_pct).d = 100.0 * r->m.attn_ms.median / r->m.ms.median, S(weights).s = r->weights,
        S(model_file).s = r->model_file, S(arch).s = r->arch, S(type_mix).s = r->type_mix,
        S(kernel_why).s = r->kernel_why, S(kernel_stream).s = r->kernel_stream, S(floor_why).s = r->floor_why,
        S(kernel_layout).s = r->kernel_layout, S(repack_ms).d = r->repack_ms, S(repacked_bytes).u = r->repacked_bytes,
        S(counters).s = r->counters, S(ipc).d = r->ipc,
    };
#undef S
    char lists[4][PB_SWEEP_LIST_LEN]; /* 32 KiB, on the main thread's stack */
    pb_sweep_cliff_values(r, v, lists);
    v[PB_SWEEP_dispatch_cost_ns].d = r->m.dispatch_cost_ns;
    for (int p = 0; p < PB_BUDGET_NPARTS; p++)
        v[pb_budget_col((pb_budget_part)p)].d = r->budget.ms[p];
    v[PB_SWEEP_prompt].i = r->prompt;
    v[PB_SWEEP_macs].u = r->macs;
    v[PB_SWEEP_roof_gmacs].d = r->roof_gmacs;
    v[PB_SWEEP_roof_share].d = pb_sweep_roof_share(r);
    v[PB_SWEEP_ghz_before].d = r->ghz_before;
    v[PB_SWEEP_ghz_after].d = r->ghz_after;
    v[PB_SWEEP_watts_package].d = r->watts_package;
    v[PB_SWEEP_watts_dram].d = r->watts_dram;
    v[PB_SWEEP_j_per_token].d = pb_sweep_j_per_token(r);
    pb_csv_values(o->sweep, pb_schema_get(PB_K_SWEEP), v);
}

/* Whether cpu is one of the row's pinned cpus (its cpus text, space-separated). */
static bool pb_sweep_pinned(const pb_sweep_row *r, int cpu)
{
    int got[PB_SWEEP_MAX_LIST];
    int n = pb_cell_cpus(r->cpus, got, PB_SWEEP_MAX_LIST);
    for (int i = 0; i < n; i++)
        if (got[i] == cpu)
            return true;
    return false;
}

/* cpu_util.csv: bench_cpu_util's columns first, so plots/cpu_util.gp draws the sweep's heatmap too; t_ms is
 * sampled time, the points' timed stretches laid end to end. sweep_cpu.csv: each cpu's mean over the point. */
static void pb_sweep_write_util(pb_sweep_out *o, const pb_sweep_row *r)
{
    const pb_sampler_result *u = &r->m.util;
    for (size_t k = 0; k < u->nsamples; k++) {
        const pb_sampler_sample *x = &u->samples[k];
        const pb_value v[PB_SWEEPUTIL_NCOLS] = {
            [PB_SWEEPUTIL_run_id].s = o->run->run_id, [PB_SWEEPUTIL_host].s = o->run->host,
            [PB_SWEEPUTIL_t_ms].d = o->util_t0 + x->t_ms, [PB_SWEEPUTIL_cpu].i = x->cpu,
            [PB_SWEEPUTIL_busy_pct].d = x->busy, [PB_SWEEPUTIL_user_pct].d = x->user, [PB_SWEEPUTIL_sys_pct].d = x->sys,
            [PB_SWEEPUTIL_steal_pct].d = x->steal, [PB_SWEEPUTIL_point].i = r->point,
        };
        pb_csv_values(o->util, pb_schema_get(PB_K_SWEEPUTIL), v);
    }
    o->util_t0 += r->m.have_util ? u->wall_ms : 0;
    for (int k = 0; k < u->ncpu; k++) {
        const pb_sampler_cpu *cu = &u->cpu[k];
        if (isnan(cu->mean.busy))
            continue;
        const pb_value v[PB_SWEEPCPU_NCOLS] = {
            [PB_SWEEPCPU_run_id].s = o->run->run_id, [PB_SWEEPCPU_host].s = o->run->host,
            [PB_SWEEPCPU_point].i = r->point, [PB_SWEEPCPU_cpu].i = cu->cpu,
            [PB_SWEEPCPU_pinned].i = pb_sweep_pinned(r, cu->cpu), [PB_SWEEPCPU_busy_pct].d = cu->mean.busy,
            [PB_SWEEPCPU_user_pct].d = cu->mean.user, [PB_SWEEPCPU_sys_pct].d = cu->mean.sys,
            [PB_SWEEPCPU_steal_pct].d = cu->mean.steal,
        };
        pb_csv_values(o->cpu, pb_schema_get(PB_K_SWEEPCPU), v);
    }
}

int pb_sweep_out_row(pb_sweep_out *o, const pb_sweep_row *r)
{
    char label[160];
    pb_sweep_series(&o->varies, r, label, sizeof label);
    int id = pb_sweep_series_id(o, label);
    if (!id) {
        errno = ENOMEM;
        return -1;
    }
    pb_sweep_write_main(o, r, id, label);
    pb_sweep_write_util(o, r);
    return 0;
}

int pb_sweep_out_pair(pb_sweep_out *o, const pb_sweep_pair *pr)
{
    const pb_sweep_row *r = pr->label;
    const pb_value v[PB_PAIRS_NCOLS] = {
        [PB_PAIRS_run_id].s = o->run->run_id, [PB_PAIRS_host].s = o->run->host, [PB_PAIRS_model].s = r->model,
        [PB_PAIRS_format].s = r->format, [PB_PAIRS_policy].s = r->policy, [PB_PAIRS_schedule].s = r->schedule,
        [PB_PAIRS_glue].s = r->glue, [PB_PAIRS_threads].i = r->threads, [PB_PAIRS_cpuset].s = r->cpuset,
        [PB_PAIRS_batch].i = r->batch, [PB_PAIRS_context].i = r->context, [PB_PAIRS_kv_type].s = r->kv_type,
        [PB_PAIRS_round].i = pr->round, [PB_PAIRS_slot].i = pr->slot, [PB_PAIRS_ms_per_token].d = pr->ms,
        [PB_PAIRS_steal_pct].d = pr->steal_pct, [PB_PAIRS_set_aside].i = pr->aside, [PB_PAIRS_moved].i = pr->moved,
        [PB_PAIRS_stopped].s = pr->stopped,
    };
    pb_csv_values(o->pairs, pb_schema_get(PB_K_PAIRS), v);
    return 0;
}

void pb_sweep_out_free(pb_sweep_out *o)
{
    free(o->label);
    o->label = NULL;
    o->nlabels = o->cap = 0;
}
