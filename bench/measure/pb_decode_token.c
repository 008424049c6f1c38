/* pb_decode_token.c — see pb_decode.h: a token's run (pb_decode_token): the matvec jobs with their fused glue,
 * the steps that dispatch several at once or split by head with attention, and the serial glue between them. */
#include "pb_decode.h"
#include "pb_decode_impl.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pb_glue.h"
#include "pb_time.h"

static void pb_fused_rows(void *ctx, size_t r0, size_t r1)
{
    /* ctx is one of d->jobs, alive as long as d; threads get disjoint row ranges, so they write
     * disjoint slices of y and (r0, r1 whole activation blocks: pb_exec_rows_grain) disjoint blocks of next. */
    const pb_fused *f = ctx;
    kern_job_rows((void *)&f->job, r0, r1); /* void * for pool_rows_fn's sake: kern_job_rows only reads the job */
    size_t batch = f->job.act->batch, ld = f->job.ldy;
    if (f->gate)
        for (size_t m = 0; m < batch; m++)
            pb_silu_mul(f->job.y + m * ld + r0, f->gate + m * ld + r0, f->job.y + m * ld + r0, r1 - r0);
    /* Cannot fail: pb_mv checked the batch, and r0, r1 are multiples of the block (the last one is rows, a
     * multiple since next's kern_act_init accepted cols = rows). */
    if (f->next)
        (void)kern_act_set_cols(f->next, f->job.y, batch, r0, r1);
}

/* Job i: matvec i from its activation into y, with gate and next as in pb_fused (NULL: none). Its rows are
 * split in whole blocks of the activation it fills when it fills one (fused glue), else row by row: a grain
 * the job does not need only starves threads, as a K-quant's 256-row block did to k, v, o and down (1024 rows,
 * 4 units) at 8 and more threads. */
static void pb_job(pb_decode *d, int i, float *y, const float *gate, kern_act *next)
{
    const pb_decode_weights *w = d->w;
    size_t grain = next ? kern_act_block(next->fmt) : 1;
    const pb_kernel_choice *k = &d->kernel[w->mfmt[i]];
    size_t group = (size_t)kern_layout_get(k->layout)->rows; /* a thread's rows in whole groups (powers of 2) */
    d->jobs[i] = (pb_fused){ .job = { .fmt = w->mfmt[i], .isa = k->isa,
                                      .w = pb_decode_matrix(d, i),
                                      .rows = (size_t)w->mv[i].rows, .act = pb_decode_act(d, i), .y = y,
                                      .ldy = (size_t)w->mv[i].rows, .cached = !k->prefetch, .layout = k->layout },
                             .gate = gate, .next = next, .grain = grain > group ? grain : group };
}

/* Units u0..u1 of a step: of each of its jobs in order, rows [u0 C / U, u1 C / U) of its grains (C its grains, U
 * the step's units), so every thread takes the same share of each matrix whatever their formats, and gate and up
 * (equal rows and grains) the same rows. Its jobs' rows split as pb_fused_rows needs (whole grains, the last one
 * cut at the rows), so what each writes is as disjoint as in a job's own dispatch. */
static void pb_step_units(const pb_step *s, size_t u0, size_t u1)
{
    for (int i = 0; i < s->n; i++) {
        const pb_fused *f = &s->d->jobs[s->first + i];
        size_t r0 = u0 * s->grains[i] / s->units * s->grain[i], r1 = u1 * s->grains[i] / s->units * s->grain[i];
        r1 = r1 < f->job.rows ? r1 : f->job.rows;
        if (r0 < r1)
            pb_fused_rows((void *)f, r0, r1); /* void * for pool_rows_fn's sake: pb_fused_rows only reads it */
    }
}

/* A step's dispatch covers units x unit_rows rows in grains of unit_rows (pb_step_dispatch): rows r0..r1 are
 * units r0 / unit_rows .. r1 / unit_rows. */
