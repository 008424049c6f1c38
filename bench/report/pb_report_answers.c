/* report.md's first screen: the machine in a line, then the answers (pb_answer.h) — the read floor per thread
 * count, per format the best decode and its biggest loss with its owner, what to run and what deviating costs,
 * tok/s at the floor per model size, and the noise. Every sentence comes from the CSVs; text from them goes
 * through PB_MD. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_answer.h"
#include "pb_exec.h"
#include "pb_fmt.h"
#include "pb_md_escape.h"
#include "pb_report.h"
#include "pb_tuning.h"

static double fact_num(const pb_rundata *rd, const char *key)
{
    const char *v = pb_machine_value(rd, key);
    double x;
    return v && pb_parse_num(v, &x) == 0 ? x : NAN;
}

static const char *fact(const pb_rundata *rd, const char *key)
{
    const char *v = pb_machine_value(rd, key);
    return v && *v ? v : "?";
}

/* "2 general cores" or "6 performance + 4 efficiency cores", from the kindK_ facts. */
static void kinds_text(const pb_rundata *rd, char *buf, size_t len)
{
    int kinds = (int)fact_num(rd, PB_MKEY(kinds));
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < kinds && k < 8 && at < len; k++) {
        char key[2][48];
        snprintf(key[0], sizeof key[0], "kind%d_cores", k);
        snprintf(key[1], sizeof key[1], "kind%d_purpose", k);
        if (isnan(fact_num(rd, key[0]))) { /* a machine.csv from before the kinds' keys */
            buf[0] = '\0';
            break;
        }
        at += (size_t)snprintf(buf + at, len - at, "%s%s %s", k ? " + " : "", PB_NUM(fact_num(rd, key[0]), 0),
                               PB_MD(fact(rd, key[1])));
    }
    if (!buf[0])
        snprintf(buf, len, "%s", PB_NUM(fact_num(rd, PB_MKEY(cores)), 0));
}

/* One line: CPU, cores, memory, OS kernel, hypervisor, and what makes the run noisy. */
static void machine_line(FILE *o, const pb_rundata *rd, const pb_answers *a)
{
    if (!pb_rundata_table(rd, PB_K_MACHINE)) {
        fprintf(o, "**Machine:** no machine.csv in this run directory.\n\n");
        return;
    }
    char kinds[256];
    kinds_text(rd, kinds, sizeof kinds);
    const char *hv = fact(rd, PB_MKEY(hypervisor));
    double load = fact_num(rd, PB_MKEY(loadavg_1m)), pus = fact_num(rd, PB_MKEY(pus));
    fprintf(o, "**Machine:** %s, %s cores, %s hardware threads, %s memory, %s, %s", PB_MD(fact(rd, PB_MKEY(brand))),
            kinds, PB_NUM(pus, 0), PB_BYTES(fact_num(rd, PB_MKEY(memory_bytes))), PB_MD(fact(rd, PB_MKEY(kernel))),
            strcmp(hv, "none") == 0 ? "no hypervisor" : strcmp(hv, "?") == 0 ? "hypervisor unknown" : "hypervisor ");
    if (strcmp(hv, "none") != 0 && strcmp(hv, "?") != 0)
        fprintf(o, "%s", PB_MD(hv));
    bool loaded = load >= 0 && pus > 0 && load / pus > PB_LOADED_PER_CPU;
    if (loaded)
        fprintf(o, "; LOADED: load average %s at start (%s a cpu)", PB_NUM(load, 2), PB_NUM(load / pus, 1));
    if (a->steal_max > PB_STEAL_NOISY_PCT)
        fprintf(o, "; STEAL: a sweep point's cpus lost up to %s to the hypervisor", PB_PCT(a->steal_max));
    if (!loaded && !(a->steal_max > PB_STEAL_NOISY_PCT))
        fprintf(o, "; quiet: load average %s at start, no steal over %s", PB_NUM(load, 2), PB_PCT(PB_STEAL_NOISY_PCT));
    fprintf(o, ".\n\n");
}

