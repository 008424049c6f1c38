/* report.md's "Your engine beside the floor": per engine file, what ran, then a table and a sentence per tg
 * point (pb_engine_points). Every piece of text from the files reaches the Markdown through PB_MD or PB_MD_LINE. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pb_engine.h"
#include "pb_fmt.h"
#include "pb_md_escape.h"
#include "pb_tuning.h"

/* llama-bench's own name for a test: tg16, tg16 @ d256, pp512 (kind "tg" or "pp", n its tokens). */
static const char *kind_name(const char *kind, long long n, long long depth, char *buf, size_t len)
{
    if (depth > 0)
        snprintf(buf, len, "%s%lld @ d%lld", kind, n, depth);
    else
        snprintf(buf, len, "%s%lld", kind, n);
    return buf;
}

static const char *test_name(const pb_engine_pt *p, char *buf, size_t len)
{
    return kind_name("tg", p->n_gen, p->e.depth, buf, len);
}

/* A sentence built in pieces: printf onto the end of buf (its size len), never past it. */
typedef struct pb_line {
    char buf[1600];
    size_t n;
} pb_line;

static void add(pb_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(pb_line *l, const char *fmt, ...)
{
    if (l->n >= sizeof l->buf)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(l->buf + l->n, sizeof l->buf - l->n, fmt, ap);
    va_end(ap);
    l->n += w > 0 ? (size_t)w : 0;
}

/* A text field, or what stands for it where the file does not give it. */
static const char *text_or(const pb_llamabench_test *t, int col, const char *none)
{
    return t->have[col] ? pb_llamabench_str(t, col) : none;
}

/* What the file says it ran, from its first test. */
static void file_line(FILE *o, const pb_llamabench *lb, int tg, int other)
{
    const pb_llamabench_test *t = &lb->t[0];
    const char *base = strrchr(lb->name, '/');
    pb_line l = { .n = 0 };
    add(&l, "%s (%s): llama.cpp build %s (%s) on %s, backend %s; %s from %s: %s", base ? base + 1 : lb->name,
        pb_llamabench_format_name(lb->format), text_or(t, PB_LLAMABENCH_build_commit, "?"),
        t->have[PB_LLAMABENCH_build_number] ? PB_NUM(pb_llamabench_num(t, PB_LLAMABENCH_build_number), 0) : "?",
        text_or(t, PB_LLAMABENCH_cpu_info, "a CPU it does not name"), text_or(t, PB_LLAMABENCH_backends, "?"),
        pb_llamabench_str(t, PB_LLAMABENCH_model_type), text_or(t, PB_LLAMABENCH_model_filename, "a file it does not name"),
        PB_BYTES(pb_llamabench_num(t, PB_LLAMABENCH_model_size)));
    if (t->have[PB_LLAMABENCH_model_n_params])
        add(&l, ", %s M parameters", PB_NUM(pb_llamabench_num(t, PB_LLAMABENCH_model_n_params) / 1e6, 1));
    if (t->have[PB_LLAMABENCH_cpu_strict])
        add(&l, "; threads %s (cpu_strict %lld, cpu_mask %s)",
            t->v[PB_LLAMABENCH_cpu_strict].i ? "pinned to the mask's cpus" : "not pinned", t->v[PB_LLAMABENCH_cpu_strict].i,
            text_or(t, PB_LLAMABENCH_cpu_mask, "?"));
    add(&l, ". %zu test%s, %d of them tg%s%s.", lb->n, PB_S(lb->n), tg,
        other ? " (the others process a prompt: compute, not streaming, bounds them)" : "",
        lb->rounded ? "; the md table rounds its figures and has no samples" : "");
    fprintf(o, "- %s\n", PB_MD_LINE(l.buf));
}

static void table_head(FILE *o)
{
    fprintf(o, "| test | threads | depth | engine tok/s | its repetitions | floor GB/s | floor tok/s | %% of floor | "
               "poolbench tok/s | poolbench ÷ engine |\n"
               "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|\n");
}

/* The repetitions' range, or ± the deviation where the format has no samples. */
static const char *reps_text(const pb_engine_test *e, char *buf, size_t len)
{
    if (e->reps)
        snprintf(buf, len, "%s–%s (%zu)%s", PB_NUM(e->lo, 2), PB_NUM(e->hi, 2), e->reps, e->noisy ? " noisy" : "");
    else
        snprintf(buf, len, "± %s%s", PB_NUM(e->sd, 2), e->noisy ? " noisy" : "");
    return buf;
}

static void table_row(FILE *o, const pb_engine_pt *p)
{
    const pb_engine_test *e = &p->e;
    char name[64], r[96], pb[96] = "—";
    if (p->pb_match)
        snprintf(pb, sizeof pb, "%s (%s)", PB_NUM(p->pb_tok_s, 2), p->pb_policy);
    fprintf(o, "| %s | %d | %lld | %s | %s | %s | %s | %s | %s | %s |\n", test_name(p, name, sizeof name), e->threads,
            e->depth, PB_NUM(e->tok_s, 2), reps_text(e, r, sizeof r), PB_NUM(p->floor_gbps, 1),
            PB_NUM(p->floor_tok_s, 1), PB_PCT(p->pct_floor), PB_MD(pb),
            p->pb_match ? PB_X(p->pb_tok_s / e->tok_s) : "—");
}

/* One sentence per point: the engine against the floor, then poolbench's own decode there. */
static void sentence(FILE *o, const pb_engine_pt *p)
{
    const pb_engine_test *e = &p->e;
    pb_line l = { .n = 0 };
    char name[64];
    add(&l, "%s at %d thread%s, depth %lld: llama.cpp decodes %s at %s tok/s", test_name(p, name, sizeof name),
        e->threads, PB_S(e->threads), e->depth, pb_llamabench_str(e->t, PB_LLAMABENCH_model_type), PB_NUM(e->tok_s, 2));
    if (e->reps)
        add(&l, " (%s to %s over %zu repetitions)", PB_NUM(e->lo, 2), PB_NUM(e->hi, 2), e->reps);
    else
        add(&l, " (± %s)", PB_NUM(e->sd, 2));
    if (isnan(p->floor_gbps))
        add(&l, "; memory_floor.csv has no read floor at %d thread%s, so no %% of the floor", e->threads,
            PB_S(e->threads));
    else if (!(p->bytes > 0))
        add(&l, "; the file gives the model no size, so no %% of the floor");
    else
        add(&l, ", %s of the floor (%s tok/s: %s at the %s GB/s %s read through %d thread%s)", PB_PCT(p->pct_floor),
            PB_NUM(p->floor_tok_s, 1), PB_BYTES(p->bytes), PB_NUM(p->floor_gbps, 1),
            p->floor_is_best ? "best" : "median", e->threads, PB_S(e->threads));
    if (p->pb_match) {
        add(&l, "; poolbench decodes %s %s (%s) there at %s tok/s (%s, %s", p->pb_model, p->pb_format, p->pb_match,
            PB_NUM(p->pb_tok_s, 2), p->pb_policy, p->pb_schedule);
        if (p->pb_pct_floor >= 0 && p->pb_weight_bytes > 0)
            add(&l, "; %s of the floor for the %s of weights it reads", PB_PCT(p->pb_pct_floor),
                PB_BYTES(p->pb_weight_bytes));
        add(&l, "): %s llama.cpp's", PB_X(p->pb_tok_s / e->tok_s));
    }
    else
        add(&l, "; sweep.csv has no decode of this model at %d thread%s, depth %lld, to set beside it", e->threads,
            PB_S(e->threads), e->depth);
    if (e->noisy)
        add(&l, ". NOISY: its repetitions spread %s (%s), over the %d%% a figure can carry", PB_PCT(100 * e->spread),
            e->reps ? "slowest to fastest over the median" : "twice the deviation over the mean", PB_NOISY_SPREAD_PCT);
    add(&l, ".");
    fprintf(o, "- %s\n", PB_MD_LINE(l.buf));
}

/* The pp tests beside poolbench's prompts of as many tokens: the compute-bound half, held against each other (no
 * floor: a prompt is bound by the cores' arithmetic, whose share poolbench's prompt reached is shown). */
static void pp_table(FILE *o, const pb_rundata *rd)
{
    pb_engine_pp pp[PB_ENGINE_POINTS];
    int n = pb_engine_pp_points(rd, pp, PB_ENGINE_POINTS);
    if (!n)
        return;
    fprintf(o, "Prompt processing (ppN: the engine's N-token prompt beside poolbench's prompt of N tokens, bench_sweep "
               "--prompt N, at the same threads and depth; the compute roof bounds both):\n\n"
               "| test | threads | depth | engine tok/s | its repetitions | poolbench tok/s | poolbench ÷ engine | "
               "poolbench's %% of the int8 roof |\n|---|---:|---:|---:|---|---:|---:|---:|\n");
    for (int i = 0; i < n; i++) {
        const pb_engine_pp *p = &pp[i];
        const pb_engine_test *e = &p->e;
        char name[64], r[96], pb[96] = "—";
        if (p->pb_match)
            snprintf(pb, sizeof pb, "%s (%s, %s)", PB_NUM(p->pb_tok_s, 2), p->pb_policy, p->pb_schedule);
        kind_name("pp", p->n_prompt, e->depth, name, sizeof name);
        reps_text(e, r, sizeof r);
        fprintf(o, "| %s | %d | %lld | %s | %s | %s | %s | %s |\n", name, e->threads, e->depth, PB_NUM(e->tok_s, 2), r,
                PB_MD(pb), p->pb_match ? PB_X(p->pb_tok_s / e->tok_s) : "—",
                p->pb_match ? PB_PCT(100 * p->pb_roof_share) : "—");
    }
    fprintf(o, "\n");
}

void pb_report_engine_body(FILE *o, const pb_rundata *rd, const pb_digest *d)
{
    pb_engine_pt pts[PB_ENGINE_POINTS];
    int skipped = 0, n = pb_engine_points(rd, d, pts, PB_ENGINE_POINTS, &skipped);
    for (int f = 0; f < rd->eng.n; f++) {
        int tg = 0;
        for (int i = 0; i < n; i++)
            tg += pts[i].e.file == &rd->eng.lb[f];
        file_line(o, &rd->eng.lb[f], tg, (int)rd->eng.lb[f].n - tg);
    }
    fprintf(o, "\n");
    pp_table(o, rd);
    if (!n) {
        fprintf(o, "No token-generation test (tgN: n_prompt 0, n_gen > 0) in them to place.\n\n");
        return;
    }
    table_head(o);
    for (int i = 0; i < n; i++)
        table_row(o, &pts[i]);
    fprintf(o, "\n");
    for (int i = 0; i < n; i++)
        sentence(o, &pts[i]);
    fprintf(o, "\n");
}

void pb_report_engine(FILE *o, const pb_rundata *rd, const pb_digest *d)
{
    if (!rd->eng.n)
        return;
    fprintf(o, "## Your engine beside the floor\n\n");
    fprintf(o, "Another engine's decode on this machine, from its own results (llama-bench.* in this directory, or "
               "bench_report --engine FILE): each token-generation test at each depth beside the read floor for the "
               "model's bytes at the same threads (memory_floor.csv's median pass through that many threads over the "
               "model_size the file states) and poolbench's own fastest decode of the same model at the same threads "
               "and depth (sweep.csv, batch 1). model_size counts every tensor, the token embedding too, of which a "
               "token reads one row, and no KV cache: the floor here is a little below a token's true one, and the "
               "engine's %% of it a little high. Both engines' tok/s are their own median or mean over repetitions "
               "on this machine; the ratio is what a tighter implementation buys on the same cores.\n\n");
    pb_report_engine_body(o, rd, d);
}
