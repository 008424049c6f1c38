/* bench_memory_floor — the streaming read floor: GB/s of a buffer far larger than the last-level cache, read
 * by 1..N pinned threads of one spin pool (first-touched by the same threads), for every read kernel the CPU
 * has; copy and write figures beside it, never mixed into the floor. The floor (the best read kernel's best
 * pass at each thread count) becomes a per-token floor for every model preset and weight format. The
 * cache-line round trip between the first two cpus, before and after each thread count, tags every figure
 * near or far: on shared VMs the vCPUs move, and two threads read twice as fast on two chiplets. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_cli.h"
#include "pb_csv.h"
#include "pb_harness.h"
#include "pb_schema.h"
#include "pb_membuf.h"
#include "pb_memfloor.h"
#include "pb_memread.h"
#include "pb_model.h"
#include "pb_pingpong.h"
#include "pb_time.h"
#include "pb_tuning.h"

#define PROG "bench_memory_floor"
#define MF_MAX_KERNS 32
#define RT_BATCHES 11
#define RT_ITERS 20000

/* The formats a per-token floor is given for (f32 is no decode format anyone ships). */
static const kern_format mf_formats[] = { KERN_F16, KERN_Q8_0, KERN_Q4_0, KERN_Q1_0, KERN_TQ2_0 };
#define MF_NFORMATS (sizeof mf_formats / sizeof *mf_formats)

typedef struct mf_opts {
    pb_list threads, kernels;
    const char *cpus;
    long size_mib, passes;
    bool quick, no_thp;
    const char *out, *run_dir;
} mf_opts;

/* One measured point (one CSV row of memory_floor.csv). */
typedef struct mf_row {
    pb_mf_point pt;
    uint64_t thp_bytes;
    double rt_before, rt_after;
    char placement[8];
    char cpus[256];
} mf_row;

/* The floor at one thread count: the best read kernel's best pass. */
typedef struct mf_floor {
    int threads;
    double gbps;
    const pb_memkern *kern;
    char placement[8];
} mf_floor;

/* One row of token_floor.csv. */
typedef struct mf_token {
    const pb_model *model;
    kern_format format;
    uint64_t weight_bytes;
    const mf_floor *floor;
    double ms_per_token, tok_per_s;
} mf_token;

typedef struct mf_run {
    mf_opts o;
    const char *kern_names[MF_MAX_KERNS + 1]; /* the table's names: --kernel's choices */
    const pb_memkern *kerns[MF_MAX_KERNS];   /* selected, in table order (reads, copies, writes) */
    int nkerns;
    pb_cpulist set;     /* --cpus, in logical order; placements are taken from it */
    uint64_t size_mib;
    uint64_t llc_bytes; /* what the default size was computed from */
    mf_row *rows;
    int nrows;
    mf_floor floors[PB_LIST_MAX];
    int nfloors;
    mf_token *tokens;
    int ntokens;
    bool invalid;
    pb_harness h;
    pb_csv *csv, *token_csv; /* memory_floor.csv (a block's rows as the block ends), token_floor.csv */
    pb_mf_ctx ctx; /* the thread count being measured (64 KiB of per-thread slots: not for the stack) */
} mf_run;

/* ---------------------------------------------------------------- options and checks (before any work) */

static int mf_parse(mf_run *r, int argc, char **argv)
{
    mf_opts *o = &r->o;
    for (int i = 0; i < pb_memkern_count() && i < MF_MAX_KERNS; i++)
        r->kern_names[i] = pb_memkerns[i].name;
    const pb_opt opts[] = {
        { .name = "threads", .kind = PB_OPT_LIST, .dest = &o->threads, .min = 1, .max = POOL_MAX_THREADS,
          .metavar = "LIST", .help = "thread counts, e.g. 1,2,4 or 1-8", .dflt = "1..the cpus in --cpus" },
        { .name = "cpus", .kind = PB_OPT_STRING, .dest = &o->cpus, .metavar = "SET",
          .help = "where threads run: all, physical, p, e, p+e, numa:N, or OS cpu ids (0-3,8)", .dflt = "all" },
        { .name = "kernel", .kind = PB_OPT_CHOICES, .dest = &o->kernels, .choices = r->kern_names,
          .metavar = "LIST", .help = "kernels to run (read, then copy-*, write-*)", .dflt = "all this CPU has" },
        { .name = "size", .kind = PB_OPT_INT, .dest = &o->size_mib, .min = 1, .max = 1L << 24, .metavar = "MiB",
          .help = "buffer size (at most half of MemAvailable)", .dflt = "max(768, 8 x last-level cache; 2 x with --quick)" },
        { .name = "passes", .kind = PB_OPT_INT, .dest = &o->passes, .min = 10, .max = 100000, .metavar = "N",
          .help = "timed passes per point, after one untimed warm-up", .dflt = "20 (10 with --quick)" },
        { .name = "no-thp", .kind = PB_OPT_FLAG, .dest = &o->no_thp,
          .help = "do not ask for transparent huge pages (madvise)" },
        PB_OPT_QUICK(&o->quick, "a short run (CI): 10 passes, a buffer of max(768 MiB, 2 x LLC)"),
        PB_OPT_OUT(&o->out),
        PB_OPT_RUN_DIR(&o->run_dir),
        { 0 },
    };
    const pb_cli cli = { .prog = PROG, .opts = opts,
                         .summary = "Streaming read bandwidth of a buffer far larger than the last-level cache, per\n"
                                    "thread count and kernel, with the round trip that says where the threads ran;\n"
                                    "the floor it sets per decode token for every model preset and format." };
    if (pb_harness_parse(&r->h, &cli, argc, argv, NULL) != 0)
        return -1;
    return pb_harness_begin(&r->h, PROG, o->out, o->run_dir);
}

