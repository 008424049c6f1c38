/* pb_infile.c — see pb_infile.h. */
#include "pb_infile.h"

#include "pb_err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* What a file that is not a regular one is, for the message. */
static const struct {
    mode_t type;
    const char *what;
} file_types[] = {
    { S_IFIFO, "a FIFO" },      { S_IFCHR, "a character device" }, { S_IFBLK, "a block device" },
    { S_IFDIR, "a directory" }, { S_IFSOCK, "a socket" },
};

static const char *type_name(mode_t mode)
{
    for (size_t i = 0; i < sizeof file_types / sizeof file_types[0]; i++)
        if ((mode & S_IFMT) == file_types[i].type)
            return file_types[i].what;
    return "an unknown kind of file";
}

/* pb_errf that leaves errno saying why: ENOENT (missing) or EINVAL (anything else). */
static int refuse(int why, char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int refuse(int why, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pb_verrf(err, errlen, fmt, ap);
    va_end(ap);
    errno = why == ENOENT ? ENOENT : EINVAL;
    return -1;
}

/* "N MiB, more than the M MiB WHAT may hold", rounded up so that a file just over the bound never reads as
 * equal to it. */
static int too_large(const char *path, unsigned long long bytes, size_t max, const char *what, char *err,
                     size_t errlen)
{
    return refuse(EINVAL, err, errlen, "%.300s: %llu MiB, more than the %zu MiB %s may hold", path,
                  (bytes + (1u << 20) - 1) >> 20, max >> 20, what);
}

int pb_infile_open(int dirfd, const char *path, size_t max, const char *what, size_t *size, char *err,
                   size_t errlen)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. */
    int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        int e = errno;
        if (e != ENOENT && fstatat(dirfd, path, &st, 0) == 0 && !S_ISREG(st.st_mode)) /* a socket: no open */
            return refuse(EINVAL, err, errlen, "%.300s: not a regular file (%s)", path, type_name(st.st_mode));
        return refuse(e, err, errlen, "%.300s: %s", path, strerror(e));
    }
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) != 0 || flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        return refuse(EINVAL, err, errlen, "%.300s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return refuse(EINVAL, err, errlen, "%.300s: not a regular file (%s)", path, type_name(st.st_mode));
    }
    if ((unsigned long long)st.st_size > max) {
        close(fd);
        return too_large(path, (unsigned long long)st.st_size, max, what, err, errlen);
    }
    if (size)
        *size = (size_t)st.st_size;
    return fd;
}

/* Reads fd to its end into a new buffer with room for a NUL, starting from the size fstat gave; no more than
 * max bytes are taken. 0, or -1 with err. */
static int read_all(int fd, size_t size, size_t max, const char *path, const char *what, char **out, size_t *len,
                    char *err, size_t errlen)
{
    size_t cap = size + 1, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 == cap) { /* full, less the NUL's byte */
            if (n > max) {
                free(buf);
                return refuse(EINVAL, err, errlen, "%.300s: grew past the %zu MiB %s may hold while it was read",
                              path, max >> 20, what);
            }
            cap = cap <= max / 2 ? cap * 2 : max + 2; /* max + 1 bytes tell "grew past max" from "exactly max" */
            char *nb = realloc(buf, cap);
            if (!nb)
                break;
            buf = nb;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            return refuse(EINVAL, err, errlen, "%.300s: %s", path, strerror(e));
        }
        if (r == 0) {
            buf[n] = '\0';
            *out = buf;
            *len = n;
            return 0;
        }
        n += (size_t)r;
    }
    free(buf);
    return refuse(EINVAL, err, errlen, "%.300s: out of memory", path);
}

int pb_infile_read(int dirfd, const char *path, size_t max, const char *what, char **data, size_t *len, char *err,
                   size_t errlen)
{
    *data = NULL;
    *len = 0;
    size_t size = 0;
    int fd = pb_infile_open(dirfd, path, max, what, &size, err, errlen);
    if (fd < 0)
        return -1;
    int rc = read_all(fd, size, max, path, what, data, len, err, errlen);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* ---------------------------------------------------------------- the stream */

/* A stream over text read whole: the cookie owns it, and fclose frees it. */
typedef struct infile_stream {
    char *data;
    size_t len, at;
} infile_stream;

static ssize_t stream_read(void *cookie, char *buf, size_t size)
{
    infile_stream *s = cookie;
    size_t n = s->len - s->at < size ? s->len - s->at : size;
    memcpy(buf, s->data + s->at, n);
    s->at += n;
    return (ssize_t)n;
}

static int stream_close(void *cookie)
{
    infile_stream *s = cookie;
    free(s->data);
    free(s);
    return 0;
}

FILE *pb_infile_fopen(int dirfd, const char *path, size_t max, const char *what, char *err, size_t errlen)
{
    infile_stream *s = calloc(1, sizeof *s);
    if (!s) {
        refuse(EINVAL, err, errlen, "%.300s: out of memory", path);
        return NULL;
    }
    if (pb_infile_read(dirfd, path, max, what, &s->data, &s->len, err, errlen) != 0) {
        int e = errno;
        free(s);
        errno = e;
        return NULL;
    }
    FILE *f = fopencookie(s, "r", (cookie_io_functions_t){ .read = stream_read, .close = stream_close });
    if (!f) {
        stream_close(s);
        refuse(EINVAL, err, errlen, "%.300s: out of memory", path);
    }
    return f;
}
