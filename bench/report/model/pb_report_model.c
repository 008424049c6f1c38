/* pb_report_model.c — report.md's section on what a decode costs at depth, from sweep.csv: for a model file its
 * name, architecture, tensor-type mix and bytes; for every run that measured more than one --context (or a file)
 * tok/s, % of the floor (weights + KV) and attention's share per context and thread count, each beside the
 * llama-bench command that measures the same point, and attention's speed-up over threads at each depth. Every
 * piece of CSV text reaches the Markdown through PB_MD (pb_md_escape.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_md_escape.h"
#include "pb_report.h"

#define RM_MAX_ROWS 64 /* table rows shown: a depth sweep has a few contexts x thread counts */

static const char *rm_str(const pb_table *t, size_t r, int col)
{
    return pb_table_str(t, r, col);
}

int pb_report_depths(const pb_rundata *rd)
{
    const pb_table *t = pb_rundata_table(rd, PB_K_SWEEP);
    int c = t ? pb_table_col(t, PB_COL(SWEEP, context)) : -1, n = 0;
    for (size_t r = 0; c >= 0 && r < t->nrows; r++) {
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++)
            seen = strcmp(rm_str(t, q, c), rm_str(t, r, c)) == 0;
        n += !seen;
    }
    return n;
}

/* The first row of a model file, or -1. */
static long rm_file_row(const pb_table *t)
{
    int c = pb_table_col(t, PB_COL(SWEEP, model_file));
    for (size_t r = 0; c >= 0 && r < t->nrows; r++)
        if (*rm_str(t, r, c))
            return (long)r;
    return -1;
}

/* The model file's line: name, file, architecture, weights, the tensor-type mix. */
static void rm_model(FILE *o, const pb_table *t, size_t r)
{
    fprintf(o, "**%s** from %s (architecture %s), weights %s: %.1f MB of matvec weights a token reads.\n\n",
            PB_MD(rm_str(t, r, pb_table_col(t, PB_COL(SWEEP, model)))),
            PB_MD(rm_str(t, r, pb_table_col(t, PB_COL(SWEEP, model_file)))),
            PB_MD(rm_str(t, r, pb_table_col(t, PB_COL(SWEEP, arch)))),
            PB_MD(rm_str(t, r, pb_table_col(t, PB_COL(SWEEP, weights)))),
            pb_table_num(t, r, pb_table_col(t, PB_COL(SWEEP, weight_bytes))) / 1e6);
    fprintf(o, "| ggml type | tensors | MB |\n|---|---:|---:|\n");
    char mix[512];
    snprintf(mix, sizeof mix, "%s", rm_str(t, r, pb_table_col(t, PB_COL(SWEEP, type_mix))));
    char *save = NULL;
    for (char *w = strtok_r(mix, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *a = strchr(w, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (!a || !b)
            continue;
        *a = *b = '\0';
        b[1 + strcspn(b + 1, "M")] = '\0'; /* "633.1MB": the column says MB */
        fprintf(o, "| %s | %s | %s |\n", PB_MD(w), PB_MD(a + 1), PB_MD(b + 1));
    }
    fprintf(o, "\n");
}

/* One row of the depth table; file: the model file for the llama-bench command (NULL: a preset). */
static void rm_row(FILE *o, const pb_table *t, size_t r, const char *file)
{
#define N(col) pb_table_num(t, r, pb_table_col(t, PB_COL(SWEEP, col)))
    char cmd[600] = "(a preset: no file to give it)";
    if (file)
        snprintf(cmd, sizeof cmd, "llama-bench -m %s -p 0 -n 128 -d %.0f -t %.0f", file, N(context), N(threads));
    fprintf(o, "| %.0f | %.1f | %.0f | %s | %.0f | %.2f | %.2f | %.1f | %.1f | %s |\n", N(context), N(kv_bytes) / 1e6,
            N(threads), PB_MD(rm_str(t, r, pb_table_col(t, PB_COL(SWEEP, policy)))), N(batch), N(tok_per_s),
            N(ms_per_token_median), N(pct_of_floor), N(attn_pct), PB_MD_LINE(cmd));
#undef N
}

/* Attention's time at each context: at 1 thread and at each other thread count of the same policy, schedule,
 * glue, cache type and batch, with the speed-up. */
static void rm_speedups(FILE *o, const pb_table *t)
{
    static const int keys[] = { PB_SWEEP_policy, PB_SWEEP_schedule, PB_SWEEP_glue, PB_SWEEP_kv_type, PB_SWEEP_batch,
                                PB_SWEEP_context, PB_SWEEP_cpuset };
    int thr = pb_table_col(t, PB_COL(SWEEP, threads)), attn = pb_table_col(t, PB_COL(SWEEP, attn_ms_median));
    bool any = false;
    for (size_t a = 0; a < t->nrows; a++) {
        if (pb_table_num(t, a, thr) != 1)
            continue;
        for (size_t b = 0; b < t->nrows; b++) {
            bool same = pb_table_num(t, b, thr) > 1;
            for (size_t k = 0; same && k < sizeof keys / sizeof keys[0]; k++) {
                int c = pb_table_col(t, pb_schema_name(PB_K_SWEEP, keys[k]));
                same = strcmp(rm_str(t, a, c), rm_str(t, b, c)) == 0;
            }
            double one = pb_table_num(t, a, attn), many = pb_table_num(t, b, attn);
            if (!same || !(one > 0) || !(many > 0))
                continue;
            if (!any)
                fprintf(o, "Attention's time per token over threads (same policy, schedule, glue, cache and batch):\n\n");
            any = true;
            fprintf(o, "- context %s, %s: %.3f ms at 1 thread, %.3f ms at %.0f: %.2fx\n",
                    PB_MD(rm_str(t, a, pb_table_col(t, PB_COL(SWEEP, context)))),
                    PB_MD(rm_str(t, a, pb_table_col(t, PB_COL(SWEEP, policy)))), one, many, pb_table_num(t, b, thr),
                    one / many);
        }
    }
    if (any)
        fprintf(o, "\n");
}

void pb_report_model(FILE *o, const pb_rundata *rd)
{
    const pb_table *t = pb_rundata_table(rd, PB_K_SWEEP);
    if (!t || pb_table_col(t, PB_COL(SWEEP, context)) < 0)
        return;
    long fr = rm_file_row(t);
    if (fr < 0 && pb_report_depths(rd) < 2)
        return;
    fprintf(o, "## Decode at depth\n\n");
    if (fr >= 0)
        rm_model(o, t, (size_t)fr);
    fprintf(o, "A token reads its weights and the KV cache at its depth (context: positions already cached); %% of "
               "the floor holds both against the read floor of the same cpus. The plot sweep_context.png draws tok/s and "
               "%% of the floor against context. Each row's llama-bench command measures the same point with "
               "llama.cpp.\n\n");
    fprintf(o, "| context | KV MB | threads | policy | M | tok/s | ms/token | %% of floor | attention %% | llama-bench |\n"
               "|---:|---:|---:|---|---:|---:|---:|---:|---:|---|\n");
    int cf = pb_table_col(t, PB_COL(SWEEP, model_file));
    for (size_t r = 0; r < t->nrows && r < RM_MAX_ROWS; r++)
        rm_row(o, t, r, *rm_str(t, r, cf) ? rm_str(t, r, cf) : NULL);
    if (t->nrows > RM_MAX_ROWS)
        fprintf(o, "\n(%zu more rows in sweep.csv)\n", t->nrows - RM_MAX_ROWS);
    fprintf(o, "\n");
    rm_speedups(o, t);
}
