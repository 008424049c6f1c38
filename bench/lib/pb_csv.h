/* pb_csv.h — CSV output that never leaves a half-written file: rows go to DIR/NAME.tmp, and pb_csv_close
 * renames it to DIR/NAME only once everything was written and flushed. An existing DIR/NAME is never
 * overwritten (pb_csv_open fails). */
#ifndef PB_CSV_H
#define PB_CSV_H

#include <stdio.h>

typedef struct pb_csv pb_csv;

/* header: the column names, comma-separated, without newline. NULL (errno set) on failure, or when
 * DIR/NAME already exists (errno = EEXIST). */
pb_csv *pb_csv_open(const char *dir, const char *name, const char *header);
/* One row: a printf format for the whole row, without newline. */
void pb_csv_row(pb_csv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Flushes, fsyncs and renames into place. 0 on success, -1 (errno set, temp file removed) on failure. */
int pb_csv_close(pb_csv *c);
/* Drops the temp file: an interrupted or failed harness leaves no CSV behind. */
void pb_csv_abort(pb_csv *c);
/* The final path ("DIR/NAME"). */
const char *pb_csv_path(const pb_csv *c);

/* Writes s as one CSV field (quoted when it holds a comma, quote or newline). */
void pb_csv_field(FILE *f, const char *s);

#endif