static void floor_line(FILE *o, const pb_digest *d)
{
    if (!d->floor.have || !d->floor.n) {
        fprintf(o, "**Read floor:** no memory_floor.csv in this run.\n\n");
        return;
    }
    fprintf(o, "**Read floor** (streaming read, the best kernel's median pass):");
    for (int i = 0; i < d->floor.n; i++)
        fprintf(o, "%s %d thread%s %s GB/s", i ? "," : "", d->floor.pt[i].threads, PB_S(d->floor.pt[i].threads),
                PB_NUM(d->floor.pt[i].median, 1));
    fprintf(o, ".\n\n");
}

/* "spin, static, fused glue, 2 threads on p" (no glue where the CSV predates the column) */
static void point_text(const pb_answer_point *p, char *buf, size_t len)
{
    snprintf(buf, len, "%s, %s, %s%s%d thread%s on %s", PB_MD(p->d.policy), PB_MD(p->d.schedule), PB_MD(p->d.glue),
             p->d.glue[0] ? " glue, " : "", p->d.threads, PB_S(p->d.threads), PB_MD(p->d.cpuset));
}

static void loss_text(const pb_answer_biggest_loss *l, char *buf, size_t len)
{
    if (l->part < 0)
        snprintf(buf, len, "no budget in this sweep.csv | —");
    else
        snprintf(buf, len, "%s %s ms, %s of the token | %s: %s", pb_budget_part_name((pb_budget_part)l->part),
                 PB_NUM(l->ms, 2), PB_PCT(l->pct), pb_owner_names[l->owner], PB_MD_LINE(l->why));
}

static void formats_table(FILE *o, const pb_answers *a)
{
    fprintf(o, "| model | format | best tok/s | %% of floor | at | biggest loss past the floor | owner |\n"
               "|---|---|---:|---:|---|---|---|\n");
    for (int f = 0; f < a->nfmt; f++) {
        const pb_answer_format *x = &a->fmt[f];
        char at[768], loss[768], ties[512];
        point_text(&x->best, at, sizeof at);
        if (pb_answer_ties(a, &x->best, ties, sizeof ties)) /* what two runs may pick either way */
            snprintf(at + strlen(at), sizeof at - strlen(at), " (interleaved, no difference measured from: %s)",
                     PB_MD(ties));
        loss_text(&x->loss, loss, sizeof loss);
        fprintf(o, "| %s | %s | %s%s | %s | %s | %s |\n", PB_MD(x->best.d.model), PB_MD(x->best.d.format),
                PB_NUM(x->best.d.tok_s, 2), x->trusted ? "" : " (noisy)", PB_PCT(x->best.d.pct_floor), at, loss);
    }
    fprintf(o, "\n");
}

/* What a deviation is, in words, where the dimension's value says more than its name: a policy's from the
 * executor's kinds (pb_exec_kind_words, the pool's POOL_POLICY_NAMES), the others' here. */
static const char *dev_words(const pb_answer_dev *v)
{
    pb_exec_kind kind;
    if (strcmp(v->dim, "policy") == 0)
        return pb_exec_kind_parse(v->p.d.policy, &kind) == 0 ? pb_exec_kind_words[kind] : NULL;
    static const struct { const char *dim, *value, *words; } w[] = {
        { "core set", "p+e", "past the P-cores" },
        { "core set", "e", "E-cores only" },
        { "core set", "smt", "SMT siblings too" },
        { "core set", "physical", "one thread a core" },
        { "glue", "serial", "all glue on the calling thread" },
        { "glue", "fused", "row-local glue inside the dispatches" },
    };
    const char *value = strcmp(v->dim, "core set") == 0 ? v->p.d.cpuset
                        : strcmp(v->dim, "glue") == 0   ? v->p.d.glue
                                                        : "";
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (strcmp(w[i].dim, v->dim) == 0 && strcmp(w[i].value, value) == 0)
            return w[i].words;
    return NULL;
}

