/* bench_overlap — when does overlapping serial CPU work with a helper's job pay? Serial vs a thread per job vs a
 * helper that inherited the caller's one-cpu mask vs a persistent helper pinned to another core, across prep/job
 * ratios (the measurement: bench/measure/loops/pb_overlap.h; its table and CSV: pb_overlap_report.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern.h"
#include "pb_cli.h"
#include "pb_harness.h"
#include "pb_membuf.h"
#include "pb_overlap.h"
#include "pb_overlap_report.h"
#include "pb_schema.h"
#include "pb_time.h"

#define PROG "bench_overlap"

typedef struct bov_opts {
    pb_list modes, cpus;
    pb_dlist ratios;
    long rows, cols, steps, reps;
    const char *wisdom;
} bov_opts;

typedef struct bov_run {
    bov_opts o;
    pb_overlap ov;
    pb_wisdom wisdom;   /* --wisdom's, when it is this machine's */
    pb_kernel_picker kernels; /* where the q8_0 kernel comes from */
    pb_overlap_point *points;
    int npoints;
    pb_harness h;
    pb_overlap_report report; /* overlap.csv: a point's rows as the point ends */
} bov_run;

/* ---------------------------------------------------------------- options */

static int bov_parse(bov_run *r, int argc, char **argv)
{
    bov_opts *o = &r->o;
    o->rows = 2048;
    o->cols = 2048;
    const pb_opt opts[] = {
        { .name = "modes", .kind = PB_OPT_CHOICES, .dest = &o->modes, .choices = pb_overlap_mode_names,
          .metavar = "LIST",
          .help = "modes to measure, or all (serial is always measured: the others are relative to it)",
          .dflt = "all" },
        { .name = "ratios", .kind = PB_OPT_DLIST, .dest = &o->ratios, .dmin = 0, .dmax = 100, .dmin_open = true,
          .metavar = "LIST", .help = "prep / job time ratios to size the prep for (> 0)",
          .dflt = "0.1,0.25,0.5,0.75,1,1.5,2 (0.25,1,2 with --quick)" },
        { .name = "rows", .kind = PB_OPT_INT, .dest = &o->rows, .min = 1, .max = 1 << 20, .metavar = "N",
          .help = "rows of the helper's q8_0 matvec", .dflt = "2048" },
        { .name = "cols", .kind = PB_OPT_INT, .dest = &o->cols, .min = QK8_0, .max = 1 << 20, .metavar = "N",
          .help = "columns of the matvec, a multiple of the q8_0 block (32)", .dflt = "2048" },
        { .name = "steps", .kind = PB_OPT_INT, .dest = &o->steps, .min = 10, .max = 1000000, .metavar = "K",
          .help = "pipeline steps per timed run", .dflt = "100 (40 with --quick)" },
        { .name = "reps", .kind = PB_OPT_INT, .dest = &o->reps, .min = 3, .max = 1000, .metavar = "N",
          .help = "timed runs per mode and ratio (the median is quoted)", .dflt = "11 (5 with --quick)" },
        PB_OPT_CPU_IDS(&o->cpus, "A,B", "the caller's cpu, then the helper's (OS ids, different)",
                       "two physical cores"),
        PB_OPT_WISDOM(&o->wisdom),
        { 0 },
    };
    const pb_cli cli = { .prog = PROG, .opts = opts,
                         .summary = "Submit a q8_0 matvec to a helper, prepare the next activation meanwhile, wait:\n"
                                    "serial vs a thread per job vs a helper that inherited the caller's one-cpu\n"
                                    "mask vs a persistent helper pinned to another core, across prep/job ratios." };
    return pb_harness_setup(&r->h, &cli, "a short run (CI): 3 ratios, fewer steps", NULL, argc, argv);
}

