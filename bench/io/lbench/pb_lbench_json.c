/* pb_lbench_json.c — llama-bench's json (one array of objects) and jsonl (one object a line) into the builder.
 * RFC 8259 throughout; a declared field holds a string, a number, true/false (a flag's), null (as empty) or, for
 * the sample lists, an array of numbers (as space-separated text). A field the schema does not declare may hold
 * any JSON value, nested at most JSON_MAX_DEPTH deep, and is read past. */
#include <stdint.h>
#include <string.h>

#include "pb_lbench_cursor.h"

#define JSON_MAX_DEPTH 64 /* nesting of a value read past: llama-bench writes none; this only bounds the stack */

/* Spaces, tabs, CRs; newlines too unless lines (jsonl: a line end ends an object's line). */
static void jws(pb_lbench_cur *c, bool lines)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || (*c->p == '\n' && !lines))) {
        if (*c->p == '\n')
            pb_lbench_newline(c);
        c->p++;
    }
}

static bool jat(const pb_lbench_cur *c, char ch) { return c->p < c->end && *c->p == ch; }

static const char *jwhat(const pb_lbench_cur *c)
{
    return c->p == c->end ? "the end of the file" : "this character";
}

/* Four hex digits at p. -1 when they are not. */
static long hex4(const char *p, const char *end)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        if (p + i >= end)
            return -1;
        char ch = p[i];
        int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                                                 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static void put_utf8(pb_lbench_build *b, uint32_t u)
{
    if (u < 0x80) {
        pb_lbench_put(b, (char)u);
    } else if (u < 0x800) {
        pb_lbench_put(b, (char)(0xc0 | (u >> 6)));
        pb_lbench_put(b, (char)(0x80 | (u & 0x3f)));
    } else if (u < 0x10000) {
        pb_lbench_put(b, (char)(0xe0 | (u >> 12)));
        pb_lbench_put(b, (char)(0x80 | ((u >> 6) & 0x3f)));
        pb_lbench_put(b, (char)(0x80 | (u & 0x3f)));
    } else {
        pb_lbench_put(b, (char)(0xf0 | (u >> 18)));
        pb_lbench_put(b, (char)(0x80 | ((u >> 12) & 0x3f)));
        pb_lbench_put(b, (char)(0x80 | ((u >> 6) & 0x3f)));
        pb_lbench_put(b, (char)(0x80 | (u & 0x3f)));
    }
}