static int mf_cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static int mf_pick_kernels(mf_run *r)
{
    pb_list *k = &r->o.kernels;
    bool all = k->n == 0 || k->n == pb_memkern_count(); /* none given, or "all": every kernel this CPU has */
    if (all) {
        k->n = 0;
        for (int i = 0; i < pb_memkern_count(); i++)
            k->v[k->n++] = i;
    }
    qsort(k->v, (size_t)k->n, sizeof *k->v, mf_cmp_long);
    for (int i = 0; i < k->n && r->nkerns < MF_MAX_KERNS; i++) {
        const pb_memkern *kern = &pb_memkerns[k->v[i]];
        if (pb_memkern_supported(kern))
            r->kerns[r->nkerns++] = kern;
        else if (!all)
            return pb_harness_refusef(&r->h, "--kernel %s: this CPU lacks %s (kernels it has: run with --help, or "
                                      "leave --kernel out)", kern->name, kern_isa_needs(kern->isa));
    }
    return 0;
}

/* The last-level cache one thread's reads can hit: the largest instance above any kind's first PU. Not the
 * sum over instances: VMs often report the host's whole L3 once per vCPU (here hwloc sees 2 x 508 MB on a
 * chiplet of 32 MiB), and a sum would double what is already too large. */
static uint64_t mf_llc_bytes(const pb_topo *t)
{
    if (t->ncaches == 0)
        return 0;
    const pb_topo_cache *c = &t->cache[t->ncaches - 1];
    uint64_t most = 0;
    for (int k = 0; k < PB_MAX_KINDS; k++)
        most = c->bytes[k] > most ? c->bytes[k] : most;
    return most ? most : c->total_bytes / (uint64_t)(c->instances > 0 ? c->instances : 1);
}

static int mf_check(mf_run *r, const pb_topo *topo)
{
    mf_opts *o = &r->o;
    char err[512];
    if (pb_topo_set(topo, o->cpus ? o->cpus : "all", &r->set, err, sizeof err) != 0)
        return pb_harness_refuse_opt(&r->h, "cpus", o->cpus, "%s", err);
    if (o->threads.n == 0)
        for (int t = 1; t <= r->set.n && o->threads.n < PB_LIST_MAX; t++)
            o->threads.v[o->threads.n++] = t;
    for (int i = 0; i < o->threads.n; i++)
        if (o->threads.v[i] > r->set.n)
            return pb_harness_refuse_opt(&r->h, "threads", o->threads.text,
                                         "%ld: the cpu set '%s' has %d cpus; accepted: 1..%d (one thread per cpu)",
                                         o->threads.v[i], o->cpus ? o->cpus : "all", r->set.n, r->set.n);
    if (mf_pick_kernels(r) != 0)
        return -1;
    uint64_t llc = r->llc_bytes = mf_llc_bytes(topo);
    r->size_mib = o->size_mib ? (uint64_t)o->size_mib : pb_mf_default_mib(llc, o->quick);
    uint64_t avail;
    if (pb_mem_available(&avail) == 0) {
        if (pb_mf_check_size(r->size_mib, avail, err, sizeof err) != 0)
            return pb_harness_refusef(&r->h, "%s", err);
    } else {
        fprintf(stderr, PROG ": warning: MemAvailable unreadable; the buffer size is not checked\n");
    }
    if (llc && (r->size_mib << 20) < PB_BUFFER_MIN_LLC_FACTOR * llc)
        fprintf(stderr, PROG ": warning: a %llu MiB buffer is less than " PB_STR(PB_BUFFER_MIN_LLC_FACTOR) "x the last-level cache (%llu MiB): "
                        "this measures the cache, not memory\n",
                (unsigned long long)r->size_mib, (unsigned long long)(llc >> 20));
    if (o->passes == 0)
        o->passes = o->quick ? 10 : 20;
    return 0;
}

