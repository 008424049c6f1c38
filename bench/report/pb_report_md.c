/* report.md: the sections in order. Every piece of text read from the run directory goes through PB_MD or
 * PB_MD_LINE (pb_md_escape.h); the rest is this file's own words. */
#include <stdio.h>
#include <string.h>

#include "pb_engine.h"
#include "pb_findings.h"
#include "pb_fmt.h"
#include "pb_md_escape.h"
#include "pb_predict.h"
#include "pb_report.h"

static const char *base_name(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    const char *s = dir + n;
    while (s > dir && s[-1] != '/')
        s--;
    return s;
}

static void machine_block(FILE *o, const pb_rundata *rd)
{
    fprintf(o, "## Machine\n\n");
    const pb_table *t = pb_rundata_table(rd, PB_K_MACHINE);
    if (!t) {
        fprintf(o, "No machine.csv in this run directory (%s).\n\n",
                rd->src[PB_K_MACHINE].state == PB_SRC_BAD ? PB_MD_LINE(rd->src[PB_K_MACHINE].err) : "missing");
        return;
    }
    int ck = pb_table_col(t, PB_COL(MACHINE, key)), cv = pb_table_col(t, PB_COL(MACHINE, value));
    fprintf(o, "| fact | value |\n|---|---|\n");
    for (size_t r = 0; r < t->nrows; r++)
        fprintf(o, "| %s | %s |\n", PB_MD(pb_table_str(t, r, ck)), PB_MD(pb_table_str(t, r, cv)));
    fprintf(o, "\n");
}

static const char *const plot_words[] = {
    [PB_PLOT_NO_CSV] = "",
    [PB_PLOT_DRAWN] = "plots drawn",
    [PB_PLOT_SKIPPED] = "plots not redrawn (--no-plots)",
    [PB_PLOT_NO_SCRIPT] = "no plot script in plots/ yet",
    [PB_PLOT_NO_GNUPLOT] = "gnuplot missing, no plot (make deps installs gnuplot-nox)",
    [PB_PLOT_FAILED] = "PLOT FAILED (gnuplot's error is on stderr)",
};

const char *pb_report_partial_note(const pb_source *s, const pb_kind_info *ki, char *buf, size_t len)
{
    char who[160];
    if (s->live)
        snprintf(who, sizeof who, "which %s is still writing (it holds the file's lock)", ki->harness);
    else
        snprintf(who, sizeof who, "left by a killed harness (%s)", ki->harness);
    snprintf(buf, len, "%s: from %s, %s: %zu row%s%s", ki->schema->file, s->partial, who, s->t.nrows,
             PB_S(s->t.nrows), s->cut ? " (a last row cut mid-way left out)" : "");
    return buf;
}

int pb_report_incomplete_items(FILE *o, const pb_rundata *rd, const char *label)
{
    const char *v[PB_INCOMPLETE_MAX];
    int n = pb_machine_values(rd, PB_INCOMPLETE_KEY, v, PB_INCOMPLETE_MAX);
    const char *sep = label ? ": " : "";
    label = label ? PB_MD(label) : "";
    for (int i = 0; i < n; i++)
        fprintf(o, "- %s%s%s\n", label, sep, PB_MD_LINE(v[i]));
    for (int k = 0; k < PB_K_COUNT; k++) {
        char note[1024];
        if (rd->src[k].state != PB_SRC_PARTIAL)
            continue;
        fprintf(o, "- %s%s%s\n", label, sep,
                PB_MD_LINE(pb_report_partial_note(&rd->src[k], &pb_kinds[k], note, sizeof note)));
        n++;
    }
    return n;
}

/* Rows measured with a core made slow on purpose measure the emulation, not the machine: said before anything. */
static void emulated_warning(FILE *o, const pb_digest *d)
{
    const pb_sweep_digest *s = &d->sweep;
    const pb_kernels_digest *k = &d->kern;
    if (!s->nemulated && !k->nemulated)
        return;
    fprintf(o, "**EMULATED SLOW CORES.** %d row%s of sweep.csv and %d of kernels.csv ran with cpus slowed on purpose "
               "(--emulate-slow: after every slice of rows the thread on such a cpu busy-waits (1/F - 1) times what the "
               "slice took; first seen: %s). Those rows show what unequal cores do to a barrier and how the schedules "
               "recover it; they do not measure this machine's cores as they are. Each says so in its emulate_slow "
               "column.\n\n",
            s->nemulated, PB_S(s->nemulated), k->nemulated, PB_MD(s->nemulated ? s->emulated : k->emulated));
}

