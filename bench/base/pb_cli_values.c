/* pb_cli_values.c — the option kinds' value parsers (one row of kind_ops[] per kind: parser, default metavar,
 * hint for errors) and the text of what an option accepts; pb_cli.c interprets the table around them. Value
 * parsers write a reason without any prefix; pb_cli.c adds "PROG: --name: " or "PROG: VAR=VALUE: ". Parsers
 * fill a local copy first and store into dest only on success, so a rejected value never leaves a half-written
 * list behind. */
#include "pb_cli_values.h"

#include "pb_err.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*pb_value_parser)(const pb_opt *o, const char *val, char *why, size_t len);

typedef struct pb_kind_ops {
    pb_value_parser parse;
    const char *metavar; /* when the table gives none; NULL: the kind takes no value */
    const char *hint;    /* appended to "accepted ..." in errors */
} pb_kind_ops;

/* ---- bounds, as numbers and as text ------------------------------------------------------------------ */

/* min == max == 0 means "no bound": a table that could accept only 0 would be useless. List elements are
 * digits only (a '-' separates a range), so a list never goes below 0. */
static void long_bounds(const pb_opt *o, long *lo, long *hi)
{
    bool none = o->min == 0 && o->max == 0;
    *lo = none ? LONG_MIN : o->min;
    *hi = none ? LONG_MAX : o->max;
    if (o->kind == PB_OPT_LIST && *lo < 0)
        *lo = 0;
}

/* dmin == dmax == 0: no upper bound, and no lower bound unless dmin_open (then "> 0"). Infinities and NaN
 * never pass: the bounds are finite and NaN fails every comparison. */
static void double_bounds(const pb_opt *o, double *lo, double *hi)
{
    bool none = o->dmin == 0 && o->dmax == 0;
    *lo = none && !o->dmin_open ? -DBL_MAX : o->dmin;
    *hi = none ? DBL_MAX : o->dmax;
}

static bool double_in_range(const pb_opt *o, double v)
{
    double lo, hi;
    double_bounds(o, &lo, &hi);
    return (o->dmin_open ? v > lo : v >= lo) && v <= hi;
}

/* What the option accepts, e.g. "1..1024", "a number > 0 and <= 1", "one of spin, condvar"; "" for
 * strings and flags. */
void pb_cli_accepted_text(const pb_opt *o, char *buf, size_t len)
{
    buf[0] = '\0';
    if (o->kind == PB_OPT_INT || o->kind == PB_OPT_LIST) {
        long lo, hi;
        long_bounds(o, &lo, &hi);
        if (lo == LONG_MIN && hi == LONG_MAX)
            snprintf(buf, len, "any integer");
        else
            snprintf(buf, len, "%ld..%ld", lo, hi);
    } else if (o->kind == PB_OPT_DOUBLE || o->kind == PB_OPT_DLIST) {
        double lo, hi;
        double_bounds(o, &lo, &hi);
        char low[48] = "", high[48] = "";
        if (o->dmin_open || lo > -DBL_MAX)
            snprintf(low, sizeof low, " %s %g", o->dmin_open ? ">" : ">=", lo);
        if (hi < DBL_MAX)
            snprintf(high, sizeof high, "%s <= %g", low[0] ? " and" : "", hi);
        snprintf(buf, len, "%s%s%s", low[0] || high[0] ? "a number" : "any number", low, high);
    } else if (o->kind == PB_OPT_WORDS) {
        snprintf(buf, len, "comma-separated words, each once");
    } else if ((o->kind == PB_OPT_CHOICES || o->kind == PB_OPT_CHOICE) && o->choices) {
        size_t at = (size_t)snprintf(buf, len, "one of");
        for (int i = 0; o->choices[i] && at < len; i++)
            at += (size_t)snprintf(buf + at, len - at, "%s %s", i ? "," : "", o->choices[i]);
    }
}

