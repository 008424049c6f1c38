/* pb_fmt.c — the write-ups' number formats (pb_fmt.h): significant digits, units, ratios. */
#include "pb_fmt.h"

#include <math.h>
#include <stdio.h>

#define PB_NONE "—"

const char *pb_fmt_ns(pb_fbuf *b, double ns)
{
    if (isnan(ns))
        snprintf(b->s, sizeof b->s, PB_NONE);
    else if (fabs(ns) < 1e3)
        snprintf(b->s, sizeof b->s, "%.0f ns", ns);
    else if (fabs(ns) < 1e6)
        snprintf(b->s, sizeof b->s, "%.1f µs", ns / 1e3);
    else if (fabs(ns) < 1e9)
        snprintf(b->s, sizeof b->s, "%.2f ms", ns / 1e6);
    else
        snprintf(b->s, sizeof b->s, "%.2f s", ns / 1e9);
    return b->s;
}

const char *pb_fmt_x(pb_fbuf *b, double r)
{
    if (isnan(r))
        snprintf(b->s, sizeof b->s, PB_NONE);
    else if (fabs(r) >= 100)
        snprintf(b->s, sizeof b->s, "%.0f×", r);
    else if (fabs(r) >= 10)
        snprintf(b->s, sizeof b->s, "%.1f×", r);
    else
        snprintf(b->s, sizeof b->s, "%.2f×", r);
    return b->s;
}

const char *pb_fmt_num(pb_fbuf *b, double v, int decimals)
{
    if (isnan(v))
        snprintf(b->s, sizeof b->s, PB_NONE);
    else
        snprintf(b->s, sizeof b->s, "%.*f", decimals, v);
    return b->s;
}

const char *pb_fmt_pct(pb_fbuf *b, double pct)
{
    if (isnan(pct))
        snprintf(b->s, sizeof b->s, PB_NONE);
    else
        snprintf(b->s, sizeof b->s, "%.0f%%", pct);
    return b->s;
}

const char *pb_fmt_bytes(pb_fbuf *b, double v)
{
    if (isnan(v))
        snprintf(b->s, sizeof b->s, PB_NONE);
    else if (v >= 1e9)
        snprintf(b->s, sizeof b->s, "%.2f GB", v / 1e9);
    else if (v >= 1e6)
        snprintf(b->s, sizeof b->s, "%.0f MB", v / 1e6);
    else
        snprintf(b->s, sizeof b->s, "%.0f kB", v / 1e3);
    return b->s;
}
