/* pb_check_expect.c — reading an expect file (the grammar is in pb_check.h). A line that does not parse is an
 * error naming the file and the line: a gate whose rules were silently skipped would pass anything. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_check.h"
#include "pb_err.h"
#include "pb_infile.h"

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* A finite number that is all of s. */
static int number(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return end != s && *end == '\0' && !errno && isfinite(*out) ? 0 : -1;
}

/* "key=text", "key>=number" or "key<=number", whose key is an attribute of fam (a number for >= and <=). */
static int parse_filter(char *s, const pb_family *fam, pb_expect_filter *f, char *err, size_t errlen)
{
    char *op = strpbrk(s, "=<>");
    if (!op || op == s)
        return pb_errf(err, errlen, "filter '%s': KEY=TEXT, KEY>=NUMBER or KEY<=NUMBER", s);
    f->op = *op == '=' ? '=' : *op;
    if (f->op != '=' && op[1] != '=')
        return pb_errf(err, errlen, "filter '%s': KEY=TEXT, KEY>=NUMBER or KEY<=NUMBER", s);
    *op = '\0';
    const char *val = f->op == '=' ? op + 1 : op + 2;
    const pb_family_attr *a = pb_family_attr_find(fam, s);
    if (!a) {
        char names[512];
        pb_family_attr_names(fam, names, sizeof names);
        return pb_errf(err, errlen, "no attribute '%s' in %s to filter on (%s)", s, fam->name, names);
    }
    double unused;
    const char *opstr = f->op == '=' ? "=" : f->op == '>' ? ">=" : "<=";
    if (f->op != '=' && !pb_family_attr_numeric(fam, a))
        return pb_errf(err, errlen, "filter '%s%s%s': '%s' is text: compare it with =", s, opstr, val, s);
    if (!*val)
        return pb_errf(err, errlen, "filter '%s%s': no value after '%s'", s, opstr, opstr);
    if (f->op != '=' && number(val, &unused) != 0)
        return pb_errf(err, errlen, "filter '%s%s%s': '%s' is not a number", s, opstr, val, val);
    bool fits = (size_t)snprintf(f->key, sizeof f->key, "%s", s) < sizeof f->key &&
                (size_t)snprintf(f->val, sizeof f->val, "%s", val) < sizeof f->val;
    return fits ? 0 : pb_errf(err, errlen, "filter '%s': its value is longer than %zu bytes", s, sizeof f->val - 1);
}

/* FAMILY.FIGURE[FILTER,...]: every name one that pb_schema.h declares, so a misspelt one is an error, not an
 * invariant that matches no point. */
