/* pb_progress.c — see pb_progress.h. */
#include "pb_progress.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "pb_time.h"

static void vstatus(const char *fmt, va_list ap)
{
    /* On a terminal the line redraws itself (\r, then clear to the end of the line); in a log, one line per
     * call, so the log reads as a history. */
    bool tty = isatty(STDERR_FILENO);
    fputs(tty ? "\r" : "", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(tty ? "\033[K" : "\n", stderr);
    fflush(stderr);
}

void pb_status(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vstatus(fmt, ap);
    va_end(ap);
}

void pb_progress(int done, int total, uint64_t t0, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    double el = (double)(pb_now_ns() - t0) / 1e9;
    double left = done > 0 ? el / done * (total - done) : 0;
    pb_status("[%d/%d] %s %5.0f s left", done + 1, total, what, left);
}

void pb_progress_done(int n, const char *what, uint64_t t0)
{
    pb_status("measured %d %s in %.1f s", n, what, (double)(pb_now_ns() - t0) / 1e9);
    if (isatty(STDERR_FILENO))
        fputc('\n', stderr);
}
