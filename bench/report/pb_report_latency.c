/* report.md's memory-latency section, from the digest's latency.csv figures: the idle latency, the bandwidth at
 * which it doubles, where the decode's own bandwidth sits on the curve, then the ladder and the curve. */
#include <math.h>
#include <stdio.h>

#include "pb_fmt.h"
#include "pb_md_escape.h"
#include "pb_report.h"
#include "pb_tuning.h"

/* The decode point that draws the most bandwidth: the one that loads memory as the curve's streamers do. */
static const pb_decode_point *rlat_decode(const pb_digest *d)
{
    const pb_decode_point *best = NULL;
    for (int i = 0; d->sweep.have && i < d->sweep.nbest; i++)
        if (!isnan(d->sweep.best[i].gbps) && (!best || d->sweep.best[i].gbps > best->gbps))
            best = &d->sweep.best[i];
    return best;
}

static void rlat_answers(FILE *o, const pb_latency_digest *l, const pb_digest *d)
{
    const pb_latency_point *idle = &l->curve[0];
    fprintf(o, "- Idle latency: **%.1f ns** a hop (rounds %.1f-%.1f ns", idle->ns, idle->ns_min, idle->ns_max);
    if (!isnan(idle->cycles))
        fprintf(o, "; %.0f cycles of the chase cpu's clock", idle->cycles);
    fprintf(o, ") over a %.0f MiB working set, %.0f MiB of the buffer in huge pages.\n", idle->kib / 1024,
            l->thp_mib);
    if (idle->run_pct < PB_LATENCY_ON_CPU_PCT)
        fprintf(o, "- **Shared cpu:** the chase's thread ran %.0f%% of the idle point's wall time: other work shared "
                   "its cpu. The rounds count the chase's own cpu time, but what that work does to the caches and the "
                   "TLB between its slices may still raise the figure.\n", idle->run_pct);
    if (l->ncurve < 2) {
        fprintf(o, "- No loaded curve: the run chased on a one-cpu set (nothing streamed beside it).\n");
        return;
    }
    if (!isnan(l->double_gbps))
        fprintf(o, "- Latency doubles at **%.2f GB/s** drawn (interpolated on the curve; %d cpu%s streaming beside "
                   "the chase).\n", l->double_gbps, l->load_threads, PB_S(l->load_threads));
    else
        fprintf(o, "- Latency did not double on the curve: at its most, %.2f GB/s drawn by %d cpu%s beside the "
                   "chase, it was %.2f x idle.\n", l->top_gbps, l->load_threads, PB_S(l->load_threads), l->top_x);
    const pb_decode_point *dec = rlat_decode(d);
    if (!dec)
        return;
    double at = pb_digest_latency_at(l, dec->gbps);
    fprintf(o, "- The decode's own bandwidth: %s %s on %d thread%s draws %.2f GB/s (sweep.csv's best point of that "
               "format); ", PB_MD(dec->model), PB_MD(dec->format), dec->threads, PB_S(dec->threads), dec->gbps);
    if (!isnan(at))
        fprintf(o, "there the curve's latency is %.1f ns, %.2f x idle.\n", at, at / idle->ns);
    else if (dec->gbps > l->top_gbps)
        fprintf(o, "beyond the curve, whose most is %.2f GB/s (%.2f x idle there): the decode loads memory harder "
                   "than the %d streaming cpu%s did.\n", l->top_gbps, l->top_x, l->load_threads,
                PB_S(l->load_threads));
    else
        fprintf(o, "below the curve's first point: latency there is about idle.\n");
}

void pb_report_latency(FILE *o, const pb_digest *d)
{
    const pb_latency_digest *l = &d->latency;
    if (!l->have)
        return;
    fprintf(o, "## Memory latency\n\nA pointer chase on one cpu (bench_memory_floor --latency): one random cycle "
               "through every 64 B line of the working set, one dependent load a hop; the median of its rounds.\n\n");
    rlat_answers(o, l, d);
    fprintf(o, "\n| working set | level | ns a hop | rounds' range | cycles |\n|---:|---|---:|---|---:|\n");
    for (int i = 0; i < l->nladder; i++) {
        const pb_latency_point *p = &l->ladder[i];
        fprintf(o, "| %.0f KiB | %s | %.2f | %.2f-%.2f | %.1f |\n", p->kib, PB_MD(p->level), p->ns, p->ns_min,
                p->ns_max, p->cycles);
    }
    if (l->ncurve > 1) {
        fprintf(o, "\n| streamers' duty | GB/s drawn | ns a hop | rounds' range | x idle |\n|---:|---:|---:|---|---:|\n");
        for (int i = 0; i < l->ncurve; i++) {
            const pb_latency_point *p = &l->curve[i];
            fprintf(o, "| %s%d%% | %.2f | %.1f | %.1f-%.1f | %.2f |\n", i == 0 ? "idle " : "", p->duty, p->gbps,
                    p->ns, p->ns_min, p->ns_max, p->ns / l->curve[0].ns);
        }
    }
    fprintf(o, "\n");
}
