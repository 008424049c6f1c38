/* pb_placement.c — see pb_placement.h. */
#include "pb_placement.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_pingpong.h"

double pb_roundtrip_ns(int a, int b, int batches, int iters)
{
    pb_rt_tight rt;
    if (b < 0 || a == b || pb_pingpong_tight(a, b, batches, iters, &rt) != 0)
        return NAN;
    return rt.tight_ns;
}

const char *pb_placement_between(double before, double after)
{
    const char *a = pb_placement(before), *b = pb_placement(after);
    return strcmp(a, b) == 0 ? a : "mixed";
}

const char *pb_placement_block(const pb_where *w, int a, int b, double before, double after)
{
    const char *topo = NULL;
    if (w && w->topo && w->trust_topo && b >= 0)
        topo = pb_pair_place_name(pb_topo_pair_place(w->topo, a, b));
    return topo ? topo : pb_placement_between(before, after);
}

double pb_rt_between(double before, double after)
{
    return isnan(before) ? after : isnan(after) ? before : (before + after) / 2;
}

void pb_cpus_text(const int *cpu, int ncpu, int n, char *buf, size_t len)
{
    size_t at = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < n && ncpu > 0; i++) {
        char id[16];
        int w = snprintf(id, sizeof id, "%s%d", i ? " " : "", cpu[i % ncpu]);
        if (at + (size_t)w >= len)
            break;
        memcpy(buf + at, id, (size_t)w + 1);
        at += (size_t)w;
    }
}

const char *pb_placement_pair(const pb_topo *t, int a, int b, bool trust_topo, double rt_ns)
{
    const pb_where w = { .topo = t, .trust_topo = trust_topo };
    return pb_placement_block(&w, a, b, rt_ns, rt_ns);
}
