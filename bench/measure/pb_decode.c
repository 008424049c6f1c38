/* pb_decode.c — see pb_decode.h: a decode's set-up (activations, repacked copies, read spans, buffers) and its
 * KV cache's context; a token's run is pb_decode_token.c. */
#include "pb_decode.h"
#include "pb_decode_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pb_time.h"

/* The slot of format f's activations: the first format whose activations feed f (kern_act_shared), so matvecs of
 * formats that share them (q4_K and q6_K: a q4_K_M mix) read one activation, quantized once. */
static kern_format pb_act_slot(kern_format f)
{
    int g = 0;
    while (g < (int)f && !kern_act_shared((kern_format)g, f))
        g++;
    return (kern_format)g;
}

/* The activation matvec i reads: its slot (o reads act_q, down act_ffn, the others act_hidden) by its format. */
kern_act *pb_decode_act(pb_decode *d, int i)
{
    kern_format f = pb_act_slot(d->w->mfmt[i]);
    int k = i % PB_MODEL_MATVECS_PER_LAYER;
    if (i == d->w->nmv - 1 || (k != MV_O && k != MV_DOWN))
        return &d->act_hidden[f];
    return k == MV_O ? &d->act_q[f] : &d->act_ffn[f];
}

/* Every activation a matvec reads, each once, checked against the variant by a probe job: a variant that cannot
 * run a format fails here, not in the middle of a token (the check reads the batch, which the first
 * kern_act_set sets for real). 0, or -1 with errno. */
