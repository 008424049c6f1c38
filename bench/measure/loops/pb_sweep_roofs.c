/* pb_sweep_roofs.c — the compute roofs a sweep kept (see pb_sweep_roofs.h). */
#include "pb_sweep_roofs.h"

void pb_sweep_roofs_open(pb_sweep_roofs *r) { r->seen = PB_VEC(pb_sweep_roof_seen); }

void pb_sweep_roofs_free(pb_sweep_roofs *r) { pb_vec_free(&r->seen); }

double pb_sweep_roofs_best(pb_sweep_roofs *r, const void *set, int threads, int op, double gmacs)
{
    for (size_t i = 0; i < r->seen.n; i++) {
        pb_sweep_roof_seen *s = PB_VEC_AT(&r->seen, pb_sweep_roof_seen, i);
        if (s->set == set && s->threads == threads && s->op == op) {
            if (gmacs > s->gmacs)
                s->gmacs = gmacs;
            return s->gmacs;
        }
    }
    if (!(gmacs > 0)) /* no measure (NaN) or none worth keeping: nothing to remember */
        return gmacs;
    pb_sweep_roof_seen *s = pb_vec_push(&r->seen);
    if (s) /* without room the block keeps its own */
        *s = (pb_sweep_roof_seen){ .set = set, .threads = threads, .op = op, .gmacs = gmacs };
    return gmacs;
}