static void pb_step_rows(void *ctx, size_t r0, size_t r1)
{
    const pb_step *s = ctx; /* one of d->steps, read only */
    pb_step_units(s, r0 / s->unit_rows, r1 / s->unit_rows);
}

/* Step k: matvecs first..first + n - 1, which read one activation (built with the jobs). */
static void pb_step_build(pb_decode *d, int k, int first, int n)
{
    pb_step *s = &d->steps[k];
    *s = (pb_step){ .d = d, .first = first, .n = n, .layer = -1 };
    for (int i = 0; i < n; i++) {
        const pb_fused *f = &d->jobs[first + i];
        s->grain[i] = f->grain;
        s->grains[i] = (f->job.rows + f->grain - 1) / f->grain;
        if (s->grains[i] > s->units) {
            s->units = s->grains[i];
            s->unit_rows = f->grain;
        }
    }
}

/* Step k: layer l's q, k, v split by key/value head, when every head's rows are whole groups of its layout (else
 * n stays 0: the layer runs the plain step and pb_attn_layer). */
static void pb_heads_build(pb_decode *d, int k, int l)
{
    const pb_model *m = &d->w->shape;
    size_t heads = (size_t)m->n_kv_head, group = (size_t)(m->n_head / m->n_kv_head), D = (size_t)m->head_dim;
    int first = l * PB_MODEL_MATVECS_PER_LAYER + MV_Q;
    pb_step *s = &d->steps[k];
    *s = (pb_step){ .d = d, .first = first, .layer = l, .units = heads };
    for (int i = 0; i < 3; i++) {
        const pb_fused *f = &d->jobs[first + i];
        size_t per = (i == 0 ? group : 1) * D; /* q's rows of a head group; k's and v's of a head */
        if (f->job.rows != per * heads || per % f->grain != 0)
            return;
        s->grain[i] = per;
        s->grains[i] = heads;
    }
    s->n = 3;
    s->unit_rows = s->grain[0];
    kern_act *o = pb_decode_act(d, first + MV_O);
    if (group * D % kern_act_block(o->fmt) == 0)
        s->next = o;
}

/* Every matvec's job for the current glue mode, in token order (pb_decode.h's dataflow), and each layer's three
 * steps (q, k, v; gate, up; q, k, v by head). */
static void pb_jobs_build(pb_decode *d)
{
    const pb_model *m = &d->w->shape;
    bool fused = d->glue == PB_GLUE_FUSED;
    for (int l = 0; l < m->layers; l++) {
        int b = l * PB_MODEL_MATVECS_PER_LAYER;
        pb_job(d, b + MV_Q, d->q, NULL, NULL);
        pb_job(d, b + MV_K, d->kv, NULL, NULL);
        pb_job(d, b + MV_V, d->kv + d->batch * (size_t)m->kv_dim, NULL, NULL);
        pb_job(d, b + MV_O, d->h, NULL, NULL);
        pb_job(d, b + MV_GATE, d->g, NULL, NULL);
        /* fused: u = SiLU(g) * u, quantized: down's input */
        pb_job(d, b + MV_UP, d->u, fused ? d->g : NULL, fused ? pb_decode_act(d, b + MV_DOWN) : NULL);
        pb_job(d, b + MV_DOWN, d->h, NULL, NULL);
        /* gate and up split alike, so that a thread's gate rows are its own in up's fused SiLU */
        d->jobs[b + MV_GATE].grain = d->jobs[b + MV_UP].grain;
        pb_step_build(d, 3 * l, b + MV_Q, 3);
        pb_step_build(d, 3 * l + 1, b + MV_GATE, 2);
        pb_heads_build(d, 3 * l + 2, l);
    }
    pb_job(d, d->w->nmv - 1, d->logits, NULL, NULL);
    d->jobs_glue = (int)d->glue;
}

void pb_decode_set_glue(pb_decode *d, pb_glue_mode glue)
{
    d->glue = glue;
    if (d->jobs_glue != (int)glue)
        pb_jobs_build(d);
}