/* The deviation's dimension and value: "policy spin", "threads 1". */
static void dev_name(FILE *o, const pb_answer_dev *v)
{
    fprintf(o, "%s ", v->dim);
    if (strcmp(v->dim, "threads") == 0)
        fprintf(o, "%d", v->p.d.threads);
    else
        fprintf(o, "%s", PB_MD(strcmp(v->dim, "policy") == 0     ? v->p.d.policy
                               : strcmp(v->dim, "core set") == 0 ? v->p.d.cpuset
                               : strcmp(v->dim, "glue") == 0     ? v->p.d.glue
                                                                 : v->p.d.schedule));
}

/* How many rounds a paired comparison rests on, and those the host spoiled. */
static void dev_rounds(FILE *o, const pb_answer_dev *v)
{
    fprintf(o, "%d round%s interleaved", v->cmp.n, PB_S(v->cmp.n));
    if (v->aside)
        fprintf(o, ", %d set aside (steal, or a placement change)", v->aside);
}

/* A deviation that costs (or gains) what its paired interval shows, or one no interleaving compared (another
 * thread count or core set): its own figures, measured apart. */
static void dev_line(FILE *o, const pb_answer_dev *v)
{
    const char *words = dev_words(v);
    fprintf(o, "- ");
    dev_name(o, v);
    fprintf(o, "%s%s%s: %s tok/s, ", words ? " (" : "", words ? words : "", words ? ")" : "", PB_NUM(v->p.d.tok_s, 2));
    if (v->paired) {
        char cmp[128];
        pb_paired_text(&v->cmp, cmp, sizeof cmp);
        fprintf(o, "%s, ", cmp);
        dev_rounds(o, v);
    } else {
        fprintf(o, "%s%s measured apart (no interval)", v->pct >= 0 ? "+" : "", PB_PCT(v->pct));
    }
    fprintf(o, "%s%s\n", v->p.noisy ? "; noisy: " : "", v->p.noisy ? v->p.noisy_why : "");
}

/* Whether the deviation's cost is stated: a paired interval that excludes no difference, or no pairing at all. */
static bool dev_states(const pb_answer_dev *v)
{
    return !v->paired || pb_paired_differs(&v->cmp);
}

/* The deviations interleaving could not tell from the recommendation, on one line. */
static void dev_same(FILE *o, const pb_answers *a)
{
    int n = 0;
    for (int i = 0; i < a->ndev; i++) {
        const pb_answer_dev *v = &a->dev[i];
        if (dev_states(v))
            continue;
        char cmp[128];
        pb_paired_text(&v->cmp, cmp, sizeof cmp);
        fprintf(o, "%s", n++ ? "; " : "\nInterleaved with it, no difference to state: ");
        dev_name(o, v);
        fprintf(o, ", %s (", cmp);
        dev_rounds(o, v);
        fprintf(o, ")");
    }
    if (n)
        fprintf(o, ".\n");
}

static void run_block(FILE *o, const pb_answers *a)
{
    const pb_answer_point *r = &a->run;
    char at[256];
    point_text(r, at, sizeof at);
    fprintf(o, "**Run** %s %s with %s: %s tok/s, %s of its floor", PB_MD(r->d.model), PB_MD(r->d.format), at,
            PB_NUM(r->d.tok_s, 2), PB_PCT(r->d.pct_floor));
    if (a->run_by_pairs)
        fprintf(o, ". Its block's interleaved rounds put it ahead of the alternatives measured beside it%s%s%s",
                r->noisy ? " (its own point is noisy: " : "", r->noisy ? r->noisy_why : "", r->noisy ? ")" : "");
    else if (a->run_by_slowest)
        fprintf(o, ". Every point of it is noisy, so this is the one whose slowest token was the fastest (%s ms): "
                   "what held for every token",
                PB_NUM(r->ms_max, 2));
    else if (a->fastest_differs)
        fprintf(o, ". The fastest point (%s tok/s, %d thread%s, %s) is noisy (%s): this is what held", 
                PB_NUM(a->fastest.d.tok_s, 2), a->fastest.d.threads, PB_S(a->fastest.d.threads),
                PB_MD(a->fastest.d.policy), a->fastest.noisy_why);
    int stated = 0;
    for (int i = 0; i < a->ndev; i++)
        stated += dev_states(&a->dev[i]);
    fprintf(o, ".%s\n", stated ? " Deviating from it costs:" : "");
    for (int i = 0; i < a->ndev; i++)
        if (dev_states(&a->dev[i]))
            dev_line(o, &a->dev[i]);
    dev_same(o, a);
    fprintf(o, "\n");
}

