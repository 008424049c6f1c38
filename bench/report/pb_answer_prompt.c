/* pb_answer_prompt.c — see pb_answer.h: each format's prompt answer (its longest prompt's fastest trusted point)
 * and the biggest loss of its budget past the bound, with its owner. */
#include <stdio.h>
#include <string.h>

#include "pb_answer.h"
#include "pb_fmt.h"

/* x answers before y: the longer prompt, then a trusted point before a noisy one, then the faster. */
static bool prompt_better(const pb_answer_point *x, const pb_answer_point *y)
{
    if (x->prompt != y->prompt)
        return x->prompt > y->prompt;
    if (x->noisy != y->noisy)
        return !x->noisy;
    return x->d.tok_s > y->d.tok_s;
}

/* The prompt's kernel part is its matmuls beyond the roof (or the floor, where that binds): poolbench's GEMM tiles,
 * with the share of the roof the whole prompt reached. */
static void prompt_loss(pb_answer_format *f, const pb_digest *d)
{
    f->loss = pb_answer_loss(&f->best, d);
    if (f->loss.part != PB_BUDGET_kernel)
        return;
    f->loss.owner = PB_OWNER_POOLBENCH;
    snprintf(f->loss.why, sizeof f->loss.why, "its matrix products beyond the %s: the whole prompt reached %s of "
             "the compute roof beside it", f->best.part[PB_BUDGET_roof] > 0 ? "roof" : "floor",
             PB_PCT(100 * f->best.roof_share));
}

void pb_answers_prompts(pb_answers *a, const pb_digest *d)
{
    a->nprompt = 0;
    for (int i = 0; i < a->npp; i++) {
        const pb_answer_point *p = &a->pp[i];
        int f = 0;
        while (f < a->nprompt && (strcmp(a->prompt[f].best.d.model, p->d.model) != 0 ||
                                  strcmp(a->prompt[f].best.d.format, p->d.format) != 0))
            f++;
        if (f == a->nprompt && a->nprompt == (int)(sizeof a->prompt / sizeof a->prompt[0]))
            continue;
        if (f == a->nprompt)
            a->prompt[a->nprompt++].best = *p;
        else if (prompt_better(p, &a->prompt[f].best))
            a->prompt[f].best = *p;
    }
    for (int f = 0; f < a->nprompt; f++) {
        a->prompt[f].trusted = !a->prompt[f].best.noisy;
        prompt_loss(&a->prompt[f], d);
    }
}
