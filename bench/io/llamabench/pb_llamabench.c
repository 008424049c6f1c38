/* pb_llamabench.c — llama-bench's results: the format chosen, its reader run, and every record checked against the
 * schema and converted (pb_llamabench.h). */
#include "pb_llamabench.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pb_infile.h"
#include "pb_llamabench_impl.h"

/* The fields a test must have, whatever its format: what the report places against the floor. */
static const int need[] = { PB_LLAMABENCH_model_type, PB_LLAMABENCH_model_size, PB_LLAMABENCH_n_threads,
                            PB_LLAMABENCH_n_prompt,    PB_LLAMABENCH_n_gen,      PB_LLAMABENCH_avg_ts,
                            PB_LLAMABENCH_stddev_ts };

static const char *const format_names[PB_LLAMABENCH_NFORMATS] = {
    [PB_LLAMABENCH_CSV] = "csv", [PB_LLAMABENCH_JSON] = "json", [PB_LLAMABENCH_JSONL] = "jsonl",
    [PB_LLAMABENCH_SQL] = "sql", [PB_LLAMABENCH_MD] = "md",
};

const char *pb_llamabench_format_name(pb_llamabench_format f) { return format_names[f]; }

pb_llamabench_format pb_llamabench_format_of(const char *name, const char *data, size_t len)
{
    const char *dot = strrchr(name, '.'), *slash = strrchr(name, '/');
    for (int f = 0; dot && (!slash || dot > slash) && f < PB_LLAMABENCH_NFORMATS; f++)
        if (strcasecmp(dot + 1, format_names[f]) == 0)
            return (pb_llamabench_format)f;
    size_t i = 0;
    while (i < len && isspace((unsigned char)data[i]))
        i++;
    if (i < len && data[i] == '[')
        return PB_LLAMABENCH_JSON;
    if (i < len && data[i] == '{')
        return PB_LLAMABENCH_JSONL;
    if (i < len && data[i] == '|')
        return PB_LLAMABENCH_MD;
    if (len - i >= 6 && (strncasecmp(data + i, "CREATE", 6) == 0 || strncasecmp(data + i, "INSERT", 6) == 0))
        return PB_LLAMABENCH_SQL;
    return PB_LLAMABENCH_CSV;
}

/* ---------------------------------------------------------------- csv */

int pb_llamabench_read_csv(pb_llamabench_build *b, const char *data, size_t len)
{
    pb_table t;
    if (pb_table_parse(&t, b->name, data, len, b->e) != 0)
        return -1;
    int rc = 0;
    for (size_t r = 0; r < t.nrows && rc == 0; r++) {
        rc = pb_llamabench_record(b, t.line[r]);
        for (size_t i = 0; i < t.ncols && rc == 0; i++) {
            size_t off = pb_llamabench_begin(b);
            const char *v = pb_table_str(&t, r, (int)i);
            pb_llamabench_putn(b, v, strlen(v));
            pb_llamabench_end(b);
            rc = pb_llamabench_field(b, t.header[i], off, t.line[r], i + 1);
        }
    }
    pb_table_free(&t);
    return rc;
}

/* ---------------------------------------------------------------- checking */

/* A value for a message: cut, control characters as '?'. */
static const char *shown(char *buf, size_t len, const char *s)
{
    snprintf(buf, len, "%s", s);
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return buf;
}

/* An integer as llama-bench writes one: an optional minus, then digits, nothing else (the rule judges the sign). */
static bool integer_text(const char *s)
{
    s += *s == '-';
    return *s && strspn(s, "0123456789") == strlen(s);
}

/* A real as llama-bench writes one: decimal digits, point and exponent (strtod's hex, inf and nan are not). */
static bool decimal_text(const char *s)
{
    return *s && strspn(s, "0123456789.-+eE") == strlen(s);
}

