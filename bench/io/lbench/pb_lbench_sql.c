/* pb_lbench_sql.c — llama-bench's sql into the builder: what it writes and nothing else, CREATE TABLE [IF NOT
 * EXISTS] llama_bench (name TYPE, ...); then INSERT INTO llama_bench (names) VALUES (values); one per test.
 * Keywords in any case; a value is a '...' string ('' a quote inside it), a number or NULL (empty); "-- " starts
 * a comment to the line's end. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pb_lbench_cursor.h"

#define SQL_MAX_COLS 1024 /* names in one INSERT: llama-bench writes about 40 */

/* White space and comments. */
static void sws(pb_lbench_cur *c)
{
    while (c->p < c->end) {
        if (*c->p == '\n') {
            pb_lbench_newline(c);
        } else if (*c->p == '-' && c->p + 1 < c->end && c->p[1] == '-') {
            while (c->p < c->end && *c->p != '\n')
                c->p++;
            continue;
        } else if (!isspace((unsigned char)*c->p)) {
            return;
        }
        c->p++;
    }
}

static bool ident_char(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* The identifier at c->p, its length (0 when there is none). */
static size_t ident_len(const pb_lbench_cur *c)
{
    if (c->p == c->end || !(isalpha((unsigned char)*c->p) || *c->p == '_'))
        return 0;
    size_t n = 1;
    while (c->p + n < c->end && ident_char(c->p[n]))
        n++;
    return n;
}

/* The keyword kw (any case) next, taken; false (nothing taken) otherwise. */
static bool skw(pb_lbench_cur *c, const char *kw)
{
    size_t n = ident_len(c);
    if (n != strlen(kw) || strncasecmp(c->p, kw, n) != 0)
        return false;
    c->p += n;
    sws(c);
    return true;
}

static int expect_kw(pb_lbench_cur *c, const char *kw, const char *where)
{
    return skw(c, kw) ? 0 : PB_LBENCH_ERR(c, "expected %s %s", kw, where);
}

static int expect_ch(pb_lbench_cur *c, char ch, const char *where)
{
    if (c->p == c->end || *c->p != ch)
        return PB_LBENCH_ERR(c, "expected '%c' %s", ch, where);
    c->p++;
    sws(c);
    return 0;
}

/* The table's name: llama-bench's. */
static int table_name(pb_lbench_cur *c)
{
    return skw(c, "llama_bench") ? 0 : PB_LBENCH_ERR(c, "expected the table llama_bench (the one llama-bench writes)");
}

/* An identifier into the builder: *off. */
static int sident(pb_lbench_cur *c, size_t *off, const char *what)
{
    size_t n = ident_len(c);
    if (!n)
        return PB_LBENCH_ERR(c, "expected %s (a name)", what);
    *off = pb_lbench_begin(c->b);
    pb_lbench_putn(c->b, c->p, n);
    pb_lbench_end(c->b);
    c->p += n;
    sws(c);
    return 0;
}

/* CREATE TABLE [IF NOT EXISTS] llama_bench ( name TYPE, ... ) ; — checked, nothing kept. */
static int create(pb_lbench_cur *c)
{
    if (expect_kw(c, "TABLE", "after CREATE") != 0)
        return -1;
    if (skw(c, "IF") && (expect_kw(c, "NOT", "after IF") != 0 || expect_kw(c, "EXISTS", "after IF NOT") != 0))
        return -1;
    if (table_name(c) != 0 || expect_ch(c, '(', "before the columns") != 0)
        return -1;
    do {
        size_t off;
        if (sident(c, &off, "a column's name") != 0)
            return -1;
        pb_lbench_drop(c->b, off);
        if (!skw(c, "TEXT") && !skw(c, "INTEGER") && !skw(c, "REAL"))
            return PB_LBENCH_ERR(c, "expected a column's type: TEXT, INTEGER or REAL");
    } while (c->p < c->end && *c->p == ',' && (c->p++, sws(c), true));
    return expect_ch(c, ')', "after the columns") == 0 ? expect_ch(c, ';', "after CREATE TABLE's ')'") : -1;
}

/* One value into the builder: '...' (a quote doubled inside), a number, or NULL. */
static int svalue(pb_lbench_cur *c, size_t *off)
{
    *off = pb_lbench_begin(c->b);
    if (skw(c, "NULL")) {
        pb_lbench_end(c->b);
        return 0;
    }
    if (c->p < c->end && *c->p == '\'') {
        pb_lbench_cur open = *c;
        for (c->p++;; c->p++) {
            if (c->p == c->end)
                return PB_LBENCH_ERR(&open, "a string without its closing quote (its opening quote)");
            if (*c->p == '\'' && c->p + 1 < c->end && c->p[1] == '\'') {
                pb_lbench_put(c->b, '\'');
                c->p++;
            } else if (*c->p == '\'') {
                break;
            } else {
                if (*c->p == '\n')
                    pb_lbench_newline(c);
                pb_lbench_put(c->b, *c->p);
            }
        }
        c->p++;
    } else {
        size_t n = 0;
        while (c->p + n < c->end && strchr("+-.0123456789eE", c->p[n]) && c->p[n])
            n++;
        if (!n)
            return PB_LBENCH_ERR(c, "expected a value: a '...' string, a number or NULL");
        pb_lbench_putn(c->b, c->p, n);
        c->p += n;
    }
    pb_lbench_end(c->b);
    sws(c);
    return 0;
}

/* INSERT INTO llama_bench ( names ) VALUES ( values ) ; — one test. */
static int insert(pb_lbench_cur *c, size_t line)
{
    size_t names[SQL_MAX_COLS], nnames = 0;
    if (expect_kw(c, "INTO", "after INSERT") != 0 || table_name(c) != 0 || expect_ch(c, '(', "before the names") != 0)
        return -1;
    do {
        if (nnames == SQL_MAX_COLS)
            return PB_LBENCH_ERR(c, "more than %d columns in one INSERT", SQL_MAX_COLS);
        if (sident(c, &names[nnames++], "a column's name") != 0)
            return -1;
    } while (c->p < c->end && *c->p == ',' && (c->p++, sws(c), true));
    if (expect_ch(c, ')', "after the names") != 0 || expect_kw(c, "VALUES", "after the names") != 0 ||
        expect_ch(c, '(', "before the values") != 0 || pb_lbench_record(c->b, line) != 0)
        return -1;
    for (size_t i = 0; i < nnames; i++) {
        if (i && expect_ch(c, ',', "between values (fewer values than names?)") != 0)
            return -1;
        size_t fline = c->line, fcol = pb_lbench_col(c), off;
        if (svalue(c, &off) != 0)
            return -1;
        char name[128];
        snprintf(name, sizeof name, "%s", pb_lbench_text(c->b, names[i]));
        if (pb_lbench_field(c->b, name, off, fline, fcol) != 0)
            return -1;
    }
    if (c->p < c->end && *c->p == ',')
        return PB_LBENCH_ERR(c, "more values than the %zu names", nnames);
    if (expect_ch(c, ')', "after the values") != 0 || expect_ch(c, ';', "after INSERT's ')'") != 0)
        return -1;
    return 0;
}

int pb_lbench_read_sql(pb_lbench_build *b, const char *data, size_t len)
{
    pb_lbench_cur c = pb_lbench_cur_at(b, data, len);
    sws(&c);
    while (c.p < c.end) {
        size_t line = c.line;
        int rc = skw(&c, "CREATE") ? create(&c)
                 : skw(&c, "INSERT") ? insert(&c, line)
                 : PB_LBENCH_ERR(&c, "a statement llama-bench does not write (CREATE TABLE or INSERT INTO "
                                     "llama_bench)");
        if (rc != 0)
            return -1;
    }
    return 0;
}
