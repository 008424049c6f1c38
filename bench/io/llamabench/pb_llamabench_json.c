/* pb_llamabench_json.c — llama-bench's json (an array of objects) and jsonl (an object a line) read by jansson. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_llamabench_impl.h"

/* Duplicate keys refused (a field given twice), "\u0000" too (JSON_ALLOW_NUL not given: it would cut a value),
 * and jansson stops after each test's closing brace so that this file knows the line every test starts on. */
#define JS_FLAGS (JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK)

/* The place in the text, its line counted on as it moves forward (for messages and each test's line). */
typedef struct js_pos {
    pb_llamabench_build *b;
    const char *p, *end, *counted, *line_start;
    size_t line;
} js_pos;

static void js_count(js_pos *j)
{
    for (; j->counted < j->p; j->counted++)
        if (*j->counted == '\n') {
            j->line++;
            j->line_start = j->counted + 1;
        }
}

static size_t js_col(js_pos *j)
{
    js_count(j);
    return (size_t)(j->p - j->line_start) + 1;
}

/* pb_llamabench_fail at j's place. */
#define JS_FAIL(j, ...) (js_count(j), pb_llamabench_fail((j)->b, (j)->line, js_col(j), __VA_ARGS__))

/* Blanks; newlines too unless lines (jsonl: a newline ends a test's line). */
static void js_blanks(js_pos *j, bool lines)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || (*j->p == '\n' && !lines)))
        j->p++;
}

static bool js_at(const js_pos *j, char c) { return j->p < j->end && *j->p == c; }
static const char *js_what(const js_pos *j) { return j->p == j->end ? "the end of the file" : "this character"; }

/* A real as text: the shortest that reads back as the same double (what llama-bench printed, unless it printed
 * trailing zeros), with ".0" where that has no point or exponent, so that a real stays a real (16.0 is no count). */
static void js_real(pb_llamabench_build *b, double x)
{
    char s[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, x);
        if (strtod(s, NULL) == x)
            break;
    }
    if (!s[strspn(s, "-0123456789")])
        strcat(s, ".0");
    pb_llamabench_putn(b, s, strlen(s));
}

/* A scalar as the checks read it: a string's text, a number as written, true/false as words (a flag's) and null
 * as nothing. false where v is an array or an object. */
static bool js_scalar(pb_llamabench_build *b, const json_t *v)
{
    char s[32];
    if (json_is_string(v))
        pb_llamabench_putn(b, json_string_value(v), json_string_length(v));
    else if (json_is_integer(v))
        pb_llamabench_putn(b, s, (size_t)snprintf(s, sizeof s, "%" JSON_INTEGER_FORMAT, json_integer_value(v)));
    else if (json_is_real(v))
        js_real(b, json_real_value(v));
    else if (json_is_boolean(v))
        pb_llamabench_putn(b, json_is_true(v) ? "true" : "false", json_is_true(v) ? 4 : 5);
    return !json_is_array(v) && !json_is_object(v);
}

/* One field's value into the builder at *off: a scalar, or for a sample list an array of numbers as one text, the
 * numbers separated by spaces. */
static int js_value(pb_llamabench_build *b, int col, const json_t *v, size_t line, size_t *off)
{
    const char *name = pb_schema_name(PB_K_LLAMABENCH, col);
    bool list = pb_schema_get(PB_K_LLAMABENCH)->cols[col].rule == PB_CELL_LIST;
    *off = pb_llamabench_begin(b);
    if (list && json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            if (!json_is_number(x))
                return pb_llamabench_fail(b, line, 0, "field '%s': item %zu of the list is not a number (llama-bench "
                                          "writes a list of numbers)", name, i + 1);
            if (i)
                pb_llamabench_put(b, ' ');
            js_scalar(b, x);
        }
    } else if (!js_scalar(b, v)) {
        return pb_llamabench_fail(b, line, 0, "field '%s' holds %s, where llama-bench writes a %s", name,
                                  json_is_object(v) ? "an object" : "an array",
                                  list ? "list of numbers" : "string or number");
    }
    pb_llamabench_end(b);
    return 0;
}

/* The object at j's place, one test: jansson reads it (and stops after its '}'), its declared fields are filed
 * at the line it starts on; the others are read past. */
static int js_test(js_pos *j)
{
    size_t col = js_col(j), line = j->line;
    json_error_t err;
    json_t *o = json_loadb(j->p, (size_t)(j->end - j->p), JS_FLAGS, &err);
    if (!o) { /* jansson counts from where it started: this line and column */
        size_t eline = err.line > 0 ? line + (size_t)err.line - 1 : line;
        size_t ecol = err.column <= 0 ? 0 : err.line == 1 ? col + (size_t)err.column - 1 : (size_t)err.column;
        return pb_llamabench_fail(j->b, eline, ecol, "%s", err.text);
    }
    j->p += err.position;
    int rc = json_is_object(o) ? pb_llamabench_record(j->b, line)
                               : pb_llamabench_fail(j->b, line, col, "an array where a test's object ('{') belongs");
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        int c = pb_schema_col(PB_K_LLAMABENCH, key);
        size_t off;
        if (rc == 0 && c >= 0 && (rc = js_value(j->b, c, v, line, &off)) == 0)
            rc = pb_llamabench_field_col(j->b, j->b->n - 1, c, off, line, 0);
    }
    json_decref(o);
    return rc;
}

/* jsonl: an object a line (it may run over several), blank lines skipped. */
static int js_lines(js_pos *j)
{
    for (;;) {
        js_blanks(j, false);
        if (j->p == j->end)
            return 0;
        if (js_test(j) != 0)
            return -1;
        js_blanks(j, true);
        if (j->p < j->end && *j->p != '\n')
            return JS_FAIL(j, "more on the line after its object (jsonl holds one object a line)");
    }
}

/* json: [ object, ... ] and nothing after it but blanks. */
static int js_array(js_pos *j)
{
    js_blanks(j, false);
    if (!js_at(j, '['))
        return JS_FAIL(j, "%s where llama-bench's json starts with '['", js_what(j));
    j->p++;
    js_blanks(j, false);
    for (bool more = !js_at(j, ']'); more;) {
        if (js_test(j) != 0)
            return -1;
        js_blanks(j, false);
        if (!js_at(j, ',') && !js_at(j, ']'))
            return JS_FAIL(j, "%s where the array goes on with ',' or ends with ']'", js_what(j));
        more = *j->p == ',';
        j->p += more;
        js_blanks(j, false);
    }
    j->p++; /* the ']' */
    js_blanks(j, false);
    return j->p == j->end ? 0 : JS_FAIL(j, "more after the array's closing ']'");
}

int pb_llamabench_read_json(pb_llamabench_build *b, const char *data, size_t len, bool lines)
{
    js_pos j = { .b = b, .p = data, .end = data + len, .counted = data, .line_start = data, .line = 1 };
    return lines ? js_lines(&j) : js_array(&j);
}
