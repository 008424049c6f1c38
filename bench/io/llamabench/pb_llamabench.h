/* pb_llamabench.h — llama.cpp's llama-bench results, read from any of its five output formats (-o csv, json, jsonl,
 * sql, md), each test a row of the fields pb_schema.h declares (PB_LLAMABENCH_COLS), every one checked.
 *
 * The format is the file name's extension (.csv .json .jsonl .sql .md), else what the text starts with ('[' json,
 * '{' jsonl, '|' md, CREATE or INSERT sql, anything else csv). A field the schema does not declare is read past;
 * one it declares is checked against its type (an integer column holds an integer) and its rule (pb_cells.c); a
 * field given twice in one record, a record without a field the reader needs (PB_LLAMABENCH_NEED), or a value that
 * breaks its column is refused with "FILE:LINE[:COL]: what" naming the field, and nothing is read (sql and json
 * name a field by its test's line: SQLite and jansson give no value's place). The md table carries only some
 * fields, rounded (size to 0.01 MiB or GiB, params to 0.01 M or B, t/s to 0.01), and no samples; a pb_llamabench
 * from it says so (rounded). A test that lacks n_depth ran at depth 0 (llama-bench wrote no n_depth before it
 * could run at depth). */
#ifndef PB_LLAMABENCH_H
#define PB_LLAMABENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "pb_csvread.h"
#include "pb_schema.h"

/* The most a llama-bench file may hold: a test is under 2 KB in every format, so this is a hundred thousand. */
#define PB_LLAMABENCH_MAX_MIB 64
/* The most tests one file may hold, whatever its format: a record costs the builder about 1 KB, so a file of tiny
 * records ("{}" a line, an INSERT of no values) is refused before it costs gigabytes. */
#define PB_LLAMABENCH_MAX_TESTS 100000

typedef enum pb_llamabench_format {
    PB_LLAMABENCH_CSV,
    PB_LLAMABENCH_JSON,
    PB_LLAMABENCH_JSONL,
    PB_LLAMABENCH_SQL,
    PB_LLAMABENCH_MD,
    PB_LLAMABENCH_NFORMATS
} pb_llamabench_format;

/* One test: a value per column where the file gave it (have), text pointing into the set's storage. */
typedef struct pb_llamabench_test {
    size_t line;                   /* where its record starts */
    bool have[PB_LLAMABENCH_NCOLS];
    pb_value v[PB_LLAMABENCH_NCOLS];   /* by the column's type: .s, .i, .u or .d */
    size_t nsamples;               /* repetitions in samples_ns and samples_ts (json, jsonl); 0 elsewhere */
    double *samples_ns, *samples_ts;
} pb_llamabench_test;

typedef struct pb_llamabench {
    char name[4096];               /* the file name used in messages, whole (PATH_MAX) */
    pb_llamabench_format format;
    bool rounded;                  /* md: sizes, counts and rates as the table rounds them */
    size_t n;
    pb_llamabench_test *t;
    char *text;                    /* storage behind the text values */
    double *samples;               /* storage behind the samples */
} pb_llamabench;

/* The format's name ("json"), and the format of a file by its name and first bytes. */
const char *pb_llamabench_format_name(pb_llamabench_format f);
pb_llamabench_format pb_llamabench_format_of(const char *name, const char *data, size_t len);
/* Parses data[0..len) (need not be NUL-terminated) in format f. 0, or -1 with e filled (lb left empty). */
int pb_llamabench_parse(pb_llamabench *lb, const char *name, pb_llamabench_format f, const char *data, size_t len,
                        pb_csverr *e);
/* Reads a file (pb_infile_read: a regular file of at most PB_LLAMABENCH_MAX_MIB) in the format pb_llamabench_format_of
 * gives. 0, or -1 with e filled (e->missing, e->unreadable as pb_table_load's). */
int pb_llamabench_load(pb_llamabench *lb, const char *path, pb_csverr *e);
void pb_llamabench_free(pb_llamabench *lb);

/* A test's value by column: pb_llamabench_num(t, PB_LLAMABENCH_avg_ts), NaN where the file did not give it; its
 * text, "" where absent or not text. */
double pb_llamabench_num(const pb_llamabench_test *t, int col);
const char *pb_llamabench_str(const pb_llamabench_test *t, int col);
/* A token-generation test: n_prompt 0, n_gen > 0 (llama-bench's tgN). */
bool pb_llamabench_is_tg(const pb_llamabench_test *t);

#endif
