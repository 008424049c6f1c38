/* pb_lbench_impl.h — what the format readers of pb_lbench share: a builder that collects each record's fields as
 * text (with the line and column each came from), checked and converted in one place (pb_lbench.c) whatever the
 * format. A reader calls pb_lbench_record at each record, pb_lbench_put* to spell a value, pb_lbench_field to file
 * it. */
#ifndef PB_LBENCH_IMPL_H
#define PB_LBENCH_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "pb_lbench.h"

#define PB_LB_ABSENT ((size_t)-1)

/* One record as read: each column's text (an offset into the builder's text, PB_LB_ABSENT when not given) and
 * where it was. */
typedef struct pb_lbench_rec {
    size_t line;
    size_t off[PB_LBENCH_NCOLS];
    size_t fline[PB_LBENCH_NCOLS], fcol[PB_LBENCH_NCOLS];
} pb_lbench_rec;

typedef struct pb_lbench_build {
    const char *name;  /* the file, for messages */
    pb_csverr *e;
    char *text;        /* NUL-terminated values, one after another */
    size_t len, cap;
    pb_lbench_rec *rec;
    size_t n, caprec;
    bool oom;          /* a growth failed: the next pb_lbench_field or pb_lbench_record says so */
} pb_lbench_build;

/* Fails the read: "NAME:LINE:COL: what" (LINE:COL left out where 0) into e. Returns -1. */
int pb_lbench_fail(pb_lbench_build *b, size_t line, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A new record starting at line. 0 or -1. */
int pb_lbench_record(pb_lbench_build *b, size_t line);
/* The offset where the next value starts; bytes are appended with pb_lbench_put / pb_lbench_putn, and pb_lbench_end
 * ends it (its NUL). */
size_t pb_lbench_begin(pb_lbench_build *b);
void pb_lbench_put(pb_lbench_build *b, char c);
void pb_lbench_putn(pb_lbench_build *b, const char *s, size_t n);
void pb_lbench_end(pb_lbench_build *b);
/* The text at off (valid until the next put). */
const char *pb_lbench_text(const pb_lbench_build *b, size_t off);
/* Forgets the text from off on (a key once looked up, a value of a field read past). */
void pb_lbench_drop(pb_lbench_build *b, size_t off);
/* Files the value at off as field `name` of the current record, found at (line, col). A name the schema does not
 * declare is read past; one given twice in a record fails. 0 or -1. */
int pb_lbench_field(pb_lbench_build *b, const char *name, size_t off, size_t line, size_t col);
/* The same by column index, into record r (0-based; the current one is b->n - 1). */
int pb_lbench_field_col(pb_lbench_build *b, size_t r, int col, size_t off, size_t line, size_t col_at);

/* The format readers: each fills b from data[0..len). 0 or -1 (b->e filled). */
int pb_lbench_read_csv(pb_lbench_build *b, const char *data, size_t len);
int pb_lbench_read_json(pb_lbench_build *b, const char *data, size_t len, bool lines);
int pb_lbench_read_sql(pb_lbench_build *b, const char *data, size_t len);
int pb_lbench_read_md(pb_lbench_build *b, const char *data, size_t len);

#endif