static int pb_acts_init(pb_decode *d)
{
    const pb_decode_weights *w = d->w;
    for (int i = 0; i < w->nmv; i++) {
        kern_act *a = pb_decode_act(d, i);
        if (a->cap == 0 && kern_act_init(a, w->mfmt[i], (size_t)w->mv[i].cols, d->batch) != 0)
            return -1;
        kern_job probe = { .fmt = w->mfmt[i], .isa = d->kernel[w->mfmt[i]].isa, .w = w->arena, .rows = 1,
                           .act = a, .y = d->h, .ldy = 1 };
        a->batch = d->batch;
        int rc = kern_job_check(&probe);
        a->batch = 0;
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Matrix i's layout: its format's kernel's. */
static kern_layout pb_layout_of(const pb_decode *d, int i)
{
    return d->kernel[d->w->mfmt[i]].layout;
}

/* Matrix i's bytes in its layout (the file's too); 0 when the layout does not fit it. */
static uint64_t pb_matrix_bytes(const pb_decode *d, int i)
{
    const pb_decode_weights *w = d->w;
    return kern_repack_bytes(pb_layout_of(d, i), w->mfmt[i], (size_t)w->mv[i].rows, (size_t)w->mv[i].cols);
}

/* Where matrix i's job reads it: the repacked copy for a repacked layout, else the weights' arena. */
const unsigned char *pb_decode_matrix(const pb_decode *d, int i)
{
    return pb_layout_of(d, i) != KERN_LAYOUT_FILE ? d->repacked + d->repacked_off[i] : d->w->arena + d->w->off[i];
}

/* d->read_spans: the arena whole without a copy, else every matrix where its job reads it, neighbours merged.
 * 0, or -1 with errno. */
static int pb_read_spans_init(pb_decode *d)
{
    const pb_decode_weights *w = d->w;
    if (!(d->read_spans = calloc((size_t)w->nmv, sizeof *d->read_spans)))
        return -1;
    if (!d->repacked) {
        d->read_spans[0] = (pb_memspan){ .p = w->arena, .bytes = (size_t)w->bytes };
        d->read_nspans = 1;
        return 0;
    }
    for (int i = 0; i < w->nmv; i++) {
        const unsigned char *p = pb_decode_matrix(d, i);
        size_t bytes = (size_t)pb_matrix_bytes(d, i);
        pb_memspan *last = d->read_nspans ? &d->read_spans[d->read_nspans - 1] : NULL;
        if (last && last->p + last->bytes == p)
            last->bytes += bytes;
        else
            d->read_spans[d->read_nspans++] = (pb_memspan){ .p = p, .bytes = bytes };
    }
    pb_memspan_lay(d->read_spans, d->read_nspans);
    return 0;
}

/* When a format's kernel runs a repacked layout: its matrices re-laid into d->repacked (timed: repack_ms), their
 * activations readied for it; the others stay where they are. 0, or -1 with errno. */
static int pb_repack_init(pb_decode *d)
{
    const pb_decode_weights *w = d->w;
    uint64_t total = 0;
    if (w->nmv < 1) {
        errno = EINVAL;
        return -1;
    }
    if (!(d->repacked_off = calloc((size_t)w->nmv, sizeof *d->repacked_off)))
        return -1;
    for (int i = 0; i < w->nmv; i++) {
        kern_layout l = pb_layout_of(d, i);
        uint64_t b = pb_matrix_bytes(d, i);
        if (b == 0) {
            errno = EINVAL;
            return -1;
        }
        if (l == KERN_LAYOUT_FILE)
            continue;
        if (kern_act_use_layout(pb_decode_act(d, i), l) != 0)
            return -1;
        d->repacked_off[i] = total;
        total += (b + 63) / 64 * 64;
    }
    if (total == 0)
        return 0;
    /* huge pages, as the arena has: at DRAM size small ones cost a page walk every 4 KiB of each stream */
    if (pb_membuf_map(&d->repacked_buf, (size_t)total, true) != 0)
        return -1;
    d->repacked = d->repacked_buf.p;
    d->repacked_bytes = total;
    uint64_t t0 = pb_now_ns();
    for (int i = 0; i < w->nmv; i++) {
        kern_layout l = pb_layout_of(d, i);
        if (l != KERN_LAYOUT_FILE && kern_repack(l, w->mfmt[i], w->arena + w->off[i], (size_t)w->mv[i].rows,
                                                 (size_t)w->mv[i].cols, d->repacked + d->repacked_off[i]) != 0)
            return -1;
    }
    d->repack_ms = (double)(pb_now_ns() - t0) / 1e6;
    return 0;
}

/* pb_decode_init's way out: what it allocated freed, -1 with errno err. */
static int pb_decode_fail(pb_decode *d, int err)
{
    pb_decode_free(d);
    errno = err;
    return -1;
}

int pb_decode_init(pb_decode *d, const pb_decode_weights *w, kern_isa v, size_t batch)
{
    pb_kernel_choice kernel[KERN_FORMAT_COUNT];
    for (int f = 0; f < KERN_FORMAT_COUNT; f++)
        kernel[f] = (pb_kernel_choice){ .isa = v, .prefetch = true, .why = PB_KERNEL_WHY_FORCED };
    return pb_decode_init_with(d, w, kernel, batch);
}

/* A cache row's seeded values (pb_kv_gen_fn; ctx: the weights): uniform with unit variance, as a normed and
 * rotated key or a value of the projections' scale. */
static void pb_kv_gen(void *ctx, uint64_t key, float *row, size_t n)
{
    const pb_decode_weights *w = ctx;
    uint64_t s = pb_decode_stream(w->seed, UINT64_MAX - 1, key);
    for (size_t i = 0; i < n; i++)
        row[i] = pb_decode_unit(&s) * 1.7320508f;
}

/* The cache, its attention and RoPE for d's rows at depth context (fill: seeded positions 0..context - 1 through
 * ex; NULL only at context 0): a decode's rows are batch sequences at position context; a prompt's one sequence's
 * positions context .. context + batch - 1 (pb_attn.h). 0, or -1 with errno. */
static int pb_depth(pb_decode *d, size_t context, pb_kv_type type, pb_exec *fill)
{
    const pb_model *m = &d->w->shape;
    size_t seqs = d->prompt ? 1 : d->batch, rows = d->prompt ? d->batch : 1;
    pb_attn_free(&d->attn);
    pb_kv_free(&d->cache);
    if (pb_kv_init(&d->cache, m, type, seqs, context + rows) != 0 ||
        (fill && pb_kv_fill(&d->cache, context, pb_kv_gen, (void *)d->w, fill) != 0) ||
        pb_attn_init(&d->attn, m, &d->cache, d->batch) != 0 || pb_rope_span(&d->rope, context, rows) != 0)
        return -1;
    d->attn.causal = d->prompt;
    return 0;
}

/* pb_decode_init_with's and pb_decode_init_prompt's: rows 1..max. */
static int pb_decode_open(pb_decode *d, const pb_decode_weights *w, const pb_kernel_choice *kernel, size_t batch,
                          bool prompt)
{
    memset(d, 0, sizeof *d);
    const pb_model *m = &w->shape;
    if (batch < 1 || batch > (prompt ? KERN_GEMM_MAX : KERN_BATCH_MAX)) {
        errno = EINVAL;
        return -1;
    }
    d->w = w;
    memcpy(d->kernel, kernel, sizeof d->kernel);
    d->batch = batch;
    d->prompt = prompt;
    d->logit_rows = prompt ? 1 : batch; /* a prompt's next token comes from its last row alone */
    d->x = malloc(batch * m->hidden * sizeof(float));
    d->h = malloc(batch * m->hidden * sizeof(float));
    d->q = malloc(batch * m->q_dim * sizeof(float));
    d->kv = malloc(2 * batch * m->kv_dim * sizeof(float));
    d->g = malloc(batch * m->ffn * sizeof(float));
    d->u = malloc(batch * m->ffn * sizeof(float));
    d->logits = malloc(d->logit_rows * m->vocab * sizeof(float));
    d->jobs = calloc((size_t)w->nmv, sizeof *d->jobs);
    d->steps = calloc(3 * (size_t)m->layers + 1, sizeof *d->steps); /* three a layer; + 1: never 0 bytes */
    d->attn_group_ns = calloc((size_t)m->n_kv_head + 1, sizeof *d->attn_group_ns);
    d->jobs_glue = -1;
    if (!d->x || !d->h || !d->q || !d->kv || !d->g || !d->u || !d->logits || !d->jobs || !d->steps ||
        !d->attn_group_ns)
        return pb_decode_fail(d, ENOMEM);
    if (!pb_model_attn_ok(m))
        return pb_decode_fail(d, EINVAL);
    if (pb_acts_init(d) != 0 || pb_repack_init(d) != 0 || pb_read_spans_init(d) != 0 ||
        pb_rope_init(&d->rope, (size_t)m->head_dim, m->rope_base, m->rope_neox) != 0 ||
        pb_depth(d, 0, PB_KV_F16, NULL) != 0)
        return pb_decode_fail(d, errno); /* the failed init's errno, read before the frees can change it */
    return 0;
}

int pb_decode_init_with(pb_decode *d, const pb_decode_weights *w, const pb_kernel_choice *kernel, size_t batch)
{
    return pb_decode_open(d, w, kernel, batch, false);
}

int pb_decode_init_prompt(pb_decode *d, const pb_decode_weights *w, const pb_kernel_choice *kernel, size_t rows)
{
    return pb_decode_open(d, w, kernel, rows, true);
}

const pb_memspan *pb_decode_read_spans(const pb_decode *d, int *n)
{
    *n = d->read_nspans;
    return d->read_spans;
}

void pb_decode_free(pb_decode *d)
{
    void *const held[] = { d->x,    d->h,     d->q,           d->kv,          d->g,   d->u,
                           d->logits, d->jobs, d->steps, d->repacked_off, d->attn_group_ns, d->read_spans,
                           d->wait_prev };
    for (size_t i = 0; i < sizeof held / sizeof *held; i++)
        free(held[i]);
    pb_membuf_unmap(&d->repacked_buf); /* nothing when none was mapped */
    pb_attn_free(&d->attn);
    pb_kv_free(&d->cache);
    pb_rope_free(&d->rope);
    for (int f = 0; f < KERN_FORMAT_COUNT; f++) {
        kern_act_free(&d->act_hidden[f]);
        kern_act_free(&d->act_q[f]);
        kern_act_free(&d->act_ffn[f]);
    }
    memset(d, 0, sizeof *d);
}

const char *const pb_glue_mode_names[PB_GLUE_MODES + 1] = { "serial", "fused", NULL };

int pb_decode_set_context(pb_decode *d, size_t context, pb_kv_type type, pb_exec *ex)
{
    return pb_depth(d, context, type, ex);
}

uint64_t pb_decode_kv_bytes(const pb_decode *d)
{
    const pb_model *m = &d->w->shape;
    /* A prompt's rows read the one sequence's positions 0 .. context + batch - 1, each once from memory: row r's
     * re-read of the positions before it finds a layer's few MiB in cache, as a matmul's later activation rows find
     * the weights the first one brought in. */
    return d->prompt ? pb_kv_bytes(m, d->cache.type, 1, d->cache.context + d->batch - 1)
                     : pb_kv_bytes(m, d->cache.type, d->batch, d->cache.context);
}