/* ---------------------------------------------------------------- measuring */

static double mf_roundtrip(const mf_run *r)
{
    pb_rt rt;
    if (r->set.n < 2 || pb_pingpong(r->set.cpu[0], r->set.cpu[1], RT_BATCHES, r->o.quick ? RT_ITERS / 4 : RT_ITERS,
                                    &rt) != 0)
        return NAN;
    return rt.ns_batch_mean;
}

static const char *mf_placement(double before, double after)
{
    const char *a = pb_placement(before), *b = pb_placement(after);
    return strcmp(a, b) == 0 ? a : "mixed";
}

static void mf_cpus_text(const pb_cpulist *l, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < l->n && at + 12 < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? " " : "", l->cpu[i]);
}

#define MF_HEADER pb_schema_header(PB_K_MEMORY)
#define MF_TOKEN_HEADER pb_schema_header(PB_K_TOKEN)

static double mf_rt(const mf_row *row)
{
    return isnan(row->rt_before) ? row->rt_after : isnan(row->rt_after) ? row->rt_before
                                                                        : (row->rt_before + row->rt_after) / 2;
}

static void mf_write_row(const mf_run *r, const mf_row *row)
{
    const pb_value v[PB_MEMORY_NCOLS] = {
        [PB_MEMORY_run_id].s = r->h.run.run_id, [PB_MEMORY_host].s = r->h.run.host,
        [PB_MEMORY_op].s = pb_memop_name(row->pt.kern->op), [PB_MEMORY_kernel].s = row->pt.kern->name,
        [PB_MEMORY_threads].i = row->pt.threads, [PB_MEMORY_cpus].s = row->cpus, [PB_MEMORY_size_mib].u = r->size_mib,
        [PB_MEMORY_thp_mib].u = row->thp_bytes >> 20, [PB_MEMORY_passes].i = row->pt.passes,
        [PB_MEMORY_gbps_best].d = row->pt.gbps.max, [PB_MEMORY_gbps_median].d = row->pt.gbps.median,
        [PB_MEMORY_gbps_min].d = row->pt.gbps.min, [PB_MEMORY_rt_ns].d = mf_rt(row),
        [PB_MEMORY_placement].s = row->placement,
    };
    pb_csv_values(r->csv, pb_schema_get(PB_K_MEMORY), v);
}

static void mf_write_tokens(const mf_run *r)
{
    for (int i = 0; i < r->ntokens; i++) {
        const mf_token *tk = &r->tokens[i];
        const pb_value v[PB_TOKEN_NCOLS] = {
            [PB_TOKEN_run_id].s = r->h.run.run_id, [PB_TOKEN_host].s = r->h.run.host,
            [PB_TOKEN_model].s = tk->model->name, [PB_TOKEN_format].s = kern_format_get(tk->format)->name,
            [PB_TOKEN_threads].i = tk->floor->threads, [PB_TOKEN_weight_bytes].u = tk->weight_bytes,
            [PB_TOKEN_floor_gbps].d = tk->floor->gbps, [PB_TOKEN_ms_per_token].d = tk->ms_per_token,
            [PB_TOKEN_tok_per_s_ceiling].d = tk->tok_per_s, [PB_TOKEN_floor_kernel].s = tk->floor->kern->name,
            [PB_TOKEN_placement].s = tk->floor->placement,
        };
        pb_csv_values(r->token_csv, pb_schema_get(PB_K_TOKEN), v);
    }
}

/* One thread count: a pool pinned to the placement, a fresh buffer first-touched by it, every kernel. 0, or -1
 * after pb_harness_fail (the block's rows measured before the failure are written all the same). */
