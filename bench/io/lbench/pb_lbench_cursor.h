/* pb_lbench_cursor.h — the place of a text reader (json, sql) in llama-bench's output: the next byte, the end and
 * the line it is on, for messages that name a line and a column. Inline only: the readers share it, and no reader
 * calls another. */
#ifndef PB_LBENCH_CURSOR_H
#define PB_LBENCH_CURSOR_H

#include <stddef.h>

#include "pb_lbench_impl.h"

/* A text reader's place (json, sql): the next byte, the end, and the line it is on, for messages. */
typedef struct pb_lbench_cur {
    const char *p, *end, *line_start;
    size_t line; /* 1-based */
    pb_lbench_build *b;
} pb_lbench_cur;

/* A cursor at data's first byte, line 1. */
static inline pb_lbench_cur pb_lbench_cur_at(pb_lbench_build *b, const char *data, size_t len)
{
    return (pb_lbench_cur){ .p = data, .end = data + len, .line_start = data, .line = 1, .b = b };
}

/* The 1-based column of c->p. */
static inline size_t pb_lbench_col(const pb_lbench_cur *c) { return (size_t)(c->p - c->line_start) + 1; }

/* c->p is at a newline: the next line starts after it. */
static inline void pb_lbench_newline(pb_lbench_cur *c)
{
    c->line++;
    c->line_start = c->p + 1;
}

/* pb_lbench_fail at c's line and column. */
#define PB_LBENCH_ERR(c, ...) pb_lbench_fail((c)->b, (c)->line, pb_lbench_col(c), __VA_ARGS__)

#endif
