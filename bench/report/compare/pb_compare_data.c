/* The data files plots/compare.gp reads: gnuplot blocks (one per run, a title line first) and a table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_compare.h"

static FILE *open_in(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return fopen(path, "w");
}

/* A label as a gnuplot string: double quotes dropped, the rest kept. */
static void quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        if (*s != '"' && *s != '\\')
            fputc(*s, f);
    fputc('"', f);
}

static int floor_blocks(const pb_compare *c, const char *dir)
{
    FILE *f = NULL;
    for (int i = 0; i < c->n; i++) {
        const pb_floor_digest *fl = &c->run[i].d.floor;
        if (!fl->have)
            continue;
        if (f)
            fprintf(f, "\n\n"); /* two blank lines end a gnuplot block (a trailing pair would add an empty one) */
        else if (!(f = open_in(dir, "compare_floor.dat")))
            return -1;
        quoted(f, c->run[i].label);
        fputc('\n', f);
        for (int p = 0; p < fl->n; p++)
            fprintf(f, "%d %.3f\n", fl->pt[p].threads, fl->pt[p].best);
    }
    return f && fclose(f) != 0 ? -1 : 0;
}

static int decode_blocks(const pb_compare *c, const char *dir)
{
    FILE *f = NULL;
    for (int i = 0; i < c->n; i++) {
        const pb_sweep_digest *s = &c->run[i].d.sweep;
        if (!s->have || !s->nthr)
            continue;
        if (f)
            fprintf(f, "\n\n");
        else if (!(f = open_in(dir, "compare_decode.dat")))
            return -1;
        char title[160];
        snprintf(title, sizeof title, "%s (%s)", c->run[i].label, s->focus);
        quoted(f, title);
        fputc('\n', f);
        for (int p = 0; p < s->nthr; p++)
            fprintf(f, "%d %.3f\n", s->by_thr[p].threads, s->by_thr[p].tok_s);
    }
    return f && fclose(f) != 0 ? -1 : 0;
}

/* Policies of the first run that has dispatch figures, as rows; one column per run that has them. */
static int dispatch_table(const pb_compare *c, const char *dir)
{
    const pb_pool_digest *ref = NULL;
    int ncol = 0;
    for (int i = 0; i < c->n; i++) {
        if (c->run[i].d.pool.have) {
            ref = ref ? ref : &c->run[i].d.pool;
            ncol++;
        }
    }
    if (!ref || ncol < 1)
        return 0;
    FILE *f = open_in(dir, "compare_dispatch.dat");
    if (!f)
        return -1;
    fprintf(f, "policy");
    for (int i = 0; i < c->n; i++)
        if (c->run[i].d.pool.have) {
            fputc(' ', f);
            quoted(f, c->run[i].label);
        }
    fputc('\n', f);
    for (int p = 0; p < ref->n; p++) {
        fprintf(f, "%s", ref->d[p].policy);
        for (int i = 0; i < c->n; i++) {
            if (!c->run[i].d.pool.have)
                continue;
            const pb_dispatch_digest *d = pb_digest_pool_policy(&c->run[i].d.pool, ref->d[p].policy);
            fprintf(f, " %s", d && !isnan(d->ns) ? "" : "NaN");
            if (d && !isnan(d->ns))
                fprintf(f, "%.1f", d->ns);
        }
        fputc('\n', f);
    }
    return fclose(f) != 0 ? -1 : 0;
}

int pb_compare_data(const pb_compare *c, const char *dir)
{
    int rc = 0;
    rc |= floor_blocks(c, dir);
    rc |= decode_blocks(c, dir);
    rc |= dispatch_table(c, dir);
    return rc ? -1 : 0;
}
