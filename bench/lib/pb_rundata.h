/* pb_rundata.h — a run directory as read back by bench_report and bench_compare: every CSV kind the harnesses
 * write, each loaded when present (a missing one is a state, not an error) and checked for the columns the
 * readers use. Columns are looked up by name, so harnesses may add columns freely. */
#ifndef PB_RUNDATA_H
#define PB_RUNDATA_H

#include <stdbool.h>

#include "pb_csvread.h"

typedef enum pb_kind {
    PB_K_MACHINE,
    PB_K_POOL,
    PB_K_MEMORY,
    PB_K_TOKEN,
    PB_K_KERNELS,
    PB_K_SWEEP,
    PB_K_CPUUTIL,
    PB_K_OVERLAP,
    PB_K_LIKWID,
    PB_K_COUNT
} pb_kind;

typedef struct pb_kind_info {
    const char *file;              /* "pool_overhead.csv" */
    const char *harness;           /* the program that writes it */
    const char *plot;              /* plots/<plot> draws it; NULL when none */
    const char *what;              /* a few words for the report */
    const char *const *need;       /* columns the readers use, NULL-terminated */
} pb_kind_info;

extern const pb_kind_info pb_kinds[PB_K_COUNT];

typedef enum pb_src_state { PB_SRC_MISSING, PB_SRC_OK, PB_SRC_BAD } pb_src_state;

typedef struct pb_source {
    pb_src_state state;
    pb_table t;        /* valid when state == PB_SRC_OK */
    char err[640];     /* when PB_SRC_BAD: "FILE:LINE:COL: what" */
} pb_source;

typedef struct pb_rundata {
    char dir[4096];
    pb_source src[PB_K_COUNT];
} pb_rundata;

/* Loads every CSV kind from dir. 0 when dir is a readable directory (whatever its CSVs' states), -1 with a
 * reason in err otherwise. */
int pb_rundata_load(pb_rundata *rd, const char *dir, char *err, size_t errlen);
void pb_rundata_free(pb_rundata *rd);
/* The table of a kind, NULL unless it loaded cleanly. */
const pb_table *pb_rundata_table(const pb_rundata *rd, pb_kind k);
/* A machine.csv value, NULL when absent. */
const char *pb_machine_value(const pb_rundata *rd, const char *key);
/* How many sources are malformed. */
int pb_rundata_bad(const pb_rundata *rd);

#endif
