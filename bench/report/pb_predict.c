/* predict.csv read back (pb_predict.h) and report.md's "Cycles on paper" section. */
#include "pb_predict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_md_escape.h"

const char *pb_predict_format_name(int i)
{
    const kern_format_info *fi = i >= 0 && i < PB_PREDICT_FORMATS ? kern_format_get((kern_format)i) : NULL;
    return fi ? fi->name : "";
}

const char *pb_predict_layout(const pb_table *t, size_t r, int col)
{
    const char *l = col >= 0 ? pb_table_str(t, r, col) : "";
    return l[0] ? l : "file";
}

static int format_index(const char *s)
{
    kern_format f;
    return kern_format_parse(s, &f) == 0 ? (int)f : -1;
}

/* Copies s into a fixed field, cut at its size (a field of the CSV is anyone's text: never trusted to fit). */
static void copy(char *dst, size_t len, const char *s)
{
    snprintf(dst, len, "%s", s);
}

int pb_predict_status_kind(const char *st)
{
    if (strcmp(st, "ok") == 0 || strcmp(st, "branchy") == 0)
        return 0;
    if (strcmp(st, "element-loop") == 0 || strcmp(st, "nested") == 0)
        return 1;
    return -1;
}

static pb_predict_chip *chip_of(pb_predict *p, const char *arch, const char *cpu)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->c[i].arch, arch) == 0 && strcmp(p->c[i].cpu, cpu) == 0)
            return &p->c[i];
    if (p->n == PB_PREDICT_CHIPS) {
        p->truncated = true;
        return NULL;
    }
    pb_predict_chip *c = &p->c[p->n++];
    memset(c, 0, sizeof *c);
    copy(c->arch, sizeof c->arch, arch);
    copy(c->cpu, sizeof c->cpu, cpu);
    c->clock_ghz = c->bw_gbs = NAN;
    for (int f = 0; f < PB_PREDICT_FORMATS; f++)
        c->f[f].gbs = NAN;
    return c;
}

/* Whether a usable row (gbs, bound) beats the cell: a prediction beats a bound, then the faster wins. */
static bool beats(const pb_predict_cell *c, double gbs, bool bound)
{
    if (isnan(c->gbs))
        return true;
    if (c->bound != bound)
        return !bound;
    return gbs > c->gbs;
}

int pb_predict_read(pb_predict *p, const char *path, pb_csverr *e)
{
    memset(p, 0, sizeof *p);
    pb_table t;
    if (pb_table_load(&t, path, e) != 0)
        return -1;
    static const char *const need[] = { "arch", "cpu", "chip", "clock_ghz", "format", "variant", "status",
                                         "gbs_at_clock", "core_bw_gbs", NULL };
    if (pb_table_require(&t, need, e) != 0) {
        pb_table_free(&t);
        return -1;
    }
    int ca = pb_table_col(&t, "arch"), cc = pb_table_col(&t, "cpu"), cn = pb_table_col(&t, "chip"),
        ck = pb_table_col(&t, "clock_ghz"), cf = pb_table_col(&t, "format"), cv = pb_table_col(&t, "variant"),
        cs = pb_table_col(&t, "status"), cg = pb_table_col(&t, "gbs_at_clock"), cb = pb_table_col(&t, "core_bw_gbs"),
        cm = pb_table_col(&t, "mca_model"), cbk = pb_table_col(&t, "bw_kind"), cbs = pb_table_col(&t, "bw_source"),
        cl = pb_table_col(&t, "layout");
    for (size_t r = 0; r < t.nrows; r++) {
        p->rows++;
        pb_predict_chip *c = chip_of(p, pb_table_str(&t, r, ca), pb_table_str(&t, r, cc));
        if (!c)
            continue;
        if (!c->chip[0])
            copy(c->chip, sizeof c->chip, pb_table_str(&t, r, cn));
        if (!c->model[0]) /* the cpu-lacks rows have none: the first row that ran llvm-mca names it */
            copy(c->model, sizeof c->model, pb_table_str(&t, r, cm));
        if (!c->bw_kind[0]) {
            copy(c->bw_kind, sizeof c->bw_kind, pb_table_str(&t, r, cbk));
            copy(c->bw_source, sizeof c->bw_source, pb_table_str(&t, r, cbs));
        }
        double clock = pb_table_num(&t, r, ck), bw = pb_table_num(&t, r, cb), gbs = pb_table_num(&t, r, cg);
        if (isnan(c->clock_ghz))
            c->clock_ghz = clock;
        if (isnan(c->bw_gbs))
            c->bw_gbs = bw;
        int f = format_index(pb_table_str(&t, r, cf)), kind = pb_predict_status_kind(pb_table_str(&t, r, cs));
        if (f < 0 || kind < 0 || isnan(gbs) || !(gbs > 0)) {
            p->unusable++;
            continue;
        }
        pb_predict_cell *cell = &c->f[f];
        if (beats(cell, gbs, kind == 1)) {
            cell->gbs = gbs;
            cell->bound = kind == 1;
            const char *layout = pb_predict_layout(&t, r, cl);
            if (strcmp(layout, "file") != 0)
                snprintf(cell->kernel, sizeof cell->kernel, "%.15s %.15s", pb_table_str(&t, r, cv), layout);
            else
                copy(cell->kernel, sizeof cell->kernel, pb_table_str(&t, r, cv));
            copy(cell->status, sizeof cell->status, pb_table_str(&t, r, cs));
        }
    }
    pb_table_free(&t);
    return 0;
}

