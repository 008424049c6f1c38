/* Findings on read bandwidth beside the floor: the kernels' roofline (kernels.csv) and the likwid-bench
 * comparison (likwid_compare.csv). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_findings.h"
#include "pb_fmt.h"

/* Each format's best kernel in L2 on one thread, with its multiple of the 1-thread read floor's median where the run
 * has one (above 1x a core computes faster than memory streams, so one thread's decode can be memory-bound; under
 * it, compute-bound at any bandwidth). */
static void kernels(pb_findings *f, const pb_digest *d)
{
    const pb_floor_point *one = pb_digest_floor_at(&d->floor, 1);
    const double floor1 = one && one->median > 0 ? one->median : NAN;
    char l2[640];
    size_t o = 0;
    l2[0] = '\0';
    for (int i = 0; i < d->kern.n; i++) {
        const pb_kernel_digest *k = &d->kern.k[i];
        if (!isnan(k->dram) && one) {
            /* the read beside the point, where kernels.csv has it: the same buffer, moments apart */
            char beside[96] = "";
            if (k->dram_read > 0)
                snprintf(beside, sizeof beside, ", %s of the read of the same buffer just before it (%s GB/s)",
                         PB_PCT(100 * k->dram / k->dram_read), PB_NUM(k->dram_read, 1));
            pb_findings_add(f, "%s's best kernel streams %s GB/s in L2 (%s) and %s GB/s at DRAM size (%s) on one thread: "
                            "%s of the 1-thread read floor (%s GB/s)%s.",
                            k->format, PB_NUM(k->l2, 1), k->isa_l2, PB_NUM(k->dram, 1), k->isa_dram,
                            PB_PCT(100 * k->dram / one->best), PB_NUM(one->best, 1), beside);
        }
        if (!isnan(k->scalar_l2) && !isnan(k->l2) && strcmp(k->isa_l2, "scalar") != 0)
            pb_findings_add(f, "In L2, %s's %s kernel runs %s its scalar reference (%s vs %s GB/s).", k->format,
                            k->isa_l2, PB_X(k->l2 / k->scalar_l2), PB_NUM(k->l2, 1), PB_NUM(k->scalar_l2, 1));
        if (!isnan(k->l2) && o < sizeof l2 - 80) {
            char x[48] = "";
            if (!isnan(floor1))
                snprintf(x, sizeof x, " (%s)", PB_X(k->l2 / floor1));
            o += (size_t)snprintf(l2 + o, sizeof l2 - o, "%s%s %s GB/s%s", o ? ", " : "", k->format, PB_NUM(k->l2, 1), x);
        }
    }
    if (d->kern.n < 2 || !o)
        return;
    if (isnan(floor1))
        pb_findings_add(f, "Best kernel in L2 on one thread, per format: %s.", l2);
    else
        pb_findings_add(f, "Best kernel in L2 on one thread, per format, and its multiple of the 1-thread read floor's "
                        "median (%s, %s GB/s; under 1× one core computes slower than memory streams): %s.",
                        one->kernel, PB_NUM(floor1, 1), l2);
}

static void likwid(pb_findings *f, const pb_likwid_digest *l)
{
    for (int i = 0; i < l->n; i++) {
        const pb_likwid_point *t = &l->t[i];
        char one[160] = "no one-stream kernel ran";
        if (!isnan(t->one_x))
            snprintf(one, sizeof one, "our best one-stream read kernel (likwid's pattern) read %s its best load kernel "
                     "(range %s-%s)", PB_X(t->one_x), PB_NUM(t->one_min, 3), PB_NUM(t->one_max, 3));
        char place[64] = "";
        if (strcmp(t->placement, "n/a") != 0 && t->placement[0])
            snprintf(place, sizeof place, "%s placement; ", t->placement);
        pb_findings_add(f, "Against likwid-bench, %d round%s back to back at %d thread%s (%slikwid's best %s GB/s, "
                        "median over rounds): %s; our floor, which also counts the 4-stream kernels a decode reads "
                        "with, %s (range %s-%s).", t->rounds, PB_S(t->rounds), t->threads, PB_S(t->threads), place,
                        PB_NUM(t->likwid_median, 1), one, PB_X(t->floor_x), PB_NUM(t->floor_min, 3),
                        PB_NUM(t->floor_max, 3));
    }
}

void pb_findings_bandwidth(pb_findings *f, const pb_digest *d)
{
    if (d->likwid.have)
        likwid(f, &d->likwid);
    if (d->kern.have)
        kernels(f, d);
}
