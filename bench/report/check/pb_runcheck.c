/* pb_runcheck.c — see pb_runcheck.h. Everything checked comes from the schemas: no column or key is named here. */
#include "pb_runcheck.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pb_csv.h"
#include "pb_engine.h"
#include "pb_rundata.h"
#include "pb_tuning.h"

typedef struct check {
    FILE *out;
    const char *dir, *prefix;
    int problems;
    bool present[PB_SCHEMA_COUNT]; /* the kind's file is there (a file two kinds share counts for both) */
    bool wrote[PB_SCHEMA_COUNT];   /* the file is there and this kind's schema is the one it follows */
} check;

static void problem(check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(check *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(c->prefix, c->out);
    vfprintf(c->out, fmt, ap);
    va_end(ap);
    fputc('\n', c->out);
    c->problems++;
}

/* Text from the file, cut and with control characters shown as '?': a problem stays one line. */
static const char *shown(char *buf, size_t len, const char *s)
{
    snprintf(buf, len, "%s", s);
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return buf;
}

/* ---------------------------------------------------------------- one CSV */

/* How many leading columns of t's header are s's, in order. */
static int header_prefix(const pb_table *t, const pb_schema *s)
{
    int i = 0;
    while (i < s->ncols && (size_t)i < t->ncols && strcmp(t->header[i], s->cols[i].name) == 0)
        i++;
    return i;
}

static bool header_exact(const pb_table *t, const pb_schema *s)
{
    return (size_t)s->ncols == t->ncols && header_prefix(t, s) == s->ncols;
}

/* Whether t's header is an older run's: the schema's first k columns, k at least the oldest still read. */
static bool header_older(const pb_table *t, const pb_schema *s)
{
    return s->older > 0 && t->ncols >= (size_t)s->older && (size_t)header_prefix(t, s) == t->ncols;
}

/* The schema among those for t's file that t follows: the exact one, else the one it shares most columns with. */
static pb_kind schema_of(const pb_table *t, const char *file)
{
    int best = -1, best_len = -1;
    for (int k = 0; k < PB_SCHEMA_COUNT; k++) {
        const pb_schema *s = pb_schema_get((pb_kind)k);
        if (strcmp(s->file, file) != 0)
            continue;
        int len = header_exact(t, s) ? s->ncols + 1 : header_prefix(t, s);
        if (len > best_len) {
            best = k;
            best_len = len;
        }
    }
    return (pb_kind)best;
}

/* The first column where t's header departs from s's: renamed, missing or extra. */
static void check_header(check *c, const pb_table *t, const pb_schema *s)
{
    if (header_exact(t, s) || header_older(t, s))
        return;
    int i = header_prefix(t, s);
    char got[64];
    if ((size_t)i < t->ncols && i < s->ncols)
        problem(c, "%s:1:%d: header column %d is '%s', the schema's is '%s' (%s's %s)", t->name, i + 1, i + 1,
                shown(got, sizeof got, t->header[i]), s->cols[i].name, s->harness, s->file);
    else if (i < s->ncols)
        problem(c, "%s:1: header lacks column '%s' (column %d of %d in %s's %s)", t->name, s->cols[i].name, i + 1,
                s->ncols, s->harness, s->file);
    else
        problem(c, "%s:1:%d: header has a column the schema lacks: '%s' (%s's %s has %d)", t->name, i + 1,
                shown(got, sizeof got, t->header[i]), s->harness, s->file, s->ncols);
}

/* Every cell of a column the schema gives a rule, by that rule. */
static void check_cells(check *c, const pb_table *t, const pb_schema *s)
{
    int bad = 0;
    for (size_t r = 0; r < t->nrows; r++)
        for (int k = 0; k < s->ncols; k++) {
            int col = pb_table_col(t, s->cols[k].name);
            const char *v = pb_table_str(t, r, col);
            if (col < 0 || pb_cell_ok(s->cols[k].rule, v) || ++bad > PB_CHECK_CELLS_SHOWN)
                continue;
            char got[48];
            problem(c, "%s:%zu:%d: column '%s': '%s' is not %s", t->name, t->line[r], col + 1, s->cols[k].name,
                    shown(got, sizeof got, v), pb_cell_accepts(s->cols[k].rule));
        }
    if (bad > PB_CHECK_CELLS_SHOWN)
        problem(c, "%s: %d more malformed cells", t->name, bad - PB_CHECK_CELLS_SHOWN);
}

/* Columns the schema says add up (sweep.csv's budget parts to its median token) on every row that has them all:
 * parts that do not are a budget that was not measured as one. */
static void check_sums(check *c, const pb_table *t, const pb_schema *s)
{
    const pb_sum *sum = s->sum;
    int total = sum ? pb_table_col(t, s->cols[sum->total].name) : -1, bad = 0;
    for (size_t r = 0; total >= 0 && r < t->nrows; r++) {
        double want = pb_table_num(t, r, total), got = 0;
        for (int k = 0; k < sum->n; k++)
            got += pb_table_num(t, r, pb_table_col(t, s->cols[sum->first + k].name));
        int extra = sum->extra ? pb_table_col(t, s->cols[sum->extra].name) : -1;
        got += extra >= 0 ? pb_table_num(t, r, extra) : 0;
        if (isnan(want) || isnan(got) || fabs(got - want) <= PB_BUDGET_SUM_TOL_MS || ++bad > PB_CHECK_CELLS_SHOWN)
            continue;
        problem(c, "%s:%zu: columns %s..%s%s%s add up to %.4f, not %s's %.4f (within %g)", t->name, t->line[r],
                s->cols[sum->first].name, s->cols[sum->first + sum->n - 1].name, sum->extra ? " and " : "",
                sum->extra ? s->cols[sum->extra].name : "", got, s->cols[sum->total].name, want, PB_BUDGET_SUM_TOL_MS);
    }
    if (bad > PB_CHECK_CELLS_SHOWN)
        problem(c, "%s: %d more rows whose parts do not add up", t->name, bad - PB_CHECK_CELLS_SHOWN);
}

/* Reads DIR/FILE when it is there and checks it against its schema; the kind it follows is then noted in c. */
static void check_file(check *c, const char *file, pb_table *t, bool *loaded)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", c->dir, file);
    pb_csverr e;
    *loaded = false;
    if (pb_table_load(t, path, &e) != 0) {
        if (!e.missing)
            problem(c, "%s", e.msg);
        for (int k = 0; k < PB_SCHEMA_COUNT; k++)
            c->present[k] |= !e.missing && strcmp(pb_schema_get((pb_kind)k)->file, file) == 0;
        return;
    }
    pb_kind k = schema_of(t, file);
    const pb_schema *s = pb_schema_get(k);
    for (int j = 0; j < PB_SCHEMA_COUNT; j++)
        c->present[j] |= strcmp(pb_schema_get((pb_kind)j)->file, file) == 0;
    c->wrote[k] = true;
    check_header(c, t, s);
    if (t->nrows == 0 && !s->sampled)
        problem(c, "%s: a header but no rows", t->name);
    check_cells(c, t, s);
    check_sums(c, t, s);
    *loaded = true;
}