int pb_predict_outruns(const pb_predict_cell *c, double bw)
{
    if (isnan(c->gbs) || isnan(bw) || !(bw > 0))
        return -1;
    if (c->gbs < bw)
        return 0;
    return c->bound ? -1 : 1;
}

/* The formats of chip c whose verdict is want, as "q8_0 (54.2), ..." into buf; how many. */
static int formats_with(const pb_predict_chip *c, int want, char *buf, size_t len)
{
    int n = 0;
    size_t at = 0;
    buf[0] = 0;
    for (int f = 0; f < PB_PREDICT_FORMATS; f++) {
        if (pb_predict_outruns(&c->f[f], c->bw_gbs) != want || isnan(c->f[f].gbs)) /* none: counted apart */
            continue;
        n++;
        if (at >= len) /* full: counted, not listed (the "..." below says so) */
            continue;
        int w = snprintf(buf + at, len - at, "%s%s %s%.1f", n > 1 ? ", " : "", pb_predict_format_name(f),
                         c->f[f].bound ? "≤" : "", c->f[f].gbs);
        if (w > 0)
            at += (size_t)w;
    }
    if (at >= len && len > 4)
        memcpy(buf + len - 4, "...", 4);
    return n;
}

void pb_report_predict(FILE *o, const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/predict.csv", dir);
    pb_predict p;
    pb_csverr e;
    if (pb_predict_read(&p, path, &e) != 0) {
        if (!e.missing)
            fprintf(o, "## Cycles on paper (llvm-mca)\n\npredict.csv cannot be read: %s\n\n", PB_MD_LINE(e.msg));
        return;
    }
    fprintf(o, "## Cycles on paper (llvm-mca)\n\n");
    fprintf(o, "predict.csv (`make predict`): %d rows, %d of them without a usable prediction (their status says "
               "why). llvm-mca's cycles for each kernel's hot loop with every load an L1 hit, at the clock stated "
               "per chip: the GB/s one core could stream if the weights kept up. Against the chip's single-core "
               "memory bandwidth, a format whose best kernel outruns it is memory-bound at one core at DRAM sizes; "
               "one that falls short is compute-bound there, where more cores or a better kernel help and more "
               "bandwidth does not. Per format the fastest variant the chip runs; ≤: an upper bound (the cycles "
               "of the loop around a scalar element only). The model column is the scheduling model llvm-mca "
               "used: where it is another core's, the figures are that pipeline at this chip's clock.\n\n",
            p.rows, p.unusable);
    fprintf(o, "| chip | llvm-mca cpu (model) | clock GHz | one core's bandwidth GB/s (kind) | outrun it: GB/s | "
               "fall short: GB/s | one core is |\n|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < p.n; i++) {
        const pb_predict_chip *c = &p.c[i];
        char over[512], under[512], unk[512];
        int no = formats_with(c, 1, over, sizeof over), nu = formats_with(c, 0, under, sizeof under),
            nk = formats_with(c, -1, unk, sizeof unk);
        char verdict[160];
        if (isnan(c->bw_gbs))
            snprintf(verdict, sizeof verdict, "not judged: no bandwidth figure");
        else if (no && !nu)
            snprintf(verdict, sizeof verdict, "memory-bound in every format judged (%d)", no);
        else if (nu && !no)
            snprintf(verdict, sizeof verdict, "compute-bound in every format judged (%d)", nu);
        else
            snprintf(verdict, sizeof verdict, "memory-bound in %d format%s, compute-bound in %d", no,
                     no == 1 ? "" : "s", nu);
        int nnone = 0;
        for (int f = 0; f < PB_PREDICT_FORMATS; f++)
            nnone += isnan(c->f[f].gbs);
        size_t l = strlen(verdict);
        if (nk && !isnan(c->bw_gbs))
            l += (size_t)snprintf(verdict + l, sizeof verdict - l, "; %d unknown (an upper bound above it)", nk);
        if (nnone && l < sizeof verdict)
            snprintf(verdict + l, sizeof verdict - l, "; %d without a prediction", nnone);
        char bw[64];
        if (isnan(c->bw_gbs))
            snprintf(bw, sizeof bw, "none");
        else
            snprintf(bw, sizeof bw, "%.1f", c->bw_gbs);
        fprintf(o, "| %s | %s (%s) | %.2f | %s (%s) | %s | %s | %s |\n", PB_MD(c->chip), PB_MD(c->cpu),
                c->model[0] ? PB_MD(c->model) : "?", c->clock_ghz, bw, c->bw_kind[0] ? PB_MD(c->bw_kind) : "?",
                no ? PB_MD(over) : "none", nu ? PB_MD(under) : "none", PB_MD(verdict));
    }
    fprintf(o, "\nPer format, GB/s one core could stream (variant); **bold**: outruns that chip's bandwidth.\n\n");
    fprintf(o, "| format |");
    for (int i = 0; i < p.n; i++)
        fprintf(o, " %s |", PB_MD(p.c[i].cpu));
    fprintf(o, "\n|---|");
    for (int i = 0; i < p.n; i++)
        fprintf(o, "---|");
    fprintf(o, "\n");
    for (int f = 0; f < PB_PREDICT_FORMATS; f++) {
        fprintf(o, "| %s |", pb_predict_format_name(f));
        for (int i = 0; i < p.n; i++) {
            const pb_predict_cell *c = &p.c[i].f[f];
            if (isnan(c->gbs)) {
                fprintf(o, " none |");
                continue;
            }
            const char *b = pb_predict_outruns(c, p.c[i].bw_gbs) == 1 ? "**" : "";
            fprintf(o, " %s%s%.1f%s (%s) |", b, c->bound ? "≤" : "", c->gbs, b, PB_MD(c->kernel));
        }
        fprintf(o, "\n");
    }
    fprintf(o, "\nWhere the bandwidth figures come from (expect/predict_cpus.csv; an estimate is no citation, and "
               "bench_memory_floor --threads 1 on the chip replaces it):\n\n");
    for (int i = 0; i < p.n; i++)
        fprintf(o, "- %s: %s (%s)\n", PB_MD(p.c[i].chip),
                p.c[i].bw_source[0] ? PB_MD_LINE(p.c[i].bw_source) : "none given", PB_MD(p.c[i].bw_kind));
    if (p.truncated)
        fprintf(o, "\nMore than %d chips: the rest are left out.\n", PB_PREDICT_CHIPS);
    fprintf(o, "\n");
}
