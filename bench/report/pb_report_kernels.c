/* pb_report_kernels.c — report.md's "Kernels that ran": for each format and thread count of sweep.csv, the matvec
 * kernel that ran, the weights' layout it read (and a repacked layout's copy: memory the decode held), why (tuned by
 * wisdom, rank without it, forced by POOLBENCH_ISA), how it streamed and why the floor's read kernel was the one
 * it was. A reader then knows whether a figure describes the machine's best kernel
 * or only the best ranked one. Every piece of CSV text reaches the Markdown through PB_MD (pb_md_escape.h). */
#include <stdio.h>
#include <string.h>

#include "pb_md_escape.h"
#include "pb_report.h"

#define RK_MAX 64 /* distinct rows shown: formats x thread counts */

/* The columns read: those every sweep.csv of this report has, then two a run from before them lacks. */
enum { RK_FORMAT, RK_THREADS, RK_KERNEL, RK_WHY, RK_STREAM, RK_FLOOR, RK_REQUIRED, RK_LAYOUT = RK_REQUIRED, RK_COPY,
       RK_COLS };

/* Whether row r of t repeats an earlier row in every one of the n columns c (a column the file lacks reads ""). */
static bool rk_seen(const pb_table *t, const int *c, int n, size_t r)
{
    for (size_t q = 0; q < r; q++) {
        bool same = true;
        for (int k = 0; k < n && same; k++)
            same = strcmp(pb_table_str(t, q, c[k]), pb_table_str(t, r, c[k])) == 0;
        if (same)
            return true;
    }
    return false;
}

/* Row r's layout cell into buf: "file" (also for a run from before the column), or the repacked layout's name
 * and its copy's size. Whether the layout is a repacked one. */
static bool rk_layout(const pb_table *t, const int *c, size_t r, char *buf, size_t len)
{
    const char *lay = pb_table_str(t, r, c[RK_LAYOUT]);
    if (!*lay || strcmp(lay, "file") == 0) {
        snprintf(buf, len, "file");
        return false;
    }
    double bytes = pb_table_num(t, r, c[RK_COPY]); /* NaN without the column */
    if (bytes > 0)
        snprintf(buf, len, "%s, copy %.1f MB", PB_MD(lay), bytes / 1e6);
    else
        snprintf(buf, len, "%s", PB_MD(lay));
    return true;
}

void pb_report_kernels(FILE *o, const pb_rundata *rd)
{
    const pb_table *t = pb_rundata_table(rd, PB_K_SWEEP);
    if (!t || t->nrows == 0)
        return;
    const int c[RK_COLS] = {
        pb_table_col(t, PB_COL(SWEEP, format)),      pb_table_col(t, PB_COL(SWEEP, threads)),
        pb_table_col(t, PB_COL(SWEEP, kernel)),      pb_table_col(t, PB_COL(SWEEP, kernel_why)),
        pb_table_col(t, PB_COL(SWEEP, kernel_stream)), pb_table_col(t, PB_COL(SWEEP, floor_why)),
        pb_table_col(t, PB_COL(SWEEP, kernel_layout)), pb_table_col(t, PB_COL(SWEEP, repacked_bytes)),
    };
    for (int k = 0; k < RK_REQUIRED; k++)
        if (c[k] < 0)
            return;
    fprintf(o, "## Kernels that ran\n\n");
    fprintf(o, "Why each decode's matvec kernel was the one it was: `tuned` (bench_tune measured it fastest on this "
               "cpu and build: the wisdom file), `rank` (the best ranked ISA: no wisdom, which need not stream "
               "fastest, or wisdom that timed nothing faster beyond its noise), `forced` (POOLBENCH_ISA). Its stream is its software prefetch (hint, @distance when not "
               "the default) or off; the floor is the best of every read kernel, measured beside the decode "
               "(`all`).\n\n");
    fprintf(o, "| format | threads | kernel | layout | why | stream | floor |\n|---|---:|---|---|---|---|---|\n");
    int shown = 0, ranked = 0, left = 0;
    bool repacked = false;
    for (size_t r = 0; r < t->nrows; r++) {
        if (rk_seen(t, c, RK_LAYOUT + 1, r))
            continue;
        const char *why = pb_table_str(t, r, c[RK_WHY]);
        ranked += strcmp(why, "rank") == 0;
        if (shown == RK_MAX) {
            left++;
            continue;
        }
        char layout[PB_MD_CELL + 64];
        repacked |= rk_layout(t, c, r, layout, sizeof layout);
        fprintf(o, "| %s | %s | %s | %s | %s | %s | %s |\n", PB_MD(pb_table_str(t, r, c[RK_FORMAT])),
                PB_MD(pb_table_str(t, r, c[RK_THREADS])), PB_MD(pb_table_str(t, r, c[RK_KERNEL])), layout,
                *why ? PB_MD(why) : "not recorded", PB_MD(pb_table_str(t, r, c[RK_STREAM])),
                PB_MD(pb_table_str(t, r, c[RK_FLOOR])));
        shown++;
    }
    if (left)
        fprintf(o, "\n%d more combination%s not shown.\n", left, left == 1 ? "" : "s");
    if (repacked)
        fprintf(o, "\nA repacked layout's matrices were re-laid when the decode loaded them, into a copy held "
                   "beside the weights (its size beside the layout: memory the decode took on top of the model); its "
                   "tokens and their floor read that copy and the other matrices where they are.\n");
    if (ranked)
        fprintf(o, "\n%d of these ran by rank: `bench_tune` (or `make report`, which runs it first) measures which "
                   "kernel streams fastest here; its wisdom then picks them.\n",
                ranked);
    fprintf(o, "\n");
}
