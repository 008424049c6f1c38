/* run_dir.h — a run directory as a harness leaves it, for the tests that join one (--run-dir): its machine.csv
 * with the identity pb_run_check compares (host, schema_version). Header-only. */
#ifndef RUN_DIR_H
#define RUN_DIR_H

#include <stdio.h>
#include <string.h>

#include "pb_run.h"
#include "pb_rundata.h"
#include "pb_schema.h"
#include "test_files.h"

/* DIR/machine.csv naming host (NULL: this host) and schema (NULL: this build's PB_SCHEMA_VERSION). */
static inline void rd_machine_csv(const char *dir, const char *host, const char *schema)
{
    char here[128], version[32], text[512];
    pb_hostname(here, sizeof here);
    snprintf(version, sizeof version, "%d", PB_SCHEMA_VERSION);
    snprintf(text, sizeof text, "key,value\nrun_id,x\nhost,%s\nschema_version,%s\n", host ? host : here,
             schema ? schema : version);
    tf_write(dir, "machine.csv", text);
}

/* One sweep.csv row to f: every column "1" (a text column "x"; prompt "0": a decode point), then set's name=value
 * pairs (NULL-terminated). */
static inline void rd_sweep_row(FILE *f, const char *const *set)
{
    const pb_schema *s = pb_schema_get(PB_K_SWEEP);
    for (int c = 0; c < s->ncols; c++) {
        const char *v = c == PB_SWEEP_prompt ? "0" : s->cols[c].type == PB_T_TEXT ? "x" : "1";
        for (int i = 0; set[i]; i += 2)
            if (strcmp(set[i], s->cols[c].name) == 0)
                v = set[i + 1];
        fprintf(f, "%s\"%s\"", c ? "," : "", v);
    }
    fprintf(f, "\n");
}

/* DIR/sweep.csv: the header, then a row per rows[i] (rd_sweep_row's name=value lists), i < n. */
static inline void rd_sweep_csv(const char *dir, const char *const *const *rows, int n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "%s\n", pb_schema_header(PB_K_SWEEP));
    for (int i = 0; i < n; i++)
        rd_sweep_row(f, rows[i]);
    cr_assert_eq(fclose(f), 0);
}

/* What a report section (a printer of a loaded run directory: pb_report_kernels, ...) writes for DIR, failing the
 * test when DIR does not load; malloc'd. */
static inline char *rd_section(const char *dir, void (*section)(FILE *, const pb_rundata *))
{
    pb_rundata rd;
    char err[512];
    cr_assert_eq(pb_rundata_load(&rd, dir, err, sizeof err), 0, "%s", err);
    tf_mem t;
    section(tf_mem_open(&t), &rd);
    pb_rundata_free(&rd);
    return tf_mem_text(&t);
}

#endif
