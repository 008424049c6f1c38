/* report.md: the sections in order. */
#include <stdio.h>
#include <string.h>

#include "pb_findings.h"
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
                rd->src[PB_K_MACHINE].state == PB_SRC_BAD ? rd->src[PB_K_MACHINE].err : "missing");
        return;
    }
    int ck = pb_table_col(t, "key"), cv = pb_table_col(t, "value");
    fprintf(o, "| fact | value |\n|---|---|\n");
    for (size_t r = 0; r < t->nrows; r++)
        fprintf(o, "| %s | %s |\n", pb_table_str(t, r, ck), pb_table_str(t, r, cv));
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

static void sources(FILE *o, const pb_rundata *rd, const pb_plotlog *log)
{
    fprintf(o, "## Sources\n\n");
    for (int k = 0; k < PB_K_COUNT; k++) {
        const pb_source *s = &rd->src[k];
        const pb_kind_info *ki = &pb_kinds[k];
        if (s->state == PB_SRC_MISSING)
            fprintf(o, "- %s: missing: %s did not run into this directory, so there is no %s section.\n", ki->file,
                    ki->harness, ki->what);
        else if (s->state == PB_SRC_BAD)
            fprintf(o, "- %s: MALFORMED, left out: `%s`\n", ki->file, s->err);
        else
            fprintf(o, "- %s (%s): %zu rows%s%s\n", ki->file, ki->harness, s->t.nrows,
                    log->state[k] != PB_PLOT_NO_CSV ? "; " : "", plot_words[log->state[k]]);
    }
    fprintf(o, "\n");
}

static void sentences(FILE *o, const char *title, const pb_findings *f, const char *none)
{
    fprintf(o, "## %s\n\n", title);
    for (int i = 0; i < f->n; i++)
        fprintf(o, "- %s\n", f->s[i]);
    if (!f->n)
        fprintf(o, "%s\n", none);
    fprintf(o, "\n");
}

void pb_report_md(FILE *o, const pb_rundata *rd, const pb_digest *d, const pb_plotlog *log)
{
    const char *host = pb_machine_value(rd, "host"), *id = pb_machine_value(rd, "run_id");
    fprintf(o, "# poolbench report: %s, run %s\n\n", host && *host ? host : "unknown host",
            id && *id ? id : base_name(rd->dir));
    fprintf(o, "Where a decode token's time goes on this machine. Every figure below is read from the CSVs in this "
               "directory; every sentence is computed from them.\n\n");
    machine_block(o, rd);
    sources(o, rd, log);
    fprintf(o, "## Headline\n\n");
    pb_report_headline(o, d);
    pb_findings f;
    pb_findings_make(&f, d);
    sentences(o, "Findings", &f, "No findings: the CSVs they come from are missing.");
    pb_noise_notes(&f, d, rd);
    sentences(o, "Noise", &f, "No noise figures: no placement, spread or load figures in this run.");
    fprintf(o, "## Plots\n\n");
    pb_report_embed_pngs(o, rd->dir);
}
