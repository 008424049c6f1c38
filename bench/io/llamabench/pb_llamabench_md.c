/* pb_llamabench_md.c — llama-bench's md table (its default output) into the builder. The table names some fields
 * its own way and rounds them: model is model_type, size "761.80 MiB" (or GiB) model_size, params "751.63 M" (or
 * B) model_n_params, backend backends, threads n_threads, test "tg16 @ d256" n_prompt/n_gen/n_depth, t/s
 * "22.89 ± 0.59" avg_ts/stddev_ts; a column named as a schema field (type_k, cpu_mask, ...) is that field; any
 * other is read past. After the table, llama-bench's "build: COMMIT (NUMBER)" line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_llamabench_impl.h"

#define MD_MAX_COLS 64 /* columns in llama-bench's table: a dozen at most */

/* A column's meaning: a field as it is, or one of the table's own spellings. */
typedef enum md_kind { MD_SKIP, MD_FIELD, MD_SIZE, MD_PARAMS, MD_TEST, MD_RATE } md_kind;

static const struct md_name {
    const char *header;
    md_kind kind;
    int col;
} md_names[] = {
    { "model", MD_FIELD, PB_LLAMABENCH_model_type }, { "size", MD_SIZE, PB_LLAMABENCH_model_size },
    { "params", MD_PARAMS, PB_LLAMABENCH_model_n_params }, { "backend", MD_FIELD, PB_LLAMABENCH_backends },
    { "threads", MD_FIELD, PB_LLAMABENCH_n_threads }, { "test", MD_TEST, -1 }, { "t/s", MD_RATE, -1 },
};
/* The headers the table must have: the rest of what a test needs comes from them. */
static const char *const md_need[] = { "model", "size", "params", "threads", "test", "t/s" };

typedef struct md_col {
    md_kind kind;
    int col;
} md_col;

/* One line's cells: "| a | b |", each trimmed, with the byte column where it starts. */
typedef struct md_cells {
    size_t n;
    const char *s[MD_MAX_COLS];
    size_t len[MD_MAX_COLS], at[MD_MAX_COLS];
} md_cells;

typedef struct md_state {
    pb_llamabench_build *b;
    size_t line;
    size_t ncols;
    md_col cols[MD_MAX_COLS];
} md_state;

static int split(md_state *m, const char *line, size_t len, md_cells *cs)
{
    cs->n = 0;
    while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
        len--;
    size_t i = 0;
    while (i < len && line[i] == ' ')
        i++;
    if (len < i + 2 || line[i] != '|' || line[len - 1] != '|')
        return pb_llamabench_fail(m->b, m->line, i + 1, "a table row starts and ends with '|'");
    for (size_t start = i + 1; start < len; start++) {
        size_t end = start;
        while (end < len - 1 && line[end] != '|')
            end++;
        if (cs->n == MD_MAX_COLS)
            return pb_llamabench_fail(m->b, m->line, start + 1, "more than %d columns", MD_MAX_COLS);
        size_t a = start, z = end;
        while (a < z && line[a] == ' ')
            a++;
        while (z > a && line[z - 1] == ' ')
            z--;
        cs->s[cs->n] = line + a;
        cs->len[cs->n] = z - a;
        cs->at[cs->n++] = a + 1;
        start = end;
    }
    return 0;
}

static bool cell_is(const md_cells *cs, size_t i, const char *s)
{
    return cs->len[i] == strlen(s) && memcmp(cs->s[i], s, cs->len[i]) == 0;
}

static int header(md_state *m, const md_cells *cs)
{
    for (size_t k = 0; k < sizeof md_need / sizeof md_need[0]; k++) {
        bool found = false;
        for (size_t i = 0; i < cs->n && !found; i++)
            found = cell_is(cs, i, md_need[k]);
        if (!found)
            return pb_llamabench_fail(m->b, m->line, 1,
                                      "no column '%s' in the table's header (llama-bench's md has model, size, params, "
                                      "threads, test and t/s)", md_need[k]);
    }
    m->ncols = cs->n;
    for (size_t i = 0; i < cs->n; i++) {
        m->cols[i] = (md_col){ MD_SKIP, -1 };
        for (size_t k = 0; k < sizeof md_names / sizeof md_names[0]; k++)
            if (cell_is(cs, i, md_names[k].header))
                m->cols[i] = (md_col){ md_names[k].kind, md_names[k].col };
        for (int c = 0; c < PB_LLAMABENCH_NCOLS && m->cols[i].kind == MD_SKIP; c++)
            if (cell_is(cs, i, pb_schema_name(PB_K_LLAMABENCH, c)))
                m->cols[i] = (md_col){ MD_FIELD, c };
        for (size_t j = 0; j < i; j++)
            if (cs->len[j] == cs->len[i] && memcmp(cs->s[j], cs->s[i], cs->len[i]) == 0)
                return pb_llamabench_fail(m->b, m->line, cs->at[i], "column '%.*s' twice in the header",
                                          (int)cs->len[i], cs->s[i]);
    }
    return 0;
}

