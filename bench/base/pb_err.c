/* pb_err.c — see pb_err.h. */
#include "pb_err.h"

#include <stdio.h>

int pb_verrf(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (errlen > 0)
        vsnprintf(err, errlen, fmt, ap);
    return -1;
}

int pb_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pb_verrf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}
