/* pb_run.c — a harness's run directory (pb_run.h): made, joined, named, marked latest, cleared. */
#include "pb_run.h"

#include "pb_csvread.h"
#include "pb_err.h"
#include "pb_schema.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void pb_hostname(char *buf, size_t len)
{
    if (gethostname(buf, len) != 0 || buf[0] == '\0') {
        snprintf(buf, len, "unknown");
        return;
    }
    buf[len - 1] = '\0';
    char *dot = strchr(buf, '.');
    if (dot)
        *dot = '\0';
    for (char *p = buf; *p; p++) /* a host name becomes a directory name and a CSV field */
        if (*p == '/' || *p == ',' || *p == '"' || *p == ' ')
            *p = '_';
}

/* How many entries dir holds (. and .. left out, and those ignore accepts where it is not NULL), the first one's
 * name in what; -1 when dir cannot be listed. */
static int pb_dir_count(const char *dir, bool (*ignore)(const char *name), char *what, size_t len)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || (ignore && ignore(name)))
            continue;
        if (n++ == 0)
            snprintf(what, len, "%.200s", name);
    }
    closedir(d);
    return n;
}

/* 1 empty, 0 not empty (the first entry found, and how many more, in what), -1 not a readable directory. */
static int pb_dir_empty(const char *path, char *what, size_t len)
{
    int n = pb_dir_count(path, NULL, what, len);
    if (n > 1)
        snprintf(what + strlen(what), len - strlen(what), " and %d more", n - 1);
    return n < 0 ? -1 : n == 0;
}

/* The nearest existing ancestor of path must be a writable directory. */
static int pb_parent_writable(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (;;) {
        char *slash = strrchr(buf, '/');
        if (!slash)
            return access(".", W_OK | X_OK) == 0;
        if (slash == buf) {
            buf[1] = '\0';
        } else {
            *slash = '\0';
        }
        struct stat st;
        if (stat(buf, &st) == 0)
            return S_ISDIR(st.st_mode) && access(buf, W_OK | X_OK) == 0;
        if (slash == buf)
            return 0;
    }
}

/* A machine.csv value of key, as one printable line (it came from a file anyone could have written). */
static const char *pb_machine_fact(const pb_table *t, const char *key, char *buf, size_t len)
{
    int ck = pb_table_col(t, PB_COL(MACHINE, key)), cv = pb_table_col(t, PB_COL(MACHINE, value));
    buf[0] = '\0';
    for (size_t r = 0; r < t->nrows && !buf[0]; r++)
        if (strcmp(pb_table_str(t, r, ck), key) == 0)
            snprintf(buf, len, "%s", pb_table_str(t, r, cv));
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return buf;
}

/* Whether name is a CSV's partial file (NAME.partial-XXXXXX, pb_csv.h): a harness is writing it now. */
static bool pb_partial_name(const char *name)
{
    for (int k = 0; k < PB_SCHEMA_COUNT; k++) {
        const char *file = pb_schema_get((pb_kind)k)->file;
        size_t n = strlen(file);
        if (strncmp(name, file, n) == 0 && strncmp(name + n, PB_CSV_PARTIAL, strlen(PB_CSV_PARTIAL)) == 0)
            return true;
    }
    return false;
}

/* 1 when dir holds nothing but CSVs' partial files (or nothing), 0 when it holds something else (its name in
 * what), -1 when it cannot be listed. */
static int pb_dir_fresh(const char *dir, char *what, size_t len)
{
    int n = pb_dir_count(dir, pb_partial_name, what, len);
    return n < 0 ? -1 : n == 0;
}

/* What --run-dir may join: a directory a harness of this host and this build's schema wrote (its machine.csv says
 * so), or a fresh one: empty (make report makes it, and its first harness fills it) or holding only the partial
 * files of a harness writing now (bench_cpu_util writes machine.csv when its command is done). Anything else
 * (/dev, another machine's run, another schema's) would get machine.csv and partial files, or rows its
 * machine.csv does not describe. */
static int pb_join_check(const char *dir, char *err, size_t errlen)
{
    static const char accepted[] = "accepted a run directory of this host and schema, or an empty directory";
    char path[4200], found[320] = "", host[128], got_host[128], got_schema[32], schema[32];
    snprintf(path, sizeof path, "%s/%s", dir, pb_schema_get(PB_K_MACHINE)->file);
    pb_table t;
    pb_csverr e;
    if (pb_table_load(&t, path, &e) != 0) {
        if (!e.missing)
            return pb_errf(err, errlen, "--run-dir: %s: %s", e.msg, accepted);
        int fresh = pb_dir_fresh(dir, found, sizeof found);
        if (fresh == 1)
            return 0;
        if (fresh < 0)
            return pb_errf(err, errlen, "--run-dir: '%s' cannot be listed: %s", dir, strerror(errno));
        return pb_errf(err, errlen, "--run-dir: '%s' holds %s but no machine.csv: %s", dir, found, accepted);
    }
    pb_hostname(host, sizeof host);
    snprintf(schema, sizeof schema, "%d", PB_SCHEMA_VERSION);
    pb_machine_fact(&t, PB_MKEY(host), got_host, sizeof got_host);
    pb_machine_fact(&t, PB_MKEY(schema_version), got_schema, sizeof got_schema);
    pb_table_free(&t);
    if (strcmp(got_host, host) != 0)
        return pb_errf(err, errlen, "--run-dir: '%s' is a run of host '%s' (its machine.csv), not of this host "
                       "'%s': %s", dir, got_host, host, accepted);
    if (strcmp(got_schema, schema) != 0)
        return pb_errf(err, errlen, "--run-dir: '%s' holds CSV schema '%s' (its machine.csv), not this build's "
                       "%s: %s", dir, got_schema, schema, accepted);
    return 0;
}