static int mf_block(mf_run *r, int threads, int *done, int total, uint64_t t0)
{
    char err[256];
    pb_cpulist place;
    if (pb_topo_place(r->h.topo, &r->set, threads, &place, err, sizeof err) != 0)
        return pb_harness_fail(&r->h, "placing %d threads: %s", threads, err);
    double before = mf_roundtrip(r);
    pool_config cfg = pool_config_default();
    cfg.threads = threads;
    cfg.policy = POOL_SPIN;
    cfg.cpus = place.cpu;
    pool *p = pool_create_bound(&cfg); /* the caller on cpus[0] until pool_destroy */
    pb_membuf buf;
    size_t bytes = (size_t)r->size_mib << 20;
    if (!p || pb_membuf_map(&buf, bytes, !r->o.no_thp) != 0) {
        pb_harness_fail(&r->h, "%d threads: %s: %s", threads, p ? "mapping the buffer" : "pool_create",
                        strerror(errno));
        if (p)
            pool_destroy(p);
        return -1;
    }
    pb_mf_ctx *ctx = &r->ctx;
    pb_mf_init(ctx, p, buf.p, bytes);
    pb_mf_touch(ctx);
    uint64_t thp = 0;
    if (pb_thp_bytes((uintptr_t)buf.p, (uintptr_t)buf.p + bytes, &thp) != 0)
        thp = 0;
    fprintf(stderr, "\r%d threads: first touch of %llu MiB in %.2f s (%.1f GB/s), %llu MiB in huge pages%20s\n",
            threads, (unsigned long long)r->size_mib, ctx->touch_s, (double)bytes / ctx->touch_s / 1e9,
            (unsigned long long)(thp >> 20), "");
    int first = r->nrows;
    for (int k = 0; k < r->nkerns && !pb_stop_signal(); k++) {
        pb_progress(*done, total, t0, "%-16s threads=%-3d", r->kerns[k]->name, threads);
        mf_row *row = &r->rows[r->nrows];
        memset(row, 0, sizeof *row);
        if (pb_mf_measure(ctx, r->kerns[k], (int)r->o.passes, &row->pt) != 0) {
            pb_harness_fail(&r->h, "%s with %d threads: %s", r->kerns[k]->name, threads, strerror(errno));
            break;
        }
        r->nrows++;
        row->thp_bytes = thp;
        mf_cpus_text(&place, row->cpus, sizeof row->cpus);
        if (!row->pt.valid) {
            fprintf(stderr, "\n" PROG ": %s with %d threads: a pass's byte sum differs from the buffer's: "
                            "the kernel did not read (or write) every byte\n", r->kerns[k]->name, threads);
            r->invalid = true;
        }
        (*done)++;
    }
    pb_membuf_unmap(&buf);
    pool_destroy(p);
    double after = mf_roundtrip(r);
    for (int i = first; i < r->nrows; i++) {
        r->rows[i].rt_before = before;
        r->rows[i].rt_after = after;
        snprintf(r->rows[i].placement, sizeof r->rows[i].placement, "%s", mf_placement(before, after));
        mf_write_row(r, &r->rows[i]); /* the round trip after the block completes a row: written now */
    }
    return r->h.failure[0] ? -1 : 0;
}

/* The floor per thread count (best read kernel, best pass), then the token floors it sets. 0, or -1 after
 * pb_harness_fail. */
static int mf_derive(mf_run *r)
{
    for (int t = 0; t < r->o.threads.n; t++) {
        mf_floor *f = &r->floors[r->nfloors];
        *f = (mf_floor){ .threads = (int)r->o.threads.v[t], .gbps = 0 };
        for (int i = 0; i < r->nrows; i++) {
            const mf_row *row = &r->rows[i];
            if (row->pt.kern->op == PB_MEMOP_READ && row->pt.threads == f->threads && row->pt.gbps.max > f->gbps) {
                f->gbps = row->pt.gbps.max;
                f->kern = row->pt.kern;
                snprintf(f->placement, sizeof f->placement, "%s", row->placement);
            }
        }
        if (f->kern)
            r->nfloors++;
    }
    r->tokens = calloc((size_t)PB_MODEL_COUNT * MF_NFORMATS * (size_t)(r->nfloors ? r->nfloors : 1), sizeof *r->tokens);
    if (!r->tokens)
        return pb_harness_fail(&r->h, "the token floors: %s", strerror(errno));
    for (int m = 0; m < PB_MODEL_COUNT; m++)
        for (size_t f = 0; f < MF_NFORMATS; f++)
            for (int t = 0; t < r->nfloors; t++) {
                mf_token *tk = &r->tokens[r->ntokens++];
                tk->model = pb_model_get((pb_model_id)m);
                tk->format = mf_formats[f];
                tk->weight_bytes = pb_model_token_bytes(tk->model, tk->format);
                tk->floor = &r->floors[t];
                tk->ms_per_token = (double)tk->weight_bytes / (tk->floor->gbps * 1e9) * 1e3;
                tk->tok_per_s = 1e3 / tk->ms_per_token;
            }
    return 0;
}

/* ---------------------------------------------------------------- reporting */