static int bov_defaults(bov_run *r, const pb_topo *topo)
{
    bov_opts *o = &r->o;
    char err[256];
    if (o->cols % QK8_0 != 0)
        return pb_harness_refusef(&r->h, "--cols %ld is not a multiple of the q8_0 block: accepted multiples of %d",
                                  o->cols, QK8_0);
    if (pb_harness_wisdom_path(&r->h, o->wisdom, false) != 0)
        return -1;
    uint64_t avail = 0;
    pb_mem_available(&avail); /* unknown: 0, and the check is skipped */
    if (pb_overlap_check_memory((size_t)o->rows, (size_t)o->cols, avail, err, sizeof err) != 0)
        return pb_harness_refusef(&r->h, "%s", err);
    if (o->modes.n == 0)
        for (int m = 0; m < PB_OV_MODES; m++)
            o->modes.v[o->modes.n++] = m;
    if (o->ratios.n == 0) {
        static const double full[] = { 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2 }, quick[] = { 0.25, 1, 2 };
        const double *v = r->h.quick ? quick : full;
        int n = r->h.quick ? 3 : 7;
        for (int i = 0; i < n; i++)
            o->ratios.v[o->ratios.n++] = v[i];
    }
    if (o->steps == 0)
        o->steps = r->h.quick ? 40 : 100;
    if (o->reps == 0)
        o->reps = r->h.quick ? 5 : 11;
    r->ov = (pb_overlap){ .helper_cpu = -1, .steps = o->steps, .reps = o->reps, .quick = r->h.quick,
                          .where = &r->h.where };
    if (o->cpus.n) {
        if (o->cpus.n > 2)
            return pb_harness_refuse_opt(&r->h, "cpus", o->cpus.text,
                                         "give the caller's cpu and the helper's (two ids), not %d", o->cpus.n);
        for (int i = 0; i < o->cpus.n; i++)
            if (pb_topo_check_cpu(topo, (int)o->cpus.v[i], err, sizeof err) != 0)
                return pb_harness_refuse_opt(&r->h, "cpus", o->cpus.text, "%s", err);
        if (o->cpus.n == 2 && o->cpus.v[0] == o->cpus.v[1])
            return pb_harness_refuse_opt(&r->h, "cpus", o->cpus.text,
                                         "the helper's cpu must differ from the caller's (%ld)", o->cpus.v[0]);
        r->ov.caller_cpu = (int)o->cpus.v[0];
        if (o->cpus.n == 2)
            r->ov.helper_cpu = (int)o->cpus.v[1];
    } else {
        static pb_cpulist placed;
        int n = pb_topo_npus(topo) >= 2 ? 2 : 1;
        if (pb_topo_place_named(topo, "physical", n, &placed, err, sizeof err) != 0 &&
            pb_topo_place_named(topo, "all", n, &placed, err, sizeof err) != 0)
            return pb_harness_refusef(&r->h, "topology: %s", err);
        r->ov.caller_cpu = placed.cpu[0];
        if (placed.n == 2)
            r->ov.helper_cpu = placed.cpu[1];
    }
    return 0;
}

int main(int argc, char **argv)
{
    static bov_run r;
    pb_overlap_report *rep = &r.report;
    if (bov_parse(&r, argc, argv) != 0 || bov_defaults(&r, r.h.topo) != 0 || pb_harness_open(&r.h) != 0 ||
        !(rep->csv = pb_harness_csv(&r.h, "overlap.csv", pb_schema_header(PB_K_OVERLAP))))
        return pb_harness_refused(&r.h);
    pb_harness_wisdom(&r.h, &r.wisdom, &r.kernels);
    *rep = (pb_overlap_report){ .run = &r.h.run, .csv = rep->csv, .ov = &r.ov, .modes = &r.o.modes, .rows = r.o.rows,
                           .cols = r.o.cols, .kernel = pb_kernel_choice_for(&r.kernels, KERN_Q8_0, 1) };
    if (r.ov.helper_cpu < 0)
        fprintf(stderr, PROG ": WARNING one cpu only: async-spawn and async-pinned are skipped\n");
    char err[512];
    if (pb_overlap_open(&r.ov, &rep->kernel, (size_t)r.o.rows, (size_t)r.o.cols, err, sizeof err) != 0)
        pb_harness_fail(&r.h, "%s", err);
    else if (!(r.points = calloc((size_t)r.o.ratios.n, sizeof *r.points)))
        pb_harness_fail(&r.h, "the points: %s", strerror(errno));
    uint64_t t0 = pb_now_ns();
    for (int p = 0; p < r.o.ratios.n && pb_harness_going(&r.h); p++) {
        pb_overlap_point *pt = &r.points[r.npoints];
        pt->ratio = r.o.ratios.v[p];
        double job_ns = pb_overlap_job_ns(&r.ov); /* again per point: the machine's state drifts */
        pb_progress(p, r.o.ratios.n, t0, "ratio %.2f (job %.0f us)", pt->ratio, job_ns / 1e3);
        if (pb_overlap_measure_point(&r.ov, pt, job_ns, err, sizeof err) != 0) {
            pb_harness_fail(&r.h, "ratio %.2f: %s", pt->ratio, err); /* not measured: left out of the table */
            break;
        }
        pb_overlap_write_point(rep, pt);
        r.npoints++;
    }
    pb_progress_done(r.npoints, "ratios", t0);
    pb_overlap_print_table(stdout, rep, r.points, r.npoints);
    static const char *const plots[] = { "overlap.png", "overlap.svg", NULL };
    int rc = pb_harness_close(&r.h, "overlap.gp", plots);
    pb_overlap_close(&r.ov);
    free(r.points);
    return rc;
}