/* The decode of p's model and format at p's threads, policy, schedule, glue and core set (batch 1); NULL. */
static const pb_answer_point *decode_beside(const pb_answers *a, const pb_answer_point *p)
{
    const pb_answer_point *best = NULL;
    for (int i = 0; i < a->npoints; i++) {
        const pb_answer_point *x = &a->pt[i];
        if (strcmp(x->d.model, p->d.model) == 0 && strcmp(x->d.format, p->d.format) == 0 &&
            x->d.threads == p->d.threads && strcmp(x->d.policy, p->d.policy) == 0 &&
            strcmp(x->d.schedule, p->d.schedule) == 0 && strcmp(x->d.glue, p->d.glue) == 0 &&
            strcmp(x->d.cpuset, p->d.cpuset) == 0 && x->context == p->context && (!best || x->d.tok_s > best->d.tok_s))
            best = x;
    }
    return best;
}

/* The prompt's answer beside the decode's: the focus format's sentence, then a row per format. */
static void prompt_block(FILE *o, const pb_answers *a)
{
    if (!a->nprompt)
        return;
    const pb_answer_format *f = &a->prompt[0];
    for (int i = 0; i < a->nprompt; i++)
        if (strcmp(a->prompt[i].best.d.format, a->run.d.format) == 0)
            f = &a->prompt[i];
    const pb_answer_point *p = &f->best, *dec = decode_beside(a, p);
    char at[256];
    point_text(p, at, sizeof at);
    fprintf(o, "**Prompt** a %d-token prompt of %s %s: %s tok/s, %s s to first token, %s of the int8 roof beside it "
               "and %s of its floor, with %s%s",
            p->prompt, PB_MD(p->d.model), PB_MD(p->d.format), PB_NUM(p->d.tok_s, 1), PB_NUM(p->d.ms_median / 1e3, 3),
            PB_PCT(100 * p->roof_share), PB_PCT(p->d.pct_floor), at, f->trusted ? "" : " (noisy)");
    if (dec)
        fprintf(o, "; the decode there: %s tok/s, so the prompt takes in tokens %s as fast as the decode makes them",
                PB_NUM(dec->d.tok_s, 1), PB_X(p->d.tok_s / dec->d.tok_s));
    fprintf(o, ".\n\n| model | format | prompt | pp tok/s | to first token | %% of roof | %% of floor | at | "
               "biggest loss past the bound | owner |\n|---|---|---:|---:|---:|---:|---:|---|---|---|\n");
    for (int i = 0; i < a->nprompt; i++) {
        const pb_answer_format *x = &a->prompt[i];
        char where[256], loss[768];
        point_text(&x->best, where, sizeof where);
        loss_text(&x->loss, loss, sizeof loss);
        fprintf(o, "| %s | %s | %d | %s%s | %s ms | %s | %s | %s | %s |\n", PB_MD(x->best.d.model),
                PB_MD(x->best.d.format), x->best.prompt, PB_NUM(x->best.d.tok_s, 1), x->trusted ? "" : " (noisy)",
                PB_NUM(x->best.d.ms_median, 1), PB_PCT(100 * x->best.roof_share), PB_PCT(x->best.d.pct_floor), where,
                loss);
    }
    fprintf(o, "\n");
}

