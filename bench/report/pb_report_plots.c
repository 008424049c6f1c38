/* Drawing a run's plots and embedding them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_md_escape.h"
#include "pb_plot.h"
#include "pb_report.h"
#include "pb_run.h"

/* pb_plot_run's answer: drawn, nothing to draw (a CSV without rows: not a failure), or failed. */
static pb_plot_state plot_state(int rc)
{
    return rc == 0 ? PB_PLOT_DRAWN : rc > 0 ? PB_PLOT_NO_CSV : PB_PLOT_FAILED;
}

/* Whether some sweep point has a budget (an older sweep.csv has none, or its cells empty: no plot, no line). */
static bool has_budget(const pb_rundata *rd)
{
    const pb_table *t = pb_rundata_table(rd, PB_K_SWEEP);
    int c = t ? pb_table_col(t, PB_COL(SWEEP, budget_floor_ms)) : -1;
    for (size_t r = 0; c >= 0 && r < t->nrows; r++)
        if (!isnan(pb_table_num(t, r, c)))
            return true;
    return false;
}

/* Whether some sweep point is a prompt's (bench_sweep --prompt). */
static bool has_prompt(const pb_rundata *rd)
{
    const pb_table *t = pb_rundata_table(rd, PB_K_SWEEP);
    int c = t ? pb_table_col(t, PB_COL(SWEEP, prompt)) : -1;
    for (size_t r = 0; c >= 0 && r < t->nrows; r++)
        if (pb_table_num(t, r, c) > 0)
            return true;
    return false;
}

int pb_report_plots(const pb_rundata *rd, bool draw, pb_plotlog *log)
{
    int failed = 0;
    bool gnuplot = draw && pb_plot_available();
    for (int k = 0; k < PB_K_COUNT; k++) {
        char path[4096];
        if (!pb_kinds[k].plot || !pb_rundata_table(rd, (pb_kind)k))
            log->state[k] = PB_PLOT_NO_CSV;
        else if (!draw)
            log->state[k] = PB_PLOT_SKIPPED;
        else if (pb_plot_script(pb_kinds[k].plot, path, sizeof path) != 0)
            log->state[k] = PB_PLOT_NO_SCRIPT;
        else if (!gnuplot)
            log->state[k] = PB_PLOT_NO_GNUPLOT;
        else
            log->state[k] = plot_state(pb_plot_run(pb_kinds[k].plot, rd->dir));
        failed += log->state[k] == PB_PLOT_FAILED;
    }
    /* tok/s and % of the floor against context: its own script beside sweep.gp, when sweep.csv has depths */
    if (log->state[PB_K_SWEEP] == PB_PLOT_DRAWN && pb_report_depths(rd) > 1)
        failed += pb_plot_run("sweep_context.gp", rd->dir) < 0;
    /* where the time went: the budget's bars, when sweep.csv has them */
    if (log->state[PB_K_SWEEP] == PB_PLOT_DRAWN && has_budget(rd))
        failed += pb_plot_run("sweep_budget.gp", rd->dir) < 0;
    /* the prompt beside the decode against threads, when sweep.csv has prompts */
    if (log->state[PB_K_SWEEP] == PB_PLOT_DRAWN && has_prompt(rd))
        failed += pb_plot_run("sweep_prompt.gp", rd->dir) < 0;
    return failed;
}

/* A PNG whose name is a plain file name (letters, digits, '_', '-', '.'): the ones the plot scripts write. Any
 * other name in the directory is not ours and is not linked: it could close the link or start a URL. */
static int png_only(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 4 && strcmp(e->d_name + n - 4, ".png") == 0 &&
           strspn(e->d_name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == n;
}

void pb_report_embed_pngs(FILE *out, const char *dir)
{
    struct dirent **list;
    int n = scandir(dir, &list, png_only, alphasort);
    if (n <= 0) {
        fprintf(out, "No plots in this run directory.\n");
        return;
    }
    for (int i = 0; i < n; i++) {
        char stem[256], svg[4400];
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(list[i]->d_name) - 4), list[i]->d_name);
        snprintf(svg, sizeof svg, "%s/%s.svg", dir, stem);
        fprintf(out, "![%s](%s.png)\n", PB_MD(stem), stem);
        if (access(svg, R_OK) == 0)
            fprintf(out, "[%s.svg](%s.svg)\n\n", PB_MD(stem), stem);
        else
            fprintf(out, "(no SVG drawn)\n\n");
        free(list[i]);
    }
    free(list);
}

int pb_write_file(const char *path, void (*writer)(FILE *, const void *), const void *arg)
{
    /* A unique temporary name beside the target (two bench_report runs on one directory never share it), renamed
     * over the target only once it is whole. */
    char tmp[4200];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path) >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -1;
    fchmod(fd, 0644); /* mkstemp's 0600 would hide the report from other users */
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        return pb_run_tmp_drop(tmp, e);
    }
    writer(f, arg);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return pb_run_tmp_drop(tmp, errno ? errno : EIO);
    return pb_run_tmp_publish(tmp, path);
}
