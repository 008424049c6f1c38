/* pb_csv.h — CSV output that loses no measured row and never leaves a half-written file under the final name.
 *
 *   pb_csv *c = pb_csv_open(dir, "sweep.csv", "run_id,host,...");  // refused up front: the name is taken
 *   pb_csv_row(c, "%s,%d,%.3f", run_id, n, x);                     // on disk (flushed) when it returns
 *   pb_csv_close(c);                                               // published as DIR/sweep.csv
 *
 * Rows go to DIR/NAME.partial-XXXXXX (mkstemp: unique, so two writers never share it and a stale one from a
 * crash is only a file), each flushed to the kernel as it is written and fsynced at least once a second, so a
 * SIGKILL leaves every finished row in the partial file. pb_csv_close fsyncs and links it to DIR/NAME; an
 * existing DIR/NAME is never overwritten. While open, the partial file is flock()ed: a second writer of the same
 * name in the same directory (another process) is refused at open (errno EBUSY), before it measures anything.
 *
 * Every %s argument of pb_csv_row is a text field and is quoted by pb_csv_field (RFC 4180: quoted when it holds
 * a comma, quote, CR or LF, quotes doubled): a host name or run id with a comma cannot shift a column. Numbers
 * are formatted as printf would. Not thread-safe: one writer thread per pb_csv. */
#ifndef PB_CSV_H
#define PB_CSV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct pb_csv pb_csv;

/* The infix of a partial file's name: NAME + PB_CSV_PARTIAL + six random characters. */
#define PB_CSV_PARTIAL ".partial-"

/* header: the column names, comma-separated, without newline. NULL with errno set on failure: EEXIST when
 * DIR/NAME exists, EBUSY when another process is writing DIR/NAME now, ENAMETOOLONG, or the system's. */
pb_csv *pb_csv_open(const char *dir, const char *name, const char *header);
/* One row: a printf format for the whole row, without newline; every %s is quoted as a CSV field.
 * Supported conversions: d i u x c f e g s and %% with flags, width, precision and the h l ll z length
 * modifiers (no '*', no %n). A write error is remembered (its errno): nothing more is written, later rows are
 * counted as lost, and pb_csv_close then fails with that errno. */
void pb_csv_row(pb_csv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pb_csv_vrow(pb_csv *c, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* One finished row, without newline, written as it is: its text fields already quoted (pb_csv_field), as
 * pb_csv_values (pb_schema.h) builds it. Flushed and counted like pb_csv_row's; NULL marks a row lost (a
 * failed write: pb_csv_close then fails). */
void pb_csv_line(pb_csv *c, const char *line);
/* Rows written so far (the header not counted). */
long pb_csv_rows(const pb_csv *c);
/* How a writer ended (pb_csv_finish). */
typedef struct pb_csv_end {
    long rows;        /* rows that reached the file whole */
    long lost;        /* rows after a write failed: never written */
    int write_err;    /* the first write's failure (ENOSPC, EFBIG, EIO, ...), 0 when every write succeeded */
    int publish_err;  /* the link's or the close's failure, 0 when none */
    bool published;   /* DIR/NAME holds the header and the `rows` rows */
    bool kept;        /* not published, but the partial file still holds the `rows` rows */
    char partial[4096 + 32];
} pb_csv_end;

/* Flushes, fsyncs and links the partial file to DIR/NAME, then removes the partial name; what happened in *end.
 * 0 when every row was written and published; -1 with errno (the write's failure first, else the publishing's).
 * After a failed write the file is cut back to its last whole row: with publish_part and at least one such row it
 * is published (the rows before the failure are results; the caller says the run is incomplete), else kept under
 * its partial name; a file without a whole row is removed. Frees c either way. */
int pb_csv_finish(pb_csv *c, bool publish_part, pb_csv_end *end);
/* pb_csv_finish(c, false, ...): a file is published only whole. */
int pb_csv_close(pb_csv *c);
/* The one-line account of a writer that did not end whole (path: its final name): the failure named as the
 * system named it, and where its rows are, or that they were lost. */
void pb_csv_end_text(const pb_csv_end *e, const char *path, char *buf, size_t len);
/* Drops the partial file (a failed harness whose rows are not results). NULL is allowed. */
void pb_csv_abort(pb_csv *c);
/* The final path ("DIR/NAME") and the partial one. */
const char *pb_csv_path(const pb_csv *c);
const char *pb_csv_partial_path(const pb_csv *c);

/* Writes s as one CSV field (quoted when it holds a comma, quote, CR or LF). The one escaping function. */
void pb_csv_field(FILE *f, const char *s);
/* The same into buf (truncated to len, always terminated); returns buf. */
char *pb_csv_field_str(char *buf, size_t len, const char *s);

#endif
