/* pb_csvread.c — an RFC 4180 reader (pb_csvread.h): rows, columns by name, and one-line errors with a place. */
#include "pb_csvread.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PB_CSV_MAX_COLS 4096 /* a header wider than this is not a harness's CSV */

/* The parser's cursor: input position, its line and column, and the growing list of field offsets. */
typedef struct pb_cparse {
    const char *p, *end;
    size_t line, col;
    char *text, *out;   /* unescaped output; out is the write cursor */
    size_t *off;        /* offset in text of every field, all records */
    size_t noff, capoff;
    size_t *rowline;    /* the line each data record starts on */
    size_t nrow, caprow;
    const char *name;
    pb_csverr *e;
} pb_cparse;

static int pb_fail(pb_cparse *c, size_t line, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int pb_fail(pb_cparse *c, size_t line, size_t col, const char *fmt, ...)
{
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    c->e->line = line;
    c->e->col = col;
    snprintf(c->e->msg, sizeof c->e->msg, "%.200s:%zu:%zu: %s", c->name, line, col, what);
    return -1;
}

/* Grows an array of size_t to hold one more; -1 when memory runs out. */
static int pb_push(size_t **v, size_t *n, size_t *cap, size_t x)
{
    if (*n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 64;
        size_t *nv = realloc(*v, ncap * sizeof **v);
        if (!nv)
            return -1;
        *v = nv;
        *cap = ncap;
    }
    (*v)[(*n)++] = x;
    return 0;
}

static bool pb_at_crlf(const pb_cparse *c) { return c->p + 1 < c->end && c->p[0] == '\r' && c->p[1] == '\n'; }
static bool pb_at_eol(const pb_cparse *c) { return c->p < c->end && (*c->p == '\n' || pb_at_crlf(c)); }

/* A byte for a message: printable as itself, anything else in hex. */
static const char *pb_show(char ch, char *buf, size_t len)
{
    unsigned char u = (unsigned char)ch;
    if (isprint(u))
        snprintf(buf, len, "'%c'", ch);
    else
        snprintf(buf, len, "byte 0x%02x", u);
    return buf;
}

/* A cell or a name for a one-line message: at most max bytes, control bytes (a quoted newline) as '?'. */
static const char *pb_show_text(const char *s, size_t max, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s", (int)max, s);
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return buf;
}

/* One quoted field, the cursor on its opening quote. */
static int pb_quoted(pb_cparse *c)
{
    size_t qline = c->line, qcol = c->col;
    c->p++;
    c->col++;
    for (;;) {
        if (c->p == c->end)
            return pb_fail(c, qline, qcol, "unterminated quoted field (its opening quote)");
        char ch = *c->p;
        if (ch == '"') {
            if (c->p + 1 < c->end && c->p[1] == '"') { /* "" is one quote */
                *c->out++ = '"';
                c->p += 2;
                c->col += 2;
                continue;
            }
            c->p++;
            c->col++;
            break;
        }
        if (ch == '\0')
            return pb_fail(c, c->line, c->col, "NUL byte");
        *c->out++ = ch;
        c->p++;
        if (ch == '\n') {
            c->line++;
            c->col = 1;
        } else {
            c->col++;
        }
    }
    if (c->p < c->end && *c->p != ',' && !pb_at_eol(c)) {
        char b[16];
        return pb_fail(c, c->line, c->col, "%s after a closing quote (a quoted field ends at a comma or line end)",
                       pb_show(*c->p, b, sizeof b));
    }
    return 0;
}

/* One unquoted field: up to a comma, a line end or the end of input. */
static int pb_unquoted(pb_cparse *c)
{
    while (c->p < c->end && *c->p != ',' && *c->p != '\n') {
        char ch = *c->p;
        if (ch == '"')
            return pb_fail(c, c->line, c->col, "quote inside an unquoted field (quote the whole field)");
        if (ch == '\r') {
            if (pb_at_crlf(c))
                break;
            return pb_fail(c, c->line, c->col, "carriage return not followed by a newline");
        }
        if (ch == '\0')
            return pb_fail(c, c->line, c->col, "NUL byte");
        *c->out++ = ch;
        c->p++;
        c->col++;
    }
    return 0;
}

/* Checks the header: names present, unique. */
static int pb_check_header(pb_cparse *c, size_t ncols, size_t hline)
{
    for (size_t i = 0; i < ncols; i++) {
        const char *a = c->text + c->off[i];
        if (!*a)
            return pb_fail(c, hline, 1, "column %zu has an empty name in the header", i + 1);
        for (size_t j = 0; j < i; j++) {
            if (strcmp(a, c->text + c->off[j]) == 0) {
                char shown[104];
                return pb_fail(c, hline, 1, "duplicate column name '%s' (columns %zu and %zu)",
                               pb_show_text(a, 100, shown, sizeof shown), j + 1, i + 1);
            }
        }
    }
    return 0;
}

/* One record; *nf gets its field count. (xline, xcol) = where its field number `limit + 1` starts, if any:
 * the place to point at when a record has too many fields. (eline, ecol) = its line end. */
typedef struct pb_record {
    size_t nf, line, xline, xcol, eline, ecol;
} pb_record;

static int pb_record_parse(pb_cparse *c, size_t limit, pb_record *r)
{
    *r = (pb_record){ .line = c->line };
    for (;;) {
        if (r->nf == limit && !r->xline) {
            r->xline = c->line;
            r->xcol = c->col;
        }
        if (r->nf >= PB_CSV_MAX_COLS)
            return pb_fail(c, c->line, c->col, "more than %d fields in one record", PB_CSV_MAX_COLS);
        if (pb_push(&c->off, &c->noff, &c->capoff, (size_t)(c->out - c->text)) != 0)
            return pb_fail(c, c->line, c->col, "out of memory");
        int rc = (c->p < c->end && *c->p == '"') ? pb_quoted(c) : pb_unquoted(c);
        if (rc != 0)
            return rc;
        *c->out++ = '\0';
        r->nf++;
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            c->col++;
            continue;
        }
        r->eline = c->line;
        r->ecol = c->col;
        if (c->p < c->end) { /* a line end: LF or CRLF */
            c->p += (*c->p == '\r') ? 2 : 1;
            c->line++;
            c->col = 1;
        }
        return 0;
    }
}

