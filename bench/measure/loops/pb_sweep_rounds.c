/* pb_sweep_rounds.c — see pb_sweep_rounds.h. */
#include "pb_sweep_rounds.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_err.h"
#include "pb_pairs.h"
#include "pb_placement.h"
#include "pb_progress.h"
#include "pb_sweep_point.h"

/* The block's alternatives at d's batch, as its points ran them: their executors into alts, their names into
 * labels. How many. */
static int rnd_alternatives(const pb_sweep_block *b, pb_decode *d, pb_pairs_alt *alts, pb_sweep_row *labels)
{
    const pb_sweep_dispatch *dp = &b->p->dispatch;
    int n = 0, glues = dp->glues->n;
    const pb_list *policies = pb_sweep_policies(dp, d->prompt);
    for (int k = 0; k < policies->n; k++)
        for (int sg = 0; sg < dp->nsched * glues && n < PB_PAIRS_MAX_ALTS; sg++) {
            int s = sg / glues, kind = pb_sweep_point_kind(dp, (int)policies->v[k], b->place->n);
            if (!pb_sweep_sched_runs(b->p, s, b->place))
                continue;
            alts[n] = (pb_pairs_alt){ .glue = (pb_glue_mode)dp->glues->v[sg % glues],
                                      .cfg = pb_sweep_point_cfg(b, kind, s) };
            d->glue = alts[n].glue;
            pb_sweep_point_label(b, d, kind, s, &labels[n]);
            n++;
        }
    return n;
}

/* The placement of a block's first two cpus between two interleaved rounds: the tag of a round trip taken now. */
typedef struct rnd_place {
    const pb_sweep_block *b;
    char tag[8];
    bool have;
} rnd_place;

static bool rnd_place_moved(void *ctx)
{
    rnd_place *pl = ctx; /* pb_pairs hands back the rnd_place pb_sweep_rounds_run gave it */
    const pb_cpulist *pair = pl->b->pair;
    int a = pair->cpu[0], c = pair->n > 1 ? pair->cpu[1] : -1;
    double rt = pb_roundtrip_ns(a, c, 3, pl->b->p->timing.quick ? PB_SWEEP_RT_ITERS / 10 : PB_SWEEP_RT_ITERS / 5);
    const char *tag = pb_placement_block(pl->b->p->cores.where, a, c, rt, rt);
    bool moved = pl->have && strcmp(pl->tag, tag) != 0;
    snprintf(pl->tag, sizeof pl->tag, "%s", tag);
    pl->have = true;
    return moved;
}

int pb_sweep_rounds_run(const pb_sweep_block *b, pb_decode *d, char *err, size_t errlen)
{
    const pb_sweep_plan *p = b->p;
    if (p->timing.pair_s <= 0 || b->oversubscribed)
        return 0;
    pb_pairs_alt alts[PB_PAIRS_MAX_ALTS];
    pb_sweep_row *labels = calloc(PB_PAIRS_MAX_ALTS, sizeof *labels);
    pb_pairs_result *res = malloc(sizeof *res);
    pb_glue_mode glue = d->glue;
    int n = labels && res ? rnd_alternatives(b, d, alts, labels) : 0, rc = 0;
    d->glue = glue;
    if (!labels || !res)
        rc = pb_errf(err, errlen, "interleaved rounds: out of memory");
    else if (n >= 2) {
        /* seconds without a point ending: the progress line says what runs meanwhile */
        pb_status("%s: %d alternatives interleaved, a token each a round, up to %.0f s", labels[0].format, n,
                  p->timing.pair_s);
        rnd_place place = { .b = b };
        const pb_pairs_hook hook = { .moved = rnd_place_moved, .ctx = &place };
        rc = pb_pairs_run(d, alts, n, b->held->cpu, b->held->n, p->timing.pair_s, p->timing.procstat, &hook, res,
                          err, errlen);
    }
    for (int r = 0; rc == 0 && n >= 2 && r < res->rounds; r++)
        for (int a = 0; a < n && rc == 0; a++) {
            const pb_sweep_pair pr = { .label = &labels[a], .round = r + 1, .slot = res->slot[r][a],
                                       .ms = res->ms[r][a], .steal_pct = res->steal[r][a],
                                       .aside = res->aside[r][a], .moved = res->moved[r],
                                       .stopped = res->narrow ? "narrow" : "budget" };
            if (p->sink.pair_row(p->sink.ctx, &pr) != 0)
                rc = pb_errf(err, errlen, "writing pairs.csv: %s", strerror(errno));
        }
    free(labels);
    free(res);
    return rc;
}
