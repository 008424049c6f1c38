/* Every finding of a run, in report order: the one place that calls the findings files (each writes through
 * pb_findings_add, pb_findings_list.c), so no findings file calls another. */
#include <string.h>

#include "pb_findings.h"

void pb_findings_make(pb_findings *f, const pb_digest *d)
{
    memset(f, 0, sizeof *f);
    pb_findings_pool(f, d);
    pb_findings_decode(f, d);
    pb_findings_bandwidth(f, d);
    pb_findings_overlap_util(f, d);
}
