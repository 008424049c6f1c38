/* pb_csv.c — see pb_csv.h. */
#include "pb_csv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* fsync at most this often: one per row would cost a disk flush per kernel point (tens of ms on some disks),
 * and the kernel's page cache already survives the process (a SIGKILL); a second bounds what a power cut
 * takes. */
#define PB_CSV_SYNC_NS 1000000000ull

struct pb_csv {
    FILE *f;
    char path[4096];
    char partial[4096 + 32];
    long rows;            /* rows that reached the file whole */
    long lost;            /* rows handed over after a write failed: never written */
    off_t good;           /* the file's length up to its last whole row (the header alone: its end) */
    uint64_t last_sync_ns;
    bool failed;          /* a write failed: nothing more is written, and only good bytes are ever published */
    bool header;          /* the header reached the file */
    int err;              /* the first failure's errno */
};

static uint64_t pb_csv_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------- quoting */

static bool pb_csv_needs_quotes(const char *s) { return strpbrk(s, ",\"\n\r") != NULL; }

void pb_csv_field(FILE *f, const char *s)
{
    if (!pb_csv_needs_quotes(s)) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

char *pb_csv_field_str(char *buf, size_t len, const char *s)
{
    if (len == 0)
        return buf;
    FILE *f = fmemopen(buf, len, "w");
    if (!f) {
        buf[0] = '\0';
        return buf;
    }
    /* fmemopen keeps the last byte for the terminator: a value too long for buf is cut, never overrun. */
    setvbuf(f, NULL, _IONBF, 0);
    pb_csv_field(f, s);
    fclose(f);
    buf[len - 1] = '\0';
    return buf;
}

/* ---------------------------------------------------------------- the row formatter */

/* One conversion of a row's format: "%[flags][width][.prec][length]conv", copied into spec. Returns the
 * format past it, or NULL when it is not one pb_csv_row supports (see pb_csv.h). */
static const char *pb_csv_spec(const char *fmt, char *spec, size_t len, char *length, char *conv)
{
    const char *p = fmt + 1;
    p += strspn(p, "-+ #0");
    p += strspn(p, "0123456789");
    if (*p == '.') {
        p++;
        p += strspn(p, "0123456789");
    }
    const char *lm = p;
    p += strspn(p, "hlz");
    size_t nlen = (size_t)(p - lm);
    if (nlen > 2 || !*p || !strchr("diuxcfegs%", *p) || (size_t)(p - fmt) + 2 > len)
        return NULL;
    *length = nlen == 0 ? ' ' : nlen == 2 ? (lm[0] == 'l' ? 'L' : 'H') : lm[0]; /* L = ll, H = hh */
    *conv = *p;
    memcpy(spec, fmt, (size_t)(p - fmt) + 1);
    spec[p - fmt + 1] = '\0';
    return p + 1;
}

/* Prints one argument per spec; the argument's type follows printf's rules for that conversion and length,
 * which the format attribute has checked at the call site. Building the format at run time is safe here:
 * spec is a copy of one conversion of the caller's literal format. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void pb_csv_arg(FILE *f, const char *spec, char length, char conv, va_list *ap)
{
    if (conv == 's') {
        const char *s = va_arg(*ap, const char *);
        char buf[1024];
        s = s ? s : "";
        if (strcmp(spec, "%s") != 0) { /* width or precision: applied first, then quoted */
            snprintf(buf, sizeof buf, spec, s);
            s = buf;
        }
        pb_csv_field(f, s);
    } else if (conv == 'f' || conv == 'e' || conv == 'g') {
        fprintf(f, spec, va_arg(*ap, double));
    } else if (conv == 'd' || conv == 'i') {
        if (length == 'l')
            fprintf(f, spec, va_arg(*ap, long));
        else if (length == 'L')
            fprintf(f, spec, va_arg(*ap, long long));
        else if (length == 'z')
            fprintf(f, spec, va_arg(*ap, ssize_t));
        else
            fprintf(f, spec, va_arg(*ap, int)); /* h and hh arguments are promoted to int */
    } else if (conv == 'c') {
        fprintf(f, spec, va_arg(*ap, int));
    } else {
        if (length == 'l')
            fprintf(f, spec, va_arg(*ap, unsigned long));
        else if (length == 'L')
            fprintf(f, spec, va_arg(*ap, unsigned long long));
        else if (length == 'z')
            fprintf(f, spec, va_arg(*ap, size_t));
        else
            fprintf(f, spec, va_arg(*ap, unsigned));
    }
}
#pragma GCC diagnostic pop

