/* pb_err.h — the one-line error every bench/ library function reports through a caller's buffer:
 *
 *   if (bad) return pb_errf(err, errlen, "--cpus: %d does not exist", cpu);   // fills err, returns -1
 */
#ifndef PB_ERR_H
#define PB_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* Formats into err (at most errlen bytes, truncated; nothing when errlen is 0) and returns -1. */
int pb_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same with a va_list, for helpers that clean up before failing. */
int pb_verrf(char *err, size_t errlen, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

#endif