/* "<why>: accepted <bounds><hint>", the tail of every value error. */
static int reject(const pb_opt *o, const char *hint, char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int reject(const pb_opt *o, const char *hint, char *why, size_t len, const char *fmt, ...)
{
    char head[PB_ERR_MAX / 2], acc[PB_ERR_MAX / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    pb_cli_accepted_text(o, acc, sizeof acc);
    return pb_errf(why, len, "%s: accepted %s%s", head, acc, hint ? hint : "");
}

/* ---- numbers: strict, the element ends at *end ------------------------------------------------------- */

/* Whether p may start a number: strtol/strtod would skip a leading space, and read "" as nothing. */
static bool scan_starts(const char *p)
{
    return *p != '\0' && !isspace((unsigned char)*p);
}

/* A scan's verdict from where it started and ended: 0, -1 not a number, -2 overflow. */
static int scan_verdict(const char *p, const char *end)
{
    if (end == p)
        return -1;
    return errno == ERANGE ? -2 : 0;
}

/* 0, -1 not a number (empty, a leading space), -2 overflow. */
static int scan_long(const char *p, char **end, long *v)
{
    if (!scan_starts(p))
        return -1;
    errno = 0;
    *v = strtol(p, end, 10);
    return scan_verdict(p, *end);
}

/* Whether p spells a hexadecimal number ("0x10", "-0X.8"), which strtod takes and an integer option does not. */
static bool hex_form(const char *p)
{
    p += *p == '+' || *p == '-';
    return p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
}

/* Decimal only: strtod would read "0x10" as 16. */
static int scan_double(const char *p, char **end, double *v)
{
    if (!scan_starts(p) || hex_form(p))
        return -1;
    errno = 0;
    *v = strtod(p, end);
    return scan_verdict(p, *end);
}

/* ---- lists ------------------------------------------------------------------------------------------- */

static const char list_hint[] = " (a list like 1,2,4 or a range like 1-8)";

static bool list_has(const pb_list *l, long v)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i] == v)
            return true;
    return false;
}

/* One element of a list, p .. the next ',' or the end: "N" or "A-B". Appends to out. */
static int list_element(const pb_opt *o, const char *p, const char **next, pb_list *out, char *why, size_t len)
{
    int elen = (int)strcspn(p, ",");
    long lo, hi, a = 0, b = 0;
    char *end = NULL;
    long_bounds(o, &lo, &hi);
    *next = p + elen;
    if (elen == 0)
        return reject(o, list_hint, why, len, "empty element");
    /* digits only: a '-' or '+' first would read as a sign, and '-' is the range separator */
    int ra = isdigit((unsigned char)*p) ? scan_long(p, &end, &a) : -1;
    int rb = ra;
    b = a; /* "N" is the range N-N */
    if (ra != -1 && *end == '-')
        rb = isdigit((unsigned char)end[1]) ? scan_long(end + 1, &end, &b) : -1;
    if (ra == -1 || rb == -1 || end != p + elen)
        return reject(o, list_hint, why, len, "'%.*s' is not a number or range", elen, p);
    if (ra == -2 || rb == -2 || a < lo || b > hi)
        return reject(o, list_hint, why, len, "'%.*s' is out of range", elen, p);
    if (b < a)
        return reject(o, list_hint, why, len, "'%.*s' is a descending range", elen, p);
    if ((unsigned long)(b - a) >= (unsigned long)(PB_LIST_MAX - out->n))
        return reject(o, list_hint, why, len, "more than %d values in '%.*s'", PB_LIST_MAX, elen, p);
    for (long k = 0; k <= b - a; k++) { /* by offset: v <= b would overflow when b is LONG_MAX */
        if (list_has(out, a + k))
            return reject(o, list_hint, why, len, "%ld is given twice", a + k);
        out->v[out->n++] = a + k;
    }
    return 0;
}

/* Splits s at ',' and hands each element to one of the list parsers: "" and "," have empty elements. */
typedef int (*pb_element_parser)(const pb_opt *o, const char *p, const char **next, void *out, char *why,
                                 size_t len);

/* Parses the whole list into tmp (a zeroed pb_list or pb_dlist of size bytes, what elem fills), then copies it
 * to dest: a rejected list leaves dest as it was. */
static int list_into(const pb_opt *o, const char *s, pb_element_parser elem, void *tmp, size_t size, void *dest,
                     char *why, size_t len)
{
    const char *p = s;
    for (;;) {
        if (elem(o, p, &p, tmp, why, len) < 0)
            return -1;
        if (*p == '\0')
            break;
        p++; /* the ',' */
    }
    memcpy(dest, tmp, size);
    return 0;
}

/* Adapts list_element to the type-erased element signature: out is the pb_list list_into was given. */
static int int_elem(const pb_opt *o, const char *p, const char **next, void *out, char *why, size_t len)
{
    return list_element(o, p, next, out, why, len);
}