/* \uXXXX at c->p (on the backslash), a surrogate pair taken whole. */
static int junicode(pb_lbench_cur *c)
{
    long hi = hex4(c->p + 2, c->end);
    if (hi < 0)
        return PB_LBENCH_ERR(c, "\\u without four hex digits");
    if (hi == 0)
        return PB_LBENCH_ERR(c, "\\u0000, a NUL, which would cut the string (no llama-bench field holds one)");
    c->p += 6;
    uint32_t u = (uint32_t)hi;
    if (hi >= 0xd800 && hi <= 0xdbff) {
        long lo = c->end - c->p >= 2 && c->p[0] == '\\' && c->p[1] == 'u' ? hex4(c->p + 2, c->end) : -1;
        if (lo < 0xdc00 || lo > 0xdfff)
            return PB_LBENCH_ERR(c, "a high surrogate \\u%04lx without its low one", hi);
        u = 0x10000 + (((uint32_t)hi - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
        c->p += 6;
    } else if (hi >= 0xdc00 && hi <= 0xdfff) {
        return PB_LBENCH_ERR(c, "a low surrogate \\u%04lx without a high one before it", hi);
    }
    put_utf8(c->b, u);
    return 0;
}

/* A string at c->p (its opening quote), unescaped into the builder: *off where it starts. */
static int jstring(pb_lbench_cur *c, size_t *off)
{
    static const char plain[] = "\"\\/bfnrt", meant[] = "\"\\/\b\f\n\r\t";
    pb_lbench_cur open = *c;
    *off = pb_lbench_begin(c->b);
    c->p++;
    for (;;) {
        if (c->p == c->end)
            return PB_LBENCH_ERR(&open, "a string without its closing quote (its opening quote)");
        unsigned char ch = (unsigned char)*c->p;
        if (ch == '"')
            break;
        if (ch < 0x20)
            return PB_LBENCH_ERR(c, "a control character (byte 0x%02x) inside a string: JSON writes it escaped", ch);
        if (ch != '\\') {
            pb_lbench_put(c->b, (char)ch);
            c->p++;
            continue;
        }
        const char *esc = c->p + 1 < c->end ? strchr(plain, c->p[1]) : NULL;
        if (c->p + 1 < c->end && c->p[1] == 'u') {
            if (junicode(c) != 0)
                return -1;
        } else if (esc && *esc) {
            pb_lbench_put(c->b, meant[esc - plain]);
            c->p += 2;
        } else {
            return PB_LBENCH_ERR(c, "an escape JSON does not have (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
        }
    }
    c->p++;
    pb_lbench_end(c->b);
    return 0;
}

static bool digit(const pb_lbench_cur *c) { return c->p < c->end && *c->p >= '0' && *c->p <= '9'; }

/* A number by RFC 8259's grammar, its text into the builder. */
static int jnumber(pb_lbench_cur *c, size_t *off)
{
    pb_lbench_cur at = *c;
    const char *s = c->p;
    c->p += jat(c, '-');
    if (!digit(c))
        return PB_LBENCH_ERR(&at, "not a JSON value (a string, number, true, false, null, array or object)");
    if (*c->p == '0')
        c->p++;
    else
        while (digit(c))
            c->p++;
    if (jat(c, '.')) {
        c->p++;
        if (!digit(c))
            return PB_LBENCH_ERR(c, "a number's fraction without digits");
        while (digit(c))
            c->p++;
    }
    if (jat(c, 'e') || jat(c, 'E')) {
        c->p++;
        c->p += jat(c, '+') || jat(c, '-');
        if (!digit(c))
            return PB_LBENCH_ERR(c, "a number's exponent without digits");
        while (digit(c))
            c->p++;
    }
    *off = pb_lbench_begin(c->b);
    pb_lbench_putn(c->b, s, (size_t)(c->p - s));
    pb_lbench_end(c->b);
    return 0;
}

/* true, false or null, written as themselves or (null) nothing: the checks take a boolean for a flag only. */
static int jliteral(pb_lbench_cur *c, size_t *off)
{
    static const struct { const char *word, *as; } lit[] = { { "true", "true" }, { "false", "false" },
                                                             { "null", "" } };
    for (size_t i = 0; i < sizeof lit / sizeof lit[0]; i++) {
        size_t n = strlen(lit[i].word);
        if ((size_t)(c->end - c->p) >= n && memcmp(c->p, lit[i].word, n) == 0) {
            c->p += n;
            *off = pb_lbench_begin(c->b);
            pb_lbench_putn(c->b, lit[i].as, strlen(lit[i].as));
            pb_lbench_end(c->b);
            return 0;
        }
    }
    return jnumber(c, off);
}

static int jscalar(pb_lbench_cur *c, size_t *off)
{
    return jat(c, '"') ? jstring(c, off) : jliteral(c, off);
}

/* Before every item of a list but the first: the ',' between two items (what: "array" or "object"). */
static int jcomma(pb_lbench_cur *c, bool first, const char *what, char close)
{
    if (first)
        return 0;
    if (!jat(c, ','))
        return PB_LBENCH_ERR(c, "%s where the %s goes on with ',' or ends with '%c'", jwhat(c), what, close);
    c->p++;
    jws(c, false);
    return 0;
}

/* A group whose opening bracket is at c->p, up to its close (taken): item(c, depth) for each item, the commas
 * between them checked (what: "array" or "object", for messages). */
static int jgroup(pb_lbench_cur *c, char close, const char *what, int (*item)(pb_lbench_cur *, int), int depth)
{
    c->p++;
    jws(c, false);
    for (bool first = true; !jat(c, close); first = false) {
        if (jcomma(c, first, what, close) != 0 || item(c, depth) != 0)
            return -1;
        jws(c, false);
    }
    c->p++;
    return 0;
}

/* A member's name and its ':' (what: "field" or "member", for messages); *key: the name's text. */
static int jname(pb_lbench_cur *c, const char *what, size_t *key)
{
    if (!jat(c, '"'))
        return PB_LBENCH_ERR(c, "%s where a %s's name (a string) belongs", jwhat(c), what);
    if (jstring(c, key) != 0)
        return -1;
    jws(c, false);
    if (!jat(c, ':'))
        return PB_LBENCH_ERR(c, "%s where ':' belongs after a %s's name", jwhat(c), what);
    c->p++;
    jws(c, false);
    return 0;
}

/* One number of a sample list: its NUL becomes the space before the next one. */
static int jsample(pb_lbench_cur *c, int depth)
{
    (void)depth;
    size_t n;
    if (jat(c, '"') || jat(c, '[') || jat(c, '{') || jnumber(c, &n) != 0)
        return PB_LBENCH_ERR(c, "%s in a list of samples, where llama-bench writes numbers", jwhat(c));
    if (!c->b->oom)
        c->b->text[c->b->len - 1] = ' ';
    return 0;
}

/* An array of numbers (a sample list), as one text: the numbers separated by spaces. */
static int jnumbers(pb_lbench_cur *c, size_t *off)
{
    pb_lbench_build *b = c->b;
    *off = pb_lbench_begin(b);
    if (jgroup(c, ']', "array", jsample, 0) != 0)
        return -1;
    if (!b->oom && b->len > *off)
        b->len--; /* the space after the last number */
    pb_lbench_end(b);
    return 0;
}

static int jskip(pb_lbench_cur *c, int depth);

/* A member of an object read past. */
static int jskip_member(pb_lbench_cur *c, int depth)
{
    size_t key;
    if (jname(c, "member", &key) != 0)
        return -1;
    pb_lbench_drop(c->b, key);
    return jskip(c, depth);
}

/* An object or array read past (a field the schema does not declare). */
static int jskip_group(pb_lbench_cur *c, int depth)
{
    if (depth >= JSON_MAX_DEPTH)
        return PB_LBENCH_ERR(c, "values nested more than %d deep", JSON_MAX_DEPTH);
    return *c->p == '{' ? jgroup(c, '}', "object", jskip_member, depth + 1)
                        : jgroup(c, ']', "array", jskip, depth + 1);
}

static int jskip(pb_lbench_cur *c, int depth)
{
    if (jat(c, '{') || jat(c, '['))
        return jskip_group(c, depth);
    size_t off;
    if (jscalar(c, &off) != 0)
        return -1;
    pb_lbench_drop(c->b, off);
    return 0;
}

/* One member of a test at nesting depth: "name": value, filed when the schema declares the name. */
static int jmember(pb_lbench_cur *c, int depth)
{
    size_t key;
    if (jname(c, "field", &key) != 0)
        return -1;
    int col = pb_schema_col(PB_K_LBENCH, pb_lbench_text(c->b, key));
    pb_lbench_drop(c->b, key);
    if (col < 0)
        return jskip(c, depth);
    size_t line = c->line, at = pb_lbench_col(c), off;
    bool list = pb_schema_get(PB_K_LBENCH)->cols[col].rule == PB_CELL_LIST;
    if (jat(c, '{') || (jat(c, '[') && !list))
        return PB_LBENCH_ERR(c, "field '%s' holds %s, where llama-bench writes a %s", pb_schema_name(PB_K_LBENCH, col),
                             jat(c, '{') ? "an object" : "an array", list ? "list of numbers" : "string or number");
    if ((jat(c, '[') ? jnumbers(c, &off) : jscalar(c, &off)) != 0)
        return -1;
    return pb_lbench_field_col(c->b, c->b->n - 1, col, off, line, at);
}

/* One object at c->p (nesting depth): a test. */
static int jobject(pb_lbench_cur *c, int depth)
{
    if (!jat(c, '{'))
        return PB_LBENCH_ERR(c, "%s where a test's object ('{') belongs", jwhat(c));
    if (pb_lbench_record(c->b, c->line) != 0)
        return -1;
    return jgroup(c, '}', "object", jmember, depth + 1);
}

/* json: [ object, ... ] and nothing after it but white space. */
static int read_array(pb_lbench_cur *c)
{
    jws(c, false);
    if (!jat(c, '['))
        return PB_LBENCH_ERR(c, "%s where llama-bench's json starts with '['", jwhat(c));
    if (jgroup(c, ']', "array", jobject, 0) != 0)
        return -1;
    jws(c, false);
    return c->p == c->end ? 0 : PB_LBENCH_ERR(c, "more after the array's closing ']'");
}

/* jsonl: one object a line; blank lines skipped. */
static int read_lines(pb_lbench_cur *c)
{
    for (;;) {
        jws(c, false);
        if (c->p == c->end)
            return 0;
        if (jobject(c, 0) != 0)
            return -1;
        jws(c, true);
        if (c->p < c->end && *c->p != '\n')
            return PB_LBENCH_ERR(c, "more on the line after its object (jsonl holds one object a line)");
    }
}

int pb_lbench_read_json(pb_lbench_build *b, const char *data, size_t len, bool lines)
{
    pb_lbench_cur c = pb_lbench_cur_at(b, data, len);
    return lines ? read_lines(&c) : read_array(&c);
}
