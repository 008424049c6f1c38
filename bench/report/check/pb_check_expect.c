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

static const char *const families[] = { "decode", "dispatch", "kernel", "overlap", "floor", NULL };

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

/* "key=text", "key>=number" or "key<=number". */
static int parse_filter(char *s, pb_expect_filter *f)
{
    char *op = strpbrk(s, "=<>");
    if (!op || op == s)
        return -1;
    f->op = *op == '=' ? '=' : *op;
    if (f->op != '=' && op[1] != '=')
        return -1;
    *op = '\0';
    const char *val = f->op == '=' ? op + 1 : op + 2;
    double unused;
    if (!*val || (f->op != '=' && number(val, &unused) != 0))
        return -1;
    bool fits = (size_t)snprintf(f->key, sizeof f->key, "%s", s) < sizeof f->key &&
                (size_t)snprintf(f->val, sizeof f->val, "%s", val) < sizeof f->val;
    return fits ? 0 : -1;
}

/* FAMILY.FIGURE[FILTER,...] */
static int parse_selector(char *sel, pb_invariant *inv, char *err, size_t errlen)
{
    char *dot = strchr(sel, '.'), *open = strchr(sel, '[');
    if (!dot || (open && open < dot))
        return pb_errf(err, errlen, "'%s' is not FAMILY.FIGURE[FILTERS]", sel);
    *dot = '\0';
    if ((size_t)snprintf(inv->family, sizeof inv->family, "%s", sel) >= sizeof inv->family)
        return pb_errf(err, errlen, "no point family '%s' (decode, dispatch, kernel, overlap, floor)", sel);
    bool known = false;
    for (const char *const *f = families; *f; f++)
        known |= strcmp(*f, inv->family) == 0;
    if (!known)
        return pb_errf(err, errlen, "no point family '%s' (decode, dispatch, kernel, overlap, floor)", inv->family);
    size_t close = open ? strlen(open) - 1 : 0;
    if (open && open[close] != ']')
        return pb_errf(err, errlen, "the filters after '%s' do not end with ']'", dot + 1);
    if (open) {
        *open = '\0';
        open[close] = '\0';
    }
    if ((size_t)snprintf(inv->figure, sizeof inv->figure, "%s", dot + 1) >= sizeof inv->figure)
        return pb_errf(err, errlen, "no figure is called '%s'", dot + 1);
    for (char *f = open ? strtok(open + 1, ",") : NULL; f; f = strtok(NULL, ",")) {
        if (inv->nfilter == PB_EXPECT_FILTERS || parse_filter(f, &inv->filter[inv->nfilter++]) != 0)
            return pb_errf(err, errlen, "filter '%s': KEY=TEXT, KEY>=NUMBER or KEY<=NUMBER (at most %d)", f,
                           PB_EXPECT_FILTERS);
    }
    return inv->figure[0] ? 0 : pb_errf(err, errlen, "no figure after '%s.'", inv->family);
}

/* One rule: "SELECTOR OP BOUND", then the reason after '#'. */
static int parse_rule(char *body, const char *why, pb_invariant *inv, char *err, size_t errlen)
{
    char sel[160], op[8], bound[64], extra[2];
    if (!why[0])
        return pb_errf(err, errlen, "no reason after a '#': every invariant says why it holds on any machine");
    if (sscanf(body, "%159s %7s %63s %1s", sel, op, bound, extra) != 3)
        return pb_errf(err, errlen, "not FAMILY.FIGURE[FILTERS] >=|<= NUMBER");
    if ((size_t)snprintf(inv->text, sizeof inv->text, "%s %s %s", sel, op, bound) >= sizeof inv->text ||
        (size_t)snprintf(inv->why, sizeof inv->why, "%s", why) >= sizeof inv->why)
        return pb_errf(err, errlen, "longer than a rule (%zu bytes) and its reason (%zu) may be", sizeof inv->text,
                       sizeof inv->why);
    if (strcmp(op, ">=") && strcmp(op, "<="))
        return pb_errf(err, errlen, "'%s' is no comparison (>= or <=)", op);
    inv->op = op[0];
    if (number(bound, &inv->bound) != 0)
        return pb_errf(err, errlen, "'%s' is not a number", bound);
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

int pb_expect_load(pb_expect *e, const char *path, char *err, size_t errlen)
{
    *e = (pb_expect){ 0 };
    snprintf(e->path, sizeof e->path, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f)
        return pb_errf(err, errlen, "%s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int rc = 0, lineno = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0)
        rc = parse_line(e, line, ++lineno, err, errlen);
    free(line);
    fclose(f);
    if (rc == 0 && e->n == 0)
        rc = pb_errf(err, errlen, "%s: no invariant in it", path);
    if (rc != 0)
        pb_expect_free(e);
    return rc;
}

void pb_expect_free(pb_expect *e)
{
    free(e->inv);
    e->inv = NULL;
    e->n = 0;
}