static int pb_parse_all(pb_cparse *c, size_t *ncols_out)
{
    size_t ncols = 0;
    bool have_header = false;
    while (c->p < c->end) {
        if (pb_at_eol(c)) { /* a blank line */
            c->p += (*c->p == '\r') ? 2 : 1;
            c->line++;
            continue;
        }
        pb_record r;
        if (pb_record_parse(c, have_header ? ncols : SIZE_MAX, &r) != 0)
            return -1;
        if (!have_header) {
            ncols = r.nf;
            have_header = true;
            if (pb_check_header(c, ncols, r.line) != 0)
                return -1;
            continue;
        }
        if (r.nf > ncols)
            return pb_fail(c, r.xline, r.xcol, "%zu fields where the header has %zu (field %zu starts here)", r.nf,
                           ncols, ncols + 1);
        if (r.nf < ncols)
            return pb_fail(c, r.eline, r.ecol, "%zu field%s where the header has %zu (the line ends here)", r.nf,
                           r.nf == 1 ? "" : "s", ncols);
        if (pb_push(&c->rowline, &c->nrow, &c->caprow, r.line) != 0)
            return pb_fail(c, r.line, 1, "out of memory");
    }
    if (!have_header)
        return pb_fail(c, 1, 1, "empty file: no header row");
    *ncols_out = ncols;
    return 0;
}

