/* pb_check.h — bench_check: a run directory judged against a baseline run, or against the invariants of an
 * expect file (expect/invariants.txt). Both read the runs as points (pb_points.h); the code is in check/.
 *
 * Against a baseline, every figure that has a direction is compared for each point both runs hold: the
 * dimensionless ones that carry across runs of one machine (a decode point's pct_of_floor and x_1thread, its tok/s
 * over its 1-thread tok/s; spin's ratio_to_rt and ratio_to_omp; a kernel's x_floor; overlap's pct_of_ceiling). Each
 * run's figure comes with the range its own repetitions allow (pb_figure lo..hi); a point regresses when those
 * ranges do not meet and the run's lies on the worse side: its best repetition is worse than the baseline's
 * worst. So the noise each run shows is the tolerance, not a fixed percentage, and a loss larger than both
 * spreads fails. Points in one run only are listed, not failed.
 *
 * An expect file holds one invariant per line, each with the reason it holds after a '#':
 *
 *   FAMILY.FIGURE[FILTER,...] OP BOUND   # why it holds
 *
 * FAMILY is a point family (decode, dispatch, kernel, overlap, floor), FIGURE one of its figures, each FILTER
 * KEY=TEXT, KEY>=NUMBER or KEY<=NUMBER on one of its attributes (format=q8_0, threads>=2; >= and <= on numeric
 * ones only), all as pb_schema.h declares them; OP >= or <=. Every point that matches is held to it. Blank lines
 * and lines that start with '#' are comments.
 *
 * Every failure is one line on the output:
 *   FAIL POINT FIGURE: baseline B, now N, allowed BAND: WHY */
#ifndef PB_CHECK_H
#define PB_CHECK_H

#include <stdio.h>

#include "pb_points.h"

/* What a check saw; failures decides the exit status. */
typedef struct pb_check_tally {
    int failures;  /* lines starting FAIL */
    int compared;  /* figures compared, or invariants held by points */
    int better;    /* against a baseline: better beyond both spreads */
    int only_base, only_run;
    int unmatched; /* invariants no point of the run matched: not checked, not failed */
} pb_check_tally;

/* Compares run with base, writing a FAIL line per regression and a line per point in one run only. Adds to t.
 * Sharing no point at all is a failure: a gate that compares nothing passes anything. */
void pb_check_baseline(FILE *out, const pb_points *run, const pb_points *base, pb_check_tally *t);

/* Whether base is a run of run's machine and CSV schema: machine.csv's host, CPU identity (vendor, brand,
 * ext_family, ext_model) and schema_version the same in both. 0, or -1 with what differs in err ("host is
 * 'otherbox' in the baseline, 'vm' in the run"). A key the run lacks is not compared (the run's own check fails
 * it); one the baseline lacks is refused: it cannot show it is of this machine. */
int pb_check_same_machine(const pb_rundata *run, const pb_rundata *base, char *err, size_t errlen);

#define PB_EXPECT_FILTERS 8

typedef struct pb_expect_filter {
    char key[48], val[48];
    char op; /* '=', '>' (>=) or '<' (<=) */
} pb_expect_filter;

typedef struct pb_invariant {
    char family[24], figure[48];
    pb_expect_filter filter[PB_EXPECT_FILTERS];
    int nfilter;
    char op;        /* '>' (>=) or '<' (<=) */
    double bound;
    char why[640];
    char text[240]; /* the line's rule as written, for the output */
    int line;
} pb_invariant;

typedef struct pb_expect {
    char path[4096];
    pb_invariant *inv;
    int n;
} pb_expect;

/* Reads an expect file. 0, or -1 with "FILE:LINE: what" in err (a line that does not parse, that names a family,
 * figure or attribute pb_schema.h does not declare, saying which it accepts, or that gives no reason after its
 * '#'; a file that cannot be read, or holds no rule). */
int pb_expect_load(pb_expect *e, const char *path, char *err, size_t errlen);
/* The same from len bytes of text, named name in the messages (the fuzz target's way in). */
int pb_expect_parse(pb_expect *e, const char *name, const char *text, size_t len, char *err, size_t errlen);
void pb_expect_free(pb_expect *e);
/* Holds every point of run to the invariants: a FAIL line for each point that breaks one, and a line per
 * invariant saying how many points it held ("ok") or that none matched. Adds to t. */
void pb_check_expect(FILE *out, const pb_points *run, const pb_expect *e, pb_check_tally *t);

/* The FAIL line (both checks print through it): figure f of point, now; base NULL for an invariant, whose
 * baseline is then the words in base_words. band: ">= 4.41". */
void pb_check_fail(FILE *out, const char *point, const pb_figure *now, const pb_figure *base, const char *base_words,
                   const char *band, const char *why);

#endif
