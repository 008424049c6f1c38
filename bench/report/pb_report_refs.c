/* pb_report_refs.c — "Among reference machines": this run's headline figures beside the reference runs the
 * repository ships (refs/), each as a ratio to each reference. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_answer.h"
#include "pb_md_escape.h"
#include "pb_report.h"

#define REFS_MAX 8

/* One run's figures for the table. */
typedef struct refs_run {
    char name[256], cpu[160];
    int pus;
    double floor1, floor_top, disp_rt;
    int floor_threads, disp_threads;
    int nfmt, nprompt;
    pb_answer_format fmt[16], prompt[16];
} refs_run;

/* The best read floor at 1 thread: the floor's, else the sweep's 1-thread points'. */
static double refs_floor1(const pb_digest *d, const pb_answers *a)
{
    const pb_floor_point *one = d->floor.have ? pb_digest_floor_at(&d->floor, 1) : NULL;
    if (one)
        return one->best;
    double best = NAN;
    for (int i = 0; i < a->npoints; i++)
        if (a->pt[i].d.threads == 1 && !(a->pt[i].d.floor_gbps <= best))
            best = a->pt[i].d.floor_gbps;
    return best;
}

/* spin's dispatch over the tightest round trip beside it (ratio_to_rt) at the headline threads: how many round
 * trips a dispatch costs. */
static void refs_dispatch(const pb_digest *d, refs_run *r)
{
    r->disp_rt = NAN;
    for (int i = 0; d->pool.have && i < d->pool.n; i++)
        if (strcmp(d->pool.d[i].policy, "spin") == 0)
            r->disp_rt = d->pool.d[i].x_rt;
    r->disp_threads = d->pool.threads;
}

static void refs_figures(refs_run *r, const pb_rundata *rd, const pb_digest *d, const pb_answers *a)
{
    const char *brand = pb_machine_value(rd, PB_MKEY(brand)), *pus = pb_machine_value(rd, PB_MKEY(pus));
    snprintf(r->cpu, sizeof r->cpu, "%s", brand ? brand : "?");
    r->pus = pus ? atoi(pus) : 0;
    r->floor1 = refs_floor1(d, a);
    r->floor_top = a->floor_gbps;
    r->floor_threads = a->floor_threads;
    refs_dispatch(d, r);
    r->nfmt = a->have ? a->nfmt : 0;
    memcpy(r->fmt, a->fmt, sizeof r->fmt);
    r->nprompt = a->nprompt;
    memcpy(r->prompt, a->prompt, sizeof r->prompt);
}

/* A reference run directory read into r: 0, or -1 when it is no run (or the same run as this one, skipped). */
static int refs_load(refs_run *r, const char *dir, const char *name, const pb_rundata *self)
{
    pb_rundata *rd = calloc(1, sizeof *rd);
    pb_digest *d = calloc(1, sizeof *d);
    pb_answers a;
    char err[4400];
    int rc = -1;
    if (rd && d && pb_rundata_load(rd, dir, err, sizeof err) == 0) {
        const char *id = pb_machine_value(rd, PB_MKEY(run_id)), *me = pb_machine_value(self, PB_MKEY(run_id));
        const char *host = pb_machine_value(rd, PB_MKEY(host)), *my_host = pb_machine_value(self, PB_MKEY(host));
        bool same = id && me && host && my_host && strcmp(id, me) == 0 && strcmp(host, my_host) == 0;
        pb_digest_run(d, rd);
        if (!same && pb_answers_make(&a, rd, d) == 0) {
            snprintf(r->name, sizeof r->name, "%s", name);
            refs_figures(r, rd, d, &a);
            pb_answers_free(&a);
            rc = 0;
        }
        pb_rundata_free(rd);
    }
    free(rd);
    free(d);
    return rc;
}

static int refs_name_cmp(const void *a, const void *b)
{
    return strcmp(((const refs_run *)a)->name, ((const refs_run *)b)->name);
}

/* Every run directory under refs (sorted by name), into r: how many. */
static int refs_collect(const char *refs, const pb_rundata *self, refs_run *r)
{
    DIR *dir = opendir(refs);
    struct dirent *e;
    int n = 0;
    char path[4400];
    while (dir && n < REFS_MAX && (e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", refs, e->d_name);
        n += refs_load(&r[n], path, e->d_name, self) == 0;
    }
    if (dir)
        closedir(dir);
    qsort(r, (size_t)n, sizeof *r, refs_name_cmp);
    return n;
}

/* " (1.34×)": x over ref, or nothing when either is unknown. */
static void refs_ratio(FILE *o, double x, double ref)
{
    if (isfinite(x) && isfinite(ref) && ref > 0)
        fprintf(o, " (%.2f×)", x / ref);
}

/* One figure's cells: v with its unit (and " at N" threads when N > 0), then each reference's with the ratio. */
static void refs_fig_row(FILE *o, const char *label, const char *fmt, const double *v, const int *thr, int n)
{
    fprintf(o, "| %s |", label);
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i]) || v[i] <= 0) {
            fprintf(o, " — |");
            continue;
        }
        char num[64];
        snprintf(num, sizeof num, fmt, v[i]);
        fprintf(o, " %s", num);
        if (thr[i] > 0)
            fprintf(o, " at %d", thr[i]);
        if (i > 0)
            refs_ratio(o, v[0], v[i]);
        fprintf(o, " |");
    }
    fprintf(o, "\n");
}

