/* The numeric cells of a run's CSVs checked against what their column may hold. Text, NaN, infinity or a
 * negative number where a figure belongs would otherwise reach the report as "—", "inf s", "-5 ns" or "at -3
 * threads"; such a cell is named by file, line and column, and its row left out. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_rundata.h"

/* What each rule accepts: one row per pb_cell_rule. */
static const struct cell_rule {
    const char *accepts; /* for the message */
    double min, max;
    bool integer;
    bool absent_ok;      /* nan or an empty field: not measured */
    bool any;            /* text: every cell follows it */
    bool word;           /* text of one word: a plot's key */
} cell_rules[] = {
    [PB_CELL_NONE] = { .accepts = "text", .any = true },
    [PB_CELL_WORD] = { .accepts = "one word (not empty; no space, quote or control character: the plots key on it)",
                       .word = true },
    [PB_CELL_COUNT] = { .accepts = "a positive integer", .min = 1, .max = 1e9, .integer = true },
    [PB_CELL_FIGURE] = { .accepts = "a finite number ≥ 0", .min = 0, .max = HUGE_VAL },
    [PB_CELL_OPTIONAL] = { .accepts = "a finite number ≥ 0, or nan or empty when not measured", .min = 0,
                           .max = HUGE_VAL, .absent_ok = true },
    [PB_CELL_SIGNED] = { .accepts = "a finite number, or nan or empty when not measured", .min = -DBL_MAX,
                         .max = HUGE_VAL, .absent_ok = true },
};

static bool blank(const char *s)
{
    return s[strspn(s, " \t")] == '\0';
}

/* gnuplot's word lists split on white space and group what quotes enclose. */
static bool one_word(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= ' ' || *p == 0x7f || *p == '"' || *p == '\'')
            return false;
    return *s != '\0';
}

static bool cell_ok(const struct cell_rule *r, const char *s)
{
    double v;
    if (r->any)
        return true;
    if (r->word)
        return one_word(s);
    if (pb_parse_num(s, &v) != 0)
        return r->absent_ok && blank(s);
    if (isnan(v))
        return r->absent_ok;
    return v >= r->min && v < r->max && (!r->integer || v == floor(v));
}

const char *pb_cell_accepts(pb_cell_rule rule) { return cell_rules[rule].accepts; }

bool pb_cell_ok(pb_cell_rule rule, const char *s) { return cell_ok(&cell_rules[rule], s); }

/* Notes the malformed cell (row r, column c) in s: the message is one line, the cell quoted printable. */
static void note(pb_source *s, size_t r, int c, const struct cell_rule *rule)
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
             t->name, t->line[r], c + 1, t->header[c], shown, rule->accepts);
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
            if (c >= 0 && !cell_ok(&cell_rules[col->rule], pb_table_str(t, r, c))) {
                keep[r] = false;
                note(s, r, c, &cell_rules[col->rule]);
            }
        }
    pb_table_keep_rows(t, keep);
    free(keep);
}
