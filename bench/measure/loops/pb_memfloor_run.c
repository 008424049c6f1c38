/* pb_memfloor_run.c — see pb_memfloor_run.h. */
#include "pb_memfloor_run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_attn.h"
#include "pb_err.h"
#include "pb_membuf.h"
#include "pb_placement.h"
#include "pb_progress.h"
#include "pb_stop.h"
#include "pb_time.h"

#define RT_BATCHES 11
#define RT_ITERS 20000

int pb_memfloor_token_formats(pb_weight_format *out)
{
    int n = 0;
    for (int f = 0; f < PB_WEIGHT_FORMAT_COUNT; f++)
        if (f != KERN_F32) /* f32 is no decode format anyone ships */
            out[n++] = (pb_weight_format)f;
    return n;
}

/* ---------------------------------------------------------------- the plan */

static int mfr_cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int pb_memfloor_run_pick_kernels(pb_memfloor_plan *p, pb_list *k, char *err, size_t errlen)
{
    bool all = k->n == 0 || k->n == pb_memkern_count(); /* none given, or "all": every kernel this CPU has */
    if (all) {
        k->n = 0;
        for (int i = 0; i < pb_memkern_count(); i++)
            k->v[k->n++] = i;
    }
    qsort(k->v, (size_t)k->n, sizeof *k->v, mfr_cmp_long);
    p->nkerns = 0;
    p->kerns_named = !all;
    for (int i = 0; i < k->n && p->nkerns < PB_MEMFLOOR_MAX_KERNS; i++) {
        const pb_memkern *kern = &pb_memkerns[k->v[i]];
        if (pb_memkern_supported(kern))
            p->kerns[p->nkerns++] = kern;
        else if (!all)
            return pb_errf(err, errlen, "--kernel %s: this CPU lacks %s (kernels it has: run with --help, or leave "
                           "--kernel out)", kern->name, kern_isa_needs(kern->isa));
    }
    return 0;
}

uint64_t pb_memfloor_run_llc_bytes(const pb_topo *t)
{
    if (t->ncaches == 0)
        return 0;
    const pb_topo_cache *c = &t->cache[t->ncaches - 1];
    uint64_t most = 0;
    for (int k = 0; k < PB_MAX_KINDS; k++)
        most = c->bytes[k] > most ? c->bytes[k] : most;
    return most ? most : c->total_bytes / (uint64_t)(c->instances > 0 ? c->instances : 1);
}

int pb_memfloor_run_begin(pb_memfloor_run *run, const pb_memfloor_plan *p, char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    run->p = p;
    run->total = p->threads->n * p->nkerns;
    run->t0 = pb_now_ns();
    run->rows = calloc((size_t)p->threads->n * (size_t)p->nkerns, sizeof *run->rows);
    return run->rows ? 0 : pb_errf(err, errlen, "the rows: %s", strerror(errno));
}

/* ---------------------------------------------------------------- a block */

static double mfr_roundtrip(const pb_memfloor_plan *p)
{
    return pb_roundtrip_ns(p->set->cpu[0], p->set->n > 1 ? p->set->cpu[1] : -1, RT_BATCHES,
                           p->quick ? RT_ITERS / 4 : RT_ITERS);
}

/* Every kernel over the touched buffer; a kernel that did not read (or write) every byte makes the run invalid. */
static int mfr_kernels(pb_memfloor_run *run, const pb_cpulist *place, uint64_t thp, char *err, size_t errlen)
{
    const pb_memfloor_plan *p = run->p;
    for (int k = 0; k < p->nkerns && !pb_stop_signal(); k++) {
        pb_progress(run->done, run->total, run->t0, "%-16s threads=%-3d", p->kerns[k]->name, place->n);
        pb_memfloor_row *row = &run->rows[run->nrows];
        memset(row, 0, sizeof *row);
        if (pb_memfloor_measure(&run->ctx, p->kerns[k], p->passes, &row->pt) != 0)
            return pb_errf(err, errlen, "%s with %d threads: %s", p->kerns[k]->name, place->n, strerror(errno));
        run->nrows++;
        row->thp_bytes = thp;
        pb_cpus_text(place->cpu, place->n, place->n, row->cpus, sizeof row->cpus);
        if (!row->pt.valid) {
            fprintf(stderr, "\n%s: %s with %d threads: a pass's byte sum differs from the buffer's: the kernel did "
                            "not read (or write) every byte\n", p->prog, p->kerns[k]->name, place->n);
            run->invalid = true;
        }
        run->done++;
    }
    return 0;
}

/* The pool and the buffer of one block, the buffer first-touched by the pool's threads; its kernels. */
static int mfr_buffer(pb_memfloor_run *run, const pb_cpulist *place, char *err, size_t errlen)
{
    const pb_memfloor_plan *p = run->p;
    pool_config cfg = pool_config_default();
    cfg.threads = place->n;
    cfg.policy = POOL_SPIN;
    cfg.cpus = place->cpu;
    pool *pl = pool_create_bound(&cfg); /* the caller on cpus[0] until pool_destroy */
    pb_membuf buf;
    size_t bytes = (size_t)p->size_mib << 20;
    if (!pl || pb_membuf_map(&buf, bytes, !p->no_thp) != 0) {
        pb_errf(err, errlen, "%d threads: %s: %s", place->n, pl ? "mapping the buffer" : "pool_create",
                strerror(errno));
        if (pl)
            pool_destroy(pl);
        return -1;
    }
    pb_memfloor_init(&run->ctx, pl, buf.p, bytes);
    pb_memfloor_touch(&run->ctx);
    uint64_t thp = 0;
    if (pb_thp_bytes((uintptr_t)buf.p, (uintptr_t)buf.p + bytes, &thp) != 0)
        thp = 0;
    fprintf(stderr, "\r%d threads: first touch of %llu MiB in %.2f s (%.1f GB/s), %llu MiB in huge pages%20s\n",
            place->n, (unsigned long long)p->size_mib, run->ctx.touch_s, (double)bytes / run->ctx.touch_s / 1e9,
            (unsigned long long)(thp >> 20), "");
    int rc = mfr_kernels(run, place, thp, err, errlen);
    pb_membuf_unmap(&buf);
    pool_destroy(pl);
    return rc;
}