static int separator(md_state *m, const md_cells *cs)
{
    if (cs->n != m->ncols)
        return pb_llamabench_fail(m->b, m->line, 1, "%zu cells in the line under the header, which has %zu", cs->n,
                                  m->ncols);
    for (size_t i = 0; i < cs->n; i++) {
        size_t a = cs->s[i][0] == ':', z = cs->len[i] - (cs->len[i] > 1 && cs->s[i][cs->len[i] - 1] == ':');
        bool ok = z > a;
        for (size_t k = a; k < z; k++)
            ok &= cs->s[i][k] == '-';
        if (!ok)
            return pb_llamabench_fail(m->b, m->line, cs->at[i],
                                      "the line under the header holds dashes (---, ---:) only");
    }
    return 0;
}

/* value as text into the builder, filed as column col of the current record. */
static int file_text(md_state *m, int col, const char *s, size_t n, size_t at)
{
    size_t off = pb_llamabench_begin(m->b);
    pb_llamabench_putn(m->b, s, n);
    pb_llamabench_end(m->b);
    return pb_llamabench_field_col(m->b, m->b->n - 1, col, off, m->line, at);
}

static int file_num(md_state *m, int col, double v, const char *fmt, size_t at)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    return file_text(m, col, buf, strlen(buf), at);
}

/* "761.80 MiB" / "1.50 GiB" to bytes; "751.63 M" / "8.03 B" to a count: the number and its unit. */
static int scaled(md_state *m, const md_cells *cs, size_t i, const md_col *mc)
{
    static const struct { md_kind kind; const char *unit; double scale; } units[] = {
        { MD_SIZE, "MiB", 1048576.0 }, { MD_SIZE, "GiB", 1073741824.0 }, { MD_PARAMS, "K", 1e3 },
        { MD_PARAMS, "M", 1e6 }, { MD_PARAMS, "B", 1e9 },
    };
    char text[64], unit[8];
    double v;
    int used = 0;
    snprintf(text, sizeof text, "%.*s", (int)(cs->len[i] < 63 ? cs->len[i] : 63), cs->s[i]);
    if (sscanf(text, "%lf %7s%n", &v, unit, &used) == 2 && used == (int)strlen(text) && isfinite(v) && v >= 0)
        for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
            if (units[k].kind == mc->kind && strcmp(unit, units[k].unit) == 0)
                return file_num(m, mc->col, round(v * units[k].scale), "%.0f", cs->at[i]);
    return pb_llamabench_fail(m->b, m->line, cs->at[i], "'%s' is not a %s as llama-bench writes it (%s)", text,
                              mc->kind == MD_SIZE ? "size" : "parameter count",
                              mc->kind == MD_SIZE ? "761.80 MiB, 4.58 GiB" : "751.63 M, 8.03 B");
}

/* Digits at *s into *v (at most 10 of them), moving *s past them; false when there are none. */
static bool digits(const char **s, unsigned long long *v)
{
    size_t n = strspn(*s, "0123456789");
    if (!n || n > 10)
        return false;
    *v = strtoull(*s, NULL, 10);
    *s += n;
    return true;
}

/* "pp512", "tg128", "pp512+tg128", each perhaps with " @ d256". */
static int test_name(md_state *m, const md_cells *cs, size_t i)
{
    char text[64];
    snprintf(text, sizeof text, "%.*s", (int)(cs->len[i] < 63 ? cs->len[i] : 63), cs->s[i]);
    unsigned long long pp = 0, tg = 0, depth = 0;
    const char *s = text;
    bool ok = true;
    if (strncmp(s, "pp", 2) == 0) {
        s += 2;
        ok = digits(&s, &pp);
        if (ok && strncmp(s, "+tg", 3) == 0) {
            s += 3;
            ok = digits(&s, &tg);
        }
    } else if (strncmp(s, "tg", 2) == 0) {
        s += 2;
        ok = digits(&s, &tg);
    } else {
        ok = false;
    }
    if (ok && strncmp(s, " @ d", 4) == 0) {
        s += 4;
        ok = digits(&s, &depth);
    }
    if (!ok || *s)
        return pb_llamabench_fail(m->b, m->line, cs->at[i], "test '%s' is not one llama-bench writes (pp512, tg128, "
                                  "pp512+tg128, each perhaps with \" @ d256\")", text);
    return file_num(m, PB_LLAMABENCH_n_prompt, (double)pp, "%.0f", cs->at[i]) != 0 ||
                   file_num(m, PB_LLAMABENCH_n_gen, (double)tg, "%.0f", cs->at[i]) != 0 ||
                   file_num(m, PB_LLAMABENCH_n_depth, (double)depth, "%.0f", cs->at[i]) != 0
               ? -1 : 0;
}

