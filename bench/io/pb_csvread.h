/* pb_csvread.h — reads a CSV file (RFC 4180) into rows, with columns looked up by header name.
 *
 * Accepted: a header row, then rows with exactly as many fields; fields may be quoted ("a,b", "say ""hi""",
 * newlines inside quotes); LF or CRLF line ends; blank lines are skipped; the last line may lack its newline.
 * Refused, with "FILE:LINE:COL: what" (1-based, COL counted in bytes within the line): an unterminated quote
 * (pointing at its opening quote), a character after a closing quote, a quote inside an unquoted field, a bare
 * CR, a NUL byte, a row with too many or too few fields, an empty or duplicate column name, an empty file.
 *
 * The readers of the harnesses' CSVs (bench_report, bench_compare) look columns up by name and tolerate extra
 * ones, so a harness can add a column without breaking them. */
#ifndef PB_CSVREAD_H
#define PB_CSVREAD_H

#include <stdbool.h>
#include <stddef.h>

/* Where and why a read failed. msg is the whole one-line message, "FILE:LINE:COL: what" (or "FILE: what"
 * when there is no position, line = col = 0). */
typedef struct pb_csverr {
    size_t line, col;
    bool missing;    /* the file does not exist (the loaders only) */
    bool unreadable; /* not parsed at all: not a regular file, too large, or a read error (the loaders only) */
    char msg[640];
} pb_csverr;

typedef struct pb_table {
    char name[256];   /* the file name used in messages */
    size_t ncols, nrows;
    char **header;    /* ncols column names */
    char **cells;     /* nrows * ncols field texts, row-major, unescaped, NUL-terminated */
    size_t *line;     /* nrows: the line each row starts on */
    char *text;       /* storage behind header and cells */
} pb_table;

/* Parses data[0..len) (need not be NUL-terminated). 0 on success; -1 with e filled (t left empty). name is
 * what messages call the input. */
int pb_table_parse(pb_table *t, const char *name, const char *data, size_t len, pb_csverr *e);
/* The most a CSV file may hold: a harness writes a few MiB at most, and the table takes about three times the
 * file's size in memory. */
#define PB_CSV_MAX_MIB 256

/* Reads and parses a file. 0 on success; -1 with e filled; e->missing tells a missing file from a bad one.
 * Only a regular file of at most PB_CSV_MAX_MIB is read: a FIFO, a device (a link to /dev/zero), a directory
 * or a socket under a CSV's name is refused at once, without blocking ("PATH: not a regular file (a FIFO)"),
 * as is a larger file ("PATH: 300 MiB, more than the 256 MiB a CSV may hold"); e->unreadable is then set. */
int pb_table_load(pb_table *t, const char *path, pb_csverr *e);
/* The same for a partial file a writer killed mid-way left (pb_csv.h): a last record without its line end, cut
 * mid-way, is left out, and *cut says whether there was one. */
int pb_table_load_partial(pb_table *t, const char *path, bool *cut, pb_csverr *e);
void pb_table_free(pb_table *t);
/* Keeps the rows r with keep[r] (in order) and drops the others; returns how many were dropped. */
size_t pb_table_keep_rows(pb_table *t, const bool *keep);

/* The index of the column called name, -1 when there is none. */
int pb_table_col(const pb_table *t, const char *name);
/* 0 when every name in the NULL-terminated list is a column; else -1 and "FILE:1: no column 'x'" in e. */
int pb_table_require(const pb_table *t, const char *const *names, pb_csverr *e);
/* DIR/FILE loaded into t with the columns need (NULL-terminated), as a run directory's readers take it: 0; 1 when
 * the file is absent; -1 when it cannot be parsed or lacks one (reason in err; t then holds nothing). */
int pb_table_load_in(pb_table *t, const char *dir, const char *file, const char *const *need, char *err,
                     size_t errlen);
/* The field text; "" when col < 0 (a column the file lacks) or row is out of range. */
const char *pb_table_str(const pb_table *t, size_t row, int col);
/* The field as a number; NaN when col < 0, the field is empty, or it is not a number (see pb_parse_num). */
double pb_table_num(const pb_table *t, size_t row, int col);
/* The same, but a field that is not a number is an error naming the file, line and column. 0 or -1. */
int pb_table_num_checked(const pb_table *t, size_t row, int col, double *out, pb_csverr *e);

/* Parses a whole field as a double: decimal or exponent notation, "nan"/"NaN" (what printf writes for NaN),
 * "inf"/"-inf"; surrounding spaces allowed. 0 and *out on success; -1 and *out = NaN otherwise (an empty
 * field included). */
int pb_parse_num(const char *s, double *out);

#endif