/* Matvec i's job made ready for a dispatch: checked, and its next activation's batch set. 0, or -1 with errno. */
static int pb_mv_ready(pb_decode *d, int i)
{
    pb_fused *f = &d->jobs[i];
    if (kern_job_check(&f->job) != 0)
        return -1;
    if (f->next) {
        size_t batch = f->job.act->batch;
        if (f->next->cols != f->job.rows || batch > f->next->cap) {
            errno = EINVAL;
            return -1;
        }
        /* Before the dispatch (its threads only read it), and only on a change, so the line stays shared. */
        if (f->next->batch != batch)
            f->next->batch = batch;
    }
    return 0;
}

/* Each thread's matvec busy ns in ex's slices now (their untagged time) into d->wait_prev; with since, the
 * dispatch's slowest thread's share beyond the mean first added to d->wait_ns. Read after a dispatch returned: its
 * completion ordered the workers' writes to their accounts (pb_slices.h). */
static void pb_wait_note(pb_decode *d, const pb_exec *ex, bool since)
{
    int n = ex->slices.n < d->wait_n ? ex->slices.n : d->wait_n;
    uint64_t max = 0, sum = 0;
    for (int i = 0; i < n; i++) {
        uint64_t now = ex->slices.t[i].busy_ns - ex->slices.t[i].tagged_ns, busy = now - d->wait_prev[i];
        max = busy > max ? busy : max;
        sum += busy;
        d->wait_prev[i] = now;
    }
    if (since && n > 1)
        d->wait_ns += max - sum / (uint64_t)n;
}

/* One matvec dispatch of ex over rows (in multiples of grain), timed and counted, its wait noted. 0. */
static int pb_mv_dispatch(pb_decode *d, pb_exec *ex, size_t rows, size_t grain, pool_rows_fn fn, void *ctx)
{
    uint64_t t0 = pb_now_ns();
    pb_exec_rows_grain(ex, rows, grain, fn, ctx);
    d->dispatch_ns += pb_now_ns() - t0;
    pb_wait_note(d, ex, true);
    d->mv_dispatches++;
    d->dispatches++;
    return 0;
}

/* Matvec i (a matmul for batch > 1): one dispatch of ex. */
static int pb_mv(pb_decode *d, pb_exec *ex, int i)
{
    if (pb_mv_ready(d, i) != 0)
        return -1;
    pb_fused *f = &d->jobs[i];
    if (f->gate || f->next)
        return pb_mv_dispatch(d, ex, f->job.rows, f->grain, pb_fused_rows, f);
    return pb_mv_dispatch(d, ex, f->job.rows, f->grain, kern_job_rows, &f->job); /* only read by kern_job_rows */
}

/* Step s's jobs made ready for its dispatch (pb_mv_ready), and o's activation's batch set when a split by head
 * fills it. 0, or -1 with errno. */
static int pb_step_ready(pb_decode *d, pb_step *s)
{
    for (int i = 0; i < s->n; i++)
        if (pb_mv_ready(d, s->first + i) != 0)
            return -1;
    if (s->next && s->next->batch != d->batch)
        s->next->batch = d->batch; /* before the dispatch, as pb_mv_ready's next */
    return 0;
}

/* Step s as one dispatch of ex through fn (pb_step_rows, pb_heads_rows), in rows: each unit is unit_rows of them,
 * so a schedule's dynamic claims mean the same rows as in a matvec's dispatch, not that many units (64 units of a
 * step split by head were every head of a layer, on one thread). */
static int pb_step_dispatch(pb_decode *d, pb_exec *ex, pb_step *s, pool_rows_fn fn)
{
    return pb_mv_dispatch(d, ex, s->units * s->unit_rows, s->unit_rows, fn, s);
}