/* What no llama-bench run can have measured: a value at or under lo (when above_lo) or over hi is a file that
 * cannot be true ("inf x" from avg_ts 0, a 47-digit tok/s from 1e308, a model of 2^64 bytes). */
static const struct {
    int col;
    bool above_lo;
    double lo, hi;
    const char *why;
} plausible[] = {
    { PB_LLAMABENCH_avg_ts, true, 0, 1e7, "tokens per second: above 0, at most 10 million" },
    { PB_LLAMABENCH_stddev_ts, false, 0, 1e7, "tokens per second: at most 10 million" },
    { PB_LLAMABENCH_avg_ns, true, 0, 1e15, "ns: above 0, at most 10^15 (11 days)" },
    { PB_LLAMABENCH_model_size, true, 0, 0x1p50, "bytes: above 0, at most 2^50 (1 PiB)" },
    { PB_LLAMABENCH_model_n_params, true, 0, 0x1p50, "parameters: above 0, at most 2^50" },
    { PB_LLAMABENCH_n_threads, false, 0, 65536, "threads: at most 65536" },
    { PB_LLAMABENCH_n_prompt, false, 0, 1 << 24, "tokens: at most 2^24" },
    { PB_LLAMABENCH_n_gen, false, 0, 1 << 24, "tokens: at most 2^24" },
    { PB_LLAMABENCH_n_depth, false, 0, 1 << 24, "tokens: at most 2^24" },
};

/* Field c's value v against the plausible table. */
static int check_plausible(pb_llamabench_build *b, const pb_llamabench_rec *r, int c, const pb_value *v, const char *s)
{
    const pb_column *col = &pb_schema_get(PB_K_LLAMABENCH)->cols[c];
    double x = col->type == PB_T_INT ? (double)v->i : col->type == PB_T_U64 ? (double)v->u : v->d;
    char got[48];
    for (size_t k = 0; k < sizeof plausible / sizeof plausible[0]; k++)
        if (plausible[k].col == c && ((plausible[k].above_lo && x <= plausible[k].lo) || x > plausible[k].hi))
            return pb_llamabench_fail(b, r->fline[c], r->fcol[c], "field '%s': '%s' cannot be true; accepted %s",
                                      col->name, shown(got, sizeof got, s), plausible[k].why);
    return 0;
}

/* One present field of record r: its type, then its column's rule; *v gets the value. */
static int check_field(pb_llamabench_build *b, const pb_llamabench_rec *r, int c, pb_value *v)
{
    const pb_column *col = &pb_schema_get(PB_K_LLAMABENCH)->cols[c];
    const char *s = b->text + r->off[c];
    char got[48];
    bool integer = col->type == PB_T_INT || col->type == PB_T_U64;
    if (col->rule == PB_CELL_FLAG && (strcmp(s, "true") == 0 || strcmp(s, "false") == 0))
        s = s[0] == 't' ? "1" : "0"; /* JSON's booleans, for a flag only: `true` is no thread count */
    if (integer && !integer_text(s))
        return pb_llamabench_fail(b, r->fline[c], r->fcol[c], "field '%s': '%s' is not an integer", col->name,
                                  shown(got, sizeof got, s));
    if (!pb_cell_ok(col->rule, s))
        return pb_llamabench_fail(b, r->fline[c], r->fcol[c], "field '%s': '%s' is not %s", col->name,
                                  shown(got, sizeof got, s), pb_cell_accepts(col->rule));
    if (col->type == PB_T_REAL && !decimal_text(s))
        return pb_llamabench_fail(b, r->fline[c], r->fcol[c], "field '%s': '%s' is not a decimal number", col->name,
                                  shown(got, sizeof got, s));
    errno = 0;
    if (col->type == PB_T_INT)
        v->i = strtoll(s, NULL, 10);
    else if (col->type == PB_T_U64)
        v->u = strtoull(s, NULL, 10);
    else if (col->type == PB_T_REAL)
        v->d = strtod(s, NULL);
    if (errno == ERANGE)
        return pb_llamabench_fail(b, r->fline[c], r->fcol[c], "field '%s': '%s' is out of range", col->name,
                                  shown(got, sizeof got, s));
    return check_plausible(b, r, c, v, s);
}