int pb_memfloor_run_block(pb_memfloor_run *run, int threads, char *err, size_t errlen)
{
    const pb_memfloor_plan *p = run->p;
    char why[256];
    pb_cpulist place;
    if (pb_topo_place(p->topo, p->set, threads, &place, why, sizeof why) != 0)
        return pb_errf(err, errlen, "placing %d threads: %s", threads, why);
    double before = mfr_roundtrip(p);
    int first = run->nrows;
    int rc = mfr_buffer(run, &place, err, errlen);
    double after = mfr_roundtrip(p);
    for (int i = first; i < run->nrows; i++) { /* the round trip after the block completes its rows */
        run->rows[i].rt_before = before;
        run->rows[i].rt_after = after;
        snprintf(run->rows[i].placement, sizeof run->rows[i].placement, "%s",
                 pb_placement_block(p->where, p->set->cpu[0], p->set->n > 1 ? p->set->cpu[1] : -1, before, after));
    }
    return rc;
}

/* ---------------------------------------------------------------- floors */

/* The floor at one thread count: the best pass of any read kernel. */
static bool mfr_floor(const pb_memfloor_run *run, int threads, pb_memfloor_floor *f)
{
    *f = (pb_memfloor_floor){ .threads = threads, .gbps = 0 };
    for (int i = 0; i < run->nrows; i++) {
        const pb_memfloor_row *row = &run->rows[i];
        if (row->pt.kern->op == PB_MEMOP_READ && row->pt.threads == threads && row->pt.gbps.max > f->gbps) {
            f->gbps = row->pt.gbps.max;
            f->kern = row->pt.kern;
            snprintf(f->placement, sizeof f->placement, "%s", row->placement);
        }
    }
    return f->kern != NULL;
}

/* One model and format at every context and floor: a token reads the weights and the f16 cache at its depth. */
static void mfr_tokens(pb_memfloor_run *run, const pb_model *m, pb_weight_format format, const char *name,
                       uint64_t bytes)
{
    static const long zero = 0;
    const pb_list *ctx = run->p->contexts;
    for (int c = 0; c < (ctx ? ctx->n : 1); c++)
        for (int t = 0; t < run->nfloors; t++) {
            pb_memfloor_token *tk = &run->tokens[run->ntokens++];
            *tk = (pb_memfloor_token){ .model = m, .format = format, .format_name = name, .weight_bytes = bytes,
                                  .context = (int)(ctx ? ctx->v[c] : zero), .floor = &run->floors[t] };
            tk->kv_bytes = pb_kv_bytes(m, PB_KV_F16, 1, (size_t)tk->context);
            tk->ms_per_token = (double)(tk->weight_bytes + tk->kv_bytes) / (tk->floor->gbps * 1e9) * 1e3;
            tk->tok_per_s = 1e3 / tk->ms_per_token;
        }
}

int pb_memfloor_run_derive(pb_memfloor_run *run, char *err, size_t errlen)
{
    for (int t = 0; t < run->p->threads->n; t++)
        run->nfloors += mfr_floor(run, (int)run->p->threads->v[t], &run->floors[run->nfloors]);
    pb_weight_format fmts[PB_WEIGHT_FORMAT_COUNT];
    int nfmts = pb_memfloor_token_formats(fmts);
    size_t models = (size_t)PB_MODEL_COUNT * (size_t)nfmts + (run->p->file != NULL);
    size_t n = models * (size_t)(run->p->contexts ? run->p->contexts->n : 1) * (size_t)(run->nfloors ? run->nfloors : 1);
    run->tokens = calloc(n, sizeof *run->tokens);
    if (!run->tokens)
        return pb_errf(err, errlen, "the token floors: %s", strerror(errno));
    for (int m = 0; m < PB_MODEL_COUNT; m++)
        for (int f = 0; f < nfmts; f++) {
            const pb_model *model = pb_model_get((pb_model_id)m);
            mfr_tokens(run, model, fmts[f], pb_weight_format_name(fmts[f]),
                       pb_weight_format_token_bytes(model, fmts[f]));
        }
    if (run->p->file)
        mfr_tokens(run, &run->p->file->shape, run->p->file->fmt[0], pb_model_file_format(run->p->file),
                   run->p->file->weight_bytes);
    return 0;
}

bool pb_memfloor_run_is_floor(const pb_memfloor_run *run, const pb_memfloor_row *row)
{
    for (int t = 0; t < run->nfloors; t++)
        if (run->floors[t].threads == row->pt.threads && run->floors[t].kern == row->pt.kern)
            return true;
    return false;
}

void pb_memfloor_run_free(pb_memfloor_run *run)
{
    free(run->rows);
    free(run->tokens);
    run->rows = NULL;
    run->tokens = NULL;
}