int pb_parse_list(const char *s, long min, long max, pb_list *out, char *err, size_t errlen)
{
    pb_opt o = { .kind = PB_OPT_LIST, .min = min, .max = max };
    pb_list tmp = { .n = 0 };
    char why[PB_ERR_MAX];
    if (list_into(&o, s, int_elem, &tmp, sizeof tmp, out, why, sizeof why) < 0)
        return err ? pb_errf(err, errlen, "%s", why) : -1;
    return 0;
}

/* ---- value parsers, one per kind. dest's type is the one the header gives for o->kind; kind_ops[] is
 * indexed by kind, so each parser only ever sees options of its own kind and its cast of dest is safe. -- */

static int parse_flag(const pb_opt *o, const char *val, char *why, size_t len)
{
    /* NULL: "--quick" on the command line; a string: the environment */
    static const char *const words[][2] = { { "1", "0" }, { "yes", "no" }, { "true", "false" }, { "on", "off" } };
    for (size_t i = 0; val && i < sizeof words / sizeof words[0]; i++)
        for (int f = 0; f < 2; f++)
            if (strcasecmp(val, words[i][f]) == 0) {
                *(bool *)o->dest = f == 0;
                return 0;
            }
    if (val)
        return pb_errf(why, len, "'%s' is not a switch value: accepted 1/0, yes/no, true/false, on/off", val);
    *(bool *)o->dest = true;
    return 0;
}

static int parse_int(const pb_opt *o, const char *val, char *why, size_t len)
{
    long v, lo, hi;
    char *end;
    int r = scan_long(val, &end, &v);
    long_bounds(o, &lo, &hi);
    if (r == -1 || *end != '\0')
        return reject(o, NULL, why, len, "'%s' is not an integer", val);
    if (r == -2 || v < lo || v > hi)
        return reject(o, NULL, why, len, "'%s' is out of range", val);
    *(long *)o->dest = v;
    return 0;
}

/* One double ending at ',' (DLIST) or at the end (both kinds). */
static int double_element(const pb_opt *o, const char *p, const char **next, double *v, char *why, size_t len,
                          const char *hint)
{
    int elen = (int)strcspn(p, ",");
    char *end;
    int r = scan_double(p, &end, v);
    *next = p + elen;
    if (elen == 0)
        return reject(o, hint, why, len, "empty element");
    if (r == -1 || end != p + elen)
        return reject(o, hint, why, len, "'%.*s' is not a number", elen, p);
    if (r == -2 || !double_in_range(o, *v))
        return reject(o, hint, why, len, "'%.*s' is out of range", elen, p);
    return 0;
}

static int parse_double(const pb_opt *o, const char *val, char *why, size_t len)
{
    const char *next;
    double v;
    if (double_element(o, val, &next, &v, why, len, NULL) < 0)
        return -1;
    if (*next != '\0')
        return reject(o, NULL, why, len, "'%s' is not a number", val);
    *(double *)o->dest = v;
    return 0;
}

static const char dlist_hint[] = " (comma-separated)";

/* out is the pb_dlist parse_dlist handed to list_into. */
static int dlist_elem(const pb_opt *o, const char *p, const char **next, void *out, char *why, size_t len)
{
    pb_dlist *l = out;
    double v;
    if (double_element(o, p, next, &v, why, len, dlist_hint) < 0)
        return -1;
    for (int i = 0; i < l->n; i++)
        if (l->v[i] == v) /* equal values, whatever their spelling ("0.5" and ".50") */
            return reject(o, dlist_hint, why, len, "'%.*s' is given twice", (int)(*next - p), p);
    if (l->n == PB_LIST_MAX)
        return reject(o, dlist_hint, why, len, "more than %d values", PB_LIST_MAX);
    l->v[l->n++] = v;
    return 0;
}

static int parse_dlist(const pb_opt *o, const char *val, char *why, size_t len)
{
    pb_dlist tmp = { .n = 0, .text = val };
    return list_into(o, val, dlist_elem, &tmp, sizeof tmp, o->dest, why, len);
}

static int parse_string(const pb_opt *o, const char *val, char *why, size_t len)
{
    (void)why, (void)len;
    *(const char **)o->dest = val;
    return 0;
}

static int parse_repeat(const pb_opt *o, const char *val, char *why, size_t len)
{
    pb_strs *s = o->dest;
    if (s->n == PB_STRS_MAX)
        return pb_errf(why, len, "given more than %d times: accepted at most %d", PB_STRS_MAX, PB_STRS_MAX);
    s->v[s->n++] = val;
    return 0;
}

