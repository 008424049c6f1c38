/* pb_vec.c — see pb_vec.h. */
#include "pb_vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void *pb_vec_push(pb_vec *v)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 64;
        if (cap > (size_t)-1 / v->size) {
            errno = ENOMEM;
            return NULL;
        }
        void *items = realloc(v->items, cap * v->size);
        if (!items)
            return NULL; /* realloc set ENOMEM; v->items is untouched */
        v->items = items;
        v->cap = cap;
    }
    void *item = (char *)v->items + v->n++ * v->size;
    memset(item, 0, v->size);
    return item;
}

void pb_vec_pop(pb_vec *v)
{
    if (v->n > 0)
        v->n--;
}

void pb_vec_free(pb_vec *v)
{
    free(v->items);
    v->items = NULL;
    v->n = v->cap = 0;
}
