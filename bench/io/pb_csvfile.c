/* Reading a CSV file for the loaders of pb_csvread.h: regular files only, opened without blocking (a FIFO under
 * a CSV's name would wait for a writer forever), and never more than PB_CSV_MAX_MIB read (a link to /dev/zero
 * would feed bytes forever). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_csvread.h"

#define MAX_BYTES ((size_t)PB_CSV_MAX_MIB << 20)

/* What a file that is not a regular one is, for the message. */
static const struct {
    mode_t type;
    const char *what;
} file_types[] = {
    { S_IFIFO, "a FIFO" },       { S_IFCHR, "a character device" }, { S_IFBLK, "a block device" },
    { S_IFDIR, "a directory" },  { S_IFSOCK, "a socket" },
};

static const char *type_name(mode_t mode)
{
    for (size_t i = 0; i < sizeof file_types / sizeof file_types[0]; i++)
        if ((mode & S_IFMT) == file_types[i].type)
            return file_types[i].what;
    return "an unknown kind of file";
}

static int unreadable(pb_csverr *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int unreadable(pb_csverr *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->unreadable = true;
    return -1;
}

/* Opens path for reading if it is a regular file of at most MAX_BYTES; its size in *size. -1 with e filled. */
static int open_regular(const char *path, size_t *size, pb_csverr *e)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        int err = errno;
        e->missing = err == ENOENT;
        if (!e->missing && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) /* a socket cannot be opened at all */
            return unreadable(e, "%.300s: not a regular file (%s)", path, type_name(st.st_mode));
        return unreadable(e, "%.300s: %s", path, strerror(err));
    }
    int flags = fcntl(fd, F_GETFL);
    const char *why = fstat(fd, &st) != 0 || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0
                          ? strerror(errno) : NULL;
    if (!why && S_ISREG(st.st_mode) && (size_t)st.st_size <= MAX_BYTES) {
        *size = (size_t)st.st_size;
        return fd;
    }
    close(fd);
    if (why)
        return unreadable(e, "%.300s: %s", path, why);
    if (!S_ISREG(st.st_mode))
        return unreadable(e, "%.300s: not a regular file (%s)", path, type_name(st.st_mode));
    return unreadable(e, "%.300s: %lld MiB, more than the %d MiB a CSV may hold", path,
                      (long long)((st.st_size + (1 << 20) - 1) >> 20), PB_CSV_MAX_MIB);
}

/* Reads fd to its end into a new buffer (*out, *len). The size fstat gave is where to start, not a promise: the
 * file may grow while it is read, and still no more than MAX_BYTES are taken. -1 with e filled. */
static int read_all(int fd, size_t size, const char *path, char **out, size_t *len, pb_csverr *e)
{
    size_t cap = size + 1, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap > MAX_BYTES) {
                free(buf);
                return unreadable(e, "%.300s: grew past the %d MiB a CSV may hold while it was read", path,
                                  PB_CSV_MAX_MIB);
            }
            cap = cap * 2 < MAX_BYTES + 1 ? cap * 2 : MAX_BYTES + 1;
            char *nb = realloc(buf, cap);
            if (!nb)
                break;
            buf = nb;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int err = errno;
            free(buf);
            return unreadable(e, "%.300s: %s", path, strerror(err));
        }
        if (r == 0) {
            *out = buf;
            *len = n;
            return 0;
        }
        n += (size_t)r;
    }
    free(buf);
    return unreadable(e, "%.300s: out of memory", path);
}

/* The length of data up to its last line end outside quotes: a killed writer's partial file ends with the line
 * it was writing, cut anywhere, inside a quoted field too. (A doubled quote toggles twice: no change.) */
static size_t complete_length(const char *data, size_t len)
{
    bool quoted = false;
    size_t end = 0;
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '"')
            quoted = !quoted;
        else if (data[i] == '\n' && !quoted)
            end = i + 1;
    }
    return end;
}

static int load(pb_table *t, const char *path, bool *cut, pb_csverr *e)
{
    memset(t, 0, sizeof *t);
    memset(e, 0, sizeof *e);
    size_t size = 0, len = 0;
    char *buf = NULL;
    int fd = open_regular(path, &size, e);
    if (fd < 0)
        return -1;
    int rc = read_all(fd, size, path, &buf, &len, e);
    close(fd);
    if (rc != 0)
        return -1;
    size_t use = cut ? complete_length(buf, len) : len;
    if (cut)
        *cut = use < len;
    rc = pb_table_parse(t, path, buf, use, e);
    free(buf);
    return rc;
}

int pb_table_load(pb_table *t, const char *path, pb_csverr *e) { return load(t, path, NULL, e); }

int pb_table_load_partial(pb_table *t, const char *path, bool *cut, pb_csverr *e) { return load(t, path, cut, e); }