/* The words of a LIST cell, already checked: how many, into out when it is not NULL. */
static size_t list_parse(const char *s, double *out)
{
    size_t n = 0;
    for (char *end;; s = end) {
        s += strspn(s, " ");
        if (!*s)
            return n;
        double v = strtod(s, &end);
        if (out)
            out[n] = v;
        n++;
    }
}

/* Record r's fields into test t: the needed ones there, each one checked, the two sample lists alike. */
static int check_record(pb_llamabench_build *b, const pb_llamabench_rec *r, pb_llamabench_test *t)
{
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++)
        if (r->off[need[k]] == PB_LLAMABENCH_ABSENT)
            return pb_llamabench_fail(b, r->line, 0,
                                      "a test without the field '%s' (llama-bench writes it for every test)",
                                      pb_schema_name(PB_K_LLAMABENCH, need[k]));
    t->line = r->line;
    for (int c = 0; c < PB_LLAMABENCH_NCOLS; c++) {
        t->have[c] = r->off[c] != PB_LLAMABENCH_ABSENT;
        if (t->have[c] && check_field(b, r, c, &t->v[c]) != 0)
            return -1;
    }
    bool ns = t->have[PB_LLAMABENCH_samples_ns], ts = t->have[PB_LLAMABENCH_samples_ts];
    size_t nns = ns ? list_parse(b->text + r->off[PB_LLAMABENCH_samples_ns], NULL) : 0;
    size_t nts = ts ? list_parse(b->text + r->off[PB_LLAMABENCH_samples_ts], NULL) : 0;
    if (ns != ts || nns != nts)
        return pb_llamabench_fail(b, r->line, 0, "samples_ns holds %zu repetitions and samples_ts %zu (one of each per "
                                  "repetition)", nns, nts);
    t->nsamples = nns;
    if (t->v[PB_LLAMABENCH_n_prompt].i + t->v[PB_LLAMABENCH_n_gen].i == 0)
        return pb_llamabench_fail(b, r->line, 0, "n_prompt and n_gen both 0: a test of no tokens");
    return 0;
}

/* Every record checked, then the text values pointed at their final storage. */
static int finish(pb_llamabench_build *b, pb_llamabench *lb)
{
    if (b->oom)
        return pb_llamabench_fail(b, 0, 0, "out of memory");
    if (!b->n)
        return pb_llamabench_fail(b, 0, 0,
                                  "no test in it (llama-bench writes one record a test; did every test fail?)");
    lb->t = calloc(b->n, sizeof *lb->t);
    if (!lb->t)
        return pb_llamabench_fail(b, 0, 0, "out of memory");
    size_t nsamples = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (check_record(b, &b->rec[i], &lb->t[i]) != 0)
            return -1;
        nsamples += lb->t[i].nsamples;
    }
    lb->samples = malloc((2 * nsamples + 1) * sizeof *lb->samples);
    if (!lb->samples)
        return pb_llamabench_fail(b, 0, 0, "out of memory");
    double *at = lb->samples;
    for (size_t i = 0; i < b->n; i++) {
        pb_llamabench_test *t = &lb->t[i];
        for (int c = 0; c < PB_LLAMABENCH_NCOLS; c++)
            if (t->have[c] && pb_schema_get(PB_K_LLAMABENCH)->cols[c].type == PB_T_TEXT)
                t->v[c].s = b->text + b->rec[i].off[c];
        if (t->nsamples) {
            t->samples_ns = at;
            at += list_parse(t->v[PB_LLAMABENCH_samples_ns].s, at);
            t->samples_ts = at;
            at += list_parse(t->v[PB_LLAMABENCH_samples_ts].s, at);
        }
    }
    lb->n = b->n;
    lb->text = b->text;
    b->text = NULL;
    return 0;
}

