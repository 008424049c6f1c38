/* pb_time.c — the harnesses' clock (pb_time.h): monotonic ns, busy work of a set length, the timer's cost. */
#include "pb_time.h"

#include <time.h>

#include "pb_stats.h"

uint64_t pb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pb_spin_ns(uint64_t ns)
{
    if (ns == 0)
        return;
    uint64_t end = pb_now_ns() + ns;
    while (pb_now_ns() < end)
        ;
}

double pb_timer_granularity_ns(void)
{
    enum { TRIES = 21 };
    double d[TRIES];
    for (int i = 0; i < TRIES; i++) {
        uint64_t a = pb_now_ns(), b;
        while ((b = pb_now_ns()) == a)
            ;
        d[i] = (double)(b - a);
    }
    return pb_summarize(d, TRIES).median;
}
