/* json_mini.h — a strict JSON reader (RFC 8259) for the tests of results.json: a value tree with look-ups.
 * Strict where a writer can go wrong: no trailing comma, no NaN or Infinity, no leading zero or bare '.', no
 * control character or invalid UTF-8 inside a string, \u escapes with their surrogate pairs, nothing after the
 * value. Header-only: each test file that includes it gets its own static copies. */
#ifndef JSON_MINI_H
#define JSON_MINI_H

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_md_escape.h"

typedef enum jm_type { JM_NULL, JM_BOOL, JM_NUM, JM_STR, JM_ARR, JM_OBJ } jm_type;

typedef struct jm_val {
    jm_type type;
    bool b;
    double num;
    char *str;            /* JM_STR: the decoded text (UTF-8, NUL-terminated) */
    struct jm_val *items; /* JM_ARR: n items; JM_OBJ: n values, their keys in keys */
    char **keys;
    size_t n;
} jm_val;

typedef struct jm_parser {
    const char *s, *at;
    int depth;
    char *err;
    size_t errlen;
} jm_parser;

#define JM_MAX_DEPTH 64

static inline int jm_fail(jm_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int jm_fail(jm_parser *p, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (p->err && p->err[0] == '\0')
        snprintf(p->err, p->errlen, "offset %zu: %s", (size_t)(p->at - p->s), what);
    return -1;
}

static inline void jm_ws(jm_parser *p)
{
    while (*p->at == ' ' || *p->at == '\t' || *p->at == '\n' || *p->at == '\r')
        p->at++;
}

static int jm_value(jm_parser *p, jm_val *v);

/* Appends the code point cp to buf (UTF-8). */
static inline size_t jm_put_utf8(char *buf, unsigned cp)
{
    if (cp < 0x80) {
        buf[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        buf[0] = (char)(0xc0 | cp >> 6);
        buf[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        buf[0] = (char)(0xe0 | cp >> 12);
        buf[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        buf[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    buf[0] = (char)(0xf0 | cp >> 18);
    buf[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    buf[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    buf[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static inline int jm_hex4(jm_parser *p, unsigned *out)
{
    *out = 0;
    for (int i = 0; i < 4; i++, p->at++) {
        char c = *p->at;
        if (!isxdigit((unsigned char)c))
            return jm_fail(p, "\\u needs four hex digits");
        *out = *out << 4 | (unsigned)(isdigit((unsigned char)c) ? c - '0' : (tolower((unsigned char)c) - 'a' + 10));
    }
    return 0;
}

/* A \u escape (p->at after the 'u'), a surrogate pair taken whole, into buf. */
static inline int jm_unicode(jm_parser *p, char *buf, size_t *len)
{
    unsigned cp, lo;
    if (jm_hex4(p, &cp) != 0)
        return -1;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return jm_fail(p, "a low surrogate without its high one");
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (p->at[0] != '\\' || p->at[1] != 'u')
            return jm_fail(p, "a high surrogate without its low one");
        p->at += 2;
        if (jm_hex4(p, &lo) != 0)
            return -1;
        if (lo < 0xdc00 || lo > 0xdfff)
            return jm_fail(p, "a high surrogate without its low one");
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    *len += jm_put_utf8(buf + *len, cp);
    return 0;
}

static inline int jm_escape(jm_parser *p, char *buf, size_t *len)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    char c = *p->at++;
    if (c == 'u')
        return jm_unicode(p, buf, len);
    const char *k = c ? strchr(from, c) : NULL;
    if (!k)
        return jm_fail(p, "unknown escape \\%c", c);
    buf[(*len)++] = to[k - from];
    return 0;
}

/* A string (p->at on its opening quote) into *out (malloc'd). */
static inline int jm_string(jm_parser *p, char **out)
{
    p->at++;
    char *buf = malloc(strlen(p->at) + 1); /* the decoded text is never longer than the source */
    size_t len = 0;
    while (buf && *p->at != '"') {
        unsigned char c = (unsigned char)*p->at;
        size_t n = c >= 0x80 ? pb_utf8_length((const unsigned char *)p->at) : 1;
        if (c == '\0' || c < 0x20 || n == 0) {
            free(buf);
            return jm_fail(p, c == '\0' ? "unterminated string" : c < 0x20 ? "a control character in a string"
                                                                            : "invalid UTF-8 in a string");
        }
        if (c == '\\') {
            p->at++;
            if (jm_escape(p, buf, &len) != 0) {
                free(buf);
                return -1;
            }
            continue;
        }
        memcpy(buf + len, p->at, n);
        len += n;
        p->at += n;
    }
    if (!buf)
        return jm_fail(p, "out of memory");
    buf[len] = '\0';
    p->at++;
    *out = buf;
    return 0;
}

/* The grammar's number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static inline int jm_number(jm_parser *p, jm_val *v)
{
    const char *s = p->at;
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (isdigit((unsigned char)*s))
        while (isdigit((unsigned char)*s))
            s++;
    else
        return jm_fail(p, "not a value");
    if (*s == '.') {
        if (!isdigit((unsigned char)*++s))
            return jm_fail(p, "a '.' without digits after it");
        while (isdigit((unsigned char)*s))
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s += s[1] == '+' || s[1] == '-' ? 2 : 1;
        if (!isdigit((unsigned char)*s))
            return jm_fail(p, "an exponent without digits");
        while (isdigit((unsigned char)*s))
            s++;
    }
    v->type = JM_NUM;
    v->num = strtod(p->at, NULL);
    p->at = s;
    return 0;
}

/* Items of an array or members of an object, after its opening bracket, up to close. */
static inline int jm_items(jm_parser *p, jm_val *v, char close)
{
    bool obj = close == '}';
    jm_ws(p);
    if (*p->at == close) {
        p->at++;
        return 0;
    }
    for (;;) {
        jm_val *items = realloc(v->items, (v->n + 1) * sizeof *items);
        char **keys = obj ? realloc(v->keys, (v->n + 1) * sizeof *keys) : v->keys;
        if (!items || (obj && !keys))
            return jm_fail(p, "out of memory");
        v->items = items;
        v->keys = keys;
        /* The slot is counted before it is filled, so jm_free releases whatever a failure left in it. */
        memset(&v->items[v->n], 0, sizeof *items);
        if (obj)
            v->keys[v->n] = NULL;
        size_t i = v->n++;
        if (obj) {
            jm_ws(p);
            if (*p->at != '"' || jm_string(p, &v->keys[i]) != 0)
                return jm_fail(p, "an object key must be a string");
            jm_ws(p);
            if (*p->at++ != ':')
                return jm_fail(p, "':' expected after a key");
        }
        if (jm_value(p, &v->items[i]) != 0)
            return -1;
        jm_ws(p);
        char c = *p->at++;
        if (c == close)
            return 0;
        if (c != ',')
            return jm_fail(p, "',' or '%c' expected", close);
        jm_ws(p);
        if (*p->at == close)
            return jm_fail(p, "a trailing comma");
    }
}

static int jm_value(jm_parser *p, jm_val *v)
{
    static const struct { const char *word; jm_type type; bool b; } words[] = {
        { "null", JM_NULL, false }, { "true", JM_BOOL, true }, { "false", JM_BOOL, false },
    };
    jm_ws(p);
    if (++p->depth > JM_MAX_DEPTH)
        return jm_fail(p, "nested too deep");
    int rc = 0;
    if (*p->at == '{' || *p->at == '[') {
        v->type = *p->at == '{' ? JM_OBJ : JM_ARR;
        p->at++;
        rc = jm_items(p, v, v->type == JM_OBJ ? '}' : ']');
    } else if (*p->at == '"') {
        v->type = JM_STR;
        rc = jm_string(p, &v->str);
    } else {
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strncmp(p->at, words[i].word, strlen(words[i].word)) == 0) {
                v->type = words[i].type;
                v->b = words[i].b;
                p->at += strlen(words[i].word);
                p->depth--;
                return 0;
            }
        rc = jm_number(p, v);
    }
    p->depth--;
    return rc;
}

static inline void jm_free(jm_val *v)
{
    for (size_t i = 0; i < v->n; i++) {
        jm_free(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    *v = (jm_val){ .type = JM_NULL };
}

/* Parses the whole text into *out. 0, or -1 with "offset N: what" in err (out freed). */
static inline int jm_parse(const char *text, jm_val *out, char *err, size_t errlen)
{
    jm_parser p = { .s = text, .at = text, .err = err, .errlen = errlen };
    if (err && errlen)
        err[0] = '\0';
    *out = (jm_val){ .type = JM_NULL };
    int rc = jm_value(&p, out);
    jm_ws(&p);
    if (rc == 0 && *p.at != '\0')
        rc = jm_fail(&p, "text after the value");
    if (rc != 0)
        jm_free(out);
    return rc;
}

/* The whole file at path, NUL-terminated (malloc'd: results.json outgrows tf_slurp's buffer); NULL when it cannot
 * be read. */
static inline char *jm_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) != NULL) {
        size_t got = fread(text, 1, (size_t)n, f);
        text[got] = '\0';
    }
    if (f)
        fclose(f);
    return text;
}

/* An object's member by key (the first of that name), NULL when absent or v is no object. */
static inline const jm_val *jm_get(const jm_val *v, const char *key)
{
    for (size_t i = 0; v && v->type == JM_OBJ && i < v->n; i++)
        if (strcmp(v->keys[i], key) == 0)
            return &v->items[i];
    return NULL;
}

#endif