/* Step k's matvecs as one dispatch of ex (fused glue: pb_decode.h). */
static int pb_mv_step(pb_decode *d, pb_exec *ex, int k)
{
    pb_step *s = &d->steps[k];
    if (pb_step_ready(d, s) != 0)
        return -1;
    return pb_step_dispatch(d, ex, s, pb_step_rows);
}

/* The clock now, the time since t0 added to *acc: one serial piece of the token timed on its own. */
static uint64_t pb_lap(uint64_t *acc, uint64_t t0)
{
    uint64_t t1 = pb_now_ns();
    *acc += t1 - t0;
    return t1;
}

/* RMSNorm's epsilon: the model's, or PB_RMS_EPS where it names none (0). */
static float pb_eps(const pb_model *m) { return m->eps > 0 ? m->eps : PB_RMS_EPS; }

/* h[m] = RMSNorm(x[m]) for rows m0..m1 with norm weights number k. */
static void pb_norm_h(const pb_decode *d, int k, size_t m0, size_t m1)
{
    size_t n = (size_t)d->w->shape.hidden;
    float eps = pb_eps(&d->w->shape);
    for (size_t m = m0; m < m1; m++)
        pb_rmsnorm(d->h + m * n, d->x + m * n, d->w->gamma + (size_t)k * n, n, eps);
}

/* Layer l's q, k and v of rows r0..r1 and key/value heads g0..g1 readied for attention: biases, q/k head norms
 * (qwen3), RoPE on q and k at each row's position. Each element's steps are its own: the same bits whichever rows
 * and heads a call covers. */
static void pb_qkv_prep(const pb_decode *d, int l, size_t r0, size_t r1, size_t g0, size_t g1)
{
    const pb_decode_weights *w = d->w;
    const pb_model *m = &w->shape;
    size_t M = d->batch, Q = (size_t)m->q_dim, KV = (size_t)m->kv_dim, D = (size_t)m->head_dim;
    size_t group = (size_t)(m->n_head / m->n_kv_head), GD = group * D;
    float eps = pb_eps(m);
    for (size_t r = r0; r < r1; r++)
        for (size_t g = g0; g < g1; g++) {
            float *qr = d->q + r * Q + g * GD, *kr = d->kv + r * KV + g * D, *vr = kr + M * KV;
            if (w->bias) {
                const float *bq = w->bias + (size_t)l * (Q + 2 * KV);
                pb_residual_add(qr, bq + g * GD, GD);
                pb_residual_add(kr, bq + Q + g * D, D);
                pb_residual_add(vr, bq + Q + KV + g * D, D);
            }
            for (size_t h = 0; w->qk_gamma && h < group; h++)
                pb_rmsnorm(qr + h * D, qr + h * D, w->qk_gamma + 2 * (size_t)l * D, D, eps);
            if (w->qk_gamma)
                pb_rmsnorm(kr, kr, w->qk_gamma + (2 * (size_t)l + 1) * D, D, eps);
            size_t at = d->prompt ? r : 0; /* a prompt's row r is the rope span's position r */
            pb_rope_apply_at(&d->rope, qr, (int)group, at);
            pb_rope_apply_at(&d->rope, kr, 1, at);
        }
}

/* A prompt's rows normed (norm >= 0: the norm weights' number, x into h) and quantized from src into acts, a slice
 * of rows each: 512 rows of serial quantization were 5-8% of a 2-thread prompt. */
typedef struct pb_prompt_quant {
    const pb_decode *d;
    int norm;
    const float *src;
    kern_act *act[KERN_FORMAT_COUNT];
    int nact;
} pb_prompt_quant;

static void pb_prompt_quant_rows(void *ctx, size_t r0, size_t r1)
{
    /* ctx is pb_prompt_quant_run's job, read only; rows r0..r1 write their own rows of h and of each activation
     * (kern_act_set_rows: disjoint rows, disjoint bytes) */
    const pb_prompt_quant *q = ctx;
    if (q->norm >= 0)
        pb_norm_h(q->d, q->norm, r0, r1);
    for (int i = 0; i < q->nact; i++)
        (void)kern_act_set_rows(q->act[i], q->src, r0, r1); /* cannot fail: r1 <= batch <= cap */
}