static void at_floor(FILE *o, const pb_answers *a)
{
    static const double gb[] = { 1, 4, 8, 16 };
    if (isnan(a->floor_gbps))
        return;
    fprintf(o, "**At the floor** (%s GB/s, %d thread%s%s; a token streams the whole model once):\n\n",
            PB_NUM(a->floor_gbps, 1), a->floor_threads, PB_S(a->floor_threads),
            a->floor_from_sweep ? ", the sweep's interleaved floor" : "");
    fprintf(o, "| model size | 1 GB | 4 GB | 8 GB | 16 GB |\n|---|---:|---:|---:|---:|\n| tok/s at the floor |");
    for (size_t i = 0; i < sizeof gb / sizeof gb[0]; i++)
        fprintf(o, " %s |", PB_NUM(a->floor_gbps / gb[i], gb[i] < 8 ? 1 : 2));
    fprintf(o, "\n\n");
}

/* The floor's compute twin: a prompt's tokens a second if its matrix products ran at the int8 roof, for models of the
 * run's format (a token multiplies every weight once: the model's bytes x the format's MACs per byte). */
static void at_roof(FILE *o, const pb_answers *a)
{
    static const double gb[] = { 1, 4, 8, 16 };
    double mpb = pb_roof_macs_per_byte(a->run.d.format);
    if (isnan(a->roof_gmacs) || isnan(mpb) || !a->have)
        return;
    fprintf(o, "**At the roof** (%s's int8 roof, %s GMAC/s at %d thread%s; a prompt token multiplies every weight "
               "once, %s of %s a byte):\n\n",
            PB_MD(a->roof_isa), PB_NUM(a->roof_gmacs, 1), a->roof_threads, PB_S(a->roof_threads),
            PB_NUM(mpb, 2), PB_MD(a->run.d.format));
    fprintf(o, "| model size | 1 GB | 4 GB | 8 GB | 16 GB |\n|---|---:|---:|---:|---:|\n| prompt tok/s at the roof |");
    for (size_t i = 0; i < sizeof gb / sizeof gb[0]; i++)
        fprintf(o, " %s |", PB_NUM(a->roof_gmacs / (gb[i] * mpb), 0));
    fprintf(o, "\n\n");
}

static void noise_line(FILE *o, const pb_answers *a)
{
    fprintf(o, "**Noise:** ");
    if (!a->nnoisy) {
        fprintf(o, "every one of the %d points held (spread under %d%%, placement steady, steal under %s%s%s).\n\n",
                a->npoints, PB_NOISY_SPREAD_PCT, PB_PCT(PB_STEAL_NOISY_PCT),
                a->nbudget ? ", each budget accounted to within " : "", a->nbudget ? PB_PCT(PB_BUDGET_UNEXPLAINED_PCT) : "");
        return;
    }
    fprintf(o, "%d of the %d points are noisy and marked so", a->nnoisy, a->npoints);
    for (int i = 0, shown = 0; i < a->npoints && shown < 4; i++)
        if (a->pt[i].noisy)
            fprintf(o, "%s %s %s %d thread%s (%s)", shown++ ? ";" : ":", PB_MD(a->pt[i].d.format),
                    PB_MD(a->pt[i].d.policy), a->pt[i].d.threads, PB_S(a->pt[i].d.threads), a->pt[i].noisy_why);
    if (a->nnoisy > 4)
        fprintf(o, "; %d more", a->nnoisy - 4);
    int trusted = a->npoints - a->nnoisy;
    fprintf(o, ". %s\n\n", trusted ? "The answers above take the trusted points first." 
                                   : "No point can be trusted: read every figure as this machine under load.");
}

void pb_report_answers(FILE *o, const pb_rundata *rd, const pb_digest *d)
{
    pb_answers a;
    if (pb_answers_make(&a, rd, d) != 0) {
        fprintf(o, "No answers: out of memory reading sweep.csv.\n\n");
        return;
    }
    machine_line(o, rd, &a);
    fprintf(o, "## Answers\n\n");
    floor_line(o, d);
    if (a.have) {
        formats_table(o, &a);
        run_block(o, &a);
    } else
        fprintf(o, "No decode points: no sweep.csv (bench_sweep) in this run.\n\n");
    prompt_block(o, &a);
    at_floor(o, &a);
    at_roof(o, &a);
    if (a.have)
        noise_line(o, &a);
    pb_answers_free(&a);
}
