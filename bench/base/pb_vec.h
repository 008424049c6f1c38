/* pb_vec.h — a growable array of fixed-size items: the rows a harness keeps for its table while it writes each
 * one to its CSV as it is measured.
 *
 *   pb_vec rows = PB_VEC(po_row);
 *   po_row *r = pb_vec_push(&rows);        // zeroed; NULL (errno ENOMEM) leaves the items so far in place
 *   for (size_t i = 0; i < rows.n; i++) use(PB_VEC_AT(&rows, po_row, i));
 *   pb_vec_free(&rows);
 *
 * A push may move the items: pointers into the array hold until the next push only. */
#ifndef PB_VEC_H
#define PB_VEC_H

#include <stddef.h>

typedef struct pb_vec {
    void *items;
    size_t n, cap; /* items held, items room */
    size_t size;   /* bytes per item */
} pb_vec;

#define PB_VEC(type) ((pb_vec){ .size = sizeof(type) })
#define PB_VEC_AT(v, type, i) (&((type *)(v)->items)[i])

/* Appends one zeroed item and returns it, or NULL with errno ENOMEM (the array as it was). */
void *pb_vec_push(pb_vec *v);
/* Drops the last item (one pushed for a point that then failed). */
void pb_vec_pop(pb_vec *v);
void pb_vec_free(pb_vec *v);

#endif