/* q over d's rows as one dispatch of ex, its slices tagged out of the matvecs', its time quant's. */
static void pb_prompt_quant_run(pb_decode *d, pb_exec *ex, pb_prompt_quant *q)
{
    for (int i = 0; i < q->nact; i++)
        if (q->act[i]->batch != d->batch) /* before the dispatch, which only reads it */
            q->act[i]->batch = d->batch;
    uint64_t t = pb_now_ns();
    pb_slices_tag(&ex->slices, true);
    pb_exec_rows(ex, d->batch, pb_prompt_quant_rows, q);
    pb_slices_tag(&ex->slices, false);
    pb_lap(&d->quant_ns, t);
    d->dispatches++;
}

/* Layer l's attention output quantized into o's activation: on the calling thread, timed as quant; a prompt's over
 * its rows in a dispatch. */
static void pb_o_input(pb_decode *d, pb_exec *ex, int l)
{
    kern_act *o = pb_decode_act(d, l * PB_MODEL_MATVECS_PER_LAYER + MV_O);
    if (d->prompt) {
        pb_prompt_quant q = { .d = d, .norm = -1, .src = d->attn.out, .act = { o }, .nact = 1 };
        pb_prompt_quant_run(d, ex, &q);
        return;
    }
    uint64_t t = pb_now_ns();
    kern_act_set(o, d->attn.out, d->batch);
    pb_lap(&d->quant_ns, t);
}

/* Layer l's rows r0..r1 readied (every key/value head) and stored: they write their own rows of q, k, v, their
 * cache positions and queries. */
static void pb_ready_rows(const pb_decode *d, int l, size_t r0, size_t r1)
{
    size_t KV = (size_t)d->w->shape.kv_dim;
    pb_qkv_prep(d, l, r0, r1, 0, (size_t)d->w->shape.n_kv_head);
    pb_attn_store_rows(&d->attn, r0, r1, d->q, d->kv, d->kv + d->batch * KV);
}

/* A prompt's layer between v and o: its rows readied and stored (pb_ready_rows) a slice each. */
typedef struct pb_prompt_layer {
    const pb_decode *d;
    int layer;
} pb_prompt_layer;

static void pb_prompt_rows(void *ctx, size_t r0, size_t r1)
{
    const pb_prompt_layer *pl = ctx; /* pb_attention's, read only */
    pb_ready_rows(pl->d, pl->layer, r0, r1);
}

/* Layer l's q, k and v readied and stored: a decode's on the calling thread (a row or a few), a prompt's in a
 * dispatch over its rows, timed and counted as attention's. */
static void pb_attn_ready(pb_decode *d, pb_exec *ex, int l)
{
    pb_attn_begin(&d->attn, l);
    if (!d->prompt) {
        pb_ready_rows(d, l, 0, d->batch);
        return;
    }
    pb_prompt_layer pl = { .d = d, .layer = l };
    uint64_t t0 = pb_now_ns();
    pb_exec_items(ex, d->batch, pb_prompt_rows, &pl);
    d->attn.dispatch_ns += pb_now_ns() - t0;
    d->attn.dispatches++;
}

/* Layer l's attention between v and o on its own: pb_qkv_prep's steps, then pb_attn_layer's, whose output is
 * quantized into o's activation. Its dispatches count as dispatch time, and tagged in the executor's slices; all
 * of it but the quantization (quant_ns) as attn_ns. */
static void pb_attention(pb_decode *d, pb_exec *ex, int l)
{
    uint64_t t0 = pb_now_ns();
    uint64_t before = d->attn.dispatch_ns;
    long n = d->attn.dispatches;
    pb_slices_tag(&ex->slices, true);
    pb_attn_ready(d, ex, l);
    pb_attn_dispatch(&d->attn, ex);
    pb_slices_tag(&ex->slices, false);
    d->dispatch_ns += d->attn.dispatch_ns - before;
    d->dispatches += (int)(d->attn.dispatches - n);
    pb_lap(&d->attn_ns, t0);
    pb_o_input(d, ex, l);
}

