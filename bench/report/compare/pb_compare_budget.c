/* compare.md's budget section: per model x format every run holds, each run's best decode point's budget side by
 * side (pb_answer.h chooses the point as report.md does), and against the first run the part that differs most.
 * Text from the runs goes through PB_MD. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_answer.h"
#include "pb_compare.h"
#include "pb_fmt.h"
#include "pb_md_escape.h"

/* Run a's answer for model x format, NULL when it has none with a budget. */
static const pb_answer_format *format_of(const pb_answers *a, const char *model, const char *format)
{
    for (int f = 0; f < a->nfmt; f++)
        if (strcmp(a->fmt[f].best.d.model, model) == 0 && strcmp(a->fmt[f].best.d.format, format) == 0)
            return a->fmt[f].best.have_budget ? &a->fmt[f] : NULL;
    return NULL;
}

/* The part whose ms differ most between x and the first run's point. */
static int widest_part(const pb_answer_point *first, const pb_answer_point *x)
{
    int best = 0;
    for (int p = 1; p < PB_BUDGET_NPARTS; p++)
        if (fabs(x->part[p] - first->part[p]) > fabs(x->part[best] - first->part[best]))
            best = p;
    return best;
}

static void budget_table(FILE *o, const pb_compare *c, const pb_answer_format *const *f)
{
    fprintf(o, "### %s %s\n\n| part |", PB_MD(f[0]->best.d.model), PB_MD(f[0]->best.d.format));
    for (int i = 0; i < c->n; i++)
        fprintf(o, " %s: %s, %d thread%s%s |", PB_MD(c->run[i].label), PB_MD(f[i]->best.d.policy),
                f[i]->best.d.threads, PB_S(f[i]->best.d.threads), f[i]->trusted ? "" : " (noisy)");
    fprintf(o, "\n|---|");
    for (int i = 0; i < c->n; i++)
        fprintf(o, "---:|");
    fprintf(o, "\n");
    for (int p = 0; p < PB_BUDGET_NPARTS; p++) {
        fprintf(o, "| %s |", pb_budget_part_name((pb_budget_part)p));
        for (int i = 0; i < c->n; i++) {
            const pb_answer_point *x = &f[i]->best;
            fprintf(o, " %s ms (%s) |", PB_NUM(x->part[p], 2), PB_PCT(100.0 * x->part[p] / x->d.ms_median));
        }
        fprintf(o, "\n");
    }
    fprintf(o, "| token |");
    for (int i = 0; i < c->n; i++)
        fprintf(o, " %s ms, %s tok/s |", PB_NUM(f[i]->best.d.ms_median, 2), PB_NUM(f[i]->best.d.tok_s, 2));
    fprintf(o, "\n\n");
    for (int i = 1; i < c->n; i++) {
        const pb_answer_point *a = &f[0]->best, *x = &f[i]->best;
        int p = widest_part(a, x);
        fprintf(o, "%s against %s: the part that differs most is %s, %s ms against %s (%s%s ms of the token's "
                   "%s%s ms).\n",
                PB_MD(c->run[i].label), PB_MD(c->run[0].label), pb_budget_part_name((pb_budget_part)p),
                PB_NUM(x->part[p], 2), PB_NUM(a->part[p], 2), x->part[p] >= a->part[p] ? "+" : "",
                PB_NUM(x->part[p] - a->part[p], 2), x->d.ms_median >= a->d.ms_median ? "+" : "",
                PB_NUM(x->d.ms_median - a->d.ms_median, 2));
    }
    fprintf(o, "\n");
}

void pb_compare_budget(FILE *o, const pb_compare *c)
{
    pb_answers *a = calloc((size_t)c->n, sizeof *a);
    bool ok = a != NULL;
    for (int i = 0; ok && i < c->n; i++)
        ok = pb_answers_make(&a[i], &c->run[i].rd, &c->run[i].d) == 0;
    int shown = 0;
    for (int f = 0; ok && f < a[0].nfmt; f++) {
        const pb_answer_format *per[PB_CMP_RUNS];
        bool all = true;
        for (int i = 0; i < c->n && all; i++)
            all = (per[i] = format_of(&a[i], a[0].fmt[f].best.d.model, a[0].fmt[f].best.d.format)) != NULL;
        if (!all)
            continue;
        if (!shown++)
            fprintf(o, "## Where the time went, side by side\n\nEach run's best decode point of the format (as its "
                       "report.md chooses it: trusted points first), its median token in the parts that add up to "
                       "it, ms and %% of its token.\n\n");
        budget_table(o, c, per);
    }
    for (int i = 0; a && i < c->n; i++)
        pb_answers_free(&a[i]);
    free(a);
}