/* "22.89 ± 0.59": the mean and the standard deviation, each then checked as its field. */
static int rate(md_state *m, const md_cells *cs, size_t i)
{
    char text[64];
    snprintf(text, sizeof text, "%.*s", (int)(cs->len[i] < 63 ? cs->len[i] : 63), cs->s[i]);
    char *pm = strstr(text, " \xc2\xb1 "); /* " ± " in UTF-8 */
    if (!pm)
        return pb_llamabench_fail(m->b, m->line, cs->at[i],
                                  "t/s '%s' is not llama-bench's 'mean ± deviation' (22.89 ± 0.59)", text);
    *pm = '\0';
    return file_text(m, PB_LLAMABENCH_avg_ts, text, strlen(text), cs->at[i]) != 0 ||
                   file_text(m, PB_LLAMABENCH_stddev_ts, pm + 4, strlen(pm + 4), cs->at[i]) != 0
               ? -1 : 0;
}

static int row(md_state *m, const md_cells *cs)
{
    if (cs->n != m->ncols)
        return pb_llamabench_fail(m->b, m->line, 1, "%zu cells in a row of a table of %zu columns", cs->n, m->ncols);
    if (pb_llamabench_record(m->b, m->line) != 0)
        return -1;
    for (size_t i = 0; i < cs->n; i++) {
        const md_col *mc = &m->cols[i];
        int rc = mc->kind == MD_FIELD ? file_text(m, mc->col, cs->s[i], cs->len[i], cs->at[i])
                 : mc->kind == MD_SIZE || mc->kind == MD_PARAMS ? scaled(m, cs, i, mc)
                 : mc->kind == MD_TEST ? test_name(m, cs, i)
                 : mc->kind == MD_RATE ? rate(m, cs, i) : 0;
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* "build: COMMIT (NUMBER)": both fields into every test. */
static int build_line(md_state *m, const char *line, size_t len)
{
    char text[256], commit[128];
    unsigned long number;
    int used = -1;
    snprintf(text, sizeof text, "%.*s", (int)(len < 255 ? len : 255), line);
    text[strcspn(text, "\r")] = '\0';
    if (sscanf(text, "build: %127s (%lu)%n", commit, &number, &used) != 2 || used < 0 || text[used])
        return pb_llamabench_fail(m->b, m->line, 1, "not llama-bench's build line (build: COMMIT (NUMBER))");
    for (size_t r = 0; r < m->b->n; r++) {
        size_t off = pb_llamabench_begin(m->b);
        pb_llamabench_putn(m->b, commit, strlen(commit));
        pb_llamabench_end(m->b);
        if (pb_llamabench_field_col(m->b, r, PB_LLAMABENCH_build_commit, off, m->line, 8) != 0)
            return -1;
        off = pb_llamabench_begin(m->b);
        char num[32];
        snprintf(num, sizeof num, "%lu", number);
        pb_llamabench_putn(m->b, num, strlen(num));
        pb_llamabench_end(m->b);
        if (pb_llamabench_field_col(m->b, r, PB_LLAMABENCH_build_number, off, m->line, 1) != 0)
            return -1;
    }
    return 0;
}

/* Where the reader is: before the header, under it, in the rows, after the table, after the build line. */
typedef enum md_at { MD_HEAD, MD_SEP, MD_ROWS, MD_AFTER, MD_DONE } md_at;

int pb_llamabench_read_md(pb_llamabench_build *b, const char *data, size_t len)
{
    md_state m = { .b = b };
    md_at at = MD_HEAD;
    md_cells cs;
    for (const char *p = data, *end = data + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        const char *line = p;
        p = nl ? nl + 1 : end;
        m.line++;
        size_t lead = 0;
        while (lead < n && (line[lead] == ' ' || line[lead] == '\t' || line[lead] == '\r'))
            lead++;
        if (lead == n) {
            at = at == MD_ROWS ? MD_AFTER : at;
            continue;
        }
        int rc;
        if (line[lead] == '|' && at <= MD_ROWS) {
            rc = split(&m, line, n, &cs);
            if (rc == 0)
                rc = at == MD_HEAD ? header(&m, &cs) : at == MD_SEP ? separator(&m, &cs) : row(&m, &cs);
            at = at == MD_ROWS ? MD_ROWS : at + 1;
        } else if ((at == MD_ROWS || at == MD_AFTER) && n - lead >= 6 && memcmp(line + lead, "build:", 6) == 0) {
            rc = build_line(&m, line + lead, n - lead);
            at = MD_DONE;
        } else {
            rc = pb_llamabench_fail(b, m.line, lead + 1,
                                    at == MD_HEAD ? "not llama-bench's md table (it starts with a '|' header row)"
                                                  : "after llama-bench's table, only its build line and blank lines");
        }
        if (rc != 0)
            return -1;
    }
    if (at < MD_ROWS)
        return pb_llamabench_fail(b, m.line ? m.line : 1, 0,
                                  "no table: llama-bench's md is a header row, a row of dashes, then a row a test");
    return 0;
}
