/* pb_wisdom_path.c — a wisdom path checked before any work (see pb_wisdom.h): too long or the wrong kind is one
 * line at the start, never a tuning that cannot be written at its end, a file cut to another name, or a FIFO or
 * a device replaced by a regular file. */
#include "pb_wisdom.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_err.h"
#include "pb_run.h"

/* A temporary name beside the file adds ".tmp.PID": its last component keeps room for it. */
#define PB_WISDOM_TMP_ROOM 24

/* Length, and each component within NAME_MAX (the last with room for its temporary twin when writing). */
static int pb_wisdom_check_names(const char *path, bool writing, char *err, size_t errlen)
{
    size_t len = strlen(path);
    if (len == 0)
        return pb_errf(err, errlen, "an empty path; a file's path is accepted");
    if (len >= PB_WISDOM_PATH_MAX)
        return pb_errf(err, errlen, "a path of %zu bytes; paths up to %d bytes are accepted", len,
                       PB_WISDOM_PATH_MAX - 1);
    if (path[len - 1] == '/')
        return pb_errf(err, errlen, "%s ends with '/'; a file's path is accepted", path);
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        size_t most = writing && p[n] == '\0' ? NAME_MAX - PB_WISDOM_TMP_ROOM : NAME_MAX;
        if (n > most)
            return pb_errf(err, errlen, "%s: a name of %zu bytes in it; up to %zu are accepted", path, n, most);
        p += n + (p[n] == '/');
    }
    return 0;
}

/* Whether the regular file at path holds wisdom's first word, or nothing: what bench_tune may replace. */
static bool pb_wisdom_replaceable(const char *path)
{
    char head[sizeof PB_WISDOM_MAGIC_WORD - 1];
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n == 0 || (n == (ssize_t)sizeof head && memcmp(head, PB_WISDOM_MAGIC_WORD, sizeof head) == 0);
}

/* What is at path (st from lstat): a regular file, which a writer replaces only when it is wisdom. */
static int pb_wisdom_check_file(const char *path, struct stat *st, bool writing, char *err, size_t errlen)
{
    if (S_ISLNK(st->st_mode)) {
        if (writing)
            return pb_errf(err, errlen, "%s is a symbolic link; bench_tune replaces the file by a rename, so it "
                                        "takes the file's own path", path);
        if (stat(path, st) != 0)
            return pb_errf(err, errlen, "%s: %s", path, strerror(errno));
    }
    if (S_ISDIR(st->st_mode))
        return pb_errf(err, errlen, "%s is a directory; a wisdom file's path is accepted", path);
    if (!S_ISREG(st->st_mode))
        return pb_errf(err, errlen, "%s is not a regular file (a FIFO, a socket or a device); a wisdom file's path "
                                    "is accepted", path);
    if (writing && !pb_wisdom_replaceable(path))
        return pb_errf(err, errlen, "%s is not a wisdom file (it does not start with '" PB_WISDOM_MAGIC_WORD
                                    "'); bench_tune replaces only wisdom or an empty file", path);
    return 0;
}

bool pb_wisdom_parent(char *path)
{
    char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(path, 2, ".");
    else if (slash == path)
        path[1] = '\0'; /* "/wisdom": the root */
    else
        *slash = '\0';
    return slash != NULL;
}

/* Nothing at path: its nearest existing ancestor must be a directory, and a writer must be able to create a
 * file there (tried, and removed at once: root passes every permission check, /proc refuses anyway). */
static int pb_wisdom_check_parent(const char *path, bool writing, char *err, size_t errlen)
{
    char dir[PB_WISDOM_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path); /* fits: pb_wisdom_check_names checked its length */
    struct stat st;
    for (;;) {
        bool slash = pb_wisdom_parent(dir);
        if (stat(dir, &st) == 0)
            break;
        if (errno != ENOENT || !slash)
            return pb_errf(err, errlen, "%s: %s: %s", path, dir, strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return pb_errf(err, errlen, "%s: %s is not a directory", path, dir);
    if (!writing)
        return 0;
    char probe[PB_WISDOM_PATH_MAX + 64];
    snprintf(probe, sizeof probe, "%s/.poolbench-wisdom-probe.%ld", dir, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return pb_errf(err, errlen, "%s: cannot create a file in %s: %s", path, dir, strerror(errno));
    close(fd);
    unlink(probe);
    return 0;
}

int pb_wisdom_check_path(const char *path, bool writing, char *err, size_t errlen)
{
    if (pb_wisdom_check_names(path, writing, err, errlen) != 0)
        return -1;
    struct stat st;
    if (lstat(path, &st) == 0)
        return pb_wisdom_check_file(path, &st, writing, err, errlen);
    if (errno != ENOENT)
        return pb_errf(err, errlen, "%s: %s", path, strerror(errno));
    return pb_wisdom_check_parent(path, writing, err, errlen);
}

int pb_wisdom_path(const char *given, bool writing, char *buf, char *err, size_t errlen)
{
    if (given && given[0]) { /* empty means unset, as for every POOLBENCH_* variable */
        if (pb_wisdom_check_path(given, writing, err, errlen) != 0)
            return -1;
        snprintf(buf, PB_WISDOM_PATH_MAX, "%s", given); /* fits: checked */
        return 0;
    }
    char host[128];
    pb_hostname(host, sizeof host);
    snprintf(buf, PB_WISDOM_PATH_MAX, "results/%s/wisdom", host);
    return pb_wisdom_check_path(buf, writing, err, errlen);
}