static void incomplete_warning(FILE *o, const pb_rundata *rd)
{
    if (!pb_rundata_incomplete(rd))
        return;
    fprintf(o, "**INCOMPLETE RUN.** A harness was stopped before it finished (or is still running): the figures "
               "below cover only the rows it measured, and a section may be missing for the same reason.\n\n");
    pb_report_incomplete_items(o, rd, NULL);
    fprintf(o, "\n");
}

int pb_report_source_problems(FILE *o, const pb_source *s, const char *lead)
{
    if (s->state == PB_SRC_BAD) {
        fprintf(o, "%s%s, left out: %s\n", lead, s->unreadable ? "NOT READ" : "MALFORMED", PB_MD_LINE(s->err));
        return 1;
    }
    int kept = s->nbad < PB_SRC_CELLS_KEPT ? s->nbad : PB_SRC_CELLS_KEPT;
    for (int i = 0; i < kept; i++)
        fprintf(o, "%sMALFORMED CELL: %s\n", lead, PB_MD_LINE(s->bad[i]));
    if (s->nbad > kept)
        fprintf(o, "%sMALFORMED CELLS: %d more, their rows left out too\n", lead, s->nbad - kept);
    return s->nbad;
}

/* One kind's line: rows and plots, missing, partial, or left out; then its malformed cells. */
static void source_line(FILE *o, const pb_source *s, const pb_kind_info *ki, pb_plot_state plot)
{
    char note[1024];
    if (s->state == PB_SRC_MISSING) {
        fprintf(o, "- %s: missing: %s did not run into this directory, so there is no %s section.\n",
                ki->schema->file, ki->harness, ki->what);
        return;
    }
    if (s->state == PB_SRC_BAD) {
        snprintf(note, sizeof note, "- %s: ", ki->schema->file);
        pb_report_source_problems(o, s, note);
        return;
    }
    if (s->state == PB_SRC_PARTIAL)
        fprintf(o, "- %s%s\n", PB_MD_LINE(pb_report_partial_note(s, ki, note, sizeof note)),
                ki->plot ? "; no plot (the plot scripts read the finished CSV)" : "");
    else
        fprintf(o, "- %s (%s): %zu rows%s%s\n", ki->schema->file, ki->harness, s->t.nrows,
                plot != PB_PLOT_NO_CSV ? "; " : "", plot_words[plot]);
    pb_report_source_problems(o, s, "  - ");
}

static void sources(FILE *o, const pb_rundata *rd, const pb_plotlog *log)
{
    fprintf(o, "## Sources\n\n");
    for (int k = 0; k < PB_K_COUNT; k++)
        source_line(o, &rd->src[k], &pb_kinds[k], log->state[k]);
    fprintf(o, "\n");
}

static void sentences(FILE *o, const char *title, const pb_findings *f, const char *none)
{
    fprintf(o, "## %s\n\n", title);
    for (int i = 0; i < f->n; i++)
        fprintf(o, "- %s\n", PB_MD_LINE(f->s[i]));
    if (!f->n)
        fprintf(o, "%s\n", none);
    fprintf(o, "\n");
}

void pb_report_md(FILE *o, const pb_rundata *rd, const pb_digest *d, const pb_plotlog *log, const char *refs)
{
    const char *host = pb_machine_value(rd, PB_MKEY(host)), *id = pb_machine_value(rd, PB_MKEY(run_id));
    fprintf(o, "# poolbench report: %s, run %s\n\n", host && *host ? PB_MD(host) : "unknown host",
            PB_MD(id && *id ? id : base_name(rd->dir)));
    incomplete_warning(o, rd);
    emulated_warning(o, d);
    pb_report_answers(o, rd, d); /* the first screen: the answers, then the plots, the detail, the machine */
    fprintf(o, "## Plots\n\n");
    pb_report_embed_pngs(o, rd->dir);
    fprintf(o, "\nWhere a decode token's time goes on this machine. Every figure below is read from the CSVs in this "
               "directory; every sentence is computed from them.\n\n");
    sources(o, rd, log);
    fprintf(o, "## Headline\n\n");
    pb_report_headline(o, d);
    pb_report_kernels(o, rd);
    pb_report_model(o, rd);
    pb_report_engine(o, rd, d);
    pb_report_refs(o, rd, d, refs);
    pb_report_latency(o, d);
    pb_findings f;
    pb_findings_make(&f, d);
    sentences(o, "Findings", &f, "No findings: the CSVs they come from are missing.");
    pb_noise_notes(&f, d, rd);
    sentences(o, "Noise", &f, "No noise figures: no placement, spread or load figures in this run.");
    pb_report_predict(o, rd->dir); /* predict.csv, when make predict --run-dir put one here */
    pb_report_predict_measured(o, rd);
    machine_block(o, rd);
}
