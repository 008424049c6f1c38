/* The engine's tg points placed: the floor for the model's bytes at the same threads, and poolbench's own
 * decode of the same model at the same threads and depth. Figures only; pb_report_engine.c writes them. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_engine.h"
#include "pb_stats.h"
#include "pb_tuning.h"

/* Test t of file lb: its threads, depth and speed, and its repetitions' range and spread from the samples where
 * the format has them, else from the deviation. */
static pb_engine_test test_of(const pb_llamabench *lb, const pb_llamabench_test *t)
{
    pb_engine_test e = { .file = lb, .t = t, .threads = (int)t->v[PB_LLAMABENCH_n_threads].i,
                         .depth = t->have[PB_LLAMABENCH_n_depth] ? t->v[PB_LLAMABENCH_n_depth].i : 0,
                         .tok_s = t->v[PB_LLAMABENCH_avg_ts].d, .sd = t->v[PB_LLAMABENCH_stddev_ts].d, .lo = NAN, .hi = NAN,
                         .reps = t->nsamples };
    if (t->nsamples) {
        pb_summary s = pb_summarize(t->samples_ts, t->nsamples);
        e.lo = s.min;
        e.hi = s.max;
        e.spread = s.spread;
    } else {
        e.spread = e.tok_s > 0 ? 2 * e.sd / e.tok_s : NAN;
    }
    e.noisy = e.spread > PB_NOISY_SPREAD;
    return e;
}

/* The read floor at the point's threads: the median pass of the best kernel, its best pass where no median. */
static void floor_of(pb_engine_pt *p, const pb_digest *d)
{
    const pb_floor_point *f = pb_digest_floor_at(&d->floor, p->e.threads);
    p->floor_gbps = NAN;
    if (f) {
        p->floor_is_best = !(f->median > 0);
        p->floor_gbps = p->floor_is_best ? f->best : f->median;
    }
    p->floor_tok_s = p->bytes > 0 ? p->floor_gbps * 1e9 / p->bytes : NAN;
    p->pct_floor = 100 * p->e.tok_s / p->floor_tok_s;
}

