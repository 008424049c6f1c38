/* pb_run.h — the run directory a harness writes into.
 *  - No --out: a new results/<host>/<YYYYmmdd-HHMMSS>/ (a -N suffix when that second is taken);
 *    results/<host>/latest is moved to it only once the run has succeeded (pb_run_mark_latest), so a failed run
 *    never takes latest from the last good one nor leaves it dangling.
 *  - --out DIR: DIR must not exist or be an empty directory; its parents are created.
 *  - join (the --run-dir option, used by `make report` to put several harnesses into one run): DIR must
 *    exist; the harness then refuses to replace any file in it (pb_csv_open fails on an existing name).
 * The run id is "<host>-<stamp>" (or DIR's base name with --out/--run-dir, control characters made '_'). */
#ifndef PB_RUN_H
#define PB_RUN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pb_run {
    char dir[4096];
    char run_id[512];
    char host[128];
    bool created;  /* this run made dir (pb_run_discard may remove it) */
    bool stamped;  /* dir is results/<host>/<stamp>: pb_run_mark_latest links results/<host>/latest to it */
} pb_run;

/* The longest --out / --run-dir accepted: the longest name written inside it must still fit in PATH_MAX. */
#define PB_RUN_DIR_MAX 3900

/* Validates only: returns 0, or -1 with a one-line reason in err. Creates nothing. */
int pb_run_check(const char *out, bool join, char *err, size_t errlen);
/* Validates, then creates the directory. 0, or -1 with a one-line reason in err. */
int pb_run_prepare(pb_run *run, const char *out, bool join, char *err, size_t errlen);
/* Removes the run directory again when this run created it and nothing was written into it (a command that
 * could not be run). */
void pb_run_discard(const pb_run *run);
/* The run succeeded: results/<host>/latest now points at it (a stamped run; nothing for --out or --run-dir).
 * 0, or -1 with errno (latest then stays as it was). */
int pb_run_mark_latest(const pb_run *run);
/* A temporary file tmp given up after a failure whose errno was e: tmp removed, -1 with errno e. */
int pb_run_tmp_drop(const char *tmp, int e);
/* A whole temporary file tmp renamed over path: 0; -1 with rename's errno and tmp removed. */
int pb_run_tmp_publish(const char *tmp, const char *path);
/* path's last component, trailing slashes ignored ("refs/zen3-2vcpu/": "zen3-2vcpu"), into out. */
void pb_run_basename(const char *path, char *out, size_t len);
/* The regular files directly in dir removed (a run written back out, a scratch copy), then dir itself when
 * remove_dir. */
void pb_run_clear(const char *dir, bool remove_dir);
/* The short host name (gethostname up to the first dot), "unknown" when unavailable. */
void pb_hostname(char *buf, size_t len);

#endif
