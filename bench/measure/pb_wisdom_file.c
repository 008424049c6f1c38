/* pb_wisdom_file.c — reading wisdom as an input (pb_infile) and writing it atomically (see pb_wisdom.h). */
#include "pb_wisdom.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_err.h"
#include "pb_infile.h"

/* The one line that says what happens instead: every status but OK ends with it. */
#define PB_WISDOM_RANK "kernels go by ISA rank"

pb_wisdom_status pb_wisdom_load(const char *path, const char *cpu, const char *build, pb_wisdom *w, char *msg,
                                size_t msglen)
{
    char why[PB_WISDOM_MSG];
    char *text = NULL;
    size_t len = 0;
    memset(w, 0, sizeof *w);
    if (pb_infile_read(AT_FDCWD, path, PB_WISDOM_MAX_BYTES, "a wisdom file", &text, &len, why, sizeof why) != 0) {
        if (errno == ENOENT) {
            snprintf(msg, msglen, "wisdom %s: none yet (bench_tune measures it); %s", path, PB_WISDOM_RANK);
            return PB_WISDOM_MISSING;
        }
        snprintf(msg, msglen, "wisdom %s; ignored, %s", why, PB_WISDOM_RANK); /* why names the path */
        return PB_WISDOM_BAD;
    }
    int rc = pb_wisdom_parse(text, len, w, why, sizeof why);
    free(text);
    /* Identity first: a file of another machine is "another machine's" even where its own grammar differs. */
    const char *other = w->cpu[0] && strcmp(w->cpu, cpu) != 0 ? "cpu" : w->build[0] && strcmp(w->build, build) != 0
                                                                            ? "build"
                                                                            : NULL;
    if (other) {
        snprintf(msg, msglen, "wisdom %s: measured on another %s (%.200s), ignored; %s", path, other,
                 strcmp(other, "cpu") == 0 ? w->cpu : w->build, PB_WISDOM_RANK);
        memset(w, 0, sizeof *w);
        return PB_WISDOM_OTHER;
    }
    if (rc != 0) {
        snprintf(msg, msglen, "wisdom %s: malformed, %s; ignored, %s", path, why, PB_WISDOM_RANK);
        memset(w, 0, sizeof *w);
        return PB_WISDOM_BAD;
    }
    int tuned = 0;
    for (int i = 0; i < w->nkernels; i++)
        tuned += w->kernel[i].tuned;
    char noisy[96] = "";
    if (pb_wisdom_noisy(w))
        snprintf(noisy, sizeof noisy, ", tuned while the hypervisor took up to %.1f%% of a cpu", w->steal_pct);
    snprintf(msg, msglen, "wisdom %s: %d kernel%s, %d of them tuned (the rest kept rank's), streaming %s%s", path,
             w->nkernels, w->nkernels == 1 ? "" : "s", tuned,
             w->has_streaming && w->streaming_tuned ? "tuned" : "rank", noisy);
    return PB_WISDOM_OK;
}