/* printf into f, every %s argument quoted as a CSV field. -1 on an unsupported conversion (a bug in the
 * caller's literal format: the row is then marked failed). */
static int pb_csv_vprint(FILE *f, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int rc = 0;
    while (*fmt) {
        const char *pct = strchr(fmt, '%');
        size_t lit = pct ? (size_t)(pct - fmt) : strlen(fmt);
        fwrite(fmt, 1, lit, f);
        if (!pct)
            break;
        char spec[32], length, conv;
        const char *next = pb_csv_spec(pct, spec, sizeof spec, &length, &conv);
        if (!next) {
            rc = -1;
            break;
        }
        if (conv == '%')
            fputc('%', f);
        else
            pb_csv_arg(f, spec, length, conv, &aq);
        fmt = next;
    }
    va_end(aq);
    return rc;
}

/* ---------------------------------------------------------------- the file */

/* Another process is writing DIR/NAME now: one of DIR/NAME.partial-* (not ours) is locked. */
static bool pb_csv_other_writer(const char *dir, const char *name, const char *ours)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s%s", name, PB_CSV_PARTIAL);
    size_t plen = strlen(prefix);
    bool busy = false;
    struct dirent *e;
    while (!busy && (e = readdir(d))) {
        if (strncmp(e->d_name, prefix, plen) != 0 || strcmp(e->d_name, ours) == 0)
            continue;
        /* O_NONBLOCK: a FIFO planted under this name must not block the open. */
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            continue;
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) != 0 &&
            errno == EWOULDBLOCK)
            busy = true;
        close(fd); /* closing drops a lock we may have taken on a stale file */
    }
    closedir(d);
    return busy;
}

static pb_csv *pb_csv_fail(pb_csv *c, int fd, int e)
{
    if (fd >= 0) {
        close(fd);
        unlink(c->partial);
    }
    free(c);
    errno = e;
    return NULL;
}

pb_csv *pb_csv_open(const char *dir, const char *name, const char *header)
{
    pb_csv *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if ((size_t)snprintf(c->path, sizeof c->path, "%s/%s", dir, name) >= sizeof c->path ||
        (size_t)snprintf(c->partial, sizeof c->partial, "%s%sXXXXXX", c->path, PB_CSV_PARTIAL) >= sizeof c->partial)
        return pb_csv_fail(c, -1, ENAMETOOLONG);
    if (access(c->path, F_OK) == 0)
        return pb_csv_fail(c, -1, EEXIST);
    int fd = mkostemp(c->partial, O_CLOEXEC);
    if (fd < 0)
        return pb_csv_fail(c, -1, errno);
    /* Ours first, then look for others: two writers starting together each see the other's lock and both
     * refuse, rather than both measuring and one losing its results at the end. */
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || pb_csv_other_writer(dir, name, strrchr(c->partial, '/') + 1))
        return pb_csv_fail(c, fd, EBUSY);
    fchmod(fd, 0644); /* mkstemp's 0600 would hide results from other users of a shared machine */
    c->f = fdopen(fd, "w");
    if (!c->f)
        return pb_csv_fail(c, fd, errno);
    c->last_sync_ns = pb_csv_now_ns();
    if (fprintf(c->f, "%s\n", header) < 0 || fflush(c->f) != 0) {
        c->failed = true;
        c->err = errno;
    } else {
        c->header = true;
        c->good = ftello(c->f);
    }
    return c;
}

/* The first failure: its errno is what close reports (ENOSPC stays ENOSPC); the row it broke is lost. */
static void pb_csv_failed(pb_csv *c, int e)
{
    c->failed = true;
    c->err = e ? e : EIO;
    c->lost++;
}

/* Ends the row just printed (ok: it printed whole): its newline, the flush, the count and the periodic fsync. */
static void pb_csv_end_row(pb_csv *c, bool ok, int bad_errno)
{
    if (!ok || fputc('\n', c->f) == EOF || fflush(c->f) != 0) {
        pb_csv_failed(c, ok ? errno : bad_errno);
        return;
    }
    c->rows++;
    c->good = ftello(c->f);
    uint64_t now = pb_csv_now_ns();
    if (now - c->last_sync_ns >= PB_CSV_SYNC_NS) {
        if (fsync(fileno(c->f)) != 0) { /* the rows flushed are in the page cache: still the file's */
            c->failed = true;
            c->err = errno;
        }
        c->last_sync_ns = now;
    }
}

