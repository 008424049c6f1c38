/* pb_sweep_block.c — see pb_sweep_block.h. */
#include "pb_sweep_block.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_err.h"
#include "pb_placement.h"
#include "pb_progress.h"
#include "pb_roof.h"
#include "pb_weight_format.h"

#define RT_BATCHES 7

int pb_sweep_block_floor_of(const pb_sweep_block *b, const pb_decode *d, const char *only, pb_decode_floor *out,
                            char *err, size_t errlen)
{
    char why[512];
    pb_exec fl;
    int n = b->held->n;
    pb_memspan arena = { .p = b->w->arena, .bytes = (size_t)b->w->bytes };
    int nspans = 1;
    const pb_memspan *spans = d ? pb_decode_read_spans(d, &nspans) : &arena;
    if (pb_exec_open(&fl, PB_EXEC_SPIN, n, b->held->cpu, 0, 0) != 0)
        return pb_errf(err, errlen, "read floor at %d threads: %s", n, strerror(errno));
    int rc = pb_decode_floor_measure(fl.p, spans, nspans, b->p->timing.floor_passes, only, out, why, sizeof why);
    pb_exec_close(&fl);
    return rc == 0 ? 0 : pb_errf(err, errlen, "read floor at %d threads: %s", n, why);
}

static void blk_noop(void *ctx, int id, int n)
{
    (void)ctx;
    (void)id;
    (void)n;
}

/* A spin pool pinned like the point, its workers already running (one empty dispatch first, so that no pass
 * waits for a thread to start), or NULL. */
static pool *blk_spin_pool(const pb_cpulist *place)
{
    pool_config cfg = pool_config_default();
    cfg.threads = place->n;
    cfg.policy = POOL_SPIN;
    cfg.cpus = place->cpu;
    pool *p = pool_create_bound(&cfg); /* inside the point's binding, to the same cpu */
    if (p)
        pool_run(p, blk_noop, NULL);
    return p;
}

void pb_sweep_block_live_pass(void *ctx)
{
    pb_sweep_live *lv = ctx;
    if (lv->own) {
        pb_decode_floor_live_pass(&lv->fl, lv->own);
        return;
    }
    pool *p = blk_spin_pool(lv->place);
    if (p) {
        pb_decode_floor_live_pass(&lv->fl, p);
        pool_destroy(p);
    }
}

bool pb_sweep_block_live_open(pb_sweep_live *lv, const pb_sweep_block *b, const pb_decode *d, pool *own)
{
    *lv = (pb_sweep_live){ .place = b->place, .own = own };
    pool *first = own ? own : blk_spin_pool(b->place);
    char err[512];
    snprintf(err, sizeof err, "no spin pool: %s", strerror(errno));
    int nspans;
    const pb_memspan *spans = pb_decode_read_spans(d, &nspans);
    int tokens = pb_sweep_tokens(&b->p->timing, d->prompt);
    int rc = first ? pb_decode_floor_live_open(&lv->fl, first, spans, nspans, b->floor.kernel, tokens, err,
                                               sizeof err)
                   : -1;
    if (first && !own)
        pool_destroy(first);
    if (rc != 0)
        fprintf(stderr, "\n%s: interleaved floor: %s; the block's floor instead\n", b->p->sink.prog, err);
    return rc == 0;
}

int pb_sweep_block_floor(pb_sweep_run *run, pb_sweep_block *b, char *err, size_t errlen)
{
    char why[512];
    const char *dir = b->p->timing.run_dir;
    int rc = dir ? pb_decode_floor_from_csv(dir, b->held->cpu, b->held->n, &b->floor, why, sizeof why) : 1;
    if (rc < 0)
        fprintf(stderr, "\n%s: %s; measuring the floor instead\n", b->p->sink.prog, why);
    if (rc == 0)
        return 0;
    pb_status("[%d/%d] read floor: %s threads=%d cpus=%s", run->done + 1, run->total, pb_weight_format_name(b->fmt),
              b->place->n, b->set->name);
    return pb_sweep_block_floor_of(b, NULL, NULL, &b->floor, err, errlen);
}

void pb_sweep_block_roof(pb_sweep_run *run, pb_sweep_block *b)
{
    kern_format f = b->w->mfmt[0];
    kern_peak_op op = f == KERN_F32 || f == KERN_F16 ? KERN_PEAK_F32 : KERN_PEAK_INT8;
    pb_roof_point pt;
    char why[256];
    pb_status("[%d/%d] compute roof: %s %s threads=%d cpus=%s", run->done + 1, run->total,
              kern_isa_name(kern_isa_chosen()), kern_peak_op_names[op], b->held->n, b->set->name);
    b->roof_gmacs = NAN;
    if (pb_roof_measure(kern_isa_chosen(), op, b->held->cpu, b->held->n, &pt, why, sizeof why) != 0) {
        fprintf(stderr, "\n%s: compute roof at %d threads: %s; the budgets take the floor as their bound\n",
                b->p->sink.prog, b->held->n, why);
        return;
    }
    b->roof_gmacs = pb_roof_bound(&pt);
    double csv;
    const char *dir = b->p->timing.run_dir;
    int rc = dir ? pb_roof_from_csv(dir, kern_isa_chosen(), op, b->held->cpu, b->held->n, &csv, why, sizeof why) : 1;
    if (rc < 0)
        fprintf(stderr, "\n%s: %s; the roof measured now stands alone\n", b->p->sink.prog, why);
    if (rc == 0 && csv > b->roof_gmacs)
        b->roof_gmacs = csv;
    b->roof_gmacs = pb_sweep_roofs_best(&run->roofs, b->set, b->held->n, (int)op, b->roof_gmacs);
}

double pb_sweep_block_roundtrip(const pb_sweep_block *b)
{
    const pb_cpulist *pair = b->pair;
    return pb_roundtrip_ns(pair->cpu[0], pair->n > 1 ? pair->cpu[1] : -1, RT_BATCHES,
                           b->p->timing.quick ? PB_SWEEP_RT_ITERS / 4 : PB_SWEEP_RT_ITERS);
}