static int parse_selector(char *sel, pb_invariant *inv, char *err, size_t errlen)
{
    char *dot = strchr(sel, '.'), *open = strchr(sel, '['), names[512];
    if (!dot || (open && open < dot))
        return pb_errf(err, errlen, "'%s' is not FAMILY.FIGURE[FILTERS]", sel);
    *dot = '\0';
    const pb_family *fam = pb_family_find(sel);
    if (!fam) {
        pb_family_names(names, sizeof names);
        return pb_errf(err, errlen, "no point family '%s' (%s)", sel, names);
    }
    snprintf(inv->family, sizeof inv->family, "%s", fam->name);
    size_t close = open ? strlen(open) - 1 : 0;
    if (open && open[close] != ']')
        return pb_errf(err, errlen, "the filters after '%s' do not end with ']'", dot + 1);
    if (open) {
        *open = '\0';
        open[close] = '\0';
    }
    if (!dot[1])
        return pb_errf(err, errlen, "no figure after '%s.'", fam->name);
    int fig = pb_family_fig(fam, dot + 1);
    if (fig < 0) {
        pb_family_fig_names(fam, names, sizeof names);
        return pb_errf(err, errlen, "no figure '%s' in %s (%s)", dot + 1, fam->name, names);
    }
    snprintf(inv->figure, sizeof inv->figure, "%s", fam->figs[fig]);
    char *save = NULL;
    for (char *f = open ? strtok_r(open + 1, ",", &save) : NULL; f; f = strtok_r(NULL, ",", &save)) {
        if (inv->nfilter == PB_EXPECT_FILTERS)
            return pb_errf(err, errlen, "more than %d filters", PB_EXPECT_FILTERS);
        if (parse_filter(f, fam, &inv->filter[inv->nfilter++], err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* One rule: "SELECTOR OP BOUND", then the reason after '#'. */
static int parse_rule(char *body, const char *why, pb_invariant *inv, char *err, size_t errlen)
{
    if (!why[0])
        return pb_errf(err, errlen, "no reason after a '#': every invariant says why it holds on any machine");
    /* Three words, each whole: a word cut at a buffer's size would be read as two. */
    char *word[4] = { NULL }, *save = NULL;
    int n = 0;
    for (char *w = strtok_r(body, " \t", &save); w && n < 4; w = strtok_r(NULL, " \t", &save))
        word[n++] = w;
    if (n != 3)
        return pb_errf(err, errlen, "not FAMILY.FIGURE[FILTERS] >=|<= NUMBER");
    char *sel = word[0];
    const char *op = word[1], *bound = word[2];
    if ((size_t)snprintf(inv->text, sizeof inv->text, "%s %s %s", sel, op, bound) >= sizeof inv->text ||
        (size_t)snprintf(inv->why, sizeof inv->why, "%s", why) >= sizeof inv->why)
        return pb_errf(err, errlen, "longer than a rule (%zu bytes) and its reason (%zu) may be", sizeof inv->text,
                       sizeof inv->why);
    if (strcmp(op, ">=") && strcmp(op, "<="))
        return pb_errf(err, errlen, "'%.16s' is no comparison (>= or <=)", op);
    inv->op = op[0];
    if (number(bound, &inv->bound) != 0)
        return pb_errf(err, errlen, "'%.64s' is not a number", bound);
    return parse_selector(sel, inv, err, errlen);
}

/* A line into e: a comment or blank line adds nothing. */
static int parse_line(pb_expect *e, char *line, int lineno, char *err, size_t errlen)
{
    char *body = trim(line);
    if (!*body || *body == '#')
        return 0;
    char *hash = strchr(body, '#');
    const char *why = "";
    if (hash) {
        *hash = '\0';
        why = trim(hash + 1);
    }
    pb_invariant *inv = realloc(e->inv, (size_t)(e->n + 1) * sizeof *inv);
    if (!inv)
        return pb_errf(err, errlen, "out of memory");
    e->inv = inv;
    inv = &e->inv[e->n];
    *inv = (pb_invariant){ .line = lineno };
    char why_err[512];
    if (parse_rule(body, why, inv, why_err, sizeof why_err) != 0)
        return pb_errf(err, errlen, "%s:%d: %s", e->path, lineno, why_err);
    e->n++;
    return 0;
}

/* The end of reading: a file without a rule is an error too (a gate with no rule passes anything). */
static int finish(pb_expect *e, int rc, char *err, size_t errlen)
{
    if (rc == 0 && e->n == 0)
        rc = pb_errf(err, errlen, "%s: no invariant in it", e->path);
    if (rc != 0)
        pb_expect_free(e);
    return rc;
}

/* A line is text: tabs, and CR LF at its end, but no other control character (a NUL would hide the rest of the
 * line; the others would reach the output in a rule's text or reason, and a message stays one plain line). */
static int text_line(pb_expect *e, char *line, size_t n, int lineno, char *err, size_t errlen)
{
    size_t end = n;
    if (end && line[end - 1] == '\n')
        end--;
    if (end && line[end - 1] == '\r')
        end--;
    for (size_t i = 0; i < end; i++) {
        unsigned char c = (unsigned char)line[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return pb_errf(err, errlen, "%s:%d: a control character (byte 0x%02x): an expect file is text", e->path,
                           lineno, c);
    }
    return parse_line(e, line, lineno, err, errlen);
}

int pb_expect_load(pb_expect *e, const char *path, char *err, size_t errlen)
{
    *e = (pb_expect){ 0 };
    snprintf(e->path, sizeof e->path, "%s", path);
    FILE *f = pb_infile_fopen(AT_FDCWD, path, PB_INFILE_TEXT_MAX, "an expect file", err, errlen);
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0, lineno = 0;
    while (rc == 0 && (n = getline(&line, &cap, f)) >= 0)
        rc = text_line(e, line, (size_t)n, ++lineno, err, errlen);
    free(line);
    fclose(f);
    return finish(e, rc, err, errlen);
}

int pb_expect_parse(pb_expect *e, const char *name, const char *text, size_t len, char *err, size_t errlen)
{
    *e = (pb_expect){ 0 };
    snprintf(e->path, sizeof e->path, "%s", name);
    char *line = malloc(len + 1);
    if (!line)
        return pb_errf(err, errlen, "%s: out of memory", name);
    int rc = 0, lineno = 0;
    for (size_t at = 0; rc == 0 && at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) + 1 : len - at;
        memcpy(line, text + at, n);
        line[n] = '\0';
        rc = text_line(e, line, n, ++lineno, err, errlen);
        at += n;
    }
    free(line);
    return finish(e, rc, err, errlen);
}

void pb_expect_free(pb_expect *e)
{
    free(e->inv);
    e->inv = NULL;
    e->n = 0;
}
