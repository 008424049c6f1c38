/* pb_sweep_run.c — see pb_sweep_run.h (the plan it walks: pb_sweep_plan.c; a block's floors: pb_sweep_block.c;
 * a point: pb_sweep_point.c; the interleaved rounds: pb_sweep_rounds.c). */
#include "pb_sweep_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_decode_load.h"
#include "pb_err.h"
#include "pb_progress.h"
#include "pb_stop.h"
#include "pb_sweep_point.h"
#include "pb_sweep_rounds.h"
#include "pb_time.h"
#include "pb_weight_format.h"

/* The points' KV cache: b's context and type, filled by a spin pool on the block's cpus (first-touched where the
 * points read it). */
static int sw_depth(const pb_sweep_block *b, pb_decode *d, char *err, size_t errlen)
{
    pb_exec ex;
    if (pb_exec_open(&ex, PB_EXEC_SPIN, b->held->n, b->held->cpu, 0, 0) != 0)
        return pb_errf(err, errlen, "KV cache filler: %s", strerror(errno));
    int rc = pb_decode_set_context(d, b->context, b->kv, &ex);
    pb_exec_close(&ex);
    return rc == 0 ? 0 : pb_errf(err, errlen, "a KV cache of %zu positions (%s): %s", b->context,
                                 pb_kv_type_names[b->kv], strerror(errno));
}

/* What the walk holds open: a format's weights, a block (its own copy of the point's placement: the walk places the
 * next block before the last step's interleaved rounds run), a step's decode at its depth. */
typedef struct sw_walk {
    pb_sweep_point pt;
    pb_cpulist builders, place, held, pair;
    pb_decode_weights w;
    bool have_w, have_d;
    pb_sweep_block b;
    pb_decode d;
} sw_walk;

/* A step: pt's batch of decode rows, or its prompt of that many tokens, over a cache of its depth. */
static int sw_step_open(sw_walk *wk, char *err, size_t errlen)
{
    const pb_sweep_point *pt = &wk->pt;
    pb_sweep_block *b = &wk->b;
    pb_kernel_choice gemm[KERN_FORMAT_COUNT]; /* a prompt's: each format's GEMM tiles where it has them */
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        gemm[f] = b->kernel[f];
        kern_layout l = kern_gemm_layout((kern_format)f, b->kernel[f].isa);
        gemm[f].layout = l != KERN_LAYOUT_FILE ? l : gemm[f].layout;
    }
    b->kv = pt->kv;
    b->context = pt->context;
    if ((pt->prompt ? pb_decode_init_prompt(&wk->d, b->w, gemm, pt->rows)
                    : pb_decode_init_with(&wk->d, b->w, b->kernel, pt->rows)) != 0)
        return pb_errf(err, errlen, "%s with %s, %s %zu: %s", pb_weight_format_name(b->fmt),
                       kern_isa_name(b->kernel[b->w->mfmt[0]].isa), pt->prompt ? "prompt" : "batch", pt->rows,
                       strerror(errno));
    wk->have_d = true;
    return sw_depth(b, &wk->d, err, errlen);
}

/* The step ends: a decode's alternatives interleaved when its points all ran (pairs; a prompt's step is seconds
 * long: its rounds would be few), and its decode freed. */
static int sw_step_close(sw_walk *wk, bool pairs, char *err, size_t errlen)
{
    if (!wk->have_d)
        return 0;
    int rc = pairs && !wk->d.prompt && !pb_stop_signal() ? pb_sweep_rounds_run(&wk->b, &wk->d, err, errlen) : 0;
    pb_decode_free(&wk->d);
    wk->have_d = false;
    return rc;
}

/* A block: the point's placement, the set's round-trip pair, each format's kernel at the thread count (wisdom's at
 * the nearest count it timed), the floor and the compute roof. */
static int sw_block_open(pb_sweep_run *run, sw_walk *wk, char *err, size_t errlen)
{
    const pb_sweep_point *pt = &wk->pt;
    pb_sweep_block *b = &wk->b;
    wk->place = pt->place;
    wk->held = pt->held;
    b->set = pt->set;
    b->oversubscribed = pt->threads > pt->held.n;
    b->capacity = pb_sweep_capacities(&b->p->cores, b->place, b->cap) == 0 ? b->cap : NULL; /* once a block */
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        b->kernel[f] = pb_kernel_choice_for(&b->p->dispatch.kernels, (kern_format)f, pt->threads);
    if (pb_topo_place(b->p->cores.topo, &b->set->cpus, b->set->cpus.n < 2 ? 1 : 2, &wk->pair, err, errlen) != 0 ||
        pb_sweep_block_floor(run, b, err, errlen) != 0)
        return -1;
    pb_sweep_block_roof(run, b);
    return 0;
}

typedef struct sw_build {
    uint64_t t0, last; /* start, and the last line drawn */
    const char *what;
} sw_build;

static void sw_build_progress(void *ctx, uint64_t done, uint64_t total)
{
    /* ctx is the caller's sw_build; called on the caller's thread between dispatches. A terminal gets a redraw
     * twice a second, a log a line every 5 s. */
    sw_build *p = ctx;
    uint64_t now = pb_now_ns(), every = isatty(STDERR_FILENO) ? 500000000ull : 5000000000ull;
    if (done < total && p->last && now - p->last < every)
        return;
    p->last = now;
    pb_status("building %s weights: %5.1f%% of %.2f GiB, %.1f s", p->what, 100.0 * (double)done / (double)total,
              (double)total / (1 << 30), (double)(now - p->t0) / 1e9);
}

