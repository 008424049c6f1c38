/* pb_llamabench_impl.h — what the format readers of pb_llamabench share: a builder that collects each record's fields
 * as text (with the line and column each came from), checked and converted in one place (pb_llamabench.c) whatever
 * the format. A reader calls pb_llamabench_record at each record, pb_llamabench_put* to spell a value,
 * pb_llamabench_field to file it. */
#ifndef PB_LLAMABENCH_IMPL_H
#define PB_LLAMABENCH_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "pb_llamabench.h"

#define PB_LLAMABENCH_ABSENT ((size_t)-1)

/* One record as read: each column's text (an offset into the builder's text, PB_LLAMABENCH_ABSENT when not given) and
 * where it was. */
typedef struct pb_llamabench_rec {
    size_t line;
    size_t off[PB_LLAMABENCH_NCOLS];
    size_t fline[PB_LLAMABENCH_NCOLS], fcol[PB_LLAMABENCH_NCOLS];
} pb_llamabench_rec;

typedef struct pb_llamabench_build {
    const char *name;  /* the file, for messages */
    pb_csverr *e;
    char *text;        /* NUL-terminated values, one after another */
    size_t len, cap;
    pb_llamabench_rec *rec;
    size_t n, caprec;
    bool oom;          /* a growth failed: the next pb_llamabench_field or pb_llamabench_record says so */
} pb_llamabench_build;

/* Fails the read: "NAME:LINE:COL: what" (LINE:COL left out where 0) into e. Returns -1. */
int pb_llamabench_fail(pb_llamabench_build *b, size_t line, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A new record starting at line. 0 or -1. */
int pb_llamabench_record(pb_llamabench_build *b, size_t line);
/* The offset where the next value starts; bytes are appended with pb_llamabench_put / pb_llamabench_putn, and
 * pb_llamabench_end ends it (its NUL). */
size_t pb_llamabench_begin(pb_llamabench_build *b);
void pb_llamabench_put(pb_llamabench_build *b, char c);
void pb_llamabench_putn(pb_llamabench_build *b, const char *s, size_t n);
void pb_llamabench_end(pb_llamabench_build *b);
/* The text at off (valid until the next put). */
const char *pb_llamabench_text(const pb_llamabench_build *b, size_t off);
/* Forgets the text from off on (a key once looked up, a value of a field read past). */
void pb_llamabench_drop(pb_llamabench_build *b, size_t off);
/* Files the value at off as field `name` of the current record, found at (line, col). A name the schema does not
 * declare is read past; one given twice in a record fails. 0 or -1. */
int pb_llamabench_field(pb_llamabench_build *b, const char *name, size_t off, size_t line, size_t col);
/* The same by column index, into record r (0-based; the current one is b->n - 1). */
int pb_llamabench_field_col(pb_llamabench_build *b, size_t r, int col, size_t off, size_t line, size_t col_at);

/* The format readers: each fills b from data[0..len). 0 or -1 (b->e filled). */
int pb_llamabench_read_csv(pb_llamabench_build *b, const char *data, size_t len);
int pb_llamabench_read_json(pb_llamabench_build *b, const char *data, size_t len, bool lines);
int pb_llamabench_read_sql(pb_llamabench_build *b, const char *data, size_t len);
int pb_llamabench_read_md(pb_llamabench_build *b, const char *data, size_t len);

#endif