/* ---------------------------------------------------------------- the API */

/* A NUL byte's place, for its message: no format llama-bench writes holds one. */
static int nul_byte(pb_llamabench_build *b, const char *data, const char *nul)
{
    size_t line = 1;
    const char *start = data;
    for (const char *p = data; p < nul; p++)
        if (*p == '\n') {
            line++;
            start = p + 1;
        }
    return pb_llamabench_fail(b, line, (size_t)(nul - start) + 1, "a NUL byte: not llama-bench's text output");
}

int pb_llamabench_parse(pb_llamabench *lb, const char *name, pb_llamabench_format f, const char *data, size_t len,
                        pb_csverr *e)
{
    memset(lb, 0, sizeof *lb);
    memset(e, 0, sizeof *e);
    snprintf(lb->name, sizeof lb->name, "%s", name);
    lb->format = f;
    lb->rounded = f == PB_LLAMABENCH_MD;
    pb_llamabench_build b = { .name = lb->name, .e = e };
    int rc = -1;
    const char *nul = memchr(data, '\0', len);
    if (nul)
        rc = nul_byte(&b, data, nul);
    else if (f == PB_LLAMABENCH_CSV)
        rc = pb_llamabench_read_csv(&b, data, len);
    else if (f == PB_LLAMABENCH_JSON || f == PB_LLAMABENCH_JSONL)
        rc = pb_llamabench_read_json(&b, data, len, f == PB_LLAMABENCH_JSONL);
    else if (f == PB_LLAMABENCH_SQL)
        rc = pb_llamabench_read_sql(&b, data, len);
    else
        rc = pb_llamabench_read_md(&b, data, len);
    if (rc == 0)
        rc = finish(&b, lb);
    free(b.text);
    free(b.rec);
    if (rc != 0) {
        free(lb->t);
        free(lb->samples);
        lb->t = NULL;
        lb->samples = NULL;
        lb->n = 0;
    }
    return rc;
}

int pb_llamabench_load(pb_llamabench *lb, const char *path, pb_csverr *e)
{
    memset(lb, 0, sizeof *lb);
    memset(e, 0, sizeof *e);
    char *buf = NULL;
    size_t len = 0;
    if (pb_infile_read(AT_FDCWD, path, (size_t)PB_LLAMABENCH_MAX_MIB << 20, "a llama-bench file", &buf, &len, e->msg,
                       sizeof e->msg) != 0) {
        e->missing = errno == ENOENT;
        e->unreadable = !e->missing;
        return -1;
    }
    int rc = pb_llamabench_parse(lb, path, pb_llamabench_format_of(path, buf, len), buf, len, e);
    free(buf);
    return rc;
}

void pb_llamabench_free(pb_llamabench *lb)
{
    free(lb->t);
    free(lb->text);
    free(lb->samples);
    memset(lb, 0, sizeof *lb);
}

double pb_llamabench_num(const pb_llamabench_test *t, int col)
{
    if (!t->have[col])
        return NAN;
    switch (pb_schema_get(PB_K_LLAMABENCH)->cols[col].type) {
    case PB_T_INT:
        return (double)t->v[col].i;
    case PB_T_U64:
        return (double)t->v[col].u;
    case PB_T_REAL:
        return t->v[col].d;
    default:
        return NAN;
    }
}

const char *pb_llamabench_str(const pb_llamabench_test *t, int col)
{
    return t->have[col] && pb_schema_get(PB_K_LLAMABENCH)->cols[col].type == PB_T_TEXT ? t->v[col].s : "";
}

bool pb_llamabench_is_tg(const pb_llamabench_test *t)
{
    return t->v[PB_LLAMABENCH_n_prompt].i == 0 && t->v[PB_LLAMABENCH_n_gen].i > 0;
}