/* Rows r0..r1 of a step split by head, key/value heads u0..u1 (as pb_step_rows reads them): their rows of q, k and
 * v (each matrix one stream, as a plain step's), then each head's attention (timed into attn_group_ns[u0], a slot no
 * other range has), then its heads of the output quantized into o's activation when next is set. */
static void pb_heads_rows(void *ctx, size_t r0, size_t r1)
{
    /* ctx is one of d->steps, read only; heads u0..u1 write their rows of q, k and v, their cache rows, partials
     * and output (pb_attn_group), attn_group_ns[u0] and, in whole blocks, their blocks of next. */
    const pb_step *s = ctx;
    const pb_decode *d = s->d;
    const pb_model *m = &d->w->shape;
    size_t M = d->batch, GD = s->grain[0], u0 = r0 / s->unit_rows, u1 = r1 / s->unit_rows;
    pb_step_units(s, u0, u1);
    uint64_t t0 = pb_now_ns();
    for (size_t g = u0; g < u1; g++) {
        pb_qkv_prep(d, s->layer, 0, M, g, g + 1);
        pb_attn_group(&d->attn, (int)g, d->q, d->kv, d->kv + M * (size_t)m->kv_dim);
    }
    d->attn_group_ns[u0] += pb_now_ns() - t0;
    if (s->next) /* cannot fail: pb_heads set its batch, and a head group is whole blocks of it */
        (void)kern_act_set_cols(s->next, d->attn.out, M, u0 * GD, u1 * GD);
}

/* Layer l's q, k, v and attention as one dispatch split by key/value head (step 3 l + 2). Attention's share of
 * the threads' time (attn_group_ns summed over the heads, over the threads) goes to attn_ns and to attn_mv_ns,
 * the part of the matvecs' slices that was attention's. 0, or -1 with errno. */
static int pb_heads(pb_decode *d, pb_exec *ex, int l)
{
    pb_step *s = &d->steps[3 * l + 2];
    if (pb_step_ready(d, s) != 0)
        return -1;
    pb_attn_begin(&d->attn, l);
    memset(d->attn_group_ns, 0, s->units * sizeof *d->attn_group_ns);
    pb_step_dispatch(d, ex, s, pb_heads_rows);
    uint64_t sum = 0;
    for (size_t g = 0; g < s->units; g++) /* written by the dispatch's threads, ordered before its return */
        sum += d->attn_group_ns[g];
    d->attn_ns += sum / (uint64_t)ex->threads;
    d->attn_mv_ns += sum / (uint64_t)ex->threads;
    if (!s->next)
        pb_o_input(d, ex, l);
    return 0;
}

/* h[m] = RMSNorm(x[m]) for rows m0..m1 with norm weights number k, then those rows quantized once into each
 * format's act_hidden that a matvec reads (its batch m1 - m0). */
static void pb_norm_rows(pb_decode *d, int k, size_t m0, size_t m1)
{
    size_t n = (size_t)d->w->shape.hidden;
    uint64_t t = pb_now_ns();
    pb_norm_h(d, k, m0, m1);
    t = pb_lap(&d->glue_ns, t);
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        if (d->act_hidden[f].cap)
            kern_act_set(&d->act_hidden[f], d->h + m0 * n, m1 - m0);
    pb_lap(&d->quant_ns, t);
}

/* Norm k of every row into each activation that a matvec reads: a prompt's in a dispatch over its rows. */
static void pb_norm(pb_decode *d, pb_exec *ex, int k)
{
    if (!d->prompt) {
        pb_norm_rows(d, k, 0, d->batch);
        return;
    }
    pb_prompt_quant q = { .d = d, .norm = k, .src = d->h };
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        if (d->act_hidden[f].cap)
            q.act[q.nact++] = &d->act_hidden[f];
    pb_prompt_quant_run(d, ex, &q);
}