/* ---------------------------------------------------------------- machine.csv */

static const char *machine_get(const pb_table *t, const char *key)
{
    int ck = pb_table_col(t, PB_COL(MACHINE, key)), cv = pb_table_col(t, PB_COL(MACHINE, value));
    for (size_t r = 0; r < t->nrows; r++)
        if (strcmp(pb_table_str(t, r, ck), key) == 0)
            return pb_table_str(t, r, cv);
    return NULL;
}

static void check_key(check *c, const pb_table *t, const char *key, const pb_column *col)
{
    const char *v = machine_get(t, key);
    char got[48];
    if (!v)
        problem(c, "%s: no key '%s' (%s)", t->name, key, col->meaning);
    else if (!pb_cell_ok(col->rule, v))
        problem(c, "%s: key '%s': '%s' is not %s", t->name, key, shown(got, sizeof got, v),
                pb_cell_accepts(col->rule));
}

/* Every fixed key (a stopped harness's `incomplete` notes are problems, not keys to have), and each core
 * kind's. */
static void check_machine(check *c, const pb_table *t)
{
    for (int k = 0; k < PB_MKEY_COUNT; k++)
        if (k != PB_MKEY_incomplete)
            check_key(c, t, pb_machine_key(k)->name, pb_machine_key(k));
    int ck = pb_table_col(t, PB_COL(MACHINE, key)), cv = pb_table_col(t, PB_COL(MACHINE, value));
    for (size_t r = 0; r < t->nrows; r++)
        if (strcmp(pb_table_str(t, r, ck), PB_MKEY(incomplete)) == 0)
            problem(c, "%s:%zu: the run is incomplete: %.300s", t->name, t->line[r], pb_table_str(t, r, cv));
    const char *kinds = machine_get(t, PB_MKEY(kinds));
    int nkinds = kinds ? atoi(kinds) : 0;
    for (int kind = 0; kind < nkinds && kind < 64; kind++)
        for (int k = 0; k < PB_MKIND_COUNT; k++) {
            char key[96];
            snprintf(key, sizeof key, "kind%d_%s", kind, pb_machine_kind_key(k)->name);
            check_key(c, t, key, pb_machine_kind_key(k));
        }
}