void pb_csv_vrow(pb_csv *c, const char *fmt, va_list ap)
{
    if (c->failed) { /* after a failure the stream's state is unknown: nothing more goes into the file */
        c->lost++;
        return;
    }
    errno = 0;
    int rc = pb_csv_vprint(c->f, fmt, ap);
    pb_csv_end_row(c, rc == 0 && !ferror(c->f), rc != 0 ? EINVAL : errno);
}

void pb_csv_line(pb_csv *c, const char *line)
{
    if (c->failed) {
        c->lost++;
        return;
    }
    errno = 0;
    bool ok = line && fputs(line, c->f) != EOF;
    pb_csv_end_row(c, ok, line ? errno : ENOMEM); /* NULL: the caller could not build the row */
}

void pb_csv_row(pb_csv *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pb_csv_vrow(c, fmt, ap);
    va_end(ap);
}

long pb_csv_rows(const pb_csv *c) { return c->rows; }
const char *pb_csv_path(const pb_csv *c) { return c->path; }
const char *pb_csv_partial_path(const pb_csv *c) { return c->partial; }

void pb_csv_abort(pb_csv *c)
{
    if (!c)
        return;
    fclose(c->f);
    unlink(c->partial);
    free(c);
}

/* A writer that failed: the stream closed (what it still held is dropped, by the truncation), the file cut back
 * to its last whole row and, with publish and at least one row, linked to its final name; without a row it is
 * removed (it would only be a stale file). The fd kept open across fclose holds the lock until the end. */
static void pb_csv_salvage(pb_csv *c, bool publish, pb_csv_end *end)
{
    int fd = dup(fileno(c->f));
    fclose(c->f);
    bool whole = fd >= 0 && ftruncate(fd, c->good) == 0 && fsync(fd) == 0;
    if (whole && c->header && c->rows > 0 && publish && link(c->partial, c->path) == 0) {
        end->published = true;
        unlink(c->partial);
    } else if (whole && c->header && c->rows > 0) {
        end->kept = true;
    } else {
        unlink(c->partial); /* no row reached it, or its end cannot be made whole: nothing worth keeping */
    }
    if (fd >= 0)
        close(fd);
}

int pb_csv_finish(pb_csv *c, bool publish_part, pb_csv_end *end)
{
    *end = (pb_csv_end){ .rows = c->rows, .lost = c->lost };
    snprintf(end->partial, sizeof end->partial, "%s", c->partial);
    if (!c->failed && (fflush(c->f) != 0 || fsync(fileno(c->f)) != 0)) {
        c->failed = true; /* every row was flushed as it was written: they are in the file, not yet on disk */
        c->err = errno;
    }
    if (c->failed) {
        end->write_err = c->err;
        pb_csv_salvage(c, publish_part, end);
        free(c);
        errno = end->write_err;
        return -1;
    }
    /* link() rather than rename(): it fails on an existing name, so a result is never overwritten even if
     * another process created it after pb_csv_open checked. The lock goes with fclose, after the link. */
    int e = link(c->partial, c->path) != 0 ? errno : 0;
    end->published = e == 0;
    end->kept = e != 0;
    if (e == 0)
        unlink(c->partial);
    if (fclose(c->f) != 0 && e == 0) /* after the fsync: what it says is the close's, the rows are on disk */
        e = errno;
    end->publish_err = e;
    free(c);
    errno = e;
    return e ? -1 : 0;
}

int pb_csv_close(pb_csv *c)
{
    pb_csv_end end;
    return pb_csv_finish(c, false, &end);
}

void pb_csv_end_text(const pb_csv_end *e, const char *path, char *buf, size_t len)
{
    const char *why = strerror(e->write_err ? e->write_err : e->publish_err);
    if (!e->write_err)
        snprintf(buf, len, "cannot publish %s: %s; its %ld rows stay in %s", path, why, e->rows, e->partial);
    else if (e->published)
        snprintf(buf, len, "writing %s failed after %ld rows: %s; those rows are published, the %ld after them were "
                 "lost", path, e->rows, why, e->lost);
    else if (e->kept)
        snprintf(buf, len, "writing %s failed after %ld rows: %s; those rows stay in %s, the %ld after them were "
                 "lost", path, e->rows, why, e->partial, e->lost);
    else
        snprintf(buf, len, "writing %s failed: %s; its %ld rows were lost (none reached the disk whole)", path, why,
                 e->rows + e->lost);
}