/* x += h over the batch: a residual add, timed as glue. */
static void pb_residual(pb_decode *d)
{
    uint64_t t = pb_now_ns();
    pb_residual_add(d->x, d->h, d->batch * (size_t)d->w->shape.hidden);
    pb_lap(&d->glue_ns, t);
}

/* Serial glue after up: u = SiLU(g) * u (glue), quantized into down's input (quant). */
static void pb_silu_serial(pb_decode *d, int down)
{
    uint64_t t = pb_now_ns();
    pb_silu_mul(d->u, d->g, d->u, d->batch * (size_t)d->w->shape.ffn);
    t = pb_lap(&d->glue_ns, t);
    kern_act_set(pb_decode_act(d, down), d->u, d->batch);
    pb_lap(&d->quant_ns, t);
}

int pb_decode_token(pb_decode *d, pb_exec *ex, uint64_t token)
{
    const pb_model *m = &d->w->shape;
    size_t M = d->batch, H = (size_t)m->hidden;
    d->dispatch_ns = d->attn_ns = d->attn_mv_ns = d->glue_ns = d->quant_ns = d->wait_ns = 0;
    if (d->wait_n != ex->slices.n) { /* a new executor's thread count: room for its accounts */
        uint64_t *w = realloc(d->wait_prev, (size_t)(ex->slices.n + 1) * sizeof *w);
        if (!w)
            return -1;
        d->wait_prev = w;
        d->wait_n = ex->slices.n;
    }
    pb_wait_note(d, ex, false); /* another executor, or a floor pass between tokens, moved its accounts */
    d->mv_dispatches = d->dispatches = 0;
    uint64_t t = pb_now_ns();
    uint64_t stride = d->prompt ? KERN_GEMM_MAX : KERN_BATCH_MAX; /* each row of each token its own input */
    for (size_t r = 0; r < M; r++) {
        uint64_t s = pb_decode_stream(d->w->seed, UINT64_MAX, token * stride + r);
        for (size_t c = 0; c < H; c++)
            d->x[r * H + c] = pb_decode_unit(&s);
    }
    pb_lap(&d->glue_ns, t);
    int rc = 0;
    bool fused = d->glue == PB_GLUE_FUSED;
    if (d->jobs_glue != (int)d->glue)
        pb_jobs_build(d);
    /* by head while the heads split evenly over the threads: more threads than heads would idle some */
    bool by_head = fused && !d->prompt && m->n_kv_head % ex->threads == 0;
    for (int l = 0; l < m->layers && rc == 0; l++) {
        int b = l * PB_MODEL_MATVECS_PER_LAYER;
        pb_norm(d, ex, 2 * l);
        if (by_head && d->steps[3 * l + 2].n) {
            rc |= pb_heads(d, ex, l);
        } else {
            if (fused)
                rc |= pb_mv_step(d, ex, 3 * l);
            else
                for (int i = MV_Q; i <= MV_V; i++)
                    rc |= pb_mv(d, ex, b + i);
            if (rc == 0)
                pb_attention(d, ex, l);
        }
        rc |= pb_mv(d, ex, b + MV_O);
        pb_residual(d);
        pb_norm(d, ex, 2 * l + 1);
        if (fused) {
            rc |= pb_mv_step(d, ex, 3 * l + 1);
        } else {
            rc |= pb_mv(d, ex, b + MV_GATE);
            rc |= pb_mv(d, ex, b + MV_UP);
            pb_silu_serial(d, b + MV_DOWN);
        }
        rc |= pb_mv(d, ex, b + MV_DOWN);
        pb_residual(d);
    }
    if (rc != 0)
        return -1;
    pb_norm_rows(d, 2 * m->layers, M - d->logit_rows, M); /* a prompt's logits: its last row's */
    return pb_mv(d, ex, d->w->nmv - 1);
}
