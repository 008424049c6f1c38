/* The numeric cells of a run's CSVs checked against what their column may hold. Text, NaN, infinity or a
 * negative number where a figure belongs would otherwise reach the report as "—", "inf s", "-5 ns" or "at -3
 * threads"; such a cell is named by file, line and column, and its row left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_rundata.h"

/* Notes the malformed cell (row r, column c) in s: the message is one line, the cell quoted printable. */
static void note(pb_source *s, size_t r, int c, pb_cell_rule rule)
{
    if (s->nbad++ >= PB_SRC_CELLS_KEPT)
        return;
    const pb_table *t = &s->t;
    char shown[48];
    snprintf(shown, sizeof shown, "%.40s", pb_table_str(t, r, c));
    for (char *p = shown; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    snprintf(s->bad[s->nbad - 1], sizeof s->bad[0], "%.200s:%zu:%d: column '%.40s': '%s' is not %s (row left out)",
             t->name, t->line[r], c + 1, t->header[c], shown, pb_cell_accepts(rule));
}

void pb_source_check_cells(pb_source *s, const pb_schema *schema)
{
    pb_table *t = &s->t;
    bool *keep = malloc(t->nrows ? t->nrows : 1);
    if (!keep)
        return; /* out of memory: the rows stay unchecked rather than the run unreported */
    memset(keep, 1, t->nrows);
    for (size_t r = 0; r < t->nrows; r++)
        for (int k = 0; k < schema->ncols; k++) {
            const pb_column *col = &schema->cols[k];
            int c = col->rule == PB_CELL_NONE ? -1 : pb_table_col(t, col->name);
            if (c >= 0 && !pb_cell_ok(col->rule, pb_table_str(t, r, c))) {
                keep[r] = false;
                note(s, r, c, col->rule);
            }
        }
    pb_table_keep_rows(t, keep);
    free(keep);
}
