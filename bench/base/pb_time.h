/* pb_time.h — the harnesses' clock: CLOCK_MONOTONIC in ns, busy work of a given length, and the timer's
 * granularity (STREAM's checktick: a point shorter than a few hundred ticks is not worth quoting). */
#ifndef PB_TIME_H
#define PB_TIME_H

#include <stdint.h>

uint64_t pb_now_ns(void);
/* Busy-waits (no syscalls, no sleeping) for ns nanoseconds: the serial work a caller does between dispatches. */
void pb_spin_ns(uint64_t ns);
/* Smallest non-zero difference between two successive pb_now_ns() readings, median of several tries. */
double pb_timer_granularity_ns(void);

#endif