int pb_run_check(const char *out, bool join, char *err, size_t errlen)
{
    if (!out)
        return 0;
    const char *opt = join ? "--run-dir" : "--out";
    if (out[0] == '\0')
        return pb_errf(err, errlen, "%s: '%s' is empty: accepted a directory path", opt, out);
    if (strlen(out) > PB_RUN_DIR_MAX)
        return pb_errf(err, errlen, "%s: the path is %zu bytes long: accepted at most %d (the longest file name "
                       "must still fit in PATH_MAX)", opt, strlen(out), PB_RUN_DIR_MAX);
    struct stat st;
    if (stat(out, &st) != 0) {
        if (join)
            return pb_errf(err, errlen, "--run-dir: '%s' %s: accepted an existing run directory", out, "does not exist");
        if (!pb_parent_writable(out))
            return pb_errf(err, errlen, "--out: '%s' %s: accepted a new or empty directory in a writable place", out,
                           "cannot be created");
        return 0;
    }
    if (!S_ISDIR(st.st_mode))
        return pb_errf(err, errlen, "%s: '%s' %s", opt, out, "is not a directory");
    if (access(out, W_OK | X_OK) != 0)
        return pb_errf(err, errlen, "%s: '%s' %s", opt, out, "is not writable");
    if (join)
        return pb_join_check(out, err, errlen);
    char found[320] = "";
    if (pb_dir_empty(out, found, sizeof found) != 1)
        return pb_errf(err, errlen, "--out: '%s' is not empty (it holds %s): accepted a new or empty directory "
                       "(results are never overwritten)", out, found);
    return 0;
}

static int pb_mkdirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

void pb_run_basename(const char *path, char *out, size_t len)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && path[start - 1] != '/')
        start--;
    snprintf(out, len, "%.*s", (int)(n - start), path + start);
}

void pb_run_clear(const char *dir, bool remove_dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_type == DT_REG)
            unlinkat(dirfd(d), e->d_name, 0);
    if (d)
        closedir(d);
    if (remove_dir)
        rmdir(dir);
}

/* results/<host>/<stamp>[-N]: mkdir without EEXIST tolerance claims the name atomically. */
static int pb_new_stamped(pb_run *run)
{
    char base[512];
    snprintf(base, sizeof base, "results/%s", run->host);
    if (pb_mkdirs(base) != 0)
        return -1;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int i = 0; i < 100; i++) {
        if (i == 0)
            snprintf(run->dir, sizeof run->dir, "%s/%s", base, stamp);
        else
            snprintf(run->dir, sizeof run->dir, "%s/%s-%d", base, stamp, i);
        if (mkdir(run->dir, 0777) == 0) {
            run->created = true;
            return 0;
        }
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

int pb_run_prepare(pb_run *run, const char *out, bool join, char *err, size_t errlen)
{
    memset(run, 0, sizeof *run);
    pb_hostname(run->host, sizeof run->host);
    if (pb_run_check(out, join, err, errlen) != 0)
        return -1;
    if (!out) {
        run->stamped = true;
        if (pb_new_stamped(run) != 0)
            return pb_errf(err, errlen, "cannot create a run directory under %s: %s", "results/", strerror(errno));
    } else {
        snprintf(run->dir, sizeof run->dir, "%s", out);
        struct stat st;
        run->created = !join && stat(out, &st) != 0;
        if (!join && pb_mkdirs(out) != 0)
            return pb_errf(err, errlen, "--out: cannot create '%s': %s", out, strerror(errno));
    }
    char base[256];
    pb_run_basename(run->dir, base, sizeof base);
    for (char *p = base; *p; p++) /* an id is one line: a newline or tab in a name would split plots' fields */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '_';
    if (out)
        snprintf(run->run_id, sizeof run->run_id, "%s", base);
    else
        snprintf(run->run_id, sizeof run->run_id, "%s-%s", run->host, base);
    return 0;
}

void pb_run_discard(const pb_run *run)
{
    if (run->created)
        rmdir(run->dir); /* fails, as it should, once anything was written into it */
}

int pb_run_mark_latest(const pb_run *run)
{
    if (!run->stamped)
        return 0;
    /* A link under a name of this process's, then renamed over latest: a reader never finds latest missing,
     * and two runs ending together leave it on one of them, whole. */
    char link[4200], tmp[4300], base[256];
    snprintf(link, sizeof link, "results/%s/latest", run->host);
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", link, (long)getpid());
    pb_run_basename(run->dir, base, sizeof base);
    unlink(tmp);
    if (symlink(base, tmp) != 0)
        return -1;
    return pb_run_tmp_publish(tmp, link);
}

int pb_run_tmp_drop(const char *tmp, int e)
{
    unlink(tmp);
    errno = e;
    return -1;
}

int pb_run_tmp_publish(const char *tmp, const char *path)
{
    return rename(tmp, path) == 0 ? 0 : pb_run_tmp_drop(tmp, errno);
}
