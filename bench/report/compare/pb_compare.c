/* compare.md. Every piece of text read from the run directories (labels, directories, machine facts, figure
 * labels, error messages) goes through PB_MD or PB_MD_LINE (pb_md_escape.h). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "pb_compare.h"
#include "pb_engine.h"
#include "pb_fmt.h"
#include "pb_md_escape.h"
#include "pb_report.h"

static const char *run_host(const pb_cmp_run *r)
{
    const char *h = pb_machine_value(&r->rd, PB_MKEY(host));
    return h && *h ? h : "unknown";
}

/* The run's own name: the last component of the resolved path (results/<host>/latest names its target). */
static const char *dir_base(const char *dir, char *buf, size_t len)
{
    char real[PATH_MAX];
    const char *p = realpath(dir, real) ? real : dir;
    const char *s = strrchr(p, '/');
    snprintf(buf, len, "%.200s", s && s[1] ? s + 1 : p);
    return buf;
}

void pb_compare_prepare(pb_compare *c)
{
    for (int i = 0; i < c->n; i++) {
        pb_cmp_run *r = &c->run[i];
        bool repeated = false;
        for (int j = 0; j < c->n; j++)
            repeated |= j != i && strcmp(run_host(r), run_host(&c->run[j])) == 0;
        char base[256];
        if (repeated)
            snprintf(r->label, sizeof r->label, "%.28s/%.32s", run_host(r), dir_base(r->rd.dir, base, sizeof base));
        else
            snprintf(r->label, sizeof r->label, "%.60s", run_host(r));
        r->nfig = pb_digest_figs(&r->d, r->fig, PB_CMP_FIGS);
    }
}

static const pb_fig *fig_of(const pb_cmp_run *r, const char *key)
{
    for (int i = 0; i < r->nfig; i++)
        if (strcmp(r->fig[i].key, key) == 0)
            return &r->fig[i];
    return NULL;
}

/* A table's header with one column per run: head (the leading columns' cells), each run's label, then the
 * alignment row: rule for the leading columns, cell_rule for each run's. Ends on the alignment row's line. */
static void runs_header(FILE *o, const pb_compare *c, const char *head, const char *rule, const char *cell_rule)
{
    fprintf(o, "%s", head);
    for (int i = 0; i < c->n; i++)
        fprintf(o, " %s |", PB_MD(c->run[i].label));
    fprintf(o, "\n%s", rule);
    for (int i = 0; i < c->n; i++)
        fprintf(o, "%s", cell_rule);
}

static void runs_table(FILE *o, const pb_compare *c)
{
    fprintf(o, "## Runs\n\n");
    runs_header(o, c, "| |", "|---|", "---|");
    fprintf(o, "\n| directory |");
    for (int i = 0; i < c->n; i++)
        fprintf(o, " %s |", PB_MD(c->run[i].rd.dir));
    fprintf(o, "\n");
    char l3[64];
    snprintf(l3, sizeof l3, "l3_%s", pb_machine_cache_key(PB_MCACHE_total_bytes)->name);
    const char *const machine_keys[] = { PB_MKEY(brand), PB_MKEY(vendor), PB_MKEY(cores), PB_MKEY(pus),
                                         PB_MKEY(kinds), l3, PB_MKEY(memory_bytes), PB_MKEY(isa),
                                         PB_MKEY(hypervisor), PB_MKEY(kernel), PB_MKEY(compiler), PB_MKEY(thp),
                                         PB_MKEY(governor), PB_MKEY(git), PB_MKEY(schema_version), NULL };
    for (const char *const *k = machine_keys; *k; k++) {
        fprintf(o, "| %s |", *k);
        for (int i = 0; i < c->n; i++) {
            const char *v = pb_machine_value(&c->run[i].rd, *k);
            fprintf(o, " %s |", v && *v ? PB_MD(v) : "—");
        }
        fprintf(o, "\n");
    }
    fprintf(o, "\n");
}

/* Figures present in every run, in the first run's order, with ratios to the first. */
static void shared_table(FILE *o, const pb_compare *c)
{
    const pb_cmp_run *a = &c->run[0];
    fprintf(o, "## Headline, side by side\n\nRatios are to the first run (%s); for ns, lower is better.\n\n",
            PB_MD(a->label));
    runs_header(o, c, "| figure | unit |", "|---|---|", "---:|");
    fprintf(o, "\n");
    int shown = 0;
    for (int f = 0; f < a->nfig; f++) {
        const pb_fig *fa = &a->fig[f];
        bool all = true;
        for (int i = 1; i < c->n; i++)
            all &= fig_of(&c->run[i], fa->key) != NULL;
        if (!all)
            continue;
        shown++;
        int dec = strcmp(fa->unit, "threads") == 0 ? 0 : 1;
        fprintf(o, "| %s | %s | %s |", PB_MD(fa->label), fa->unit,
                strcmp(fa->unit, "ns") == 0 ? PB_NS(fa->v) : PB_NUM(fa->v, dec));
        for (int i = 1; i < c->n; i++) {
            const pb_fig *fb = fig_of(&c->run[i], fa->key);
            fprintf(o, " %s (%s) |", strcmp(fb->unit, "ns") == 0 ? PB_NS(fb->v) : PB_NUM(fb->v, dec),
                    PB_X(fb->v / fa->v));
        }
        fprintf(o, "\n");
    }
    if (!shown)
        fprintf(o, "| (no figure is in every run) | | |\n");
    fprintf(o, "\n");
}