static int parse_list(const pb_opt *o, const char *val, char *why, size_t len)
{
    pb_list tmp = { .n = 0, .text = val };
    return list_into(o, val, int_elem, &tmp, sizeof tmp, o->dest, why, len);
}

static int find_choice(const pb_opt *o, const char *p, size_t n)
{
    for (int i = 0; o->choices && o->choices[i]; i++)
        if (strlen(o->choices[i]) == n && strncmp(o->choices[i], p, n) == 0)
            return i;
    return -1;
}

static const char choices_hint[] = " (comma-separated, or all)";

static int add_choice(const pb_opt *o, pb_list *l, int c, char *why, size_t len)
{
    if (list_has(l, c))
        return reject(o, choices_hint, why, len, "'%s' is given twice", o->choices[c]);
    if (l->n == PB_LIST_MAX)
        return reject(o, choices_hint, why, len, "more than %d values", PB_LIST_MAX);
    l->v[l->n++] = c;
    return 0;
}

/* out is the pb_list parse_choices handed to list_into. "all" adds every choice in table order. */
static int choice_elem(const pb_opt *o, const char *p, const char **next, void *out, char *why, size_t len)
{
    size_t n = strcspn(p, ",");
    int c = find_choice(o, p, n);
    *next = p + n;
    if (n == 0)
        return reject(o, choices_hint, why, len, "empty element");
    if (c >= 0)
        return add_choice(o, out, c, why, len);
    if (n != 3 || strncmp(p, "all", 3) != 0)
        return reject(o, choices_hint, why, len, "'%.*s' is unknown", (int)n, p);
    for (int i = 0; o->choices && o->choices[i]; i++)
        if (add_choice(o, out, i, why, len) < 0)
            return -1;
    return 0;
}

static int parse_choices(const pb_opt *o, const char *val, char *why, size_t len)
{
    pb_list tmp = { .n = 0, .text = val };
    return list_into(o, val, choice_elem, &tmp, sizeof tmp, o->dest, why, len);
}

static int parse_choice(const pb_opt *o, const char *val, char *why, size_t len)
{
    int c = find_choice(o, val, strlen(val));
    if (c < 0)
        return reject(o, NULL, why, len, "'%s' is unknown", val);
    *(long *)o->dest = c;
    return 0;
}

/* out is the string parse_words handed to list_into, which starts at the first word: a word is refused when
 * empty or when an earlier one reads the same. */
static int word_elem(const pb_opt *o, const char *p, const char **next, void *out, char *why, size_t len)
{
    const char *first = *(const char **)out;
    size_t n = strcspn(p, ",");
    *next = p + n;
    if (n == 0)
        return reject(o, NULL, why, len, "empty element");
    for (const char *q = first; q < p; q += strcspn(q, ",") + 1)
        if (strcspn(q, ",") == n && strncmp(q, p, n) == 0)
            return reject(o, NULL, why, len, "'%.*s' is given twice", (int)n, p);
    return 0;
}

/* The harness reads the words itself; stored only when every one passed. */
static int parse_words(const pb_opt *o, const char *val, char *why, size_t len)
{
    const char *tmp = val;
    return list_into(o, val, word_elem, &tmp, sizeof tmp, o->dest, why, len);
}

static const pb_kind_ops kind_ops[] = {
    [PB_OPT_FLAG] = { .parse = parse_flag, .metavar = NULL },
    [PB_OPT_INT] = { .parse = parse_int, .metavar = "N" },
    [PB_OPT_DOUBLE] = { .parse = parse_double, .metavar = "X" },
    [PB_OPT_STRING] = { .parse = parse_string, .metavar = "STR" },
    [PB_OPT_LIST] = { .parse = parse_list, .metavar = "LIST", .hint = list_hint },
    [PB_OPT_DLIST] = { .parse = parse_dlist, .metavar = "X,Y", .hint = dlist_hint },
    [PB_OPT_CHOICES] = { .parse = parse_choices, .metavar = "NAMES", .hint = choices_hint },
    [PB_OPT_CHOICE] = { .parse = parse_choice, .metavar = "NAME" },
    [PB_OPT_WORDS] = { .parse = parse_words, .metavar = "LIST" },
    [PB_OPT_REPEAT] = { .parse = parse_repeat, .metavar = "STR" },
};

int pb_cli_value_parse(const pb_opt *o, const char *val, char *why, size_t len)
{
    return kind_ops[o->kind].parse(o, val, why, len);
}

const char *pb_cli_kind_metavar(const pb_opt *o) { return kind_ops[o->kind].metavar; }