static bool mf_is_floor(const mf_run *r, const mf_row *row)
{
    for (int t = 0; t < r->nfloors; t++)
        if (r->floors[t].threads == row->pt.threads && r->floors[t].kern == row->pt.kern)
            return true;
    return false;
}

static void mf_print(const mf_run *r)
{
    printf("\nbuffer %llu MiB, %ld timed passes per point after one warm-up; GB/s = 1e9 B/s (copy counts read + "
           "write)\n\n",
           (unsigned long long)r->size_mib, r->o.passes);
    if (r->llc_bytes && (r->size_mib << 20) < PB_BUFFER_MIN_LLC_FACTOR * r->llc_bytes)
        printf("WARNING: the buffer is less than " PB_STR(PB_BUFFER_MIN_LLC_FACTOR) "x the last-level cache (%llu MiB): these are cache figures, not a memory floor\n\n",
               (unsigned long long)(r->llc_bytes >> 20));
    printf("%-6s %-16s %3s %-12s %9s %9s %9s %8s %8s %-6s\n", "op", "kernel", "thr", "cpus", "best", "median", "min",
           "thp_MiB", "rt_ns", "place");
    for (int i = 0; i < r->nrows; i++) {
        const mf_row *row = &r->rows[i];
        printf("%-6s %-16s %3d %-12s %9.2f %9.2f %9.2f %8llu %8.1f %-6s%s%s\n", pb_memop_name(row->pt.kern->op),
               row->pt.kern->name, row->pt.threads, row->cpus, row->pt.gbps.max, row->pt.gbps.median,
               row->pt.gbps.min, (unsigned long long)(row->thp_bytes >> 20), mf_rt(row), row->placement,
               mf_is_floor(r, row) ? "  <- floor" : "",
               row->pt.gbps.spread > PB_NOISY_SPREAD ? PB_NOISY_NOTE : "");
    }
    printf("\nread floor (best read kernel, best pass):\n");
    for (int t = 0; t < r->nfloors; t++)
        printf("  %3d threads: %7.2f GB/s  %-10s %s\n", r->floors[t].threads, r->floors[t].gbps,
               r->floors[t].kern->name, r->floors[t].placement);
    printf("\nper-token floor: weight bytes per token / read floor -> ms per token (tok/s ceiling)\n%-11s %-6s %9s",
           "model", "format", "MB/token");
    for (int t = 0; t < r->nfloors; t++)
        printf("  %7s%-3d %8s", "thr=", r->floors[t].threads, "");
    printf("\n");
    for (int i = 0; i < r->ntokens; i += r->nfloors) {
        const mf_token *tk = &r->tokens[i];
        printf("%-11s %-6s %9.1f", tk->model->name, kern_format_get(tk->format)->name, (double)tk->weight_bytes / 1e6);
        for (int t = 0; t < r->nfloors; t++)
            printf("  %7.2f ms (%6.1f)", tk[t].ms_per_token, tk[t].tok_per_s);
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    static mf_run r;
    if (mf_parse(&r, argc, argv) != 0 || mf_check(&r, r.h.topo) != 0 || pb_harness_open(&r.h) != 0 ||
        !(r.csv = pb_harness_csv(&r.h, "memory_floor.csv", MF_HEADER)) ||
        !(r.token_csv = pb_harness_csv(&r.h, "token_floor.csv", MF_TOKEN_HEADER)))
        return pb_harness_refused(&r.h);

    r.rows = calloc((size_t)r.o.threads.n * (size_t)r.nkerns, sizeof *r.rows);
    if (!r.rows)
        pb_harness_fail(&r.h, "the rows: %s", strerror(errno));
    int total = r.o.threads.n * r.nkerns, done = 0;
    uint64_t t0 = pb_now_ns();
    for (int t = 0; t < r.o.threads.n && pb_harness_going(&r.h); t++)
        mf_block(&r, (int)r.o.threads.v[t], &done, total, t0);
    pb_progress_done(r.nrows, "points", t0);
    if (r.invalid) {
        pb_harness_drop_csv(&r.h, r.csv);
        pb_harness_drop_csv(&r.h, r.token_csv);
        fprintf(stderr, PROG ": validation failed: no results written\n");
        return 1;
    }
    if (mf_derive(&r) == 0) /* from the blocks measured, whatever stopped the loop */
        mf_write_tokens(&r);
    mf_print(&r);
    static const char *const plots[] = { "memory_floor.png", "token_floor.png", NULL };
    int rc = pb_harness_close(&r.h, "memory_floor.gp", plots);
    free(r.rows);
    free(r.tokens);
    return rc;
}
