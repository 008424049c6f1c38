/* bench_compare DIR DIR [DIR...] --out DIR: several run directories side by side. Writes OUT/compare.md (the
 * machines, the headline figures with ratios to the first run, what the runs do not share) and overlaid plots
 * through plots/compare.gp. OUT must not exist or be empty (a comparison is never overwritten). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_compare.h"
#include "pb_plot.h"
#include "pb_report.h"
#include "pb_run.h"

typedef struct cmp_job {
    const pb_compare *c;
    const char *out;
} cmp_job;

static void write_md(FILE *f, const void *arg)
{
    const cmp_job *j = arg;
    pb_compare_md(f, j->c, j->out);
}

static void free_runs(pb_compare *c)
{
    for (int i = 0; i < c->n; i++)
        pb_rundata_free(&c->run[i].rd);
    free(c->run);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_compare DIR DIR [DIR...] --out DIR [--no-plots]\n"
               "  Compares up to %d run directories: OUT/compare.md with the headline figures side by side and\n"
               "  ratios to the first run, and OUT/compare_{floor,decode,dispatch}.{png,svg} (plots/compare.gp).\n"
               "  --out DIR    where to write; must not exist or be empty\n"
               "  --no-plots   write the plot data but do not draw\n"
               "exit: 0 ok; 1 written but a CSV was malformed or a plot failed; 2 bad usage\n",
            PB_CMP_RUNS);
}

int main(int argc, char **argv)
{
    const char *dirs[PB_CMP_RUNS], *out = NULL;
    int n = 0;
    bool draw = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strncmp(argv[i], "--out=", 6) == 0) {
            out = argv[i] + 6;
        } else if (strcmp(argv[i], "--no-plots") == 0) {
            draw = false;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "bench_compare: unknown option '%s' (accepted: --out DIR, --no-plots, --help)\n", argv[i]);
            return 2;
        } else if (n == PB_CMP_RUNS) {
            fprintf(stderr, "bench_compare: more than %d run directories\n", PB_CMP_RUNS);
            return 2;
        } else {
            dirs[n++] = argv[i];
        }
    }
    if (n < 2 || !out) {
        fprintf(stderr, "bench_compare: needs at least two run directories and --out DIR "
                        "(usage: bench_compare DIR DIR [DIR...] --out DIR)\n");
        return 2;
    }
    pb_compare c = { .n = n, .run = calloc((size_t)n, sizeof(pb_cmp_run)) };
    if (!c.run) {
        fprintf(stderr, "bench_compare: out of memory\n");
        return 1;
    }
    char err[4400];
    int bad = 0;
    for (int i = 0; i < n; i++) {
        if (pb_rundata_load(&c.run[i].rd, dirs[i], err, sizeof err) != 0) {
            fprintf(stderr, "bench_compare: %s\n", err);
            free_runs(&c);
            return 2;
        }
        for (int k = 0; k < PB_K_COUNT; k++)
            if (c.run[i].rd.src[k].state == PB_SRC_BAD)
                fprintf(stderr, "bench_compare: %s (left out)\n", c.run[i].rd.src[k].err);
        bad += pb_rundata_bad(&c.run[i].rd);
        pb_digest_run(&c.run[i].d, &c.run[i].rd);
    }
    pb_run run;
    if (pb_run_prepare(&run, out, false, err, sizeof err) != 0) {
        fprintf(stderr, "bench_compare: --out %s: %s\n", out, err);
        free_runs(&c);
        return 2;
    }
    pb_compare_prepare(&c);
    int failed = 0;
    if (pb_compare_data(&c, out) != 0) {
        fprintf(stderr, "bench_compare: cannot write the plot data in %s: %s\n", out, strerror(errno));
        failed = 1;
    } else if (draw) {
        failed = pb_plot_run("compare.gp", out) < 0;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/compare.md", out);
    cmp_job job = { &c, out };
    if (pb_write_file(path, write_md, &job) != 0) {
        fprintf(stderr, "bench_compare: cannot write %s: %s\n", path, strerror(errno));
        failed = 1;
    } else {
        printf("compare: %s\n", path);
    }
    free_runs(&c);
    return bad || failed ? 1 : 0;
}
