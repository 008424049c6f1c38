/* report.md's memory latency from latency.csv: the idle point is the ladder's largest working set, the doubling
 * bandwidth is interpolated on the loaded curve (or said not to be reached), and a point between two is placed
 * on it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_digest.h"
#include "pb_report.h"
#include "pb_rundata.h"
#include "test_files.h"

/* A run directory holding latency.csv: the ladder (16 KiB at 1 ns, 1 GiB at 100 ns), then loaded rows "duty:gbps:ns". */
static void lat_dir(char *dir, size_t len, const char *const *loaded)
{
    tf_tmpdir(dir, len, "pblatrep");
    char csv[4096];
    size_t n = (size_t)snprintf(csv, sizeof csv, "%s\n", pb_schema_header(PB_K_LATENCY));
    n += (size_t)snprintf(csv + n, sizeof csv - n, "r,h,ladder,L1,16,1024,0,0,0,,,1000,9,100,1.00,0.90,1.10,0,64,3,3,3\n"
                                                   "r,h,ladder,DRAM,1048576,1024,0,0,0,,,1000,9,100,100.00,95,110,0,0.64,3,3,300\n");
    for (int i = 0; loaded[i]; i++) {
        int duty;
        double gbps, ns;
        cr_assert_eq(sscanf(loaded[i], "%d:%lf:%lf", &duty, &gbps, &ns), 3);
        n += (size_t)snprintf(csv + n, sizeof csv - n, "r,h,loaded,DRAM,1048576,1024,0,%d,1,1,avx2,1000,9,100,%.2f,%.2f,"
                                                       "%.2f,%.3f,%.3f,3,3,%.1f\n", duty, ns, ns, ns, gbps, gbps, 3 * ns);
    }
    tf_write(dir, "latency.csv", csv);
}

static void digest(const char *dir, pb_rundata *rd, pb_digest *d)
{
    char err[512];
    cr_assert_eq(pb_rundata_load(rd, dir, err, sizeof err), 0, "%s", err);
    memset(d, 0, sizeof *d);
    pb_digest_latency(&d->latency, rd);
}

Test(report_latency, doubling_interpolated_on_the_curve)
{
    char dir[128];
    static const char *const loaded[] = { "100:8:300", "10:2:120", "50:5:150", NULL }; /* out of order on purpose */
    lat_dir(dir, sizeof dir, loaded);
    pb_rundata rd;
    static pb_digest d;
    digest(dir, &rd, &d);
    const pb_latency_digest *l = &d.latency;
    cr_assert(l->have);
    cr_expect_eq(l->nladder, 2);
    cr_assert_eq(l->ncurve, 4, "idle and three loaded points");
    cr_expect_eq(l->curve[0].ns, 100, "idle: the ladder's largest working set");
    cr_expect_eq(l->curve[1].gbps, 2, "loaded points by bandwidth");
    /* 2 x idle = 200 ns, between 5 GB/s (150 ns) and 8 GB/s (300 ns): 5 + 3 x 50/150 = 6 GB/s */
    cr_expect(fabs(l->double_gbps - 6.0) < 1e-9, "%f", l->double_gbps);
    cr_expect(fabs(pb_digest_latency_at(l, 3.5) - 135.0) < 1e-9, "%f", pb_digest_latency_at(l, 3.5));
    cr_expect(isnan(pb_digest_latency_at(l, 9)), "beyond the curve: no figure");
    tf_mem m;
    pb_report_latency(tf_mem_open(&m), &d);
    char *md = tf_mem_text(&m);
    cr_expect(strstr(md, "Idle latency: **100.0 ns**") != NULL, "%s", md);
    cr_expect(strstr(md, "Latency doubles at **6.00 GB/s**") != NULL, "%s", md);
    free(md);
    pb_rundata_free(&rd);
    tf_rmrf(dir);
}

Test(report_latency, a_curve_that_never_doubles_says_so)
{
    char dir[128];
    static const char *const loaded[] = { "50:3:130", "100:6:180", NULL };
    lat_dir(dir, sizeof dir, loaded);
    pb_rundata rd;
    static pb_digest d;
    digest(dir, &rd, &d);
    cr_expect(isnan(d.latency.double_gbps));
    cr_expect(fabs(d.latency.top_x - 1.8) < 1e-9, "%f", d.latency.top_x);
    tf_mem m;
    pb_report_latency(tf_mem_open(&m), &d);
    char *md = tf_mem_text(&m);
    cr_expect(strstr(md, "did not double") && strstr(md, "1.80 x idle"), "%s", md);
    free(md);
    pb_rundata_free(&rd);
    tf_rmrf(dir);
}
