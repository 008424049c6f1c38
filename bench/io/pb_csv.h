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
 * modifiers (no '*', no %n). A write error is remembered: pb_csv_close then fails. */
void pb_csv_row(pb_csv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pb_csv_vrow(pb_csv *c, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* One finished row, without newline, written as it is: its text fields already quoted (pb_csv_field), as
 * pb_csv_values (pb_schema.h) builds it. Flushed and counted like pb_csv_row's; NULL marks a row lost (a
 * failed write: pb_csv_close then fails). */
void pb_csv_line(pb_csv *c, const char *line);
/* Rows written so far (the header not counted). */
long pb_csv_rows(const pb_csv *c);
/* Flushes, fsyncs and links the partial file to DIR/NAME, then removes the partial name. 0 on success; -1
 * (errno set) on failure, the partial file then kept with its rows. Frees c either way. */
int pb_csv_close(pb_csv *c);
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
