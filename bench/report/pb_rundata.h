/* pb_rundata.h — a run directory as read back by bench_report and bench_compare: every CSV kind the harnesses
 * write, each loaded when present (a missing one is a state, not an error) and checked for the columns the
 * readers use. Columns are looked up by name, so harnesses may add columns freely. */
#ifndef PB_RUNDATA_H
#define PB_RUNDATA_H

#include <stdbool.h>
#include <stdio.h>

#include "pb_csvread.h"
#include "pb_llamabench.h"
#include "pb_schema.h"

/* A column the readers use: its index in the kind's schema (PB_POOL_threads, ...); a list of them ends with
 * PB_NEED_END. Which rule a cell follows is its column's in the schema (pb_schema.h). */
#define PB_NEED_END (-1)

typedef struct pb_kind_info {
    const pb_schema *schema;       /* its file and columns */
    const char *harness;           /* the programs that write it, for the report's words */
    const char *plot;              /* plots/<plot> draws it; NULL when none */
    const char *what;              /* a few words for the report */
    const int *need;               /* columns the readers use, PB_NEED_END-terminated */
} pb_kind_info;

extern const pb_kind_info pb_kinds[PB_K_COUNT];

/* MISSING: neither the CSV nor a partial file of it. PARTIAL: no CSV, but the newest of the partial files a
 * writer leaves (FILE.partial-XXXXXX, pb_csv.h) was read instead: the harness was killed, or still runs. */
typedef enum pb_src_state { PB_SRC_MISSING, PB_SRC_OK, PB_SRC_BAD, PB_SRC_PARTIAL } pb_src_state;

#define PB_SRC_CELLS_KEPT 4 /* malformed-cell messages kept per source; the rest are counted */

typedef struct pb_source {
    pb_src_state state;
    pb_table t;        /* valid when state is PB_SRC_OK or PB_SRC_PARTIAL */
    char err[640];     /* when PB_SRC_BAD: "FILE:LINE:COL: what", or "FILE: what" */
    bool unreadable;   /* PB_SRC_BAD: not parsed at all (not a regular file, too large, a read error) */
    char partial[256]; /* PB_SRC_PARTIAL: the partial file's name in the directory */
    bool cut;          /* PB_SRC_PARTIAL: its last row, cut mid-way, was left out */
    bool live;         /* PB_SRC_PARTIAL: its writer still holds its lock, so the harness is running now */
    int nbad;          /* malformed cells, each one's row left out */
    char bad[PB_SRC_CELLS_KEPT][400]; /* the first of them: "FILE:LINE:COL: column 'x': '-3' is not ..." */
} pb_source;

/* Another engine's results beside the run: DIR/llama-bench.* and --engine FILE, loaded by pb_engines_load
 * (engine/pb_engine.h), freed with the run. */
#define PB_ENGINE_FILES 8
typedef struct pb_engines {
    int n;
    pb_llamabench lb[PB_ENGINE_FILES];
} pb_engines;

typedef struct pb_rundata {
    char dir[4096];
    pb_source src[PB_K_COUNT];
    pb_engines eng;
} pb_rundata;

/* Loads every CSV kind from dir (a partial file where the CSV is missing) and checks its numeric cells. 0 when
 * dir is a readable directory holding at least one of the kinds, whatever their states; -1 with a one-line
 * reason in err otherwise (nothing there is a run: not even a malformed CSV). */
int pb_rundata_load(pb_rundata *rd, const char *dir, char *err, size_t errlen);
void pb_rundata_free(pb_rundata *rd);
/* The table of a kind, NULL unless it loaded (from the CSV or a partial file). */
const pb_table *pb_rundata_table(const pb_rundata *rd, pb_kind k);
/* Checks the cells of s's table against their columns' rules in schema (a column the table lacks is not
 * checked: older CSVs): a malformed cell's row is dropped and the cell noted in s (nbad, bad). */
void pb_source_check_cells(pb_source *s, const pb_schema *schema);
/* A machine.csv value, NULL when absent. */
const char *pb_machine_value(const pb_rundata *rd, const char *key);
/* Every value of a machine.csv key that may repeat (`incomplete`), in file order: how many (up to max). */
int pb_machine_values(const pb_rundata *rd, const char *key, const char **out, int max);
/* How many sources are malformed or hold malformed cells. */
int pb_rundata_bad(const pb_rundata *rd);
/* One line on f per source left out and per malformed cell kept: "PROG: MESSAGE (TAIL)". */
void pb_rundata_print_problems(FILE *f, const pb_rundata *rd, const char *prog, const char *tail);
/* The key a stopped harness adds to machine.csv, once per stopped harness: "bench_sweep: SIGTERM after 9 rows
 * (sweep.csv)". */
#define PB_INCOMPLETE_KEY PB_MKEY(incomplete)
#define PB_INCOMPLETE_MAX 16
/* How many signs of an incomplete run there are: `incomplete` facts, and kinds read from a partial file. */
int pb_rundata_incomplete(const pb_rundata *rd);

#endif