int pb_table_parse(pb_table *t, const char *name, const char *data, size_t len, pb_csverr *e)
{
    memset(t, 0, sizeof *t);
    memset(e, 0, sizeof *e);
    snprintf(t->name, sizeof t->name, "%s", name);
    pb_cparse c = { .p = data, .end = data + len, .line = 1, .col = 1, .name = t->name, .e = e };
    /* Every field adds at most one NUL to its bytes, and there are at most len + 1 fields. */
    c.text = malloc(2 * len + 2);
    if (!c.text) {
        snprintf(e->msg, sizeof e->msg, "%.200s: out of memory", name);
        return -1;
    }
    c.out = c.text;
    size_t ncols = 0;
    char **ptr = NULL;
    if (pb_parse_all(&c, &ncols) == 0) {
        ptr = malloc((c.noff ? c.noff : 1) * sizeof *ptr);
        if (!ptr)
            pb_fail(&c, 0, 0, "out of memory");
    }
    if (!ptr) {
        free(c.text);
        free(c.off);
        free(c.rowline);
        return -1;
    }
    for (size_t i = 0; i < c.noff; i++)
        ptr[i] = c.text + c.off[i];
    free(c.off);
    t->text = c.text;
    t->header = ptr;
    t->cells = ptr + ncols;
    t->ncols = ncols;
    t->nrows = c.nrow;
    t->line = c.rowline;
    return 0;
}

void pb_table_free(pb_table *t)
{
    free(t->text);
    free(t->header);
    free(t->line);
    memset(t, 0, sizeof *t);
}

size_t pb_table_keep_rows(pb_table *t, const bool *keep)
{
    size_t n = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        if (!keep[r])
            continue;
        memmove(t->cells + n * t->ncols, t->cells + r * t->ncols, t->ncols * sizeof *t->cells);
        t->line[n++] = t->line[r];
    }
    size_t dropped = t->nrows - n;
    t->nrows = n;
    return dropped;
}

int pb_table_col(const pb_table *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcmp(t->header[i], name) == 0)
            return (int)i;
    return -1;
}

int pb_table_require(const pb_table *t, const char *const *names, pb_csverr *e)
{
    for (; *names; names++) {
        if (pb_table_col(t, *names) < 0) {
            memset(e, 0, sizeof *e);
            e->line = 1;
            char shown[104];
            snprintf(e->msg, sizeof e->msg, "%.300s:1: no column '%s' in the header", t->name,
                     pb_show_text(*names, 100, shown, sizeof shown));
            return -1;
        }
    }
    return 0;
}

const char *pb_table_str(const pb_table *t, size_t row, int col)
{
    if (col < 0 || (size_t)col >= t->ncols || row >= t->nrows)
        return "";
    return t->cells[row * t->ncols + (size_t)col];
}

int pb_parse_num(const char *s, double *out)
{
    *out = NAN;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s)
        return -1;
    char *endp;
    errno = 0;
    double v = strtod(s, &endp);
    if (endp == s)
        return -1;
    while (*endp == ' ' || *endp == '\t')
        endp++;
    if (*endp)
        return -1;
    *out = v; /* overflow gives ±HUGE_VAL (inf): still the number the text says, roughly */
    return 0;
}

double pb_table_num(const pb_table *t, size_t row, int col)
{
    double v;
    pb_parse_num(pb_table_str(t, row, col), &v);
    return v;
}

int pb_table_num_checked(const pb_table *t, size_t row, int col, double *out, pb_csverr *e)
{
    const char *s = pb_table_str(t, row, col);
    if (pb_parse_num(s, out) == 0)
        return 0;
    memset(e, 0, sizeof *e);
    e->line = row < t->nrows ? t->line[row] : 0;
    e->col = col >= 0 ? (size_t)col + 1 : 0;
    char name[104], cell[64];
    snprintf(e->msg, sizeof e->msg, "%.300s:%zu: column '%s' (field %zu): '%s' is not a number", t->name, e->line,
             pb_show_text(col >= 0 && (size_t)col < t->ncols ? t->header[col] : "?", 100, name, sizeof name), e->col,
             pb_show_text(s, 60, cell, sizeof cell));
    return -1;
}