/* mkdir -p of path's parent directories (a path without '/' needs none). 0, or -1 with errno. */
static int pb_wisdom_mkdirs(const char *path)
{
    char dir[PB_WISDOM_PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (!pb_wisdom_parent(dir))
        return 0;
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return dir[0] && mkdir(dir, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* All of text into fd, then to disk. 0, or -1 with errno. */
static int pb_wisdom_write_all(int fd, const char *text, size_t len)
{
    for (size_t at = 0; at < len;) {
        ssize_t n = write(fd, text + at, len - at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        at += (size_t)n;
    }
    return fsync(fd);
}

/* text to a temporary file beside path, renamed over it. */
static int pb_wisdom_write(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    char tmp[PB_WISDOM_PATH_MAX + 32];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return pb_errf(err, errlen, "wisdom %s: the path is too long for its temporary twin", path);
    if (pb_wisdom_mkdirs(path) != 0)
        return pb_errf(err, errlen, "wisdom %s: cannot create its directory: %s", path, strerror(errno));
    /* O_EXCL | O_NOFOLLOW: never through a link or over another process's temporary file. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return pb_errf(err, errlen, "wisdom %s: cannot create %s: %s", path, tmp, strerror(errno));
    int rc = pb_wisdom_write_all(fd, text, len);
    int e = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0) {
        unlink(tmp);
        return pb_errf(err, errlen, "wisdom %s: cannot write it: %s", path, strerror(e));
    }
    return 0;
}

int pb_wisdom_save(const char *path, const pb_wisdom *w, char *err, size_t errlen)
{
    char *text = malloc(PB_WISDOM_MAX_BYTES);
    int len = text ? pb_wisdom_format(w, text, PB_WISDOM_MAX_BYTES) : -1;
    if (len < 0) {
        free(text);
        return pb_errf(err, errlen, "wisdom %s: %s", path, text ? "more than the bound a wisdom file may hold"
                                                                 : "out of memory");
    }
    int rc = pb_wisdom_write(path, text, (size_t)len, err, errlen);
    free(text);
    return rc;
}

/* Whether the update measured (f, threads). */
static bool pb_wisdom_measured(const kern_format *fmts, int nfmts, const int *threads, int nthreads, kern_format f,
                               int t)
{
    bool fmt = false, count = false;
    for (int i = 0; i < nfmts; i++)
        fmt = fmt || fmts[i] == f;
    for (int i = 0; i < nthreads; i++)
        count = count || threads[i] == t;
    return fmt && count;
}

/* w's measured entries over now, which keeps the rest. 0, or -1 when now's table is full. */
static int pb_wisdom_merge(pb_wisdom *now, const pb_wisdom *w, const kern_format *fmts, int nfmts,
                           const int *threads, int nthreads)
{
    for (int i = 0; i < w->nkernels; i++) {
        const pb_wisdom_kernel *k = &w->kernel[i];
        if (pb_wisdom_measured(fmts, nfmts, threads, nthreads, k->fmt, k->threads) && pb_wisdom_put_kernel(now, k) != 0)
            return -1;
    }
    for (int i = 0; i < w->ndispatch; i++)
        if (pb_wisdom_put_dispatch(now, &w->dispatch[i]) != 0)
            return -1;
    if (w->has_streaming) {
        now->has_hint = w->has_hint;
        now->temporal = w->temporal;
        now->has_distance = w->has_distance;
        now->distance = w->distance;
        now->has_near = w->has_near;
        now->near = w->near;
        now->has_streaming = true;
        now->streaming_tuned = w->streaming_tuned;
        now->streaming_vs = w->streaming_vs;
    }
    if (w->has_steal) { /* this tuning's, where it timed every entry the file now holds; else the worse */
        bool all = true;
        for (int i = 0; i < now->nkernels; i++)
            all = all && pb_wisdom_measured(fmts, nfmts, threads, nthreads, now->kernel[i].fmt, now->kernel[i].threads);
        now->steal_pct = all || !now->has_steal || w->steal_pct > now->steal_pct ? w->steal_pct : now->steal_pct;
        now->has_steal = true;
    }
    return 0;
}

/* The lock of path's directory, created when missing: its descriptor, or -1 with errno. */
static int pb_wisdom_lock(const char *path)
{
    char dir[PB_WISDOM_PATH_MAX];
    if (pb_wisdom_mkdirs(path) != 0)
        return -1;
    snprintf(dir, sizeof dir, "%s", path); /* fits: pb_wisdom_mkdirs checked its length */
    pb_wisdom_parent(dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc;
    while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    if (rc != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int pb_wisdom_update(const char *path, const pb_wisdom *w, const kern_format *fmts, int nfmts, const int *threads,
                     int nthreads, char *err, size_t errlen)
{
    int lock = pb_wisdom_lock(path);
    if (lock < 0)
        return pb_errf(err, errlen, "wisdom %s: cannot lock its directory: %s", path, strerror(errno));
    pb_wisdom *now = malloc(sizeof *now);
    char *msg = malloc(PB_WISDOM_MSG);
    int rc = -1;
    if (!now || !msg)
        pb_errf(err, errlen, "wisdom %s: out of memory", path);
    else if (pb_wisdom_load(path, w->cpu, w->build, now, msg, PB_WISDOM_MSG) != PB_WISDOM_OK)
        rc = pb_wisdom_save(path, w, err, errlen); /* nothing of this machine's to keep: w as it stands */
    else if (pb_wisdom_merge(now, w, fmts, nfmts, threads, nthreads) != 0)
        pb_errf(err, errlen, "wisdom %s: more than %d entries with the file's", path, PB_WISDOM_MAX_KERNELS);
    else
        rc = pb_wisdom_save(path, now, err, errlen);
    free(now);
    free(msg);
    close(lock); /* closing the last descriptor releases the flock */
    return rc;
}