/* A format's weights, built (or the model file's loaded) by every cpu of the largest set (first-touched where the
 * points read them); the last format's freed first. */
static int sw_weights(sw_walk *wk, char *err, size_t errlen)
{
    const pb_sweep_plan *p = wk->b.p;
    pb_weight_format fmt = wk->pt.fmt;
    if (wk->have_w)
        pb_decode_weights_free(&wk->w);
    wk->have_w = false;
    pb_exec gen;
    if (pb_exec_open(&gen, PB_EXEC_SPIN, wk->builders.n, wk->builders.cpu, 0, 0) != 0)
        return pb_errf(err, errlen, "weight builder: %s", strerror(errno));
    sw_build pg = { .t0 = pb_now_ns(), .what = p->work.file ? p->work.file->name : pb_weight_format_name(fmt) };
    int rc = p->work.file
                 ? pb_decode_weights_load(&wk->w, p->work.file, p->work.mmap, p->work.seed, &gen, sw_build_progress,
                                          &pg)
                 : pb_weight_format_build(&wk->w, p->work.model, fmt, p->work.seed, &gen, sw_build_progress, &pg);
    pb_exec_close(&gen);
    if (rc != 0)
        return pb_errf(err, errlen, "building %s %s weights: %s", p->work.model->name, pb_weight_format_name(fmt),
                       strerror(errno));
    wk->have_w = true;
    wk->b.fmt = fmt;
    return 0;
}

/* What a point needs open, by the outermost dimension that changed since the last: the last step closed, then a
 * format's weights, a block, a step. */
static int sw_enter(pb_sweep_run *run, sw_walk *wk, char *err, size_t errlen)
{
    int changed = wk->pt.changed;
    int rc = changed <= PB_SWEEP_STEP ? sw_step_close(wk, true, err, errlen) : 0;
    if (rc == 0 && changed == PB_SWEEP_FORMAT)
        rc = sw_weights(wk, err, errlen);
    if (rc == 0 && changed <= PB_SWEEP_THREADS)
        rc = sw_block_open(run, wk, err, errlen);
    if (rc == 0 && changed <= PB_SWEEP_STEP)
        rc = sw_step_open(wk, err, errlen);
    return rc;
}

/* The run's rows and references started, its power counters opened, and the weights' builders placed. NULL, with
 * the reason, when they cannot be. */
static sw_walk *sw_walk_open(pb_sweep_run *run, const pb_sweep_plan *p, char *err, size_t errlen)
{
    run->rows = PB_VEC(pb_sweep_row);
    pb_sweep_roofs_open(&run->roofs);
    pb_sweep_point_refs_open(run);
    run->done = 0;
    run->total = pb_sweep_plan_points(p);
    run->t0 = pb_now_ns();
    char why[256];
    run->power_ok = pb_powercap_open(&run->power, NULL, why, sizeof why) > 0; /* machine.csv says why not */
    sw_walk *wk = calloc(1, sizeof *wk); /* 16 KiB of cpu lists: off the stack */
    if (!wk) {
        pb_errf(err, errlen, "the sweep: %s", strerror(errno));
        return NULL;
    }
    wk->b = (pb_sweep_block){ .p = p, .w = &wk->w, .place = &wk->place, .held = &wk->held, .pair = &wk->pair };
    const pb_cpuset *big = &p->cores.sets->set[pb_cpusets_largest(p->cores.sets)];
    if (pb_topo_place(p->cores.topo, &big->cpus, big->cpus.n, &wk->builders, err, errlen) != 0) {
        free(wk);
        return NULL;
    }
    return wk;
}

int pb_sweep_run_all(pb_sweep_run *run, const pb_sweep_plan *p, char *err, size_t errlen)
{
    sw_walk *wk = sw_walk_open(run, p, err, errlen);
    int rc = wk ? 0 : -1, more = 0;
    while (rc == 0 && !pb_stop_signal() && (more = pb_sweep_next(p, &wk->pt, err, errlen)) != 0) {
        rc = more < 0 ? -1 : sw_enter(run, wk, err, errlen);
        if (rc == 0 && pb_sweep_sched_runs(p, wk->pt.sched, wk->b.place))
            rc = pb_sweep_point_measure(run, &wk->b, &wk->d, &wk->pt, err, errlen);
    }
    if (wk) {
        int end = sw_step_close(wk, rc == 0, err, errlen); /* the last step's rounds */
        rc = rc ? rc : end;
        if (wk->have_w)
            pb_decode_weights_free(&wk->w);
        free(wk);
    }
    pb_progress_done(run->done, "points", run->t0);
    return rc;
}

int pb_sweep_run_unverified(const pb_sweep_run *run)
{
    int n = 0;
    for (size_t i = 0; i < run->rows.n; i++)
        n += !PB_VEC_AT(&run->rows, pb_sweep_row, i)->verified;
    return n;
}

void pb_sweep_run_free(pb_sweep_run *run)
{
    for (size_t i = 0; i < run->rows.n; i++)
        pb_sweep_meas_free(&PB_VEC_AT(&run->rows, pb_sweep_row, i)->m);
    pb_vec_free(&run->rows);
    pb_sweep_roofs_free(&run->roofs);
    pb_sweep_point_refs_free(run);
}