static void not_shared(FILE *o, const pb_compare *c)
{
    fprintf(o, "## Not shared\n\n");
    int lines = 0;
    for (int k = 0; k < PB_K_COUNT; k++) {
        char have[512] = "", lack[512] = "";
        size_t oh = 0, ol = 0;
        for (int i = 0; i < c->n; i++) {
            bool ok = pb_rundata_table(&c->run[i].rd, (pb_kind)k) != NULL;
            char *b = ok ? have : lack;
            size_t *n = ok ? &oh : &ol;
            if (*n < sizeof have - 80)
                *n += (size_t)snprintf(b + *n, sizeof have - *n, "%s%s", *n ? ", " : "", c->run[i].label);
        }
        if (oh && ol) {
            fprintf(o, "- %s (%s): in %s; not in %s.\n", pb_kinds[k].schema->file, pb_kinds[k].what,
                    PB_MD_LINE(have), PB_MD_LINE(lack));
            lines++;
        }
    }
    for (int i = 0; i < c->n; i++) {
        for (int f = 0; f < c->run[i].nfig; f++) {
            const pb_fig *x = &c->run[i].fig[f];
            bool first_owner = true, everywhere = true;
            for (int j = 0; j < c->n; j++) {
                bool has = fig_of(&c->run[j], x->key) != NULL;
                everywhere &= has;
                first_owner &= !(j < i && has);
            }
            if (everywhere || !first_owner)
                continue;
            fprintf(o, "- %s: only in", PB_MD(x->label));
            for (int j = 0, m = 0; j < c->n; j++)
                if (fig_of(&c->run[j], x->key))
                    fprintf(o, "%s %s", m++ ? "," : "", PB_MD(c->run[j].label));
            fprintf(o, ".\n");
            lines++;
        }
    }
    const char *const version_keys[] = { PB_MKEY(git), PB_MKEY(schema_version), NULL };
    for (const char *const *k = version_keys; *k; k++) {
        const char *v0 = pb_machine_value(&c->run[0].rd, *k);
        for (int i = 1; i < c->n; i++) {
            const char *v = pb_machine_value(&c->run[i].rd, *k);
            if ((v0 || v) && (!v0 || !v || strcmp(v0, v) != 0)) {
                fprintf(o, "- %s differs: %s in %s, %s in %s; the runs are compared on the figures they share.\n", *k,
                        PB_MD(v0 ? v0 : "none"), PB_MD(c->run[0].label), PB_MD(v ? v : "none"),
                        PB_MD(c->run[i].label));
                lines++;
            }
        }
    }
    if (!lines)
        fprintf(o, "The runs share every CSV and every headline figure.\n");
    fprintf(o, "\n");
}

/* Runs stopped before they finished, each sign named with its run. */
static void incomplete_runs(FILE *o, const pb_compare *c)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        n += pb_rundata_incomplete(&c->run[i].rd);
    if (!n)
        return;
    fprintf(o, "**INCOMPLETE RUNS.** A harness was stopped before it finished: its figures cover only the rows it "
               "measured.\n\n");
    for (int i = 0; i < c->n; i++)
        pb_report_incomplete_items(o, &c->run[i].rd, c->run[i].label);
    fprintf(o, "\n");
}

static bool left_out(const pb_source *s) { return s->state == PB_SRC_BAD || s->nbad > 0; }

/* CSVs left out (malformed, not read) and rows left out (malformed cells), each named with its run. */
static void left_out_sources(FILE *o, const pb_compare *c)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        for (int k = 0; k < PB_K_COUNT; k++)
            n += left_out(&c->run[i].rd.src[k]);
    if (!n)
        return;
    fprintf(o, "Left out of the comparison:\n\n");
    for (int i = 0; i < c->n; i++)
        for (int k = 0; k < PB_K_COUNT; k++) {
            char lead[400];
            snprintf(lead, sizeof lead, "- %s, %s: ", PB_MD(c->run[i].label), pb_kinds[k].schema->file);
            pb_report_source_problems(o, &c->run[i].rd.src[k], lead);
        }
    fprintf(o, "\n");
}

/* Each machine's llama-bench results beside its own floor and its own poolbench decode. */
static void engines(FILE *o, const pb_compare *c)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        n += c->run[i].rd.eng.n;
    if (!n)
        return;
    fprintf(o, "## Your engine beside the floor, per machine\n\n"
               "Each run's llama-bench results (llama-bench.* in its directory) against that machine's read floor for "
               "the model's bytes at the same threads, and that run's own poolbench decode of the same model (as "
               "report.md's section of the same name says).\n\n");
    for (int i = 0; i < c->n; i++) {
        fprintf(o, "### %s\n\n", PB_MD(c->run[i].label));
        if (c->run[i].rd.eng.n)
            pb_report_engine_body(o, &c->run[i].rd, &c->run[i].d);
        else
            fprintf(o, "No llama-bench file in %s.\n\n", PB_MD(c->run[i].rd.dir));
    }
}

void pb_compare_md(FILE *o, const pb_compare *c, const char *out_dir)
{
    fprintf(o, "# poolbench comparison:");
    for (int i = 0; i < c->n; i++)
        fprintf(o, "%s %s", i ? " vs" : "", PB_MD(c->run[i].label));
    fprintf(o, "\n\n");
    incomplete_runs(o, c);
    left_out_sources(o, c);
    runs_table(o, c);
    shared_table(o, c);
    pb_compare_budget(o, c);
    not_shared(o, c);
    engines(o, c);
    fprintf(o, "## Plots\n\n");
    pb_report_embed_pngs(o, out_dir);
}