/* s lowercased, letters and digits only ("qwen3 0.6B Q8_0" -> "qwen306bq80"), into out. */
static void squeeze(const char *s, char *out, size_t len)
{
    size_t n = 0;
    for (; *s && n + 1 < len; s++)
        if (isalnum((unsigned char)*s))
            out[n++] = (char)tolower((unsigned char)*s);
    out[n] = '\0';
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* How sweep row r is the engine test's model: the same GGUF file (by name), or a preset of the same shape and
 * format (llama.cpp's "qwen3 0.6B Q8_0" begins with the shape "qwen3-0.6b" and then holds the format "q8_0",
 * compared as letters and digits). NULL when it is neither. */
static const char *model_match(const pb_table *s, size_t r, const int *col, const pb_llamabench_test *t)
{
    const char *file = pb_table_str(s, r, col[PB_SWEEP_model_file]);
    const char *lfile = pb_llamabench_str(t, PB_LLAMABENCH_model_filename);
    if (*file && *lfile)
        return strcmp(base_name(file), base_name(lfile)) == 0 ? "the same file" : NULL;
    char shape[PB_DIGEST_NAME * 2], format[PB_DIGEST_NAME * 2], type[256];
    squeeze(pb_table_str(s, r, col[PB_SWEEP_model]), shape, sizeof shape);
    squeeze(pb_table_str(s, r, col[PB_SWEEP_format]), format, sizeof format);
    squeeze(pb_llamabench_str(t, PB_LLAMABENCH_model_type), type, sizeof type);
    size_t n = strlen(shape);
    return n && *format && strncmp(type, shape, n) == 0 && strstr(type + n, format) ? "the same shape and format"
                                                                                  : NULL;
}

/* A number cell, or fallback where the CSV lacks the column (an older sweep: batch 1, context 0). */
static double cell(const pb_table *s, size_t r, int col, double fallback)
{
    return col < 0 ? fallback : pb_table_num(s, r, col);
}

/* sweep.csv of rd into *s (NULL: none) and its columns into col, and its row that is poolbench's fastest point of
 * test e's model at e's threads and depth, no emulated slow cpu: a prompt of `prompt` tokens, or (0) a decode at
 * batch 1; -1 when none, *how the match. */
static long fastest_row(const pb_rundata *rd, const pb_engine_test *e, long long prompt, const pb_table **s,
                        int *col, const char **how)
{
    *s = pb_rundata_table(rd, PB_K_SWEEP);
    if (!*s)
        return -1;
    pb_digest_cols(*s, PB_K_SWEEP, col);
    long best = -1;
    double best_tok = 0;
    for (size_t r = 0; r < (*s)->nrows; r++) {
        double tok = pb_table_num(*s, r, col[PB_SWEEP_tok_per_s]);
        const char *m = model_match(*s, r, col, e->t);
        bool same = cell(*s, r, col[PB_SWEEP_prompt], 0) == (double)prompt &&
                    (prompt > 0 || cell(*s, r, col[PB_SWEEP_batch], 1) == 1) &&
                    pb_table_num(*s, r, col[PB_SWEEP_threads]) == e->threads &&
                    cell(*s, r, col[PB_SWEEP_context], 0) == (double)e->depth;
        if (!m || !same || *pb_table_str(*s, r, col[PB_SWEEP_emulate_slow]) || !(tok > 0) ||
            (best >= 0 && !(tok > best_tok)))
            continue;
        best = (long)r;
        best_tok = tok;
        *how = m;
    }
    return best;
}

/* poolbench's fastest decode of the point's model at its threads and depth: batch 1, no emulation. */
static void decode_of(pb_engine_pt *p, const pb_rundata *rd)
{
    p->pb_match = NULL;
    p->pb_tok_s = p->pb_pct_floor = p->pb_weight_bytes = NAN;
    const pb_table *s;
    int col[PB_SWEEP_NCOLS];
    long r = fastest_row(rd, &p->e, 0, &s, col, &p->pb_match);
    if (r < 0)
        return;
    p->pb_tok_s = pb_table_num(s, (size_t)r, col[PB_SWEEP_tok_per_s]);
    p->pb_pct_floor = cell(s, (size_t)r, col[PB_SWEEP_pct_of_floor], NAN);
    p->pb_weight_bytes = cell(s, (size_t)r, col[PB_SWEEP_weight_bytes], NAN);
    pb_digest_copy(p->pb_model, pb_table_str(s, (size_t)r, col[PB_SWEEP_model]));
    pb_digest_copy(p->pb_format, pb_table_str(s, (size_t)r, col[PB_SWEEP_format]));
    pb_digest_copy(p->pb_policy, pb_table_str(s, (size_t)r, col[PB_SWEEP_policy]));
    pb_digest_copy(p->pb_schedule, pb_table_str(s, (size_t)r, col[PB_SWEEP_schedule]));
}

int pb_engine_points(const pb_rundata *rd, const pb_digest *d, pb_engine_pt *out, int max, int *skipped)
{
    int n = 0, skip = 0;
    for (int f = 0; f < rd->eng.n; f++) {
        const pb_llamabench *lb = &rd->eng.lb[f];
        for (size_t i = 0; i < lb->n; i++) {
            const pb_llamabench_test *t = &lb->t[i];
            if (!pb_llamabench_is_tg(t) || n == max) {
                skip += !pb_llamabench_is_tg(t);
                continue;
            }
            pb_engine_pt *p = &out[n++];
            *p = (pb_engine_pt){ .e = test_of(lb, t), .n_gen = t->v[PB_LLAMABENCH_n_gen].i,
                                 .bytes = pb_llamabench_num(t, PB_LLAMABENCH_model_size) };
            floor_of(p, d);
            decode_of(p, rd);
        }
    }
    if (skipped)
        *skipped = skip;
    return n;
}

/* poolbench's fastest prompt of the pp test's tokens, model, threads and depth (no emulated slow cpu). */
static void prompt_of(pb_engine_pp *p, const pb_rundata *rd)
{
    p->pb_match = NULL;
    p->pb_tok_s = p->pb_roof_share = NAN;
    const pb_table *s;
    int col[PB_SWEEP_NCOLS];
    long r = fastest_row(rd, &p->e, p->n_prompt, &s, col, &p->pb_match);
    if (r < 0)
        return;
    p->pb_tok_s = pb_table_num(s, (size_t)r, col[PB_SWEEP_tok_per_s]);
    p->pb_roof_share = cell(s, (size_t)r, col[PB_SWEEP_roof_share], NAN);
    pb_digest_copy(p->pb_policy, pb_table_str(s, (size_t)r, col[PB_SWEEP_policy]));
    pb_digest_copy(p->pb_schedule, pb_table_str(s, (size_t)r, col[PB_SWEEP_schedule]));
}

int pb_engine_pp_points(const pb_rundata *rd, pb_engine_pp *out, int max)
{
    int n = 0;
    for (int f = 0; f < rd->eng.n; f++) {
        const pb_llamabench *lb = &rd->eng.lb[f];
        for (size_t i = 0; i < lb->n && n < max; i++) {
            const pb_llamabench_test *t = &lb->t[i];
            if (!(t->v[PB_LLAMABENCH_n_prompt].i > 0 && t->v[PB_LLAMABENCH_n_gen].i == 0))
                continue;
            pb_engine_pp *p = &out[n++];
            *p = (pb_engine_pp){ .e = test_of(lb, t), .n_prompt = t->v[PB_LLAMABENCH_n_prompt].i };
            prompt_of(p, rd);
        }
    }
    return n;
}