/* ---------------------------------------------------------------- the directory */

/* A harness that wrote one of its files wrote them all. */
static void check_complete(check *c)
{
    for (int k = 0; k < PB_SCHEMA_COUNT; k++) {
        const pb_schema *s = pb_schema_get((pb_kind)k);
        if (c->present[k] || k == PB_K_MACHINE)
            continue;
        for (int j = 0; j < PB_SCHEMA_COUNT; j++)
            if (c->wrote[j] && strcmp(pb_schema_get((pb_kind)j)->harness, s->harness) == 0) {
                problem(c, "%s/%s: missing, though %s ran (it wrote %s)", c->dir, s->file, s->harness,
                        pb_schema_get((pb_kind)j)->file);
                break;
            }
    }
}

/* A partial file: a harness was killed before it published that CSV, or still runs. */
static void check_partials(check *c)
{
    DIR *d = opendir(c->dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, PB_CSV_PARTIAL))
            problem(c, "%s/%s: a partial file: its harness was killed before it published the CSV, or still runs",
                    c->dir, e->d_name);
    if (d)
        closedir(d);
}

/* The run's llama-bench.* files, each read through its schema (pb_llamabench.h) as bench_report reads them. */
static void check_engines(check *c)
{
    pb_rundata *rd = calloc(1, sizeof *rd);
    char err[700];
    if (!rd) {
        problem(c, "%s: out of memory", c->dir);
        return;
    }
    snprintf(rd->dir, sizeof rd->dir, "%s", c->dir);
    if (pb_engines_load(rd, NULL, err, sizeof err) != 0)
        problem(c, "%s", err);
    pb_rundata_free(rd);
    free(rd);
}

/* Each file once (two kinds may share one: cpu_util.csv), in schema order. */
static bool first_of_file(int k)
{
    for (int j = 0; j < k; j++)
        if (strcmp(pb_schema_get((pb_kind)j)->file, pb_schema_get((pb_kind)k)->file) == 0)
            return false;
    return true;
}

int pb_check_run_dir(FILE *out, const char *dir, const char *prefix)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(out, "%s%s: not a directory\n", prefix, dir);
        return -1;
    }
    check c = { .out = out, .dir = dir, .prefix = prefix };
    for (int k = 0; k < PB_SCHEMA_COUNT; k++) {
        if (!first_of_file(k))
            continue;
        pb_table t;
        bool loaded;
        check_file(&c, pb_schema_get((pb_kind)k)->file, &t, &loaded);
        if (loaded && k == PB_K_MACHINE)
            check_machine(&c, &t);
        if (loaded)
            pb_table_free(&t);
    }
    if (!c.present[PB_K_MACHINE])
        problem(&c, "%s/%s: missing (every harness writes it)", dir, pb_schema_get(PB_K_MACHINE)->file);
    check_complete(&c);
    check_partials(&c);
    check_engines(&c);
    return c.problems;
}
