/* pb_run.h — the run directory a harness writes into.
 *  - No --out: a new results/<host>/<YYYYmmdd-HHMMSS>/ (a -N suffix when that second is taken), and
 *    results/<host>/latest points at it.
 *  - --out DIR: DIR must not exist or be an empty directory; its parents are created.
 *  - join (the --run-dir option, used by `make report` to put several harnesses into one run): DIR must
 *    exist; the harness then refuses to replace any file in it (pb_csv_open fails on an existing name).
 * The run id is "<host>-<stamp>" (or DIR's base name with --out/--run-dir). */
#ifndef PB_RUN_H
#define PB_RUN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pb_run {
    char dir[4096];
    char run_id[512];
    char host[128];
} pb_run;

/* Validates only: returns 0, or -1 with a one-line reason in err. Creates nothing. */
int pb_run_check(const char *out, bool join, char *err, size_t errlen);
/* Validates, then creates the directory. 0, or -1 with a one-line reason in err. */
int pb_run_prepare(pb_run *run, const char *out, bool join, char *err, size_t errlen);
/* The short host name (gethostname up to the first dot), "unknown" when unavailable. */
void pb_hostname(char *buf, size_t len);

#endif
