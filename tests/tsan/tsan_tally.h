/* tsan_tally.h — what the ThreadSanitizer mains that run one check per configuration share: the count of checks
 * passed and failed, the line and exit status a main ends with, and the idle pause that lets workers fall asleep.
 * A header, not a .c: every .c file in tests/tsan is built as a program of its own. */
#ifndef TSAN_TALLY_H
#define TSAN_TALLY_H

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

typedef struct tsan_tally {
    int passed, failed;
} tsan_tally;

/* Counts one check by its result (non-zero is a failure); a failure also prints "WHAT: wrong result" on stderr,
 * WHAT being printf(fmt, ...): the main's name and the check's configuration. */
static inline void tsan_count(tsan_tally *t, int failed, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline void tsan_count(tsan_tally *t, int failed, const char *fmt, ...)
{
    if (!failed) {
        t->passed++;
        return;
    }
    t->failed++;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, ": wrong result\n");
}

/* "NAME: P passed, F failed"; the main's exit status. */
static inline int tsan_report(const char *name, const tsan_tally *t)
{
    printf("%s: %d passed, %d failed\n", name, t->passed, t->failed);
    return t->failed ? 1 : 0;
}

/* Sleeps us microseconds, the whole of them even when a signal interrupts. */
static inline void tsan_sleep_us(long us)
{
    struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

#endif
