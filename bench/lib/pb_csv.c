#include "pb_csv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pb_csv {
    FILE *f;
    char path[4096];
    char tmp[4096 + 8];
    int failed; /* a write failed: close must not publish the file */
};

pb_csv *pb_csv_open(const char *dir, const char *name, const char *header)
{
    pb_csv *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if ((size_t)snprintf(c->path, sizeof c->path, "%s/%s", dir, name) >= sizeof c->path) {
        free(c);
        errno = ENAMETOOLONG;
        return NULL;
    }
    snprintf(c->tmp, sizeof c->tmp, "%s.tmp", c->path);
    if (access(c->path, F_OK) == 0) {
        free(c);
        errno = EEXIST;
        return NULL;
    }
    c->f = fopen(c->tmp, "w");
    if (!c->f) {
        int e = errno;
        free(c);
        errno = e;
        return NULL;
    }
    if (fprintf(c->f, "%s\n", header) < 0)
        c->failed = 1;
    return c;
}

void pb_csv_row(pb_csv *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(c->f, fmt, ap) < 0 || fputc('\n', c->f) == EOF)
        c->failed = 1;
    va_end(ap);
}

const char *pb_csv_path(const pb_csv *c) { return c->path; }

void pb_csv_abort(pb_csv *c)
{
    if (!c)
        return;
    fclose(c->f);
    unlink(c->tmp);
    free(c);
}

int pb_csv_close(pb_csv *c)
{
    int rc = 0, e = 0;
    if (c->failed || fflush(c->f) != 0 || fsync(fileno(c->f)) != 0) {
        rc = -1;
        e = c->failed ? EIO : errno;
    }
    if (fclose(c->f) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    /* link() rather than rename(): it fails on an existing name, so a result is never overwritten even if
     * another process created it after pb_csv_open checked. */
    if (rc == 0 && link(c->tmp, c->path) != 0) {
        rc = -1;
        e = errno;
    }
    unlink(c->tmp);
    free(c);
    if (rc != 0)
        errno = e;
    return rc;
}

void pb_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
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
