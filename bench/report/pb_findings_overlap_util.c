/* Findings on overlap (overlap.csv) and per-core utilisation (cpu_util.csv): how the work spread over cpus. */
#include <stdio.h>
#include <string.h>

#include "pb_findings.h"
#include "pb_fmt.h"

static void overlap(pb_findings *f, const pb_overlap_digest *ov)
{
    char buf[480];
    size_t o = 0;
    for (int i = 0; i < ov->n && o < sizeof buf - 100; i++) {
        if (strcmp(ov->m[i].mode, "serial") == 0)
            continue;
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s %s at ratio %s (%s of the ceiling)",
                              o ? "; " : "", ov->m[i].mode, PB_X(ov->m[i].speedup), PB_NUM(ov->m[i].ratio, 2),
                              PB_PCT(ov->m[i].pct_ceiling));
    }
    if (o)
        pb_findings_add(f, "Overlap speed-up over serial, each mode at the prep/job ratio nearest 1: %s.", buf);
}

static void utilisation(pb_findings *f, const pb_util_digest *u)
{
    char buf[480];
    size_t o = 0;
    for (int i = 0; i < u->n && o < sizeof buf - 80; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%scpu%d averaged %s busy (peak %s, %d samples)", o ? ", " : "",
                              u->c[i].cpu, PB_PCT(u->c[i].mean), PB_PCT(u->c[i].max), u->c[i].samples);
    if (o)
        pb_findings_add(f, "Per-core utilisation over the sampled work: %s.", buf);
}

void pb_findings_overlap_util(pb_findings *f, const pb_digest *d)
{
    if (d->overlap.have)
        overlap(f, &d->overlap);
    if (d->util.have)
        utilisation(f, &d->util);
}
