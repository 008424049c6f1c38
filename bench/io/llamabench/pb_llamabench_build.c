/* pb_llamabench_build.c — the builder the format readers fill (pb_llamabench_impl.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_llamabench_impl.h"

int pb_llamabench_fail(pb_llamabench_build *b, size_t line, size_t col, const char *fmt, ...)
{
    char what[380];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    for (char *p = what; *p; p++) /* a library's message may quote the file's bytes: the message stays one line */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    memset(b->e, 0, sizeof *b->e);
    b->e->line = line;
    b->e->col = col;
    if (line && col)
        snprintf(b->e->msg, sizeof b->e->msg, "%.200s:%zu:%zu: %.380s", b->name, line, col, what);
    else if (line)
        snprintf(b->e->msg, sizeof b->e->msg, "%.200s:%zu: %.380s", b->name, line, what);
    else
        snprintf(b->e->msg, sizeof b->e->msg, "%.200s: %.380s", b->name, what);
    return -1;
}

static int out_of_memory(pb_llamabench_build *b) { return pb_llamabench_fail(b, 0, 0, "out of memory"); }

int pb_llamabench_record(pb_llamabench_build *b, size_t line)
{
    if (b->oom)
        return out_of_memory(b);
    if (b->n == PB_LLAMABENCH_MAX_TESTS)
        return pb_llamabench_fail(b, line, 0, "more than %d tests (llama-bench writes one record a test)",
                                  PB_LLAMABENCH_MAX_TESTS);
    if (b->n == b->caprec) {
        size_t ncap = b->caprec ? 2 * b->caprec : 16;
        pb_llamabench_rec *nr = realloc(b->rec, ncap * sizeof *nr);
        if (!nr)
            return out_of_memory(b);
        b->rec = nr;
        b->caprec = ncap;
    }
    pb_llamabench_rec *r = &b->rec[b->n++];
    memset(r, 0, sizeof *r);
    r->line = line;
    for (int c = 0; c < PB_LLAMABENCH_NCOLS; c++)
        r->off[c] = PB_LLAMABENCH_ABSENT;
    return 0;
}

size_t pb_llamabench_begin(pb_llamabench_build *b) { return b->len; }

/* Room for n more bytes; sets oom (and keeps the text as it was) when there is none. */
static bool reserve(pb_llamabench_build *b, size_t n)
{
    if (b->oom)
        return false;
    if (b->len + n <= b->cap)
        return true;
    size_t ncap = b->cap ? b->cap : 4096;
    while (ncap < b->len + n)
        ncap *= 2;
    char *nt = realloc(b->text, ncap);
    if (!nt) {
        b->oom = true;
        return false;
    }
    b->text = nt;
    b->cap = ncap;
    return true;
}

void pb_llamabench_putn(pb_llamabench_build *b, const char *s, size_t n)
{
    if (n && reserve(b, n)) {
        memcpy(b->text + b->len, s, n);
        b->len += n;
    }
}

void pb_llamabench_put(pb_llamabench_build *b, char c) { pb_llamabench_putn(b, &c, 1); }
void pb_llamabench_end(pb_llamabench_build *b) { pb_llamabench_put(b, '\0'); }
const char *pb_llamabench_text(const pb_llamabench_build *b, size_t off) { return b->oom ? "" : b->text + off; }

void pb_llamabench_drop(pb_llamabench_build *b, size_t off)
{
    if (off < b->len)
        b->len = off;
}

int pb_llamabench_field_col(pb_llamabench_build *b, size_t r, int col, size_t off, size_t line, size_t col_at)
{
    if (b->oom)
        return out_of_memory(b);
    pb_llamabench_rec *rec = &b->rec[r];
    if (rec->off[col] != PB_LLAMABENCH_ABSENT)
        return pb_llamabench_fail(b, line, col_at, "field '%s' given twice in one test (first on line %zu)",
                                  pb_schema_name(PB_K_LLAMABENCH, col), rec->fline[col]);
    rec->off[col] = off;
    rec->fline[col] = line;
    rec->fcol[col] = col_at;
    return 0;
}

int pb_llamabench_field(pb_llamabench_build *b, const char *name, size_t off, size_t line, size_t col)
{
    int c = pb_schema_col(PB_K_LLAMABENCH, name);
    if (c < 0) {
        pb_llamabench_drop(b, off); /* a field the schema does not declare: read past */
        return b->oom ? out_of_memory(b) : 0;
    }
    return pb_llamabench_field_col(b, b->n - 1, c, off, line, col);
}
