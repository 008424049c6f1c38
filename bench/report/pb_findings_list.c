/* The findings list itself: the one function every findings file writes through. Kept apart from the files
 * that compute findings and from pb_findings_make that orders them, so those depend on it and it on none. */
#include <stdarg.h>
#include <stdio.h>

#include "pb_findings.h"

void pb_findings_add(pb_findings *f, const char *fmt, ...)
{
    if (f->n == PB_FINDINGS_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->s[f->n++], sizeof f->s[0], fmt, ap);
    va_end(ap);
}
