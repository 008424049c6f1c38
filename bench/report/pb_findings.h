/* pb_findings.h — the sentences of a write-up, each computed from a digest and carrying its own numbers: change
 * a figure in a CSV and the sentence changes with it. A finding whose figures are absent is not written. */
#ifndef PB_FINDINGS_H
#define PB_FINDINGS_H

#include "pb_digest.h"
#include "pb_tuning.h" /* the thresholds the findings judge by */

#define PB_FINDINGS_MAX 64

typedef struct pb_findings {
    int n;
    char s[PB_FINDINGS_MAX][640];
} pb_findings;

/* Appends one sentence (dropped past PB_FINDINGS_MAX). pb_findings_list.c: every findings file writes through
 * it, and it calls none of them. */
void pb_findings_add(pb_findings *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Every finding of a run, in report order (pb_findings.c: the only caller of the parts below). */
void pb_findings_make(pb_findings *f, const pb_digest *d);
/* The parts, one file each: dispatch cost and read floor; decode; read bandwidth beside the floor (kernels,
 * likwid); overlap and per-core utilisation. */
void pb_findings_pool(pb_findings *f, const pb_digest *d);
void pb_findings_decode(pb_findings *f, const pb_digest *d);
void pb_findings_bandwidth(pb_findings *f, const pb_digest *d);
void pb_findings_overlap_util(pb_findings *f, const pb_digest *d);
/* Noise notes: placements, spreads, load (machine facts from rd). */
void pb_noise_notes(pb_findings *f, const pb_digest *d, const pb_rundata *rd);

#endif
