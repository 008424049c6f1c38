/* What each cell rule of pb_schema.h accepts: one table, read by every reader that checks cells (the report's
 * CSVs, bench_report --check, the llama-bench reader). */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pb_csvread.h"
#include "pb_schema.h"

/* One row per pb_cell_rule. */
static const struct cell_rule {
    const char *accepts; /* for the message */
    double min, max;
    bool integer;
    bool absent_ok;      /* nan or an empty field: not measured */
    bool any;            /* text: every cell follows it */
    bool word;           /* text of one word: a plot's key */
    bool list;           /* numbers separated by spaces, each following the bounds */
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
    [PB_CELL_FLAG] = { .accepts = "0 or 1 (false or true)", .min = 0, .max = 2, .integer = true },
    [PB_CELL_LIST] = { .accepts = "finite numbers ≥ 0 separated by spaces", .min = 0, .max = HUGE_VAL,
                       .list = true },
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

static bool number_ok(const struct cell_rule *r, double v)
{
    return v >= r->min && v < r->max && (!r->integer || v == floor(v));
}

/* Every word of s a number within r's bounds, and at least one. */
static bool list_ok(const struct cell_rule *r, const char *s)
{
    int n = 0;
    for (;;) {
        s += strspn(s, " ");
        if (!*s)
            return n > 0;
        char *end;
        double v = strtod(s, &end);
        if (end == s || (*end && *end != ' ') || !number_ok(r, v))
            return false;
        s = end;
        n++;
    }
}

bool pb_cell_ok(pb_cell_rule rule, const char *s)
{
    const struct cell_rule *r = &cell_rules[rule];
    double v;
    if (r->any)
        return true;
    if (r->word)
        return one_word(s);
    if (r->list)
        return list_ok(r, s);
    if (pb_parse_num(s, &v) != 0)
        return r->absent_ok && blank(s);
    if (isnan(v))
        return r->absent_ok;
    return number_ok(r, v);
}

const char *pb_cell_accepts(pb_cell_rule rule) { return cell_rules[rule].accepts; }

int pb_cell_cpus(const char *s, int *out, int max)
{
    int n = 0;
    while (*s) {
        if (!isdigit((unsigned char)*s)) {
            s++;
            continue;
        }
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (*end == '-') {
            if (!isdigit((unsigned char)end[1]))
                return -1;
            b = strtol(end + 1, &end, 10);
            if (b < a)
                return -1;
        }
        for (long c = a; c <= b && n < max; c++)
            out[n++] = (int)c;
        s = end;
    }
    return n;
}

#define PB_CELL_MAX_CPUS 1024 /* a cpus cell longer than this cannot match a pool (POOL_MAX_THREADS) */

bool pb_cell_cpus_are(const char *cell, const int *cpus, int n)
{
    int got[PB_CELL_MAX_CPUS];
    int ng = pb_cell_cpus(cell, got, PB_CELL_MAX_CPUS);
    return ng == n && memcmp(got, cpus, (size_t)n * sizeof *cpus) == 0;
}
