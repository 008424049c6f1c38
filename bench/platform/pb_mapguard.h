/* pb_mapguard.h — a file mapping whose file may shrink under it. A read past the end of a mapped file that was
 * truncated after it was mapped raises SIGBUS, which would kill the harness with nothing said and the rows in
 * flight lost. While a mapping is armed, SIGBUS at an address inside it instead maps zero pages from the faulting
 * page to the mapping's end (every page past a truncation is past the file's end) and trips the guard: the read
 * goes on with zeros, and the measuring loop, which asks pb_mapguard_tripped after each point, drops that point,
 * says which file shrank and stops as after any failure (rows published, the run marked incomplete). A SIGBUS
 * anywhere else keeps its default action.
 *
 *   pb_mapguard_arm(map, size);        // after mapping the file, before reading it
 *   ... if (pb_mapguard_tripped()) drop the point, fail naming the file (pb_mapguard_offset: where)
 *   pb_mapguard_disarm();              // before munmap */
#ifndef PB_MAPGUARD_H
#define PB_MAPGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Guards [base, base + len) (one mapping at a time; a second arm replaces the first) and installs the SIGBUS
 * handler. 0, or -1 with errno (sigaction's). */
int pb_mapguard_arm(const void *base, size_t len);
/* No mapping is guarded any more (its addresses may be reused): SIGBUS takes its default action again. */
void pb_mapguard_disarm(void);
/* True once a read in the guarded mapping found no file behind it. */
bool pb_mapguard_tripped(void);
/* The offset into the mapping of the first such read (0 while none). */
uint64_t pb_mapguard_offset(void);

#endif
