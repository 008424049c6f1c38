/* pb_progress.h — a harness's progress line on stderr: which point runs now and how long the rest should take.
 * In base, below the measuring loops that draw it (bench/measure/loops) and the harness layer that ends it. */
#ifndef PB_PROGRESS_H
#define PB_PROGRESS_H

#include <stdint.h>

/* "[done+1/total] WHAT  N s left" on stderr, N extrapolated from the time since t0 (pb_now_ns). */
void pb_progress(int done, int total, uint64_t t0, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "measured N WHAT in S s": the line that ends the progress. */
void pb_progress_done(int n, const char *what, uint64_t t0);
/* One status line on stderr: on a terminal it redraws itself in place; in a log it is a line of its own. */
void pb_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