/* The machine rows: column 0 is this run, then the references. */
static void refs_rows_machine(FILE *o, const refs_run *me, const refs_run *r, int n)
{
    double f1[REFS_MAX + 1], ft[REFS_MAX + 1], disp[REFS_MAX + 1];
    int none[REFS_MAX + 1] = { 0 }, tt[REFS_MAX + 1], dt[REFS_MAX + 1];
    for (int i = 0; i <= n; i++) {
        const refs_run *x = i ? &r[i - 1] : me;
        f1[i] = x->floor1;
        ft[i] = x->floor_top;
        tt[i] = x->floor_threads;
        disp[i] = x->disp_rt;
        dt[i] = x->disp_threads;
    }
    refs_fig_row(o, "read floor, 1 thread", "%.1f GB/s", f1, none, n + 1);
    refs_fig_row(o, "read floor, all threads", "%.1f GB/s", ft, tt, n + 1);
    refs_fig_row(o, "spin dispatch in round trips, all threads (lower is better)", "%.2f", disp, dt, n + 1);
}

/* The answer of the same model, format (and prompt length) in list, NULL when the reference ran none. */
static const pb_answer_format *refs_match(const pb_answer_format *f, const pb_answer_format *list, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i].best.d.model, f->best.d.model) == 0 && strcmp(list[i].best.d.format, f->best.d.format) == 0 &&
            list[i].best.prompt == f->best.prompt)
            return &list[i];
    return NULL;
}

/* A decode row: tok/s and % of floor, the ratio of % of floor; a prompt row: tok/s and its ratio. */
static void refs_cell(FILE *o, const pb_answer_format *f, const pb_answer_format *mine, bool prompt)
{
    if (!f) {
        fprintf(o, " — |");
        return;
    }
    if (prompt) {
        fprintf(o, " %.1f tok/s", f->best.d.tok_s);
        if (mine)
            refs_ratio(o, mine->best.d.tok_s, f->best.d.tok_s);
    } else {
        fprintf(o, " %.1f tok/s, %.0f%% of floor", f->best.d.tok_s, f->best.d.pct_floor);
        if (mine)
            refs_ratio(o, mine->best.d.pct_floor, f->best.d.pct_floor);
    }
    fprintf(o, " |");
}

static void refs_rows_decode(FILE *o, const refs_run *me, const refs_run *r, int n)
{
    for (int k = 0; k < me->nfmt; k++) {
        const pb_answer_format *f = &me->fmt[k];
        fprintf(o, "| best decode, %s %s |", PB_MD(f->best.d.model), PB_MD(f->best.d.format));
        refs_cell(o, f, NULL, false);
        for (int i = 0; i < n; i++)
            refs_cell(o, refs_match(f, r[i].fmt, r[i].nfmt), f, false);
        fprintf(o, "\n");
    }
    for (int k = 0; k < me->nprompt; k++) {
        const pb_answer_format *f = &me->prompt[k];
        fprintf(o, "| %d-token prompt, %s %s |", f->best.prompt, PB_MD(f->best.d.model), PB_MD(f->best.d.format));
        refs_cell(o, f, NULL, true);
        for (int i = 0; i < n; i++)
            refs_cell(o, refs_match(f, r[i].prompt, r[i].nprompt), f, true);
        fprintf(o, "\n");
    }
}

void pb_report_refs(FILE *o, const pb_rundata *rd, const pb_digest *d, const char *refs)
{
    fprintf(o, "## Among reference machines\n\n");
    refs_run *r = refs ? calloc(REFS_MAX + 1, sizeof *r) : NULL;
    int n = r ? refs_collect(refs, rd, r) : 0;
    pb_answers a;
    if (n == 0 || pb_answers_make(&a, rd, d) != 0) {
        fprintf(o, "No reference runs %s%s.\n\n", refs ? "in " : "found (refs/ beside the programs, or --refs DIR)",
                refs ? PB_MD_LINE(refs) : "");
        free(r);
        return;
    }
    refs_run *me = &r[REFS_MAX];
    refs_figures(me, rd, d, &a);
    pb_answers_free(&a);
    fprintf(o, "This run beside the reference runs in %s (its README.md says where each came from). Each cell is the "
               "reference's figure and, in brackets, this run's over it: above 1 this machine reads faster, takes more "
               "round trips per dispatch, or decodes nearer its floor.\n\n| figure | this run |",
            PB_MD_LINE(refs));
    for (int i = 0; i < n; i++)
        fprintf(o, " %s: %s, %d PUs |", PB_MD(r[i].name), PB_MD(r[i].cpu), r[i].pus);
    fprintf(o, "\n|---|---:|");
    for (int i = 0; i < n; i++)
        fprintf(o, "---:|");
    fprintf(o, "\n");
    refs_rows_machine(o, me, r, n);
    refs_rows_decode(o, me, r, n);
    fprintf(o, "\n");
    free(r);
}
